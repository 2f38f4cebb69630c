// SPDX-License-Identifier: Apache-2.0
#include "compiler/target/asm.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compiler/target/isa_doc.h"
#include "tests/compiler/target/isa_test_util.h"

namespace tilejit::target {
namespace {

using testing::BoundaryVariants;

TEST(Asm, DisassembleAssembleRoundTripsEveryOpcodeAtFieldBounds) {
  for (int i = 0; i < kNumOpcodes; ++i) {
    for (const Instr& in : BoundaryVariants(static_cast<Opcode>(i))) {
      const std::string text = Disassemble(in);
      Result<Instr> back = AssembleInstr(text);
      ASSERT_TRUE(back.ok()) << text << ": " << back.status();
      EXPECT_EQ(back.value(), in) << text;
    }
  }
}

TEST(Asm, AssemblesProgramWithLabelsCommentsAndLines) {
  const char* text = R"(
    ; count down r1 from 3
          li rd=r1, imm64=3          @5
    loop: sub rd=r1, rs1=r1, src2=1  # decrement
          bnz rs1=r1, off=loop
          end
  )";
  Result<std::vector<Instr>> p = Assemble(text);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p.value().size(), 4u);
  EXPECT_EQ(p.value()[0].line, 5u);
  EXPECT_EQ(p.value()[1].src2, OpImm(1));
  EXPECT_EQ(p.value()[2].off, -1);
  Result<std::vector<Instr>> again = Assemble(DisassembleProgram(p.value()));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), p.value());
}

TEST(Asm, ParsesRegisterPlusOffsetOperands) {
  Result<Instr> in = AssembleInstr(
      "copy_gm_ub dst=r0+64, src=r7-32, nburst=r2, len=0x100, src_stride=r3+1, dst_stride=256, "
      "pad=1, padval=0xff800000, dtype=f32");
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in.value().dst, OpImm(64));
  EXPECT_EQ(in.value().src, OpReg(7, -32));
  EXPECT_EQ(in.value().nburst, OpReg(2));
  EXPECT_EQ(in.value().len, OpImm(256));
  EXPECT_EQ(in.value().padval, 0xff800000);
}

TEST(Asm, RejectsValuesPastHardwareLimitsNamingTheLine) {
  Result<std::vector<Instr>> p = Assemble(
      "nop\n"
      "mmad dst=0, src=0, src1=0, m=4096, n=16, k=16, init=1, dtype=f16\n");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("line 2"), std::string::npos) << p.status();
  EXPECT_NE(p.status().message().find("'m'"), std::string::npos) << p.status();
  EXPECT_FALSE(AssembleInstr("set_flag spipe=mte2, dpipe=v, event=8").ok());
  EXPECT_FALSE(AssembleInstr("xwait pipe=s, flag=11").ok());
  EXPECT_FALSE(AssembleInstr("mov rd=r32, rs1=r1").ok());
}

TEST(Asm, RejectsMalformedLines) {
  EXPECT_FALSE(AssembleInstr("frobnicate rd=r1").ok());
  EXPECT_FALSE(AssembleInstr("mov rd=r1").ok());                  // missing operand
  EXPECT_FALSE(AssembleInstr("mov rd=r1, rs1=r2, rs1=r3").ok());  // duplicate
  EXPECT_FALSE(AssembleInstr("mov rd=r1, rs1=r2, repeat=1").ok());
  EXPECT_FALSE(AssembleInstr("mov rd=r1 rs1=r2").ok());
  EXPECT_FALSE(AssembleInstr("barrier pipe=nowhere").ok());
  EXPECT_FALSE(AssembleInstr("jmp off=somewhere").ok());
  EXPECT_FALSE(Assemble("jmp off=nowhere\nend").ok());
  EXPECT_FALSE(Assemble("a: nop\na: end").ok());
}

std::string ReadIsaDoc() {
  std::ifstream f(std::string(TILEJIT_SOURCE_DIR) + "/docs/isa.md");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Asm, DocsEmbedTheCurrentGeneratedReference) {
  const std::string doc = ReadIsaDoc();
  const size_t begin = doc.find(kIsaDocBegin);
  const size_t end = doc.find(kIsaDocEnd);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const size_t start = begin + std::string(kIsaDocBegin).size() + 1;  // skip the newline
  EXPECT_EQ(doc.substr(start, end - start), IsaReferenceMarkdown())
      << "docs/isa.md is stale; replace the generated block with the text above";
}

TEST(Asm, DocsDescribeEveryMnemonic) {
  const std::string doc = ReadIsaDoc();
  ASSERT_FALSE(doc.empty());
  for (int i = 0; i < kNumOpcodes; ++i) {
    const std::string mn(OpcodeName(static_cast<Opcode>(i)));
    bool found = false;
    for (size_t pos = doc.find(mn); pos != std::string::npos; pos = doc.find(mn, pos + 1)) {
      auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      const bool left = pos == 0 || !word(doc[pos - 1]);
      const bool right = pos + mn.size() >= doc.size() || !word(doc[pos + mn.size()]);
      if (left && right) {
        found = true;
        break;
      }
    }
    EXPECT_TRUE(found) << mn << " is not described in docs/isa.md";
  }
}

}  // namespace
}  // namespace tilejit::target
