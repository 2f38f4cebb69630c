// SPDX-License-Identifier: Apache-2.0
// The kernel binary reader's checks on section headers, the section set, and the section
// contents (metadata, code, line tables). One test per rejection.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "compiler/target/binary.h"
#include "tests/compiler/target/binary_samples.h"
#include "tests/compiler/target/binary_test_util.h"

namespace tilejit::target {
namespace {

using testing::BuildRaw;
using testing::Bytes;
using testing::ExpectRejected;
using ::testing::HasSubstr;
using testing::ReplaceOnce;
using testing::SampleBinary;
using testing::SectionHeaderOffset;
using testing::StandardSections;

// Section header field offsets (Elf64_Shdr) and section indices in a written file.
constexpr size_t kShName = 0, kShType = 4, kShOffset = 24, kShSize = 32, kShAlign = 48;
constexpr size_t kAicIdx = 1, kAivIdx = 2, kMetaIdx = 3, kLinesIdx = 4, kStrIdx = 6;

std::vector<uint8_t> SampleImage() { return BuildRaw(StandardSections(SampleBinary())); }

void PatchShdr(std::vector<uint8_t>& bytes, size_t index, size_t field, uint64_t value,
               size_t width) {
  elf::StoreLe(bytes.data() + SectionHeaderOffset(bytes, index) + field, value, width);
}

std::string Meta() {
  auto m = SerializeKernelMetadata(SampleBinary().metadata);
  return m.ok() ? *m : "";
}

// The sample image with its metadata text replaced by `meta`.
std::vector<uint8_t> WithMeta(const std::string& meta) {
  auto sections = StandardSections(SampleBinary());
  sections[2].data = Bytes(meta);
  return BuildRaw(sections);
}

TEST(KernelBinaryReader, AcceptsTheSampleBuiltByHand) {
  auto r = ReadKernelBinary(SampleImage());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, SampleBinary());
}

TEST(KernelBinaryReader, SourceSectionMayBeEmptyButNotOverrun) {
  KernelBinary plain = SampleBinary();
  plain.source = {};
  auto r = ReadKernelBinary(BuildRaw(StandardSections(plain)));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, plain);
  auto sections = StandardSections(SampleBinary());
  sections[4].data[0] = 0xff;  // configs longer than the section
  ExpectRejected(BuildRaw(sections), StatusCode::kCorruption, "pass configs overrun");
  sections[4].data.resize(3);
  ExpectRejected(BuildRaw(sections), StatusCode::kCorruption, "shorter than its header");
}

TEST(KernelBinaryReader, RejectsSectionTableOutOfRange) {
  std::vector<uint8_t> bytes = SampleImage();
  elf::StoreLe(bytes.data() + 40, bytes.size() - 8, 8);
  ExpectRejected(bytes, StatusCode::kCorruption, "section header table extends past");
}

TEST(KernelBinaryReader, RejectsMisalignedSectionTable) {
  std::vector<uint8_t> bytes = SampleImage();
  elf::StoreLe(bytes.data() + 40, elf::LoadLe(bytes.data() + 40, 8) - 4, 8);
  ExpectRejected(bytes, StatusCode::kCorruption, "misaligned");
}

TEST(KernelBinaryReader, RejectsSectionCountOutOfRange) {
  std::vector<uint8_t> bytes = SampleImage();
  elf::StoreLe(bytes.data() + 60, 0, 2);
  ExpectRejected(bytes, StatusCode::kCorruption, "section count 0");
}

TEST(KernelBinaryReader, RejectsNonNullSectionZero) {
  std::vector<uint8_t> bytes = SampleImage();
  PatchShdr(bytes, 0, kShType, elf::kShtProgbits, 4);
  ExpectRejected(bytes, StatusCode::kCorruption, "null section");
}

TEST(KernelBinaryReader, RejectsSectionPastEndOfFile) {
  std::vector<uint8_t> bytes = SampleImage();
  PatchShdr(bytes, kMetaIdx, kShSize, uint64_t{1} << 62, 8);
  ExpectRejected(bytes, StatusCode::kCorruption, "extends past the end");
  bytes = SampleImage();
  PatchShdr(bytes, kMetaIdx, kShOffset, ~uint64_t{0} - 3, 8);  // offset + size wraps
  ExpectRejected(bytes, StatusCode::kCorruption, "extends past the end");
}

TEST(KernelBinaryReader, RejectsMisalignedSection) {
  std::vector<uint8_t> bytes = SampleImage();
  PatchShdr(bytes, kAivIdx, kShOffset,
            elf::LoadLe(bytes.data() + SectionHeaderOffset(bytes, 2) + kShOffset, 8) + 1, 8);
  ExpectRejected(bytes, StatusCode::kCorruption, "misaligned");
}

