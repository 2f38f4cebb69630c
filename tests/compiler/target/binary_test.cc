// SPDX-License-Identifier: Apache-2.0
// The kernel binary writer and reader: round trips, determinism, readelf compatibility, and
// one test per class of malformed file the reader must reject.
#include "compiler/target/binary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/compiler/target/binary_samples.h"
#include "tests/compiler/target/binary_test_util.h"

namespace tilejit::target {
namespace {

using testing::BuildRaw;
using testing::ExpectRejected;
using ::testing::HasSubstr;
using testing::SampleBinary;
using testing::StandardSections;

std::vector<uint8_t> Write(const KernelBinary& b) {
  auto bytes = WriteKernelBinary(b);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

void Patch(std::vector<uint8_t>& bytes, size_t offset, uint64_t value, size_t width) {
  elf::StoreLe(bytes.data() + offset, value, width);
}

TEST(KernelBinary, RoundTripsMixedKernel) {
  const KernelBinary b = SampleBinary();
  auto read = ReadKernelBinary(Write(b));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, b);
}

TEST(KernelBinary, RoundTripsCubeOnlyAndVectorOnlyKernels) {
  const KernelBinary cube = testing::SampleCubeOnlyBinary();
  KernelBinary vec = SampleBinary();
  vec.metadata.core_mix = CoreMix::kVectorOnly;
  vec.metadata.vector_cores_per_block = 1;
  vec.aic = {};
  for (const KernelBinary& b : {cube, vec}) {
    auto read = ReadKernelBinary(Write(b));
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(*read, b);
  }
}

TEST(KernelBinary, WriterIsDeterministic) {
  const std::vector<uint8_t> first = Write(SampleBinary());
  const std::vector<uint8_t> second = Write(SampleBinary());
  EXPECT_EQ(first, second);
  KernelBinary other = SampleBinary();
  other.metadata.cache_key = "different";
  EXPECT_NE(Write(other), first);
}

TEST(KernelBinary, HeaderCarriesMachineTypeAndFormatVersion) {
  const std::vector<uint8_t> bytes = Write(SampleBinary());
  EXPECT_EQ(elf::LoadLe(bytes.data() + 16, 2), elf::kTypeRel);
  EXPECT_EQ(elf::LoadLe(bytes.data() + 18, 2), 0x910Bu);
  EXPECT_EQ(elf::LoadLe(bytes.data() + 48, 4), kKernelBinaryFormatVersion);
}

TEST(KernelBinary, ReadelfListsTheSections) {
  if (access("/usr/bin/readelf", X_OK) != 0) GTEST_SKIP() << "readelf not installed";
  const auto path = std::filesystem::temp_directory_path() /
                    ("tilejit_binary_test_" + std::to_string(getpid()) + ".elf");
  const std::vector<uint8_t> bytes = Write(SampleBinary());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  const std::string cmd = "/usr/bin/readelf -S -W '" + path.string() + "' 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), pipe)) out.append(buf, n);
  const int rc = pclose(pipe);
  std::filesystem::remove(path);
  EXPECT_EQ(rc, 0) << out;
  for (const char* name :
       {".text.aic", ".text.aiv", ".tilejit.meta", ".tilejit.lines", ".shstrtab"}) {
    EXPECT_THAT(out, HasSubstr(name));
  }
  EXPECT_THAT(out, ::testing::Not(HasSubstr("Warning"))) << out;
  EXPECT_THAT(out, ::testing::Not(HasSubstr("Error"))) << out;
}

// --- Writer input validation -------------------------------------------------------------

TEST(KernelBinaryWriter, RejectsCodeThatIsNotWholeWords) {
  KernelBinary b = SampleBinary();
  b.aic.code.push_back(0);
  auto r = WriteKernelBinary(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("whole number"));
}

TEST(KernelBinaryWriter, RejectsLineTableLongerThanCode) {
  KernelBinary b = SampleBinary();
  b.aiv.line_table.push_back(7);
  auto r = WriteKernelBinary(b);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("line table has 4 entries for 3 code words"));
}

TEST(KernelBinaryWriter, RejectsCodeWithoutLineTable) {
  KernelBinary b = SampleBinary();
  b.aic.line_table.clear();
  EXPECT_EQ(WriteKernelBinary(b).status().code(), StatusCode::kInvalidArgument);
}

TEST(KernelBinaryWriter, RejectsCodeForACoreTheMixDoesNotUse) {
  KernelBinary b = testing::SampleCubeOnlyBinary();
  b.aiv.code = testing::SampleCode(1, 0);
  b.aiv.line_table = {0};
  auto r = WriteKernelBinary(b);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("AIV code is present but the core mix"));
}

