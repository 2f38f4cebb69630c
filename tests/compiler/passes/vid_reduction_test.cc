// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/vid_reduction.h"

#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "compiler/frontend/frontend.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/infer_buffer_scope.h"
#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

// A threads=N launch over 4 blocks of 64 rows of two [256, 64] fp32 tensors; `body` follows
// `let %r = %cid * 64` (the block's first row).
std::string Kernel(std::string_view body, int threads = 2, std::string_view extra_params = "") {
  return std::string(
             "param %p0: gm float32[256, 64] input\n"
             "param %p1: gm float32[256, 64] output\n") +
         std::string(extra_params) +
         "out_idx = [1]\n"
         "workspace_idx = []\n"
         "launch(4, threads=" +
         std::to_string(threads) +
         ") (%cid, %vid) {\n"
         "  let %r = %cid * 64\n" +
         std::string(body) + "}\n";
}

// The canonical text of Kernel(): `%r` prints as `%v0`.
std::string Printed(std::string_view body, std::string_view extra_params = "") {
  return std::string(
             "param %p0: gm float32[256, 64] input\n"
             "param %p1: gm float32[256, 64] output\n") +
         std::string(extra_params) +
         "out_idx = [1]\n"
         "workspace_idx = []\n"
         "launch(4, threads=2) (%cid, %vid) {\n"
         "  let %v0 = %cid * 64\n" +
         std::string(body) + "}\n";
}

constexpr std::string_view kRowTile =
    "  alloc %x: ub float32[64, 64]\n"
    "  copy(%x, %p0[%r:+64, :])\n"
    "  exp(%x, %x)\n"
    "  copy(%p1[%r:+64, :], %x)\n";

TEST(VidReduction, GmCopyAtABlockRowOffsetSplitsTheTileAndShiftsTheGmRows) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel(kRowTile)),
            Printed("  alloc %ub_0: ub float32[32, 64]\n"
                    "  copy(%ub_0, %p0[%v0 + %vid * 32:+32, :])\n"
                    "  exp(%ub_0, %ub_0)\n"
                    "  copy(%p1[%v0 + %vid * 32:+32, :], %ub_0)\n"));
  EXPECT_EQ(r.ctx.stats["split_buffers"], 1);
}

// The input's canonical text: what a pass that changes nothing returns.
std::string Canonical(PassRunner& r, const std::string& text) {
  Result<ir::Kernel> in = ir::ParseTileIr(text, &r.sources, &r.diag, "t.tir");
  return in.ok() ? ir::PrintKernel(*in) : "parse error";
}

TEST(VidReduction, ThreadsOneIsLeftAlone) {
  PassRunner r;
  std::string text = Kernel(kRowTile, 1);
  EXPECT_EQ(r.Run(VidReduction, text), Canonical(r, text));
  EXPECT_TRUE(r.ctx.stats.empty());
}

// Before: both AIVs of each block run the body and write the same rows of %p1 (the WAW race
// upstream's activation/sigmoidv2.py hit). After: one AIV does.
TEST(VidReduction, CidVidFormThatNeverReadsVidRunsOnOneAiv) {
  PassRunner r;
  std::string want = Canonical(r, Kernel(kRowTile, 1));
  EXPECT_EQ(r.Run(VidReduction, Kernel(kRowTile, 0)), want);
  EXPECT_EQ(r.ctx.stats["one_aiv"], 1);
}

TEST(VidReduction, CidVidFormKeepsBothAivsWhenTheyDiffer) {
  const std::string reads_vid =
      "  alloc %x: ub float32[32, 64]\n"
      "  copy(%x, %p0[%r + %vid * 32:+32, :])\n"
      "  copy(%p1[%r + %vid * 32:+32, :], %x)\n";
  // Each AIV's add lands: the sum counts both (upstream's atomic_add test expects so).
  const std::string atomic =
      "  alloc %x: ub float32[64, 64]\n"
      "  copy(%x, %p0[%r:+64, :])\n"
      "  copy(%p1[%r:+64, :], %x) {atomic_add=true}\n";
  const std::string signals_sibling =
      "  alloc %x: ub float32[64, 64]\n"
      "  copy(%x, %p0[%r:+64, :])\n"
      "  set_cross_flag(mte2, 1, mode=1)\n"
      "  wait_cross_flag(1)\n";
  for (const std::string& body : {reads_vid, atomic, signals_sibling}) {
    PassRunner r;
    std::string text = Kernel(body, 0);
    EXPECT_EQ(r.Run(VidReduction, text), Canonical(r, text)) << body;
    EXPECT_TRUE(r.ctx.stats.empty()) << body;
  }
}