TEST(KernelBinaryReader, RejectsBadAlignmentValue) {
  std::vector<uint8_t> bytes = SampleImage();
  PatchShdr(bytes, kAicIdx, kShAlign, 24, 8);
  ExpectRejected(bytes, StatusCode::kCorruption, "bad alignment");
}

TEST(KernelBinaryReader, RejectsOverlappingSections) {
  std::vector<uint8_t> bytes = SampleImage();
  const uint64_t aic = elf::LoadLe(bytes.data() + SectionHeaderOffset(bytes, 1) + kShOffset, 8);
  PatchShdr(bytes, kAivIdx, kShOffset, aic, 8);
  ExpectRejected(bytes, StatusCode::kCorruption, "overlap");
}

TEST(KernelBinaryReader, RejectsSectionOverlappingHeaderTable) {
  std::vector<uint8_t> bytes = SampleImage();
  PatchShdr(bytes, kLinesIdx, kShOffset, elf::LoadLe(bytes.data() + 40, 8), 8);
  ExpectRejected(bytes, StatusCode::kCorruption, "overlap");
}

TEST(KernelBinaryReader, RejectsSectionInsideElfHeader) {
  std::vector<uint8_t> bytes = SampleImage();
  PatchShdr(bytes, kMetaIdx, kShOffset, 8, 8);
  ExpectRejected(bytes, StatusCode::kCorruption, "overlaps the ELF header");
}

TEST(KernelBinaryReader, RejectsNameTableIndexOutOfRange) {
  std::vector<uint8_t> bytes = SampleImage();
  elf::StoreLe(bytes.data() + 62, 9, 2);
  ExpectRejected(bytes, StatusCode::kCorruption, "name table index 9");
}

TEST(KernelBinaryReader, RejectsNameTableOfWrongType) {
  std::vector<uint8_t> bytes = SampleImage();
  PatchShdr(bytes, kStrIdx, kShType, elf::kShtProgbits, 4);
  ExpectRejected(bytes, StatusCode::kCorruption, "not a string table");
}

TEST(KernelBinaryReader, RejectsUnterminatedNameTable) {
  std::vector<uint8_t> bytes = SampleImage();
  const size_t str = SectionHeaderOffset(bytes, kStrIdx);
  const uint64_t end =
      elf::LoadLe(bytes.data() + str + kShOffset, 8) + elf::LoadLe(bytes.data() + str + kShSize, 8);
  bytes[end - 1] = 'x';
  ExpectRejected(bytes, StatusCode::kCorruption, "NUL-delimited");
}

TEST(KernelBinaryReader, RejectsNameOffsetOutOfRange) {
  std::vector<uint8_t> bytes = SampleImage();
  PatchShdr(bytes, kMetaIdx, kShName, 5000, 4);
  ExpectRejected(bytes, StatusCode::kCorruption, "name is out of range");
}

TEST(KernelBinaryReader, RejectsEmptySectionName) {
  std::vector<uint8_t> bytes = SampleImage();
  PatchShdr(bytes, kMetaIdx, kShName, 0, 4);
  ExpectRejected(bytes, StatusCode::kCorruption, "has no name");
}

TEST(KernelBinaryReader, RejectsDuplicateSections) {
  std::vector<uint8_t> bytes = SampleImage();
  const uint64_t aic_name = elf::LoadLe(bytes.data() + SectionHeaderOffset(bytes, 1), 4);
  PatchShdr(bytes, kAivIdx, kShName, aic_name, 4);
  ExpectRejected(bytes, StatusCode::kCorruption, "duplicate ELF section '.text.aic'");
}

TEST(KernelBinaryReader, RejectsMissingSections) {
  for (size_t drop = 0; drop < 4; ++drop) {
    auto sections = StandardSections(SampleBinary());
    const std::string name = sections[drop].name;
    sections.erase(sections.begin() + static_cast<ptrdiff_t>(drop));
    ExpectRejected(BuildRaw(sections), StatusCode::kCorruption, "missing section '" + name);
  }
}

TEST(KernelBinaryReader, RejectsUnknownSection) {
  auto sections = StandardSections(SampleBinary());
  sections.push_back({".comment", Bytes("hello")});
  ExpectRejected(BuildRaw(sections), StatusCode::kCorruption, "unexpected section '.comment'");
}