TEST(KernelBinaryWriter, RejectsMissingCodeForAUsedCore) {
  KernelBinary b = SampleBinary();
  b.aiv = {};
  auto r = WriteKernelBinary(b);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("AIV code is empty but the core mix uses it"));
}

TEST(KernelBinaryWriter, RejectsInvalidMetadata) {
  KernelBinary b = SampleBinary();
  b.metadata.out_idx = {0};
  EXPECT_EQ(WriteKernelBinary(b).status().code(), StatusCode::kInvalidArgument);
}

// --- Reader: sizes and identification ----------------------------------------------------

TEST(KernelBinaryReader, RejectsEveryTruncation) {
  const std::vector<uint8_t> bytes = Write(SampleBinary());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = ReadKernelBinary(std::span(bytes).first(n));
    ASSERT_FALSE(r.ok()) << "accepted a file truncated to " << n << " bytes";
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << n << ": " << r.status();
  }
}

TEST(KernelBinaryReader, RejectsTrailingBytes) {
  std::vector<uint8_t> bytes = Write(SampleBinary());
  bytes.push_back(0);
  ExpectRejected(bytes, StatusCode::kCorruption, "canonical");
}

TEST(KernelBinaryReader, RejectsOversizedFile) {
  std::vector<uint8_t> huge(elf::kMaxImageBytes + 1);
  const std::vector<uint8_t> bytes = Write(SampleBinary());
  std::copy(bytes.begin(), bytes.end(), huge.begin());
  ExpectRejected(huge, StatusCode::kCorruption, "limit");
}

TEST(KernelBinaryReader, RejectsBadMagic) {
  std::vector<uint8_t> bytes = Write(SampleBinary());
  bytes[1] = 'F';
  ExpectRejected(bytes, StatusCode::kCorruption, "bad magic");
}

TEST(KernelBinaryReader, RejectsOtherElfClassEncodingAndVersion) {
  const std::vector<uint8_t> good = Write(SampleBinary());
  std::vector<uint8_t> bytes = good;
  bytes[elf::kIdentClass] = 1;
  ExpectRejected(bytes, StatusCode::kInvalidArgument, "64-bit");
  bytes = good;
  bytes[elf::kIdentData] = 2;
  ExpectRejected(bytes, StatusCode::kInvalidArgument, "little-endian");
  bytes = good;
  bytes[elf::kIdentVersion] = 2;
  ExpectRejected(bytes, StatusCode::kInvalidArgument, "ELF version");
  bytes = good;
  Patch(bytes, 20, 2, 4);  // e_version
  ExpectRejected(bytes, StatusCode::kInvalidArgument, "ELF version");
  bytes = good;
  bytes[elf::kIdentOsAbi] = 3;
  ExpectRejected(bytes, StatusCode::kCorruption, "OS ABI");
}

TEST(KernelBinaryReader, RejectsOtherMachineAndType) {
  std::vector<uint8_t> bytes = Write(SampleBinary());
  Patch(bytes, 18, 62, 2);  // EM_X86_64
  ExpectRejected(bytes, StatusCode::kInvalidArgument, "machine 62");
  bytes = Write(SampleBinary());
  Patch(bytes, 16, 2, 2);  // ET_EXEC
  ExpectRejected(bytes, StatusCode::kInvalidArgument, "ELF type 2");
}

TEST(KernelBinaryReader, RejectsOtherFormatVersion) {
  std::vector<uint8_t> bytes = Write(SampleBinary());
  Patch(bytes, 48, kKernelBinaryFormatVersion + 1, 4);
  ExpectRejected(bytes, StatusCode::kInvalidArgument,
                 "format version " + std::to_string(kKernelBinaryFormatVersion + 1));
}

TEST(KernelBinaryReader, RejectsMetadataVersionDifferentFromHeader) {
  auto sections = StandardSections(SampleBinary());
  std::string meta(sections[2].data.begin(), sections[2].data.end());
  const std::string ours = "\"format_version\":" + std::to_string(kKernelBinaryFormatVersion);
  const std::string next = std::to_string(kKernelBinaryFormatVersion + 1);
  meta.replace(meta.find(ours), ours.size(), "\"format_version\":" + next);
  sections[2].data = testing::Bytes(meta);
  ExpectRejected(BuildRaw(sections), StatusCode::kInvalidArgument, "format version " + next);
}

TEST(KernelBinaryReader, RejectsProgramHeadersAndEntryPoint) {
  std::vector<uint8_t> bytes = Write(SampleBinary());
  Patch(bytes, 24, 0x1000, 8);  // e_entry
  ExpectRejected(bytes, StatusCode::kCorruption, "entry point");
}

}  // namespace
}  // namespace tilejit::target