TEST(VidReduction, KernelWithoutVectorWorkIsUnchanged) {
  std::string text = Printed(
      "  alloc %l1_0: l1 float32[64, 64]\n"
      "  copy(%l1_0, %p0[%v0:+64, :])\n"
      "  copy(%p1[%v0:+64, :], %l1_0)\n");
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, text), text);
}

TEST(VidReduction, CubeCopyOfTheBlockRowsTakesThisCoresHalfOfTheCubeTile) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %c: l0c float32[64, 64]\n"
                                       "  alloc %l1: l1 float32[128, 64]\n"
                                       "  alloc %x: ub float32[64, 64]\n"
                                       "  copy(%x, %c)\n"
                                       "  copy(%l1[64:+64, :], %x)\n")),
            Printed("  alloc %l0c_0: l0c float32[64, 64]\n"
                    "  alloc %l1_0: l1 float32[128, 64]\n"
                    "  alloc %ub_0: ub float32[32, 64]\n"
                    "  copy(%ub_0, %l0c_0[%vid * 32:+32, :])\n"
                    "  copy(%l1_0[64 + %vid * 32:+32, :], %ub_0)\n"));
}

TEST(VidReduction, SplitSpreadsThroughElementwiseOpsCastsAndUbCopies) {
  // Only %a touches GM; %b, %h and %o are split because their rows line up with %a's.
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %a: ub float32[64, 64]\n"
                                       "  alloc %b: ub float32[64, 64]\n"
                                       "  alloc %h: ub float16[64, 64]\n"
                                       "  alloc %o: ub float32[64, 64]\n"
                                       "  fill(%b, 1.0)\n"
                                       "  copy(%a, %p0[%r:+64, :])\n"
                                       "  add(%b, %b, %a)\n"
                                       "  cast(%h, %b) {count=4096, mode=\"CAST_NONE\"}\n"
                                       "  copy(%o, %h)\n")),
            Printed("  alloc %ub_0: ub float32[32, 64]\n"
                    "  alloc %ub_1: ub float32[32, 64]\n"
                    "  alloc %ub_2: ub float16[32, 64]\n"
                    "  alloc %ub_3: ub float32[32, 64]\n"
                    "  fill(%ub_1, 1.0)\n"
                    "  copy(%ub_0, %p0[%v0 + %vid * 32:+32, :])\n"
                    "  add(%ub_1, %ub_1, %ub_0)\n"
                    "  cast(%ub_2, %ub_1) {count=2048, mode=\"CAST_NONE\"}\n"
                    "  copy(%ub_3, %ub_2)\n"));
  EXPECT_EQ(r.ctx.stats["split_buffers"], 4);
}

TEST(VidReduction, RowReductionAndRowBroadcastSplitTheRowVector) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  alloc %m: ub float32[64]\n"
                                       "  alloc %acc: ub float32[64, 64]\n"
                                       "  alloc %s: ub float32[64, 1]\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  reduce_max(%m, %x) {dim=-1}\n"
                                       "  fill(%s, 2.0)\n"
                                       "  mul(%acc, %acc, %m)\n"
                                       "  div(%acc, %acc, %s)\n")),
            Printed("  alloc %ub_0: ub float32[32, 64]\n"
                    "  alloc %ub_1: ub float32[32]\n"
                    "  alloc %ub_2: ub float32[32, 64]\n"
                    "  alloc %ub_3: ub float32[32, 1]\n"
                    "  copy(%ub_0, %p0[%v0 + %vid * 32:+32, :])\n"
                    "  reduce_max(%ub_1, %ub_0) {dim=-1}\n"
                    "  fill(%ub_3, 2.0)\n"
                    "  mul(%ub_2, %ub_2, %ub_1)\n"
                    "  div(%ub_2, %ub_2, %ub_3)\n"));
}