TEST(KernelBinaryReader, RejectsSectionWithWrongTypeOrFlags) {
  auto sections = StandardSections(SampleBinary());
  sections[0].flags = elf::kShfAlloc;
  ExpectRejected(BuildRaw(sections), StatusCode::kCorruption, "wrong type, flags");
}

TEST(KernelBinaryReader, RejectsNonZeroPadding) {
  // The section header table starts 8-aligned after .shstrtab; lengthen the cache key until
  // there is padding between the two, then dirty it.
  KernelBinary b = SampleBinary();
  for (int i = 0; i < 8; ++i) {
    std::vector<uint8_t> bytes = BuildRaw(StandardSections(b));
    const size_t str = SectionHeaderOffset(bytes, kStrIdx);
    const uint64_t end = elf::LoadLe(bytes.data() + str + kShOffset, 8) +
                         elf::LoadLe(bytes.data() + str + kShSize, 8);
    if (end < elf::LoadLe(bytes.data() + 40, 8)) {
      ASSERT_TRUE(ReadKernelBinary(bytes).ok());
      bytes[end] = 1;
      ExpectRejected(bytes, StatusCode::kCorruption, "canonical");
      return;
    }
    b.metadata.cache_key += "x";
  }
  FAIL() << "never found padding before the section header table";
}

// --- Section contents ----------------------------------------------------------------------

TEST(KernelBinaryReader, RejectsMetadataThatIsNotJson) {
  ExpectRejected(WithMeta("{\"format_version\":1,"), StatusCode::kCorruption, "not valid JSON");
}

TEST(KernelBinaryReader, RejectsInconsistentMetadata) {
  ExpectRejected(WithMeta(ReplaceOnce(Meta(), "\"out_idx\":[2]", "\"out_idx\":[0]")),
                 StatusCode::kCorruption, "out_idx entry 0 refers to param 'A'");
  ExpectRejected(WithMeta(ReplaceOnce(Meta(), "\"out_idx\":[2]", "\"out_idx\":[9]")),
                 StatusCode::kCorruption, "out of range");
  ExpectRejected(WithMeta(ReplaceOnce(Meta(), "[128,64]", "[-128,64]")), StatusCode::kCorruption,
                 "negative");
  ExpectRejected(WithMeta(ReplaceOnce(Meta(), "[128,64]", "[4294967296,4294967296]")),
                 StatusCode::kCorruption, "overflows");
  ExpectRejected(WithMeta(ReplaceOnce(Meta(), "\"float16\"", "\"float8\"")),
                 StatusCode::kCorruption, "unknown value 'float8'");
}

TEST(KernelBinaryReader, RejectsCodeThatIsNotWholeWords) {
  auto sections = StandardSections(SampleBinary());
  sections[1].data.resize(sections[1].data.size() - 3);
  ExpectRejected(BuildRaw(sections), StatusCode::kCorruption, "not a whole number");
}

TEST(KernelBinaryReader, RejectsLineTableWithMoreInstructionsThanCode) {
  KernelBinary b = SampleBinary();
  auto sections = StandardSections(b);
  std::vector<uint8_t> lines;
  b.aiv.line_table = {2, 3, 3, 4};  // four instructions, three code words
  AppendLineTable(b.aic.line_table, &lines);
  AppendLineTable(b.aiv.line_table, &lines);
  sections[3].data = lines;
  ExpectRejected(BuildRaw(sections), StatusCode::kCorruption,
                 "AIV: line table lists 4 instructions but the code section holds at most 3");
}

TEST(KernelBinaryReader, RejectsLineTableTrailingBytes) {
  auto sections = StandardSections(SampleBinary());
  sections[3].data.push_back(0);
  ExpectRejected(BuildRaw(sections), StatusCode::kCorruption, "trailing bytes");
}

TEST(KernelBinaryReader, RejectsTruncatedLineTable) {
  auto sections = StandardSections(SampleBinary());
  sections[3].data.resize(3);
  ExpectRejected(BuildRaw(sections), StatusCode::kCorruption, "line table truncated");
}

TEST(KernelBinaryReader, RejectsCodeForACoreTheMixDoesNotUse) {
  KernelBinary b = testing::SampleCubeOnlyBinary();
  auto sections = StandardSections(b);
  sections[1].data = testing::SampleCode(1, 0);
  std::vector<uint8_t> lines;
  AppendLineTable(b.aic.line_table, &lines);
  AppendLineTable(std::vector<uint32_t>{0}, &lines);
  sections[3].data = lines;
  ExpectRejected(BuildRaw(sections), StatusCode::kCorruption, "core mix does not use it");
}

}  // namespace
}  // namespace tilejit::target
