// SPDX-License-Identifier: Apache-2.0
// Emitter unit tests: constant folding, operand arithmetic, bounds, registers and region
// addresses in every layout (expected offsets computed by hand from docs/isa.md section 3).
#include "compiler/codegen/emitter.h"

#include <gtest/gtest.h>

#include <string>

#include "common/source_loc.h"
#include "compiler/ir/ir.h"

namespace tilejit::codegen {
namespace {

using ir::BinaryOp;
using target::OpImm;
using target::Opnd;

class EmitterTest : public ::testing::Test {
 protected:
  EmitterTest() : diag_(&sources_), e_(target::Ascend910B2(), target::CoreType::kAiv, &diag_) {}

  ir::Buffer Buf(ir::MemScope scope, ir::DType dt, std::vector<int64_t> shape,
                 std::optional<int64_t> addr = std::nullopt) {
    ir::BufferNode n;
    n.name = "b";
    n.shape = std::move(shape);
    n.dtype = dt;
    n.scope = scope;
    n.address = addr;
    if (scope == ir::MemScope::kGM) n.role = ir::BufferRole::kInput;
    return ir::MakeBuffer(std::move(n));
  }

  static ir::Region Reg(const ir::Buffer& b, std::vector<std::pair<ir::Expr, int64_t>> r) {
    ir::Region region;
    region.buffer = b;
    for (auto& [min, ext] : r) region.ranges.push_back(ir::Range{min, ext});
    return region;
  }

  static ir::Expr I(int64_t v) { return ir::IntImm(v); }