TEST(VidReduction, WholeLoadedVectorIsReplicatedAndRowLoopsRunOverHalfTheRows) {
  // The layernorm pattern: gamma [64] is loaded whole and used by columns, so both cores keep
  // all of it; the loop over the rows of %x runs over this core's 32 rows, and its row index
  // into GM becomes the original row.
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  alloc %g: ub float32[64]\n"
                                       "  alloc %rs: ub float32[64]\n"
                                       "  copy(%g, %p2)\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  reduce_sum(%rs, %x) {dim=1}\n"
                                       "  for %i in serial(0, 64) {\n"
                                       "    mul(%x[%i:+1, :], %x[%i:+1, :], %rs[%i])\n"
                                       "    mul(%x[%i:+1, :], %x[%i:+1, :], %g)\n"
                                       "    copy(%p1[%r + %i:+1, :], %x[%i:+1, :])\n"
                                       "  }\n",
                                       2, "param %p2: gm float32[64] input\n")),
            Printed("  alloc %ub_0: ub float32[32, 64]\n"
                    "  alloc %ub_1: ub float32[64]\n"
                    "  alloc %ub_2: ub float32[32]\n"
                    "  copy(%ub_1, %p2)\n"
                    "  copy(%ub_0, %p0[%v0 + %vid * 32:+32, :])\n"
                    "  reduce_sum(%ub_2, %ub_0) {dim=1}\n"
                    "  for %v1 in serial(0, 32) {\n"
                    "    mul(%ub_0[%v1:+1, :], %ub_0[%v1:+1, :], %ub_2[%v1])\n"
                    "    mul(%ub_0[%v1:+1, :], %ub_0[%v1:+1, :], %ub_1)\n"
                    "    copy(%p1[%v0 + (%v1 + %vid * 32):+1, :], %ub_0[%v1:+1, :])\n"
                    "  }\n",
                    "param %p2: gm float32[64] input\n"));
  EXPECT_EQ(r.ctx.stats["split_buffers"], 2);
}

TEST(VidReduction, ParallelLoopOverRowsIsHalved) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  for %i in parallel(0, 64) {\n"
                                       "    for %j in parallel(0, 64) {\n"
                                       "      %x[%i, %j] = %x[%i, %j] * 2.0\n"
                                       "    }\n"
                                       "  }\n"
                                       "  copy(%p1[%r:+64, :], %x)\n")),
            Printed("  alloc %ub_0: ub float32[32, 64]\n"
                    "  copy(%ub_0, %p0[%v0 + %vid * 32:+32, :])\n"
                    "  for %v1 in parallel(0, 32) {\n"
                    "    for %v2 in parallel(0, 64) {\n"
                    "      %ub_0[%v1, %v2] = %ub_0[%v1, %v2] * 2.0\n"
                    "    }\n"
                    "  }\n"
                    "  copy(%p1[%v0 + %vid * 32:+32, :], %ub_0)\n"));
}

TEST(VidReduction, GmColumnOffsetFromTheBlockDoesNotSplit) {
  // A bias slice picked by the block's column (the tensor's last dim) stays whole.
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  alloc %b: ub float32[64]\n"
                                       "  copy(%b, %p2[%cid * 64:+64])\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  for %i in serial(0, 64) {\n"
                                       "    add(%x[%i:+1, :], %x[%i:+1, :], %b)\n"
                                       "  }\n"
                                       "  copy(%p1[%r:+64, :], %x)\n",
                                       2, "param %p2: gm float32[256] input\n")),
            Printed("  alloc %ub_0: ub float32[32, 64]\n"
                    "  alloc %ub_1: ub float32[64]\n"
                    "  copy(%ub_1, %p2[%cid * 64:+64])\n"
                    "  copy(%ub_0, %p0[%v0 + %vid * 32:+32, :])\n"
                    "  for %v1 in serial(0, 32) {\n"
                    "    add(%ub_0[%v1:+1, :], %ub_0[%v1:+1, :], %ub_1)\n"
                    "  }\n"
                    "  copy(%p1[%v0 + %vid * 32:+32, :], %ub_0)\n",
                    "param %p2: gm float32[256] input\n"));
}

