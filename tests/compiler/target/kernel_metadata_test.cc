// SPDX-License-Identifier: Apache-2.0
// The metadata schema: validation rules, canonical JSON serialisation and its strict parser.
#include "compiler/target/kernel_metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "tests/compiler/target/binary_samples.h"
#include "tests/compiler/target/binary_test_util.h"

namespace tilejit::target {
namespace {

using ::testing::HasSubstr;
using testing::ReplaceOnce;

KernelMetadata SampleMetadata() { return testing::SampleBinary().metadata; }

std::string Canonical() {
  auto text = SerializeKernelMetadata(SampleMetadata());
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

// Applies `edit` to the sample and expects validation to fail mentioning `text`.
void ExpectInvalid(const std::function<void(KernelMetadata&)>& edit, const std::string& text) {
  KernelMetadata m = SampleMetadata();
  edit(m);
  const Status s = ValidateKernelMetadata(m);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr(text));
  EXPECT_FALSE(SerializeKernelMetadata(m).ok());
}

void ExpectParseError(const std::string& text, StatusCode code, const std::string& message) {
  auto r = ParseKernelMetadata(text);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.status().code(), code) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr(message));
}

TEST(KernelMetadata, SampleIsValidAndRoundTrips) {
  ASSERT_TRUE(ValidateKernelMetadata(SampleMetadata()).ok());
  auto parsed = ParseKernelMetadata(Canonical());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, SampleMetadata());
}

TEST(KernelMetadata, SerialisationIsDeterministicCompactAndReadable) {
  const std::string text = Canonical();
  EXPECT_EQ(text, Canonical());
  EXPECT_THAT(text, ::testing::Not(HasSubstr("\": ")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr(", ")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("\n")));
  EXPECT_THAT(text, HasSubstr("\"params\":[{\"compiler_workspace\":false,\"dim_symbols\":[],"
                              "\"dtype\":\"float16\""));
  EXPECT_THAT(text, HasSubstr("\"core_mix\":\"mixed\""));
}

TEST(KernelMetadata, ParamSizeBytesMultipliesDimsAndElementSize) {
  EXPECT_EQ(*ParamSizeBytes(SampleMetadata().params[2]), 128 * 256 * 4);
  EXPECT_EQ(*ParamSizeBytes({"s", {}, ElementType::kInt64, ParamRole::kInput, false, 0, {}}), 8);
}

TEST(KernelMetadata, RejectsBadStrings) {
  ExpectInvalid([](auto& m) { m.kernel_name.clear(); }, "kernel name is empty");
  ExpectInvalid([](auto& m) { m.target.clear(); }, "target name is empty");
  ExpectInvalid([](auto& m) { m.cache_key = "a\nb"; }, "non-printable");
  ExpectInvalid([](auto& m) { m.compiler_fingerprint = "\xc3\xa9"; }, "non-ASCII");
  ExpectInvalid([](auto& m) { m.kernel_name.assign(kMaxStringBytes + 1, 'k'); }, "longer");
  ExpectInvalid([](auto& m) { m.params[1].name = "A"; }, "param name 'A' is used twice");
}

TEST(KernelMetadata, RejectsBadShapes) {
  ExpectInvalid([](auto& m) { m.params[0].shape = {4, -1}; }, "dim 1 is negative");
  ExpectInvalid(
      [](auto& m) {
        m.params[0].shape = {int64_t{1} << 32, int64_t{1} << 31};
      },
      "overflows");
  ExpectInvalid([](auto& m) { m.params[0].shape.assign(kMaxRank + 1, 1); }, "rank 17");
}

TEST(KernelMetadata, RejectsBadIndexLists) {
  ExpectInvalid([](auto& m) { m.out_idx = {0}; }, "refers to param 'A' whose role is input");
  ExpectInvalid([](auto& m) { m.out_idx = {4}; }, "out_idx entry 4 is out of range");
  ExpectInvalid([](auto& m) { m.out_idx = {-1}; }, "out_idx entry -1 is out of range");
  ExpectInvalid([](auto& m) { m.out_idx = {2, 2}; }, "lists param 2 twice");
  ExpectInvalid([](auto& m) { m.out_idx = {}; }, "missing from out_idx");
  ExpectInvalid([](auto& m) { m.workspace_idx = {}; }, "missing from workspace_idx");
  ExpectInvalid([](auto& m) { m.workspace_idx = {3, 2}; }, "whose role is output");
}

