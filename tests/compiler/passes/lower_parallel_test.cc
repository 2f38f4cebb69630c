// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/lower_parallel.h"

#include <gtest/gtest.h>

#include <string>

#include "compiler/frontend/shape_rules.h"
#include "compiler/ir/visitor.h"
#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

constexpr std::string_view kParallelHeader =
    "param %p0: gm float32[64, 64] input\n"
    "param %p1: gm float32[64, 64] output\n"
    "out_idx = [1]\n"
    "workspace_idx = []\n"
    "launch(1, threads=0) (%cid, %vid) {\n"
    "  alloc %ub_0: ub float32[64, 64]\n"
    "  alloc %ub_1: ub float32[64]\n";

std::string ParallelKernel(std::string_view body, std::string_view temps = "") {
  return std::string(kParallelHeader) + std::string(temps) + std::string(body) + "}\n";
}

// A 2-D nest over [64, 64] (%v0 rows, %v1 columns) around `stores`.
std::string Nest2(std::string_view stores) {
  return "  for %v0 in parallel(0, 64) {\n    for %v1 in parallel(0, 64) {\n" +
         std::string(stores) + "    }\n  }\n";
}

// Every binary vector op of the result must satisfy the frontend's shape rules (what the
// vector codegen accepts): first source == destination, second source same / per row / per
// column / scalar.
void ExpectShapeRulesHold(std::string_view text) {
  Result<ir::Kernel> k = ir::ParseTileIrString(text);
  ASSERT_TRUE(k.ok()) << k.status();
  class Checker : public ir::Visitor {
   protected:
    void VisitTileOp(const ir::TileOpNode& op) override {
      using ir::TileOpCode;
      bool binary = op.op == TileOpCode::kAdd || op.op == TileOpCode::kSub ||
                    op.op == TileOpCode::kMul || op.op == TileOpCode::kDiv ||
                    op.op == TileOpCode::kMin || op.op == TileOpCode::kMax;
      if (binary) {
        const auto& dst = std::get<ir::Region>(op.args[0]);
        EXPECT_EQ(std::get<ir::Region>(op.args[1]).TrimmedShape(), dst.TrimmedShape());
        if (const auto* src1 = std::get_if<ir::Region>(&op.args[2])) {
          EXPECT_TRUE(frontend::BinaryBroadcast(dst, *src1).has_value())
              << ir::PrintStmt(std::make_shared<ir::TileOpNode>(op.op, op.args, op.attrs, op.loc));
        }
      }
      ir::Visitor::VisitTileOp(op);
    }
  } checker;
  checker.VisitKernel(*k);
}

TEST(LowerParallel, TracerExampleBecomesMulThenRowBroadcastAddWithABarrier) {
  PassRunner r;
  std::string out =
      r.Run(LowerParallel, ParallelKernel(Nest2("      %ub_0[%v0, %v1] = %ub_0[%v0, %v1] * 2.0 + "
                                                "%ub_1[%v0]\n") +
                                          "  for %v2 in parallel(0, 64) {\n"
                                          "    %ub_1[%v2] = %ub_1[%v2] + 1.0\n"
                                          "  }\n"));
  EXPECT_EQ(out, ParallelKernel("  mul(%ub_2, %ub_0, 2.0)\n"
                                "  barrier(v) {compiler}\n"
                                "  add(%ub_0, %ub_2, %ub_1)\n"
                                "  add(%ub_1, %ub_1, 1.0)\n",
                                "  alloc %ub_2: ub float32[64, 64]\n"));
  ExpectShapeRulesHold(out);
  EXPECT_EQ(r.ctx.stats["nests_lowered"], 2);
  EXPECT_EQ(r.ctx.stats["tile_ops"], 3);
  EXPECT_EQ(r.ctx.stats["barriers"], 1);
  EXPECT_EQ(r.ctx.stats["temp_bytes"], 64 * 64 * 4);
}

