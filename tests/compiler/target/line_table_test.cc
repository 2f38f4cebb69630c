// SPDX-License-Identifier: Apache-2.0
// The run-length line table encoding and its canonical-only decoder.
#include "compiler/target/line_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilejit::target {
namespace {

using ::testing::HasSubstr;

std::vector<uint8_t> Encode(const std::vector<uint32_t>& ids) {
  std::vector<uint8_t> out;
  AppendLineTable(ids, &out);
  return out;
}

Result<std::vector<uint32_t>> Decode(const std::vector<uint8_t>& bytes, uint64_t max = 1000) {
  size_t pos = 0;
  auto r = DecodeLineTable(bytes, &pos, max);
  if (r.ok() && pos != bytes.size()) return Corruption("test: decoder left trailing bytes");
  return r;
}

void ExpectCorrupt(const std::vector<uint8_t>& bytes, const std::string& text,
                   uint64_t max = 1000) {
  auto r = Decode(bytes, max);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(r.status().message(), HasSubstr(text));
}

TEST(LineTable, RoundTripsTables) {
  const std::vector<std::vector<uint32_t>> tables = {
      {}, {0}, {kNoStmt}, {5, 5, 5, 6, kNoStmt, kNoStmt, 5}, {0xFFFFFFFE, 1, 0x12345678}};
  for (const auto& t : tables) {
    auto r = Decode(Encode(t));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(*r, t);
  }
}

TEST(LineTable, EncodesRunsCompactly) {
  // count=3, runs=2, (2, 7+1), (1, kNoStmt+1 = 0)
  EXPECT_EQ(Encode({7, 7, kNoStmt}), (std::vector<uint8_t>{3, 2, 2, 8, 1, 0}));
  EXPECT_LE(Encode(std::vector<uint32_t>(100000, 3)).size(), 8u);
}

TEST(LineTable, DecodesConsecutiveTablesFromOneBuffer) {
  std::vector<uint8_t> bytes;
  AppendLineTable(std::vector<uint32_t>{1, 2}, &bytes);
  AppendLineTable(std::vector<uint32_t>{3}, &bytes);
  size_t pos = 0;
  auto first = DecodeLineTable(bytes, &pos, 10);
  auto second = DecodeLineTable(bytes, &pos, 10);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*first, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(*second, (std::vector<uint32_t>{3}));
  EXPECT_EQ(pos, bytes.size());
}

TEST(LineTable, RejectsEveryTruncation) {
  const std::vector<uint8_t> bytes = Encode({300, 300, 1, 70000, kNoStmt});
  for (size_t n = 0; n < bytes.size(); ++n) {
    ExpectCorrupt(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n), "truncated");
  }
}

TEST(LineTable, RejectsMoreInstructionsThanTheCodeHolds) {
  ExpectCorrupt(Encode({1, 2, 3}), "lists 3 instructions but the code section holds at most 2", 2);
}

TEST(LineTable, RejectsRunsThatDoNotCoverTheCount) {
  ExpectCorrupt({3, 1, 2, 1}, "runs cover 2 of 3");
  ExpectCorrupt({2, 1, 3, 1}, "run length 3 is too large");
  ExpectCorrupt({2, 3, 1, 1, 1, 2, 1, 3}, "run count 3 is too large");
}

TEST(LineTable, RejectsNonCanonicalEncodings) {
  ExpectCorrupt({2, 2, 1, 5, 1, 5}, "two adjacent runs of statement 4");
  ExpectCorrupt({1, 2, 0, 5, 1, 6}, "too large");  // a zero-length run cannot fit the count
  ExpectCorrupt({0x81, 0x00, 1, 1, 1}, "malformed varint");                // overlong 1
  ExpectCorrupt({1, 1, 1, 0x80, 0x80, 0x80, 0x80, 0x10}, "statement id");  // > 2^32
  ExpectCorrupt(std::vector<uint8_t>(11, 0xff), "malformed varint");
}

TEST(LineTable, RejectsEmptyRun) { ExpectCorrupt({1, 1, 0, 1}, "empty run"); }

}  // namespace
}  // namespace tilejit::target
