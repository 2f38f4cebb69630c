// SPDX-License-Identifier: Apache-2.0
// The decoder's defences: malformed words are a Corruption status, never a crash.
#include <gtest/gtest.h>

#include <random>

#include "compiler/target/isa.h"
#include "tests/compiler/target/isa_test_util.h"

namespace tilejit::target {
namespace {

using testing::ValidBase;

std::vector<uint64_t> EncodeOne(const Instr& in) {
  std::vector<uint64_t> words;
  EXPECT_TRUE(Encode(in, words).ok());
  return words;
}

Status DecodeStatus(std::span<const uint64_t> words) {
  size_t pos = 0;
  Result<Instr> r = Decode(words, &pos);
  return r.ok() ? Status::Ok() : r.status();
}

TEST(IsaDecode, RejectsUnknownOpcode) {
  const std::vector<uint64_t> words = {0xff};
  const Status s = DecodeStatus(words);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("unknown opcode"), std::string::npos) << s;
}

TEST(IsaDecode, RejectsWrongPayloadCount) {
  std::vector<uint64_t> words = EncodeOne(ValidBase(Opcode::kAdd));
  words[0] += uint64_t{1} << 8;
  words.push_back(0);
  EXPECT_EQ(DecodeStatus(words).code(), StatusCode::kCorruption);
}

TEST(IsaDecode, RejectsReservedHeaderBits) {
  std::vector<uint64_t> words = EncodeOne(ValidBase(Opcode::kNop));
  words[0] |= uint64_t{1} << 60;
  EXPECT_EQ(DecodeStatus(words).code(), StatusCode::kCorruption);
}

TEST(IsaDecode, RejectsTruncatedStream) {
  std::vector<uint64_t> words = EncodeOne(ValidBase(Opcode::kMmad));
  words.pop_back();
  EXPECT_EQ(DecodeStatus(words).code(), StatusCode::kCorruption);
  EXPECT_EQ(DecodeStatus({}).code(), StatusCode::kCorruption);
}

TEST(IsaDecode, RejectsOutOfRangeField) {
  // xset payload: pipe (3 bits) then xmode (2 bits, legal 0..2); force xmode = 3.
  Instr in = ValidBase(Opcode::kXset);
  std::vector<uint64_t> words = EncodeOne(in);
  words[1] |= uint64_t{3} << 3;
  const Status s = DecodeStatus(words);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("xmode"), std::string::npos) << s;
}

TEST(IsaDecode, RejectsNonzeroPaddingBits) {
  std::vector<uint64_t> words = EncodeOne(ValidBase(Opcode::kGetCid));  // 5 payload bits
  words[1] |= uint64_t{1} << 40;
  EXPECT_EQ(DecodeStatus(words).code(), StatusCode::kCorruption);
}

TEST(IsaDecode, RejectsBranchOutsideProgram) {
  Instr jmp = ValidBase(Opcode::kJmp);
  jmp.off = 2;
  std::vector<Instr> program = {jmp, ValidBase(Opcode::kEnd)};
  EXPECT_FALSE(EncodeProgram(program).ok());
  std::vector<uint64_t> words = EncodeOne(jmp);
  const std::vector<uint64_t> end = EncodeOne(ValidBase(Opcode::kEnd));
  words.insert(words.end(), end.begin(), end.end());
  Result<std::vector<Instr>> r = DecodeProgram(words);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
}

TEST(IsaDecode, RandomWordsNeverCrash) {
  std::mt19937_64 rng(12345);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint64_t> words(1 + rng() % 6);
    for (uint64_t& w : words) w = rng();
    // Make about half of the headers plausible so the field checks get exercised too.
    if (i % 2 == 0) {
      const auto op = static_cast<Opcode>(rng() % kNumOpcodes);
      words[0] = static_cast<uint64_t>(op) | (uint64_t(PayloadWords(op)) << 8);
      words.resize(1 + PayloadWords(op));
    }
    if (DecodeProgram(words).ok()) ++accepted;
  }
  EXPECT_LT(accepted, 20000);
}

}  // namespace
}  // namespace tilejit::target