// Upstream's automatic copies (tile-ai/tilelang-ascend testing/python/language/parallel/
// test_tilelang_ascend_language_parallel_auto_copy.py): a GM store computes into a UB tile and
// copies it out, a GM read is copied in first; in Expert mode barrier(all) orders the copies
// (MTE pipes) with the vector ops.
TEST(LowerParallel, GmOperandsAreStagedThroughUbTiles) {
  PassRunner r;
  std::string out =
      r.Run(LowerParallel,
            ParallelKernel(Nest2("      %p1[%v0, %v1] = %ub_0[%v0, %v1] + %p0[%v0, %v1]\n") +
                           "  for %v2 in parallel(0, 32) {\n"
                           "    %p1[%cid, %v2 + 32] = %ub_1[%v2 + 32]\n"
                           "  }\n"));
  EXPECT_EQ(out, ParallelKernel("  copy(%ub_2, %p0)\n"
                                "  barrier(all) {compiler}\n"
                                "  add(%ub_2, %ub_0, %ub_2)\n"
                                "  barrier(all) {compiler}\n"
                                "  copy(%p1, %ub_2)\n"
                                "  barrier(all) {compiler}\n"
                                "  copy(%p1[%cid:+1, 32:+32], %ub_1[32:+32])\n"
                                "  barrier(all) {compiler}\n",
                                "  alloc %ub_2: ub float32[64, 64]\n"));
  ExpectShapeRulesHold(out);
}

TEST(LowerParallel, AGmStoreOfOneUbRegionIsOneCopy) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  EXPECT_EQ(r.Run(LowerParallel, ParallelKernel(Nest2("      %p1[%v0, %v1] = %ub_0[%v0, %v1]\n"))),
            ParallelKernel("  copy(%p1, %ub_0)\n"));
}

// Integer bitwise operators (upstream's parallel::test_and_operation, test_not_operation,
// test_shiftleft_operation): & | ^ tile-tile, << >> by a scalar, ~ as bitwise_not.
TEST(LowerParallel, BitwiseOperatorsBecomeBitwiseTileOps) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  const std::string allocs =
      "  alloc %ub_2: ub int16[64, 64]\n"
      "  alloc %ub_3: ub int16[64, 64]\n";
  EXPECT_EQ(r.Run(LowerParallel,
                  ParallelKernel(Nest2("      %ub_2[%v0, %v1] = %ub_2[%v0, %v1] & %ub_3[%v0, %v1]\n"
                                       "      %ub_3[%v0, %v1] = ~%ub_3[%v0, %v1]\n"
                                       "      %ub_2[%v0, %v1] = %ub_2[%v0, %v1] << int16(2)\n"),
                                 allocs)),
            ParallelKernel("  bitwise_and(%ub_2, %ub_2, %ub_3)\n"
                           "  bitwise_not(%ub_3, %ub_3)\n"
                           "  bitwise_lshift(%ub_2, %ub_2, int16(2))\n",
                           allocs));
}

// upstream's parallel_ub_stride::test_parallel_if_else_serial_fallback: a branch per element
// has no vector form, so the nest runs serially on the scalar unit, with a warning.
TEST(LowerParallel, ABranchPerElementFallsBackToSerialLoops) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out = r.Run(LowerParallel, ParallelKernel("  for %v0 in parallel(0, 64) {\n"
                                                        "    if %ub_1[%v0] > 0.0 {\n"
                                                        "      %ub_1[%v0] = 0.0\n"
                                                        "    }\n"
                                                        "  }\n"));
  EXPECT_EQ(out, ParallelKernel("  for %v0 in serial(0, 64) {\n"
                                "    if %ub_1[%v0] > 0.0 {\n"
                                "      %ub_1[%v0] = 0.0\n"
                                "    }\n"
                                "  }\n"));
  ASSERT_EQ(r.Messages(Severity::kWarning).size(), 1u);
  EXPECT_NE(r.Messages(Severity::kWarning)[0].find("runs as a serial loop of 64 scalar iterations"),
            std::string::npos);
  EXPECT_EQ(r.ctx.stats["nests_serialised"], 1);
}