TEST(VidReduction, RowVectorStoredAlongA1dOutputAtTheBlockOffsetIsSplit) {
  // Along a GM tensor's last dim a block-derived offset splits unless something needs the
  // buffer whole (the bias slice of GmColumnOffsetFromTheBlockDoesNotSplit).
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %m: ub float32[64]\n"
                                       "  fill(%m, 1.0)\n"
                                       "  copy(%p2[%r:+64], %m)\n",
                                       2, "param %p2: gm float32[256] output\n")),
            Printed("  alloc %ub_0: ub float32[32]\n"
                    "  fill(%ub_0, 1.0)\n"
                    "  copy(%p2[%v0 + %vid * 32:+32], %ub_0)\n",
                    "param %p2: gm float32[256] output\n"));
}

TEST(VidReduction, SplitTileCopiedFromPartOfAReplicatedBufferTakesItsHalfOfTheRows) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %y: ub float32[128, 64]\n"
                                       "  alloc %x: ub float32[64, 64]\n"
                                       "  copy(%y, %p2)\n"
                                       "  copy(%x, %y[64:+64, :])\n"
                                       "  copy(%p1[%r:+64, :], %x)\n",
                                       2, "param %p2: gm float32[128, 64] input\n")),
            Printed("  alloc %ub_0: ub float32[128, 64]\n"
                    "  alloc %ub_1: ub float32[32, 64]\n"
                    "  copy(%ub_0, %p2)\n"
                    "  copy(%ub_1, %ub_0[64 + %vid * 32:+32, :])\n"
                    "  copy(%p1[%v0 + %vid * 32:+32, :], %ub_1)\n",
                    "param %p2: gm float32[128, 64] input\n"));
  EXPECT_EQ(r.ctx.stats["split_buffers"], 1);
}

// ---------------------------------------------------------------------------------------------
// Diagnostics

TEST(VidReduction, OddLeadingDimIsADiagnosticAtTheAlloc) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[33, 64]\n"
                                       "  copy(%x, %p0[%r:+33, :])\n"
                                       "  copy(%p1[%r:+33, :], %x)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "vid_reduction (threads=2) splits the rows of 'x' between the two vector cores, but "
            "its leading dim 33 is odd; make the row tile even, or use threads=1, or the (cid, "
            "vid) form to split rows yourself");
  EXPECT_EQ(r.FirstErrorLine(), 7u);
}

TEST(VidReduction, BufferBothSplitAndReplicatedIsADiagnostic) {
  // %g is a row broadcast against the split %x (split with it) and also used by columns
  // against one row of %x (must be whole).
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  alloc %g: ub float32[64]\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  fill(%g, 1.0)\n"
                                       "  mul(%x, %x, %g)\n"
                                       "  for %i in serial(0, 64) {\n"
                                       "    mul(%x[%i:+1, :], %x[%i:+1, :], %g)\n"
                                       "  }\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "vid_reduction (threads=2): 'g' would have to be both split between the two vector "
            "cores (its rows line up with 'x', which it is copied from GM at a block-derived row "
            "offset) and replicated on both (it is used by columns against one row of another "
            "buffer); use separate buffers for the two uses, or use threads=1, or the (cid, vid) "
            "form to split rows yourself");
  EXPECT_EQ(r.FirstErrorLine(), 8u);
  const Diagnostic& d = r.diag.diagnostics().front();
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[0].loc.line, 9u);
  EXPECT_EQ(d.notes[1].loc.line, 13u);
}

// A buffer that computes something from data no block offset ties to its rows is replicated,
// and writing it to GM would have both AIVs write the same bytes.
TEST(VidReduction, ReplicatedBufferWrittenToGmIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  copy(%x, %p0[0:+64, :])\n"
                                       "  exp(%x, %x)\n"
                                       "  copy(%p1[0:+64, :], %x)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "vid_reduction (threads=2): 'x' is replicated on both vector cores (nothing ties its "
            "rows to the block's row tile: a copy to or from GM at a block-derived row offset or "
            "to or from a cube buffer), so both cores would write the same bytes to gm; copy it "
            "at a block-derived row offset, or use threads=1, or the (cid, vid) form to split "
            "rows yourself");
  EXPECT_EQ(r.FirstErrorLine(), 7u);
  EXPECT_EQ(r.diag.diagnostics().front().notes.at(0).loc.line, 10u);
}