  SourceManager sources_;
  DiagnosticEngine diag_;
  Emitter e_;
};

TEST_F(EmitterTest, FoldsConstantsWithoutInstructions) {
  auto x = e_.Int(ir::Binary(BinaryOp::kAdd, ir::Binary(BinaryOp::kMul, I(6), I(7)),
                             ir::Binary(BinaryOp::kFloorMod, I(-7), I(3))));
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(*x, OpImm(44));
  auto f = e_.FloatBits(ir::Binary(BinaryOp::kMul, ir::FloatImm(1.5), ir::FloatImm(2.0)));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, OpImm(0x40400000));  // 3.0f
  EXPECT_EQ(e_.size(), 0u);
}

TEST_F(EmitterTest, RegisterPlusConstantStaysAnOperand) {
  const ir::Var cid = ir::MakeVar("cid", ir::DType::kInt32);
  e_.BindVar(cid, 5, std::pair<int64_t, int64_t>{0, 3});
  auto x =
      e_.Int(ir::Binary(BinaryOp::kSub, ir::Binary(BinaryOp::kAdd, ir::Ref(cid), I(40)), I(8)));
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(*x, (Opnd{5, 32}));
  EXPECT_EQ(e_.size(), 0u);
  // (cid*64 + 32) // 32 = cid*2 + 1: the constant part is carried, not computed.
  auto y = e_.Int(ir::Binary(
      BinaryOp::kFloorDiv,
      ir::Binary(BinaryOp::kAdd, ir::Binary(BinaryOp::kMul, ir::Ref(cid), I(64)), I(32)), I(32)));
  ASSERT_TRUE(y.ok());
  EXPECT_NE(y->reg, 0);
  EXPECT_EQ(y->imm, 1);
}

TEST_F(EmitterTest, BoundsFollowVarRangesAndOperators) {
  const ir::Var cid = ir::MakeVar("cid", ir::DType::kInt32);
  e_.BindVar(cid, 5, std::pair<int64_t, int64_t>{0, 3});
  auto b =
      e_.Bounds(ir::Binary(BinaryOp::kAdd, ir::Binary(BinaryOp::kMul, ir::Ref(cid), I(64)), I(32)));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(*b, (std::pair<int64_t, int64_t>{32, 224}));
  auto m = e_.Bounds(ir::Binary(BinaryOp::kFloorMod, ir::Ref(cid), I(2)));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(*m, (std::pair<int64_t, int64_t>{0, 1}));
  const ir::Buffer gm64 = Buf(ir::MemScope::kGM, ir::DType::kInt64, {4});
  EXPECT_FALSE(e_.Bounds(ir::Load(gm64, {I(0)})).has_value());
  const ir::Buffer gm8 = Buf(ir::MemScope::kGM, ir::DType::kInt8, {4});
  EXPECT_EQ(e_.Bounds(ir::Load(gm8, {I(0)})), (std::pair<int64_t, int64_t>{-128, 127}));
}

TEST_F(EmitterTest, TemporariesAreReusedAfterRelease) {
  const uint8_t a = e_.Temp();
  const uint8_t b = e_.Temp();
  EXPECT_NE(a, b);
  e_.ReleaseTemps();
  EXPECT_EQ(e_.Temp(), a);
}

TEST_F(EmitterTest, RunningOutOfRegistersIsADiagnostic) {
  for (int i = 0; i < 40; ++i) e_.Temp();
  EXPECT_TRUE(diag_.has_errors());
  EXPECT_NE(diag_.RenderAll().find("too many live scalar values"), std::string::npos);
}

TEST_F(EmitterTest, NdRegionAddressUsesThePaddedRowPitch) {
  const ir::Buffer ub = Buf(ir::MemScope::kUB, ir::DType::kFloat32, {4, 10}, 256);
  auto ref = e_.RegionAddress(Reg(ub, {{I(2), 1}, {I(3), 4}}));
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_EQ(ref->address, OpImm(256 + 2 * 64 + 3 * 4));
  EXPECT_EQ(ref->rows, 1);
  EXPECT_EQ(ref->cols, 4);
  EXPECT_EQ(ref->row_min, OpImm(2));
}

TEST_F(EmitterTest, FractalRegionAddressesMatchTheLayoutFormulas) {
  // zN(P = 64, C0 = 16), f16: ((32 / 16) * 64 + 16) * 32.
  const ir::Buffer l1 = Buf(ir::MemScope::kL1, ir::DType::kFloat16, {64, 64}, 1024);
  auto a = e_.RegionAddress(Reg(l1, {{I(16), 16}, {I(32), 16}}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->address, OpImm(1024 + (2 * 64 + 16) * 32));
  // zZ, kf = 4: ((16 / 16) * 4 + 16 / 16) * 512.
  const ir::Buffer l0a = Buf(ir::MemScope::kL0A, ir::DType::kFloat16, {64, 64}, 0);
  auto b = e_.RegionAddress(Reg(l0a, {{I(16), 16}, {I(16), 16}}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->address, OpImm(5 * 512));
  // nZ, f32 (C0 = 8), nf = 4: ((8 / 8) * 4 + 32 / 16) * 512.
  const ir::Buffer l0b = Buf(ir::MemScope::kL0B, ir::DType::kFloat32, {64, 64}, 0);
  auto c = e_.RegionAddress(Reg(l0b, {{I(8), 8}, {I(32), 16}}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->address, OpImm(6 * 512));
  // L0C zN(P = 64, 16), 4-byte: ((16 / 16) * 64 + 16) * 64.
  const ir::Buffer l0c = Buf(ir::MemScope::kL0C, ir::DType::kFloat32, {64, 64}, 0);
  auto d = e_.RegionAddress(Reg(l0c, {{I(16), 16}, {I(16), 16}}));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->address, OpImm(80 * 64));
  // A leading dim indexes whole matrices: [2, 32, 32] f16 in L1, matrix 1.
  const ir::Buffer db = Buf(ir::MemScope::kL1, ir::DType::kFloat16, {2, 32, 32}, 0);
  auto m = e_.RegionAddress(Reg(db, {{I(1), 1}, {I(0), 32}, {I(0), 32}}));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->address, OpImm(2 * 32 * 32));
  EXPECT_EQ(m->batch, 1);
  EXPECT_FALSE(diag_.has_errors());
}

TEST_F(EmitterTest, MisalignedFractalRegionIsADiagnostic) {
  const ir::Buffer l1 = Buf(ir::MemScope::kL1, ir::DType::kFloat16, {64, 64}, 0);
  auto a = e_.RegionAddress(Reg(l1, {{I(0), 16}, {I(8), 16}}));
  EXPECT_FALSE(a.ok());
  EXPECT_NE(diag_.RenderAll().find("not a multiple of 16"), std::string::npos) << diag_.RenderAll();
}

TEST_F(EmitterTest, RuntimeFractalMinIsAcceptedWhenProvablyAligned) {
  const ir::Var k = ir::MakeVar("k", ir::DType::kInt32);
  e_.BindVar(k, 7, std::pair<int64_t, int64_t>{0, 3});
  const ir::Buffer l1 = Buf(ir::MemScope::kL1, ir::DType::kFloat16, {64, 64}, 0);
  auto a =
      e_.RegionAddress(Reg(l1, {{I(0), 64}, {ir::Binary(BinaryOp::kMul, ir::Ref(k), I(16)), 16}}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_NE(a->address.reg, 0);
  auto bad =
      e_.RegionAddress(Reg(l1, {{I(0), 64}, {ir::Binary(BinaryOp::kMul, ir::Ref(k), I(8)), 16}}));
  EXPECT_FALSE(bad.ok());
}

TEST_F(EmitterTest, GmRegionAddsTheHoistedParamBase) {
  const ir::Buffer gm = Buf(ir::MemScope::kGM, ir::DType::kFloat32, {8, 16});
  e_.SetParams({gm});
  auto a = e_.RegionAddress(Reg(gm, {{I(2), 2}, {I(4), 8}}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_NE(a->address.reg, 0);
  EXPECT_EQ(a->address.imm, 2 * 64 + 16);
  EXPECT_EQ(e_.size(), 0u);  // the ld_arg goes into the prologue
  const auto prog = e_.Finish();
  ASSERT_EQ(prog.size(), 2u);
  EXPECT_EQ(prog[0].op, target::Opcode::kLdArg);
  EXPECT_EQ(prog[0].rd, a->address.reg);
  EXPECT_EQ(prog[1].op, target::Opcode::kEnd);
}

TEST_F(EmitterTest, AddKeepsA64BitAddressOutOfTheInt32Operand) {
  const ir::Buffer gm = Buf(ir::MemScope::kGM, ir::DType::kFloat32, {8, 16});
  e_.SetParams({gm});
  const Opnd base = e_.ParamBase(gm);
  const uint8_t off = e_.Temp();
  const Opnd sum = e_.Add(target::OpReg(off, 4), base);
  EXPECT_EQ(sum.imm, 4);
  const auto prog = e_.Finish();
  ASSERT_EQ(prog.size(), 3u);  // ld_arg, add, end
  EXPECT_EQ(prog[1].op, target::Opcode::kAdd);
  EXPECT_EQ(prog[1].rs1, base.reg);
  EXPECT_EQ(prog[1].src2, target::OpReg(off));
}

}  // namespace
}  // namespace tilejit::codegen