// upstream's parallel::test_tilelang_ascend_language_parallel_discrete (c[i, j] = a[idx[i], j]
// * b[i, j], its torch reference a gather along dim 0): the rows come through an index
// buffer, so the row loop runs serially and each row is one vector op from a runtime row.
TEST(LowerParallel, RowsGatheredThroughAnIndexBufferBecomeASerialRowLoop) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  const std::string allocs =
      "  alloc %ub_2: ub int32[64]\n"
      "  alloc %ub_3: ub float32[64, 64]\n";
  std::string out = r.Run(
      LowerParallel,
      ParallelKernel(Nest2("      %ub_3[%v0, %v1] = %ub_0[%ub_2[%v0], %v1] * %ub_3[%v0, %v1]\n"),
                     allocs));
  EXPECT_EQ(out,
            ParallelKernel("  for %v0 in serial(0, 64) {\n"
                           "    mul(%ub_3[%v0:+1, :], %ub_0[%ub_2[%v0]:+1, :], %ub_3[%v0:+1, :])\n"
                           "  }\n",
                           allocs));
  ExpectShapeRulesHold(out);
  EXPECT_EQ(r.ctx.stats["gathered_row_loops"], 1);
}

// The row's temporary (one row, reused by every row) is why the barrier is needed: the next
// row's add must not overwrite it before this row's copy has read it.
TEST(LowerParallel, InExpertModeEachGatheredRowEndsWithAVectorBarrier) {
  PassRunner r;
  const std::string allocs = "  alloc %ub_2: ub int32[64]\n";
  std::string out = r.Run(
      LowerParallel,
      ParallelKernel(Nest2("      %ub_0[%v0, %v1] = %ub_0[%ub_2[%v0], %v1] + 1.0\n"), allocs));
  EXPECT_EQ(out, ParallelKernel("  for %v0 in serial(0, 64) {\n"
                                "    add(%ub_3, %ub_0[%ub_2[%v0]:+1, :], 1.0)\n"
                                "    barrier(v) {compiler}\n"
                                "    copy(%ub_0[%v0:+1, :], %ub_3)\n"
                                "    barrier(v) {compiler}\n"
                                "  }\n",
                                "  alloc %ub_2: ub int32[64]\n  alloc %ub_3: ub float32[64]\n"));
}

TEST(LowerParallel, AutoSyncLeavesTheBarriersToSyncInsert) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out =
      r.Run(LowerParallel, ParallelKernel(Nest2("      %ub_0[%v0, %v1] = %ub_0[%v0, %v1] "
                                                "* 2.0 + %ub_1[%v0]\n")));
  EXPECT_EQ(out.find("barrier"), std::string::npos) << out;
}

TEST(LowerParallel, ScalarMinusTileIsNegateThenAddInPlace) {
  PassRunner r;
  std::string out =
      r.Run(LowerParallel, ParallelKernel(Nest2("      %ub_0[%v0, %v1] = 1.0 - %ub_0[%v0, "
                                                "%v1]\n")));
  EXPECT_EQ(out, ParallelKernel("  mul(%ub_0, %ub_0, -1.0)\n"
                                "  barrier(v) {compiler}\n"
                                "  add(%ub_0, %ub_0, 1.0)\n"));
}

TEST(LowerParallel, RowVectorDividedByTileUsesReciprocal) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out =
      r.Run(LowerParallel, ParallelKernel(Nest2("      %ub_0[%v0, %v1] = %ub_1[%v0] / "
                                                "%ub_0[%v0, %v1]\n")));
  EXPECT_EQ(out, ParallelKernel("  reciprocal(%ub_0, %ub_0)\n"
                                "  mul(%ub_0, %ub_0, %ub_1)\n"));
  ExpectShapeRulesHold(out);
}

TEST(LowerParallel, OneDimColumnVectorIsStagedAsAOneByCTile) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out =
      r.Run(LowerParallel, ParallelKernel(Nest2("      %ub_0[%v0, %v1] = %ub_0[%v0, %v1] "
                                                "- %ub_1[%v1]\n")));
  EXPECT_EQ(out, ParallelKernel("  copy(%ub_2, %ub_1)\n"
                                "  sub(%ub_0, %ub_0, %ub_2)\n",
                                "  alloc %ub_2: ub float32[1, 64]\n"));
  ExpectShapeRulesHold(out);
}

