// SPDX-License-Identifier: Apache-2.0
// The generic ELF64 container under the kernel binary: writer input checks and layout, and a
// parse of what it writes.
#include "compiler/target/elf_image.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilejit::target::elf {
namespace {

using ::testing::HasSubstr;

const std::vector<uint8_t> kData = {1, 2, 3};

Status WriteStatus(std::vector<SectionSpec> specs) {
  return WriteElfImage(kTypeRel, kMachineTilejitNpu, 0, specs).status();
}

TEST(ElfImageWriter, RejectsBadSectionSpecs) {
  EXPECT_THAT(WriteStatus({{"", kShtProgbits, 0, 1, kData}}).message(), HasSubstr("bad ELF"));
  EXPECT_THAT(WriteStatus({{std::string("a\0b", 3), kShtProgbits, 0, 1, kData}}).message(),
              HasSubstr("bad ELF"));
  EXPECT_THAT(WriteStatus({{".shstrtab", kShtProgbits, 0, 1, kData}}).message(),
              HasSubstr("bad ELF"));
  EXPECT_THAT(
      WriteStatus({{".a", kShtProgbits, 0, 1, kData}, {".a", kShtProgbits, 0, 1, kData}}).message(),
      HasSubstr("duplicate"));
  EXPECT_THAT(WriteStatus({{".a", kShtProgbits, 0, 3, kData}}).message(),
              HasSubstr("bad alignment"));
  EXPECT_THAT(WriteStatus({{".a", kShtProgbits, 0, 8192, kData}}).message(),
              HasSubstr("bad alignment"));
  EXPECT_THAT(WriteStatus({{".a", kShtNull, 0, 1, kData}}).message(), HasSubstr("type NULL"));
  EXPECT_EQ(WriteStatus(std::vector<SectionSpec>(kMaxSections - 1)).code(),
            StatusCode::kInvalidArgument);
}

TEST(ElfImageWriter, AlignsSectionsAndZeroFillsGaps) {
  const std::vector<SectionSpec> specs = {{".a", kShtProgbits, 0, 1, kData},
                                          {".b", kShtProgbits, 0, 16, kData}};
  auto image = WriteElfImage(kTypeRel, kMachineTilejitNpu, 7, specs);
  ASSERT_TRUE(image.ok()) << image.status();
  auto parsed = ParseElfImage(*image, kTypeRel, kMachineTilejitNpu);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->header.flags, 7u);
  ASSERT_EQ(parsed->sections.size(), 2u);
  EXPECT_EQ(parsed->sections[0].header.offset, 64u);
  EXPECT_EQ(parsed->sections[1].header.offset, 80u);
  for (size_t i = 67; i < 80; ++i) EXPECT_EQ((*image)[i], 0) << i;
  EXPECT_EQ(parsed->sections[1].name, ".b");
  EXPECT_EQ(std::vector<uint8_t>(parsed->sections[1].data.begin(), parsed->sections[1].data.end()),
            kData);
  EXPECT_EQ(LoadLe(image->data() + 40, 8) % 8, 0u);
}

TEST(ElfImageReader, RejectsTypeAndMachineOtherThanRequested) {
  auto image = WriteElfImage(kTypeRel, kMachineTilejitNpu, 0, std::vector<SectionSpec>{});
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(ParseElfImage(*image, 2, kMachineTilejitNpu).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseElfImage(*image, kTypeRel, 62).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ParseElfImage(*image, kTypeRel, kMachineTilejitNpu).ok());
}

}  // namespace
}  // namespace tilejit::target::elf