TEST(KernelMetadata, RejectsBadWorkspaces) {
  ExpectInvalid([](auto& m) { m.params[3].workspace_bytes_per_block = 0; }, "no per-block size");
  ExpectInvalid([](auto& m) { m.params[3].workspace_bytes_per_block = 4097; }, "do not fit");
  ExpectInvalid(
      [](auto& m) {
        m.params[0].compiler_workspace = true;
        m.params[0].workspace_bytes_per_block = 1;
      },
      "compiler workspace but its role is input");
  ExpectInvalid([](auto& m) { m.params[2].workspace_bytes_per_block = 8; },
                "not a compiler workspace");
}

TEST(KernelMetadata, RejectsBadLaunchShape) {
  ExpectInvalid([](auto& m) { m.block_count = 0; }, "block count 0");
  ExpectInvalid([](auto& m) { m.vector_cores_per_block = 3; }, "3 vector cores");
  ExpectInvalid([](auto& m) { m.core_mix = CoreMix::kCubeOnly; }, "core mix cube");
  ExpectInvalid(
      [](auto& m) {
        m.core_mix = CoreMix::kVectorOnly;
        m.vector_cores_per_block = 0;
      },
      "core mix vector");
  ExpectInvalid([](auto& m) { m.on_chip.l0c = -1; }, "l0c is negative");
}

TEST(KernelMetadata, PrintRecordsAreChecked) {
  ExpectInvalid([](auto& m) { m.prints[0].format = "bell \a"; }, "printable ASCII");
  ExpectInvalid([](auto& m) { m.prints[0].args.resize(kMaxPrintArgs + 1); }, "arguments");
  ExpectInvalid([](auto& m) { m.prints[0].count = 4; }, "printf with dump fields");
  ExpectInvalid([](auto& m) { m.prints[1].memory = "bt"; }, "unknown memory 'bt'");
  ExpectInvalid([](auto& m) { m.prints[1].count = 0; }, "dumps 0 elements");
  ExpectInvalid([](auto& m) { m.prints[1].count = kMaxDumpCount + 1; }, "elements");
  ExpectInvalid([](auto& m) { m.prints[1].shape = {8, 0}; }, "shape dim out of range");
  ExpectInvalid([](auto& m) { m.prints[1].format = "x"; }, "dump with printf fields");
  ExpectInvalid([](auto& m) { m.prints.resize(kMaxPrints + 1); }, "print records");
}

TEST(KernelMetadataParser, PrintRecordsRoundTripWithTheirEscapes) {
  const std::string text = Canonical();
  EXPECT_THAT(text, HasSubstr("\"format\":\"cid %d\\tx %f\\n\""));
  EXPECT_THAT(text, HasSubstr("\"kind\":\"dump\""));
  ExpectParseError(ReplaceOnce(text, "\"kind\":\"dump\"", "\"kind\":\"dumps\""),
                   StatusCode::kCorruption, "unknown value 'dumps'");
  ExpectParseError(ReplaceOnce(text, "\"args\":[\"int64\"", "\"args\":[7"), StatusCode::kCorruption,
                   "not a dtype name");
}

TEST(KernelMetadata, RejectsOtherFormatVersionAsInvalidArgument) {
  KernelMetadata m = SampleMetadata();
  const std::string ours = std::to_string(kKernelBinaryFormatVersion);
  const std::string next = std::to_string(kKernelBinaryFormatVersion + 1);
  m.format_version = kKernelBinaryFormatVersion + 1;
  EXPECT_EQ(ValidateKernelMetadata(m).code(), StatusCode::kInvalidArgument);
  ExpectParseError(
      ReplaceOnce(Canonical(), "\"format_version\":" + ours, "\"format_version\":" + next),
      StatusCode::kInvalidArgument, "unsupported kernel binary format version " + next);
}

TEST(KernelMetadataParser, RejectsMalformedJson) {
  ExpectParseError("", StatusCode::kCorruption, "not valid JSON");
  ExpectParseError("{\"a\":", StatusCode::kCorruption, "not valid JSON");
  ExpectParseError("[1,2]", StatusCode::kCorruption, "not a JSON object");
  ExpectParseError(Canonical() + "x", StatusCode::kCorruption, "not valid JSON");
  ExpectParseError("\"\xff\"", StatusCode::kCorruption, "not valid JSON");
}