TEST(LowerParallel, TwoDimRowAndColumnSlicesBroadcastDirectly) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out = r.Run(
      LowerParallel, ParallelKernel(Nest2("      %ub_3[%v0, %v1] = %ub_3[%v0, %v1] * %ub_4[%v0, 0] "
                                          "+ %ub_4[0, %v1]\n"),
                                    "  alloc %ub_3: ub float32[64, 64]\n"
                                    "  alloc %ub_4: ub float32[64, 64]\n"));
  EXPECT_EQ(out, ParallelKernel("  mul(%ub_4, %ub_2, %ub_3[:, 0:+1])\n"
                                "  add(%ub_2, %ub_4, %ub_3[0:+1, :])\n",
                                "  alloc %ub_2: ub float32[64, 64]\n"
                                "  alloc %ub_3: ub float32[64, 64]\n"
                                "  alloc %ub_4: ub float32[64, 64]\n"));
  ExpectShapeRulesHold(out);
}

TEST(LowerParallel, RuntimeScalarExpAndCastToTheDestinationDtype) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out = r.Run(
      LowerParallel, ParallelKernel(Nest2("      %ub_3[%v0, %v1] = cast<float16>(exp(%ub_0[%v0, "
                                          "%v1] - %var_0[0]))\n"),
                                    "  alloc %ub_3: ub float16[64, 64]\n"
                                    "  alloc %var_0: var float32[1]\n"));
  EXPECT_EQ(out, ParallelKernel("  sub(%ub_3, %ub_0, %var_0[0])\n"
                                "  exp(%ub_3, %ub_3)\n"
                                "  cast(%ub_2, %ub_3) {mode=\"CAST_RINT\"}\n",
                                "  alloc %ub_2: ub float16[64, 64]\n"
                                "  alloc %var_0: var float32[1]\n"
                                "  alloc %ub_3: ub float32[64, 64]\n"));
}

TEST(LowerParallel, IfThenElseBecomesCompareAndSelect) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out =
      r.Run(LowerParallel, ParallelKernel(Nest2("      %ub_0[%v0, %v1] = select(%ub_0[%v0, "
                                                "%v1] > 0.0, %ub_0[%v0, %v1], 0.0)\n")));
  EXPECT_EQ(
      out, ParallelKernel("  compare(%ub_2, %ub_0, 0.0) {mode=\"GT\"}\n"
                          "  select(%ub_0, %ub_2, %ub_0, 0.0) {mode=\"VSEL_TENSOR_SCALAR_MODE\"}\n",
                          "  alloc %ub_2: ub uint8[64, 32]\n"));
}

TEST(LowerParallel, ScalarTrueBranchNegatesTheComparison) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out =
      r.Run(LowerParallel, ParallelKernel(Nest2("      %ub_0[%v0, %v1] = select(0.5 < "
                                                "%ub_0[%v0, %v1], 1.0, %ub_0[%v0, %v1])\n")));
  // 0.5 < x  ==  x > 0.5; the scalar 1.0 goes second, so the mask is x <= 0.5.
  EXPECT_EQ(
      out, ParallelKernel("  compare(%ub_2, %ub_0, 0.5) {mode=\"LE\"}\n"
                          "  select(%ub_0, %ub_2, %ub_0, 1.0) {mode=\"VSEL_TENSOR_SCALAR_MODE\"}\n",
                          "  alloc %ub_2: ub uint8[64, 32]\n"));
}

TEST(LowerParallel, ConstantStoreIsAFillAndOffsetsBecomeRegionMins) {
  PassRunner r;
  std::string out = r.Run(LowerParallel, ParallelKernel("  for %v0 in serial(0, 2) {\n"
                                                        "    for %v1 in parallel(0, 32) {\n"
                                                        "      for %v2 in parallel(0, 64) {\n"
                                                        "        %ub_0[%v0 * 32 + %v1, %v2] = 0.0\n"
                                                        "      }\n"
                                                        "    }\n"
                                                        "  }\n"));
  EXPECT_EQ(out, ParallelKernel("  for %v0 in serial(0, 2) {\n"
                                "    fill(%ub_0[%v0 * 32:+32, :], 0.0)\n"
                                "  }\n"));
}

TEST(LowerParallel, ReadingTheDestinationElsewhereGoesThroughATemporary) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out = r.Run(LowerParallel, ParallelKernel("  for %v0 in parallel(0, 56) {\n"
                                                        "    %ub_1[%v0] = %ub_1[%v0 + 8] * 2.0\n"
                                                        "  }\n"));
  EXPECT_EQ(out, ParallelKernel("  mul(%ub_2, %ub_1[8:+56], 2.0)\n"
                                "  copy(%ub_1[0:+56], %ub_2)\n",
                                "  alloc %ub_2: ub float32[56]\n"));
}

