// SPDX-License-Identifier: Apache-2.0
#include "compiler/target/isa.h"

#include <gtest/gtest.h>

#include <array>

#include "tests/compiler/target/isa_test_util.h"

namespace tilejit::target {
namespace {

using testing::BoundaryVariants;
using testing::ValidBase;

Instr Vadd() { return ValidBase(Opcode::kVadd); }

TEST(Isa, EveryOpcodeHasAValidInstanceAndUniqueMnemonic) {
  for (int i = 0; i < kNumOpcodes; ++i) {
    const Opcode op = static_cast<Opcode>(i);
    EXPECT_TRUE(Validate(ValidBase(op)).ok()) << OpcodeName(op);
    EXPECT_EQ(ParseOpcode(OpcodeName(op)), op);
  }
}

TEST(Isa, EncodeDecodeRoundTripsEveryOpcodeAtFieldBounds) {
  int variants = 0;
  for (int i = 0; i < kNumOpcodes; ++i) {
    for (const Instr& in : BoundaryVariants(static_cast<Opcode>(i))) {
      std::vector<uint64_t> words;
      ASSERT_TRUE(Encode(in, words).ok()) << OpcodeName(in.op);
      ASSERT_EQ(words.size(), 1u + PayloadWords(in.op));
      size_t pos = 0;
      Result<Instr> back = Decode(words, &pos);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back.value(), in) << OpcodeName(in.op);
      EXPECT_EQ(pos, words.size());
      ++variants;
    }
  }
  EXPECT_GT(variants, 1000);
}

TEST(Isa, ProgramRoundTripKeepsOrderAndLines) {
  std::vector<Instr> program;
  for (int i = 0; i < kNumOpcodes; ++i) {
    Instr in = ValidBase(static_cast<Opcode>(i));
    in.line = static_cast<uint32_t>(i * 7);
    program.push_back(in);
  }
  Result<std::vector<uint64_t>> words = EncodeProgram(program);
  ASSERT_TRUE(words.ok()) << words.status();
  Result<std::vector<Instr>> back = DecodeProgram(words.value());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back.value(), program);
}

TEST(Isa, RejectsRepeatPast255) {
  Instr in = Vadd();
  in.repeat = OpImm(255);
  EXPECT_TRUE(Validate(in).ok());
  in.repeat = OpImm(256);
  const Status s = Validate(in);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("repeat"), std::string::npos) << s;
  std::vector<uint64_t> words;
  EXPECT_FALSE(Encode(in, words).ok());
  EXPECT_TRUE(words.empty());
}

TEST(Isa, RejectsMmadSizesPast4095) {
  Instr in = ValidBase(Opcode::kMmad);
  in.k = OpImm(4095);
  EXPECT_TRUE(Validate(in).ok());
  for (FieldId f : {FieldId::m, FieldId::n, FieldId::k}) {
    Instr bad = in;
    SetField(bad, f, {0, 4096});
    const Status s = Validate(bad);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find(GetFieldInfo(f).name), std::string::npos) << s;
  }
}

TEST(Isa, RejectsEventIdPast7AndCrossFlagPast10) {
  Instr set = ValidBase(Opcode::kSetFlag);
  set.event = OpImm(7);
  EXPECT_TRUE(Validate(set).ok());
  set.event = OpImm(8);
  EXPECT_FALSE(Validate(set).ok());
  Instr xset = ValidBase(Opcode::kXset);
  xset.flag = OpImm(10);
  EXPECT_TRUE(Validate(xset).ok());
  xset.flag = OpImm(11);
  EXPECT_FALSE(Validate(xset).ok());
}

TEST(Isa, RejectsBadRegisterNumbers) {
  Instr add = ValidBase(Opcode::kAdd);
  add.rd = 32;
  EXPECT_NE(Validate(add).message().find("register"), std::string::npos);
  Instr v = Vadd();
  v.dst = OpReg(40, 0);
  EXPECT_FALSE(Validate(v).ok());
}