// A buffer that only moves data from GM to GM is split whatever its offsets (upstream's
// gather of KV rows into a workspace, vid_reduction skip-set test): each AIV moves half.
TEST(VidReduction, BufferThatOnlyMovesGmDataIsSplit) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  copy(%x, %p0[0:+64, :])\n"
                                       "  copy(%p1[0:+64, :], %x)\n")),
            "param %p0: gm float32[256, 64] input\n"
            "param %p1: gm float32[256, 64] output\n"
            "out_idx = [1]\n"
            "workspace_idx = []\n"
            "launch(4, threads=2) (%cid, %vid) {\n"
            "  let %v0 = %cid * 64\n"
            "  alloc %ub_0: ub float32[32, 64]\n"
            "  copy(%ub_0, %p0[%vid * 32:+32, :])\n"
            "  copy(%p1[%vid * 32:+32, :], %ub_0)\n"
            "}\n");
  EXPECT_EQ(r.ctx.stats["split_buffers"], 1);
}

TEST(VidReduction, ReplicatedBufferWrittenToACubeBufferIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %l1: l1 float32[64, 64]\n"
                                       "  alloc %x: ub float32[64, 64]\n"
                                       "  copy(%x, %p0[0:+64, :])\n"
                                       "  copy(%l1[0:+1, :], %x[3:+1, :])\n")),
            "");
  EXPECT_NE(r.FirstError().find("both cores would write the same bytes to l1"), std::string::npos)
      << r.FirstError();
}

TEST(VidReduction, ReductionAcrossTheRowsOfASplitBufferIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  alloc %col: ub float32[64]\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  reduce_sum(%col, %x) {dim=0}\n")),
            "");
  // %x must stay whole (reduced across its rows) yet is split by its GM copy.
  EXPECT_NE(r.FirstError().find("'x' would have to be both split"), std::string::npos)
      << r.FirstError();
  EXPECT_NE(r.FirstError().find("it is reduced across its rows"), std::string::npos);
}

TEST(VidReduction, ColumnResultOfASplitRowIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  alloc %last: ub float32[64]\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  for %i in serial(0, 64) {\n"
                                       "    copy(%last, %x[%i:+1, :])\n"
                                       "  }\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "vid_reduction (threads=2): 'last' is replicated on both vector cores but computed "
            "from 'x', whose rows are split between them, so each core would see only its half; "
            "use threads=1, or the (cid, vid) form to split rows yourself");
  EXPECT_EQ(r.FirstErrorLine(), 8u);
}

TEST(VidReduction, ReplicatedBufferFilledFromSplitRowsIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  alloc %y: ub float32[128, 64]\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  copy(%y[0:+64, :], %x)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "vid_reduction (threads=2): 'y' is replicated on both vector cores but computed "
            "from 'x', whose rows are split between them, so each core would see only its half; "
            "use threads=1, or the (cid, vid) form to split rows yourself");
}

TEST(VidReduction, LoopOverPartOfTheRowsOfASplitBufferIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  for %i in serial(0, 32) {\n"
                                       "    exp(%x[%i:+1, :], %x[%i:+1, :])\n"
                                       "  }\n")),
            "");
  EXPECT_NE(r.FirstError().find("this loop picks rows of 'x', whose 64 rows are split"),
            std::string::npos)
      << r.FirstError();
  EXPECT_EQ(r.FirstErrorLine(), 9u);
}

TEST(VidReduction, PartialRowRegionOfASplitBufferIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  exp(%x[0:+16, :], %x[0:+16, :])\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "vid_reduction splits 'x' between the two vector cores (threads=2), but cannot split "
            "a region of some of its rows: only accesses of all its rows, or of row i in a loop "
            "over its rows, can be split; use threads=1 or the (cid, vid) form to split rows "
            "yourself");
  EXPECT_EQ(r.FirstErrorLine(), 9u);
}

TEST(VidReduction, CastOfAPrefixOfASplitBufferIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(VidReduction, Kernel("  alloc %x: ub float32[64, 64]\n"
                                       "  alloc %h: ub float16[64, 64]\n"
                                       "  copy(%x, %p0[%r:+64, :])\n"
                                       "  cast(%h, %x) {count=100, mode=\"CAST_NONE\"}\n")),
            "");
  EXPECT_NE(r.FirstError().find("cannot split a count that is not all of its elements"),
            std::string::npos)
      << r.FirstError();
}

// ---------------------------------------------------------------------------------------------
// The Developer kernels of cases.json: frontend, infer_buffer_scope, vid_reduction.