TEST(LowerParallel, LetsInsideTheNestAreInlined) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out = r.Run(LowerParallel, ParallelKernel("  for %v0 in parallel(0, 64) {\n"
                                                        "    let %v1: float32 = %ub_1[%v0] * 3.0\n"
                                                        "    %ub_1[%v0] = %v1 + %v1\n"
                                                        "  }\n"));
  EXPECT_EQ(out, ParallelKernel("  mul(%ub_2, %ub_1, 3.0)\n"
                                "  mul(%ub_3, %ub_1, 3.0)\n"
                                "  add(%ub_1, %ub_2, %ub_3)\n",
                                "  alloc %ub_2: ub float32[64]\n"
                                "  alloc %ub_3: ub float32[64]\n"));
}

TEST(LowerParallel, TemporariesAreReusedAcrossStores) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out =
      r.Run(LowerParallel, ParallelKernel(Nest2("      %ub_0[%v0, %v1] = %ub_0[%v0, %v1] "
                                                "* 2.0 + 1.0 * %ub_1[%v0]\n"
                                                "      %ub_0[%v0, %v1] = %ub_0[%v0, %v1] "
                                                "* 3.0 + %ub_1[%v0]\n")));
  // The second store reuses the first one's [64, 64] temporary; the [64] one holds the row
  // operand 1.0 * %ub_1 (a per-row value).
  EXPECT_EQ(out, ParallelKernel("  mul(%ub_2, %ub_0, 2.0)\n"
                                "  mul(%ub_3, %ub_1, 1.0)\n"
                                "  add(%ub_0, %ub_2, %ub_3)\n"
                                "  mul(%ub_2, %ub_0, 3.0)\n"
                                "  add(%ub_0, %ub_2, %ub_1)\n",
                                "  alloc %ub_2: ub float32[64, 64]\n"
                                "  alloc %ub_3: ub float32[64]\n"));
  ExpectShapeRulesHold(out);
}

// --- diagnostics -------------------------------------------------------------------------

std::string ErrorOf(std::string_view body, std::string_view allocs = "") {
  PassRunner r;
  EXPECT_EQ(r.Run(LowerParallel, ParallelKernel(body, allocs)), "");
  return r.FirstError();
}

TEST(LowerParallel, StoreToL1IsADiagnostic) {
  EXPECT_EQ(ErrorOf(Nest2("      %l1_0[%v0, %v1] = %ub_0[%v0, %v1]\n"),
                    "  alloc %l1_0: l1 float32[64, 64]\n"),
            "T.Parallel store to l1 buffer 'l1_0' cannot become a vector op: vector ops write UB "
            "only; store into a UB tile and copy it out");
}

TEST(LowerParallel, NonAffineIndexIsADiagnostic) {
  EXPECT_EQ(ErrorOf("  for %v0 in parallel(0, 32) {\n"
                    "    %ub_1[%v0 * 2] = 1.0\n"
                    "  }\n"),
            "T.Parallel index 0 of 'ub_1' is not a loop var plus a loop-invariant offset; it "
            "cannot become a vector region");
}

TEST(LowerParallel, ReductionPatternIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(LowerParallel,
                  ParallelKernel(Nest2("      %ub_1[%v0] = %ub_1[%v0] + %ub_0[%v0, %v1]\n"))),
            "");
  EXPECT_EQ(r.FirstError(),
            "T.Parallel store to 'ub_1' does not use every loop var of the nest (a reduction "
            "pattern or a repeated write); use reduce_sum/max/min");
  EXPECT_EQ(r.FirstErrorLine(), 10u);
}

TEST(LowerParallel, TransposedAccessIsADiagnostic) {
  EXPECT_EQ(ErrorOf(Nest2("      %ub_0[%v0, %v1] = %ub_2[%v1, %v0]\n"),
                    "  alloc %ub_2: ub float32[64, 64]\n"),
            "T.Parallel access to 'ub_2' uses the loop vars in another order than the nest (a "
            "transpose); it cannot become a vector region");
}