TEST(Isa, RejectsMaskWiderThanTheRepeat) {
  Instr in = Vadd();
  in.dtype = DType::kF32;
  in.mask = OpImm(64);
  EXPECT_TRUE(Validate(in).ok());
  in.mask = OpImm(65);
  EXPECT_FALSE(Validate(in).ok());
  in.dtype = DType::kF16;
  in.mask = OpImm(128);
  EXPECT_TRUE(Validate(in).ok());
}

TEST(Isa, RejectsFieldsTheOpcodeDoesNotHave) {
  Instr in = ValidBase(Opcode::kAdd);
  in.repeat = OpImm(3);
  const Status s = Validate(in);
  EXPECT_NE(s.message().find("not an operand"), std::string::npos) << s;
}

TEST(Isa, RejectsIllegalTypeCombinations) {
  Instr exp = ValidBase(Opcode::kVexp);
  exp.dtype = DType::kS32;
  EXPECT_FALSE(Validate(exp).ok());
  Instr cast = ValidBase(Opcode::kVcast);
  cast.odtype = cast.dtype;
  EXPECT_FALSE(Validate(cast).ok());
  Instr load = ValidBase(Opcode::kLoadL0b);
  load.dtype = DType::kF32;
  load.transpose = 1;
  EXPECT_FALSE(Validate(load).ok());
  Instr fix = ValidBase(Opcode::kFixL0cGm);
  fix.dtype = DType::kF32;
  fix.odtype = DType::kS8;
  EXPECT_FALSE(Validate(fix).ok());
  Instr barrier = ValidBase(Opcode::kBarrier);
  barrier.pipe = Pipe::kS;
  EXPECT_FALSE(Validate(barrier).ok());
}

TEST(Isa, ResolveOperandAddsRegisterAndChecksRuntimeRange) {
  Instr in = Vadd();
  in.repeat = OpReg(5, 1);
  std::array<int64_t, kNumRegs> regs{};
  regs[5] = 254;
  Result<int64_t> v = ResolveOperand(in, FieldId::repeat, regs);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), 255);
  regs[5] = 255;
  EXPECT_FALSE(ResolveOperand(in, FieldId::repeat, regs).ok());
  in.dtype = DType::kF32;
  in.mask = OpReg(3);
  regs[3] = 65;
  EXPECT_FALSE(ResolveOperand(in, FieldId::mask, regs).ok());
}

TEST(Isa, ResolveOperandTreatsR0AsZero) {
  Instr in = Vadd();
  in.dst = OpImm(96);
  std::array<int64_t, kNumRegs> regs{};
  regs[0] = 1000;  // ignored
  EXPECT_EQ(ResolveOperand(in, FieldId::dst, regs).value(), 96);
}

TEST(Isa, IssuePipeFollowsUnitOrOperand) {
  EXPECT_EQ(IssuePipe(ValidBase(Opcode::kAdd)), Pipe::kS);
  EXPECT_EQ(IssuePipe(Vadd()), Pipe::kV);
  EXPECT_EQ(IssuePipe(ValidBase(Opcode::kCopyGmL1)), Pipe::kMte2);
  EXPECT_EQ(IssuePipe(ValidBase(Opcode::kFixL0cGm)), Pipe::kFix);
  Instr set = ValidBase(Opcode::kSetFlag);
  set.spipe = Pipe::kMte2;
  set.dpipe = Pipe::kV;
  EXPECT_EQ(IssuePipe(set), Pipe::kMte2);
  set.op = Opcode::kWaitFlag;
  EXPECT_EQ(IssuePipe(set), Pipe::kV);
}

TEST(Isa, DTypeNamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType d = static_cast<DType>(i);
    EXPECT_EQ(ParseDType(DTypeName(d)), d);
  }
  EXPECT_EQ(ParseDType("float32"), DType::kF32);
  EXPECT_EQ(DTypeBytes(DType::kBF16), 2);
  EXPECT_FALSE(ParseDType("f8").has_value());
}

}  // namespace
}  // namespace tilejit::target