std::string Lower(const std::string& file, const std::string& entry,
                  std::initializer_list<int64_t> args, PassRunner& r) {
  std::ifstream in(std::string(TILEJIT_SHARED_KERNELS_DIR) + "/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  frontend::FrontendRequest req;
  req.source = ss.str();
  req.file_name = file;
  req.entry = entry;
  for (int64_t a : args) req.args.push_back(frontend::Value::Int(a));
  Result<frontend::FrontendResult> fe = frontend::RunFrontend(req, &r.sources, &r.diag);
  EXPECT_TRUE(fe.ok()) << r.diag.RenderAll();
  if (!fe.ok()) return "";
  Result<ir::Kernel> scoped = InferBufferScope(fe->kernel, r.ctx);
  EXPECT_TRUE(scoped.ok()) << r.diag.RenderAll();
  if (!scoped.ok()) return "";
  Result<ir::Kernel> out = VidReduction(*scoped, r.ctx);
  EXPECT_TRUE(out.ok()) << r.diag.RenderAll();
  return out.ok() ? ir::PrintKernel(*out) : "";
}

void ExpectLines(const std::string& text, std::initializer_list<std::string_view> lines) {
  for (std::string_view line : lines)
    EXPECT_NE(text.find(std::string(line) + "\n"), std::string::npos) << line << "\n" << text;
}

TEST(VidReductionOnKernels, MatmulAddSplitsBothUbTilesAndTheirGmAndL0cRows) {
  PassRunner r;
  std::string out = Lower("matmul_add_developer.py", "matmul_add", {256, 256, 256, 64, 128, 64}, r);
  ExpectLines(out, {
                       "  alloc %l0c_0: l0c float32[64, 128]",
                       "  alloc %ub_0: ub float32[32, 128]",
                       "  alloc %ub_1: ub float32[32, 128]",
                       "  copy(%ub_0, %l0c_0[%vid * 32:+32, :]) {enable_relu=false, "
                       "transpose=false}",
                       "  copy(%ub_1, %p3[%v0 * 64 + %vid * 32:+32, %v1 * 128:+128]) "
                       "{enable_relu=false, transpose=false}",
                       "  add(%ub_0, %ub_0, %ub_1)",
                       "  copy(%p2[%v0 * 64 + %vid * 32:+32, %v1 * 128:+128], %ub_0) "
                       "{enable_relu=false, transpose=false}",
                   });
  EXPECT_EQ(r.ctx.stats["split_buffers"], 2);
}

TEST(VidReductionOnKernels, FlashAttentionSplitsEveryVectorBuffer) {
  PassRunner r;
  std::string out =
      Lower("flash_attn_developer.py", "flash_attention", {1, 2, 256, 128, 64, 64}, r);
  ExpectLines(out, {
                       "  alloc %l1_3: l1 float16[64, 64]",
                       "  alloc %ub_0: ub float32[32, 64]",   // s_ub
                       "  alloc %ub_1: ub float16[32, 64]",   // p_half
                       "  alloc %ub_2: ub float32[32, 128]",  // o_ub
                       "  alloc %ub_3: ub float32[32, 128]",  // acc_o
                       "  alloc %ub_4: ub float16[32, 128]",  // o_half
                       "  alloc %ub_5: ub float32[32]",       // m_i
                       "  alloc %ub_6: ub float32[32]",       // m_prev
                       "  alloc %ub_7: ub float32[32]",       // l_i
                       "  alloc %ub_8: ub float32[32]",       // l_blk
                       "    copy(%ub_0, %l0c_0[%vid * 32:+32, :]) {enable_relu=false, "
                       "transpose=false}",
                       "    copy(%l1_3[%vid * 32:+32, :], %ub_1) {enable_relu=false, "
                       "transpose=false}",
                       "    copy(%ub_2, %l0c_1[%vid * 32:+32, :]) {enable_relu=false, "
                       "transpose=false}",
                       "  copy(%p3[%v2:+1, %v1:+1, %v0 * 64 + %vid * 32:+32, :], %ub_4) "
                       "{enable_relu=false, transpose=false}",
                   });
  EXPECT_EQ(r.ctx.stats["split_buffers"], 9);
}

}  // namespace
}  // namespace tilejit::passes