TEST(KernelMetadataParser, RejectsNestingDeeperThanTheSchema) {
  ExpectParseError(std::string(100000, '[') + std::string(100000, ']'), StatusCode::kCorruption,
                   "nests deeper");
  ExpectParseError(ReplaceOnce(Canonical(), "[128,64]", "[[128],64]"), StatusCode::kCorruption,
                   "nests deeper");
}

TEST(KernelMetadataParser, RejectsMissingUnknownAndMistypedFields) {
  const std::string text = Canonical();
  ExpectParseError(ReplaceOnce(text, "\"block_count\":24,", ""), StatusCode::kCorruption,
                   "lacks field 'block_count'");
  ExpectParseError(ReplaceOnce(text, "\"block_count\":24,", "\"block_count\":24,\"extra\":1,"),
                   StatusCode::kCorruption, "unknown fields");
  ExpectParseError(ReplaceOnce(text, "\"block_count\":24", "\"block_count\":\"24\""),
                   StatusCode::kCorruption, "'block_count' is not an integer");
  ExpectParseError(ReplaceOnce(text, "\"block_count\":24", "\"block_count\":24.0"),
                   StatusCode::kCorruption, "'block_count' is not an integer");
  ExpectParseError(ReplaceOnce(text, "\"block_count\":24", "\"block_count\":18446744073709551615"),
                   StatusCode::kCorruption, "out of range");
  ExpectParseError(ReplaceOnce(text, "\"kernel_name\":\"main\"", "\"kernel_name\":7"),
                   StatusCode::kCorruption, "'kernel_name' is not a string");
  ExpectParseError(ReplaceOnce(text, "\"compiler_workspace\":false", "\"compiler_workspace\":0"),
                   StatusCode::kCorruption, "not a boolean");
  ExpectParseError(ReplaceOnce(text, "\"out_idx\":[2]", "\"out_idx\":2"), StatusCode::kCorruption,
                   "'out_idx' is not an array");
  ExpectParseError(ReplaceOnce(text, "\"out_idx\":[2]", "\"out_idx\":[2.5]"),
                   StatusCode::kCorruption, "non-integer");
  ExpectParseError(ReplaceOnce(text, "\"out_idx\":[2]", "\"out_idx\":[4294967298]"),
                   StatusCode::kCorruption, "out-of-range");
}

TEST(KernelMetadataParser, RejectsUnknownEnumSpellings) {
  const std::string text = Canonical();
  ExpectParseError(ReplaceOnce(text, "\"float32\"", "\"float64\""), StatusCode::kCorruption,
                   "'dtype' has unknown value 'float64'");
  ExpectParseError(ReplaceOnce(text, "\"role\":\"input\"", "\"role\":\"in\""),
                   StatusCode::kCorruption, "'role' has unknown value 'in'");
  ExpectParseError(ReplaceOnce(text, "\"mixed\"", "\"both\""), StatusCode::kCorruption,
                   "'core_mix' has unknown value 'both'");
}

TEST(KernelMetadataParser, RejectsInconsistentMetadata) {
  ExpectParseError(ReplaceOnce(Canonical(), "\"out_idx\":[2]", "\"out_idx\":[1]"),
                   StatusCode::kCorruption, "inconsistent metadata: out_idx entry 1");
  ExpectParseError(ReplaceOnce(Canonical(), "[64,256]", "[64,-256]"), StatusCode::kCorruption,
                   "inconsistent metadata");
}

TEST(KernelMetadataParser, RejectsNonCanonicalSpellings) {
  const std::string text = Canonical();
  ExpectParseError(" " + text, StatusCode::kCorruption, "canonical");
  ExpectParseError(ReplaceOnce(text, "\"block_count\":24", "\"block_count\": 24"),
                   StatusCode::kCorruption, "canonical");
  ExpectParseError(ReplaceOnce(text, "\"block_count\":24", "\"block_count\":1,\"block_count\":24"),
                   StatusCode::kCorruption, "canonical");
  ExpectParseError(ReplaceOnce(text, "\"main\"", "\"m\\u0061in\""), StatusCode::kCorruption,
                   "canonical");
}

}  // namespace
}  // namespace tilejit::target