TEST(LowerParallel, GmReadByRowOnlyIsADiagnostic) {
  EXPECT_EQ(ErrorOf(Nest2("      %ub_0[%v0, %v1] = %p0[%v0, 0] + %ub_0[%v0, %v1]\n")),
            "T.Parallel reads gm buffer 'p0' by row only; copy it into a UB vector first");
}

TEST(LowerParallel, LoopVarAsAValueIsADiagnostic) {
  EXPECT_EQ(ErrorOf(Nest2("      %ub_0[%v0, %v1] = cast<float32>(%v1)\n")),
            "T.Parallel uses loop var 'v1' as a value; only indices may use it");
}

TEST(LowerParallel, OperatorWithoutVectorOpIsADiagnostic) {
  EXPECT_EQ(ErrorOf("  for %v0 in parallel(0, 64) {\n"
                    "    %ub_2[%v0] = %ub_2[%v0] % 3\n"
                    "  }\n",
                    "  alloc %ub_2: ub int32[64]\n"),
            "T.Parallel operator '%' on loop-dependent values has no vector op");
}

TEST(LowerParallel, MixedTileDtypesAreADiagnostic) {
  EXPECT_EQ(ErrorOf("  for %v0 in parallel(0, 64) {\n"
                    "    %ub_1[%v0] = %ub_1[%v0] + %ub_2[%v0]\n"
                    "  }\n",
                    "  alloc %ub_2: ub float16[64]\n"),
            "T.Parallel combines float32 and float16 tiles; cast one of them explicitly");
}

TEST(LowerParallel, RowPlusColumnIsADiagnostic) {
  EXPECT_EQ(ErrorOf(Nest2("      %ub_0[%v0, %v1] = %ub_1[%v0] + %ub_0[0, %v1]\n")),
            "T.Parallel combines a per-row and a per-column operand; broadcast one of them to "
            "the full tile first");
}

TEST(LowerParallel, ConditionThatIsNotAComparisonIsADiagnostic) {
  EXPECT_EQ(ErrorOf(Nest2("      %ub_0[%v0, %v1] = select(%ub_0[%v0, %v1] > 0.0 and %ub_0[%v0, "
                          "%v1] < 1.0, %ub_0[%v0, %v1], 0.0)\n")),
            "T.Parallel T.if_then_else condition must be one comparison (==, !=, <, <=, >, >=) "
            "to become compare + select");
}

TEST(LowerParallel, OtherStatementsInTheNestAreADiagnostic) {
  EXPECT_EQ(ErrorOf("  for %v0 in parallel(0, 64) {\n"
                    "    barrier(v)\n"
                    "  }\n"),
            "T.Parallel body may only hold element-wise stores (and one nested T.Parallel "
            "loop); found a sync statement");
}

TEST(LowerParallel, RuntimeExtentIsADiagnostic) {
  EXPECT_EQ(ErrorOf("  for %v0 in parallel(0, %cid + 1) {\n"
                    "    %ub_1[%v0] = 0.0\n"
                    "  }\n"),
            "T.Parallel loop bounds must be constants (with a positive extent) to become vector "
            "ops");
}

TEST(LowerParallel, ThreeDeepNestIsADiagnostic) {
  EXPECT_EQ(ErrorOf("  for %v0 in parallel(0, 2) {\n"
                    "    for %v1 in parallel(0, 2) {\n"
                    "      for %v2 in parallel(0, 2) {\n"
                    "        %ub_2[%v0, %v1, %v2] = 0.0\n"
                    "      }\n"
                    "    }\n"
                    "  }\n",
                    "  alloc %ub_2: ub float32[2, 2, 2]\n"),
            "T.Parallel nests of more than two loops cannot become vector ops (rows x columns at "
            "most)");
}

TEST(LowerParallel, CompoundScalarReadingUbIsADiagnostic) {
  EXPECT_EQ(ErrorOf("  for %v0 in parallel(0, 64) {\n"
                    "    %ub_1[%v0] = %ub_1[%v0] * (%ub_0[0, 0] + 1.0)\n"
                    "  }\n"),
            "T.Parallel scalar operand reads ub buffer 'ub_0' inside an expression; only a single "
            "UB element can be a vector scalar operand (compute the value into a var first)");
}

}  // namespace
}  // namespace tilejit::passes
