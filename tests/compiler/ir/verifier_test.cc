// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/verifier.h"

#include <gtest/gtest.h>

#include "compiler/ir/ir_parser.h"
#include "test_kernels.h"

namespace tilejit::ir {
namespace {

using testing::Alloc;
using testing::Launch;
using testing::OnChip;
using testing::Param;

// Verifies the kernel parsed from `body` (after a fixed two-param header) and returns the
// verifier's message ("" when it passes).
std::string VerifyText(std::string_view body) {
  std::string text = std::string(
                         "param %p0: gm float32[64, 32] input\n"
                         "param %p1: gm float32[64, 32] output\n"
                         "out_idx = [1]\nworkspace_idx = []\n") +
                     std::string(body);
  Result<Kernel> k = ParseTileIrString(text);
  if (!k.ok()) return "PARSE: " + k.status().message();
  Status s = Verify(*k);
  return s.ok() ? "" : s.message();
}

std::string Launched(std::string_view stmts) {
  return "launch(1, threads=0) (%c, %v) {\n" + std::string(stmts) + "}\n";
}

TEST(Verifier, AcceptsWellFormedKernel) {
  EXPECT_EQ(VerifyText(Launched("alloc %x: ub float32[32, 32]\n"
                                "copy(%x, %p0[%c * 32:+32, :])\n"
                                "add(%x, %x, 1.0)\n"
                                "copy(%p1[%c * 32:+32, :], %x)\n")),
            "");
}

TEST(Verifier, RejectsVarUsedOutsideItsScope) {
  std::string msg =
      VerifyText(Launched("for %i in serial(0, 4) {\n  barrier(v)\n}\n"
                          "set_flag(mte2, v, %i)\n"));
  EXPECT_NE(msg.find("variable 'i' used outside its scope"), std::string::npos) << msg;
}

TEST(Verifier, RejectsLaunchVarUsedBeforeLaunch) {
  std::string msg = VerifyText("let %a = 1\n" + Launched("barrier(v)\n") + "");
  EXPECT_EQ(msg, "");
  Var cid = MakeVar("cid", DType::kInt32), vid = MakeVar("vid", DType::kInt32);
  Kernel k;
  k.body =
      Seq({std::make_shared<LetNode>(MakeVar("x", DType::kInt32), Ref(cid), Seq({}), SourceLoc{}),
           Launch(IntImm(1), 0, cid, vid, {})});
  Status s = Verify(k);
  EXPECT_NE(s.message().find("variable 'cid' used outside its scope"), std::string::npos) << s;
}

TEST(Verifier, RejectsVarReboundInsideItsOwnScope) {
  Var i = MakeVar("i", DType::kInt32), cid = MakeVar("c", DType::kInt32);
  Stmt inner =
      std::make_shared<ForNode>(i, IntImm(0), IntImm(2), ForKind::kSerial, 0, Seq({}), SourceLoc{});
  Stmt outer =
      std::make_shared<ForNode>(i, IntImm(0), IntImm(2), ForKind::kSerial, 0, inner, SourceLoc{});
  Kernel k;
  k.body = Launch(IntImm(1), 0, cid, MakeVar("v", DType::kInt32), {outer});
  EXPECT_NE(Verify(k).message().find("re-bound in its scope"), std::string::npos);
}

TEST(Verifier, RejectsBufferNeitherParamNorAllocated) {
  Kernel k;
  Buffer stray = OnChip("stray", {8}, DType::kFloat32, MemScope::kUB);
  k.body = Launch(IntImm(1), 0, MakeVar("c", DType::kInt32), MakeVar("v", DType::kInt32),
                  {MakeTileOp(TileOpCode::kFill, {WholeBuffer(stray), FloatImm(0)})});
  Status s = Verify(k);
  EXPECT_NE(s.message().find("buffer 'stray' is neither a param nor allocated"), std::string::npos)
      << s;
}

TEST(Verifier, RejectsBufferAllocatedTwice) {
  Buffer b = OnChip("b", {8}, DType::kFloat32, MemScope::kUB);
  Kernel k;
  k.body = Launch(IntImm(1), 0, MakeVar("c", DType::kInt32), MakeVar("v", DType::kInt32),
                  {Alloc(b), Alloc(b)});
  EXPECT_NE(Verify(k).message().find("allocated twice"), std::string::npos);
}

TEST(Verifier, RejectsNegativeAddressAndEmptyDimension) {
  BufferNode placed = *OnChip("b", {8}, DType::kFloat32, MemScope::kUB);
  placed.address = -32;
  Kernel k;
  k.params = {Param("p", {0}, DType::kFloat32, BufferRole::kInput)};
  k.body = Launch(IntImm(1), 0, MakeVar("c", DType::kInt32), MakeVar("v", DType::kInt32),
                  {Alloc(MakeBuffer(placed))});
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  EXPECT_FALSE(Verify(k, &diag).ok());
  EXPECT_NE(diag.RenderAll().find("buffer 'p' has a non-positive dimension"), std::string::npos);
  EXPECT_NE(diag.RenderAll().find("buffer 'b' has a negative address"), std::string::npos);
}

TEST(Verifier, RejectsRegionRankMismatch) {
  Buffer p = Param("p", {4, 4}, DType::kFloat32, BufferRole::kInput);
  Buffer b = OnChip("b", {4, 4}, DType::kFloat32, MemScope::kUB);
  Kernel k;
  k.params = {p};
  Region r{p, {Range{IntImm(0), 4}}, SourceLoc{}};
  k.body = Launch(IntImm(1), 0, MakeVar("c", DType::kInt32), MakeVar("v", DType::kInt32),
                  {Alloc(b), MakeTileOp(TileOpCode::kCopy, {WholeBuffer(b), r})});
  EXPECT_NE(Verify(k).message().find("region of 'p' has rank 1, buffer has rank 2"),
            std::string::npos)
      << Verify(k);
}

TEST(Verifier, RejectsStaticRegionOutOfBounds) {
  // On chip a region must lie inside its buffer.
  std::string msg = VerifyText(
      Launched("alloc %x: ub float32[32, 32]\ncopy(%x[16:+32, :], %p0[0:+32, 0:+32])\n"));
  EXPECT_NE(msg.find("region [16, 48) out of bounds of dimension 0 of 'x' (32)"), std::string::npos)
      << msg;
  // A GM region must start inside its tensor...
  msg = VerifyText(Launched("alloc %x: ub float32[32, 32]\ncopy(%x, %p0[64:+32, 0:+32])\n"));
  EXPECT_NE(msg.find("region [64, 96) out of bounds of dimension 0 of 'p0' (64)"),
            std::string::npos)
      << msg;
}

TEST(Verifier, AcceptsAGmRegionRunningPastTheTensorEndAsATail) {
  EXPECT_EQ(VerifyText(Launched("alloc %x: ub float32[32, 32]\ncopy(%x, %p0[48:+32, 0:+32])\n")),
            "");
}

TEST(Verifier, RejectsLoadWithWrongIndexCountOrConstantOutOfBounds) {
  EXPECT_NE(VerifyText(Launched("fill(%p1, %p0[1])\n")).find("indexed with 1 indices"),
            std::string::npos);
  EXPECT_NE(VerifyText(Launched("%p1[0, 32] = 1.0\n")).find("index 32 out of bounds"),
            std::string::npos);
}

TEST(Verifier, RejectsUnknownAttribute) {
  std::string msg = VerifyText(Launched("copy(%p0, %p1) {transpoze=true}\n"));
  EXPECT_NE(msg.find("unknown attribute 'transpoze' of copy"), std::string::npos) << msg;
}

TEST(Verifier, RejectsAttributeOfWrongType) {
  std::string msg = VerifyText(Launched("reduce_sum(%p0, %p1) {dim=\"last\"}\n"));
  EXPECT_NE(msg.find("attribute 'dim' of reduce_sum must be a int"), std::string::npos) << msg;
  EXPECT_EQ(VerifyText(Launched("alloc %a: l1 float16[16, 16]\nalloc %b: l1 float16[16, 16]\n"
                                "alloc %o: l0c float32[16, 16]\n"
                                "gemm_v0(%a, %b, %o) {init=%c == 0}\n")),
            "");
  EXPECT_NE(VerifyText(Launched("alloc %a: l1 float16[16, 16]\nalloc %b: l1 float16[16, 16]\n"
                                "alloc %o: l0c float32[16, 16]\n"
                                "gemm_v0(%a, %b, %o) {init=1}\n"))
                .find("must be a bool or expression"),
            std::string::npos);
}

TEST(Verifier, RejectsWrongOperandCountAndKinds) {
  EXPECT_NE(VerifyText(Launched("add(%p1, %p0)\n")).find("add takes 3 operands, got 2"),
            std::string::npos);
  EXPECT_NE(VerifyText(Launched("copy(%p0, 1.0)\n")).find("copy operand 1 must be a buffer region"),
            std::string::npos);
  EXPECT_NE(VerifyText(Launched("fill(%p1, %p0)\n")).find("fill operand 1 must be a scalar"),
            std::string::npos);
}

TEST(Verifier, RejectsIllegalFlagPipes) {
  EXPECT_NE(VerifyText(Launched("set_flag(v, v, 0)\n")).find("both 'v'"), std::string::npos);
  EXPECT_NE(VerifyText(Launched("wait_flag(all, v, 0)\n")).find("not 'all'"), std::string::npos);
  EXPECT_NE(VerifyText(Launched("set_cross_flag(all, 1, mode=2)\n")).find("not 'all'"),
            std::string::npos);
}

TEST(Verifier, RejectsNullChildren) {
  Kernel k;
  k.body = Launch(nullptr, 0, MakeVar("c", DType::kInt32), MakeVar("v", DType::kInt32), {nullptr});
  Status s = Verify(k);
  EXPECT_NE(s.message().find("missing launch grid"), std::string::npos) << s;
  EXPECT_NE(s.message().find("1 more"), std::string::npos) << s;
}

TEST(Verifier, RejectsUnknownScalarCall) {
  EXPECT_NE(VerifyText("let %a: float32 = tanh(1.0)\n").find("unknown scalar intrinsic 'tanh'"),
            std::string::npos);
}

TEST(Verifier, RejectsBadOutIdxAndNonGmParam) {
  std::string text = "param %p0: ub float32[4] input\nout_idx = [0, 3, 0]\nworkspace_idx = []\n";
  Result<Kernel> k = ParseTileIrString(text);
  ASSERT_TRUE(k.ok());
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  EXPECT_FALSE(Verify(*k, &diag).ok());
  std::string all = diag.RenderAll();
  EXPECT_NE(all.find("param 'p0' is not in gm"), std::string::npos) << all;
  EXPECT_NE(all.find("out_idx 3 is not a param index"), std::string::npos) << all;
  EXPECT_NE(all.find("out_idx lists param 0 twice"), std::string::npos) << all;
}

TEST(Verifier, ReportsFindingsAtNodeLocations) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  std::string text =
      "param %p0: gm float32[4] input\nout_idx = []\nworkspace_idx = []\n"
      "launch(1, threads=0) (%c, %v) {\n  set_flag(v, v, 0)\n}\n";
  Result<Kernel> k = ParseTileIr(text, &sources, &diag);
  ASSERT_TRUE(k.ok());
  EXPECT_FALSE(Verify(*k, &diag).ok());
  EXPECT_NE(diag.RenderAll().find("<tile_ir>:5:3: error: flag source and destination"),
            std::string::npos)
      << diag.RenderAll();
}

}  // namespace
}  // namespace tilejit::ir
