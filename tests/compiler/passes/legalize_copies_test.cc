// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/legalize_copies.h"

#include <gtest/gtest.h>

#include <string>

#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

// Buffers of every scope; `body` uses them.
std::string Kernel(std::string_view body) {
  return std::string(
             "param %p0: gm float16[64, 64] input\n"
             "param %p1: gm float32[64, 64] output\n"
             "out_idx = [1]\n"
             "workspace_idx = []\n"
             "launch(1, threads=0) (%cid, %vid) {\n"
             "  alloc %l1_0: l1 float16[64, 64]\n"
             "  alloc %l0a_0: l0a float16[64, 64]\n"
             "  alloc %l0b_0: l0b float16[64, 64]\n"
             "  alloc %l0c_0: l0c float32[64, 64]\n"
             "  alloc %ub_0: ub float16[64, 64]\n"
             "  alloc %ub_1: ub float32[64, 64]\n") +
         std::string(body) + "}\n";
}

TEST(LegalizeCopies, KeepsEveryLegalPathUnchanged) {
  std::string text = Kernel(
      "  copy(%l1_0, %p0)\n"
      "  copy(%ub_0, %p0)\n"
      "  copy(%p1, %ub_1)\n"
      "  copy(%ub_0[0:+32, :], %ub_0[32:+32, :])\n"
      "  copy(%p0, %l1_0)\n"
      "  copy(%l0a_0, %l1_0)\n"
      "  copy(%l0b_0, %l1_0) {transpose=true}\n"
      "  copy(%p1, %l0c_0) {enable_relu=true}\n"
      "  copy(%p0, %l0c_0)\n"
      "  copy(%l1_0, %l0c_0)\n"
      "  copy(%ub_1[0:+1, :], %p1[%cid:+1, :])\n");
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, text), text);
  EXPECT_EQ(r.ctx.stats["copies"], 11);
}

TEST(LegalizeCopies, IllegalPathNamesThePathAndTheAlternatives) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%l0a_0, %ub_0)\n")), "");
  EXPECT_EQ(r.FirstError(),
            "copy ub -> l0a is not a legal path; legal from ub: ub -> gm, ub -> ub; legal into "
            "l0a: l1 -> l0a");
  EXPECT_EQ(r.FirstErrorLine(), 12u);
}

TEST(LegalizeCopies, L0aToL1IsIllegal) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%l1_0, %l0a_0)\n")), "");
  EXPECT_EQ(r.FirstError(),
            "copy l0a -> l1 is not a legal path; legal from l0a: none; legal into l1: gm -> l1, "
            "l0c -> l1");
}

TEST(LegalizeCopies, GmToL0IsStagedThroughL1) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%l0b_0, %p0)\n")), "");
  EXPECT_EQ(r.FirstError(),
            "copy gm -> l0b is not supported by this ISA: stage through L1 (gm -> l1, then l1 -> "
            "l0b)");
}

// A GM -> L1 copy into part of a tile at its base clears the tile first (upstream's
// copy_gm_to_l1 need_clear, tests/gm_to_l1 splice cases): rows no copy writes read as zero.
// A copy spliced in at another offset, and a copy of the whole tile, do not clear. Without
// TL_ASCEND_AUTO_SYNC a barrier on MTE2 orders the fill before the copy.
TEST(LegalizeCopies, PartialGmToL1CopyAtTheTileBaseClearsTheTileFirst) {
  const std::string body =
      "  copy(%l1_0[0:+40, :], %p0[0:+40, :])\n"
      "  copy(%l1_0[40:+17, :], %p0[0:+17, :])\n"
      "  copy(%l1_0, %p0)\n";
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel(body)), Kernel("  fill(%l1_0, float16(0.0))\n"
                                                        "  barrier(mte2) {compiler}\n"
                                                        "  copy(%l1_0[0:+40, :], %p0[0:+40, :])\n"
                                                        "  copy(%l1_0[40:+17, :], %p0[0:+17, :])\n"
                                                        "  copy(%l1_0, %p0)\n"));
  EXPECT_EQ(r.ctx.stats["tile_clears"], 1);
  PassRunner auto_sync;
  auto_sync.ctx.configs.auto_sync = true;
  EXPECT_EQ(
      auto_sync.Run(LegalizeCopies, Kernel("  copy(%l1_0[0:+64, 0:+16], %p0[0:+64, 0:+16])\n")),
      Kernel("  fill(%l1_0, float16(0.0))\n"
             "  copy(%l1_0[:, 0:+16], %p0[:, 0:+16])\n"));
}

TEST(LegalizeCopies, CrossCoreCopyInExpertKernelSuggestsAWorkspace) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  scope cube {\n    copy(%ub_1, %l0c_0)\n  }\n")), "");
  EXPECT_EQ(r.FirstError(),
            "copy l0c -> ub has no on-chip path on Ascend910B2: declare a GM workspace "
            "(workspace_idx), copy l0c -> gm on the cube core and gm -> ub on the vector core, "
            "ordered with set_cross_flag / wait_cross_flag (the compiler stages it itself only "
            "with TL_ASCEND_AUTO_CV_COMBINE on and no T.Scope)");
}

TEST(LegalizeCopies, CrossCoreCopyWithoutCvCombineIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%l1_0, %ub_0)\n")), "");
  EXPECT_NE(r.FirstError().find("copy ub -> l1 has no on-chip path on Ascend910B2: declare a GM "
                                "workspace (workspace_idx), copy ub -> gm on the vector core and "
                                "gm -> l1 on the cube core"),
            std::string::npos)
      << r.FirstError();
}

// Kernel() with compiler workspaces appended to the params (the expected output of staging).
std::string StagedKernel(std::string_view workspaces, std::string_view idx, std::string_view body) {
  std::string text = Kernel(body);
  const std::string head = "out_idx = [1]\nworkspace_idx = []\n";
  text.replace(
      text.find(head), head.size(),
      std::string(workspaces) + "out_idx = [1]\nworkspace_idx = [" + std::string(idx) + "]\n");
  return text;
}

TEST(LegalizeCopies, L0cToUbWithCvCombineBecomesARoundTripThroughACompilerWorkspace) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%ub_1[0:+32, :], %l0c_0[%vid * 32:+32, :])\n")),
            StagedKernel("param %p2: gm float32[1, 64, 64] compiler_workspace\n", "2",
                         "  copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                         "  copy(%ub_1[0:+32, :], %p2[%cid:+1, %vid * 32:+32, :])\n"));
  EXPECT_EQ(r.ctx.stats["cv_round_trips"], 1);
  EXPECT_EQ(r.ctx.stats["workspace_bytes"], 64 * 64 * 4);
}

TEST(LegalizeCopies, UbToL1WithCvCombineWritesTheRegionAndLoadsBothAivsRegions) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%l1_0[%vid * 32:+32, :], %ub_0[0:+32, :])\n")),
            StagedKernel("param %p2: gm float16[1, 64, 64] compiler_workspace\n", "2",
                         "  copy(%p2[%cid:+1, %vid * 32:+32, :], %ub_0[0:+32, :])\n"
                         "  copy(%l1_0, %p2[%cid:+1, :, :])\n"));
  EXPECT_EQ(r.ctx.stats["workspace_bytes"], 64 * 64 * 2);
}

// A row per copy, its columns split between the AIVs (upstream's vid-reduced sparse flash
// attention gathers KV rows into L1 so): the cube moves that row, both halves, not the whole
// L1 buffer with rows the vector cores have not written yet. A dim whose vid dependence is
// not `X + vid * e` is taken whole.
TEST(LegalizeCopies, UbToL1OfOneRowMovesThatRowOnTheCube) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies,
                  Kernel("  for %v0 in serial(0, 64) {\n"
                         "    copy(%l1_0[%v0:+1, 8 + %vid * 16:+16], %ub_0[0:+1, 0:+16])\n"
                         "    copy(%l1_0[%v0:+1, %vid * 8:+16], %ub_0[0:+1, 0:+16])\n"
                         "  }\n")),
            StagedKernel("param %p2: gm float16[1, 64, 64] compiler_workspace\n"
                         "param %p3: gm float16[1, 64, 64] compiler_workspace\n",
                         "2, 3",
                         "  for %v0 in serial(0, 64) {\n"
                         "    copy(%p2[%cid:+1, %v0:+1, 8 + %vid * 16:+16], %ub_0[0:+1, 0:+16])\n"
                         "    copy(%l1_0[%v0:+1, 8:+32], %p2[%cid:+1, %v0:+1, 8:+32])\n"
                         "    copy(%p3[%cid:+1, %v0:+1, %vid * 8:+16], %ub_0[0:+1, 0:+16])\n"
                         "    copy(%l1_0[%v0:+1, :], %p3[%cid:+1, %v0:+1, :])\n"
                         "  }\n"));
}

TEST(LegalizeCopies, ReplicatedUbTileIsHalvedBetweenTheTwoAivsOnItsWayToL1) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%l1_0, %ub_0)\n")),
            StagedKernel("param %p2: gm float16[1, 64, 64] compiler_workspace\n", "2",
                         "  copy(%p2[%cid:+1, 0 + %vid * 32:+32, :], %ub_0[0 + %vid * 32:+32, :])\n"
                         "  copy(%l1_0, %p2[%cid:+1, :, :])\n"));
}

TEST(LegalizeCopies, EachCrossCoreCopyGetsItsOwnWorkspaceSizedByTheGrid) {
  std::string text =
      "param %p0: gm float32[128, 64] output\n"
      "out_idx = [0]\n"
      "workspace_idx = []\n"
      "launch(4, threads=1) (%cid, %vid) {\n"
      "  alloc %l1_0: l1 float32[32, 64]\n"
      "  alloc %l0c_0: l0c float32[32, 64]\n"
      "  alloc %ub_0: ub float32[32, 64]\n"
      "  for %v0 in serial(0, 2) {\n"
      "    copy(%ub_0, %l0c_0) {enable_relu=true}\n"
      "    copy(%l1_0, %ub_0)\n"
      "  }\n"
      "  copy(%p0[%cid * 32:+32, :], %ub_0)\n"
      "}\n";
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies, text),
            "param %p0: gm float32[128, 64] output\n"
            "param %p1: gm float32[4, 32, 64] compiler_workspace\n"
            "param %p2: gm float32[4, 32, 64] compiler_workspace\n"
            "out_idx = [0]\n"
            "workspace_idx = [1, 2]\n"
            "launch(4, threads=1) (%cid, %vid) {\n"
            "  alloc %l1_0: l1 float32[32, 64]\n"
            "  alloc %l0c_0: l0c float32[32, 64]\n"
            "  alloc %ub_0: ub float32[32, 64]\n"
            "  for %v0 in serial(0, 2) {\n"
            "    copy(%p1[%cid:+1, :, :], %l0c_0) {enable_relu=true}\n"
            "    copy(%ub_0, %p1[%cid:+1, :, :])\n"
            "    copy(%p2[%cid:+1, :, :], %ub_0)\n"
            "    copy(%l1_0, %p2[%cid:+1, :, :])\n"
            "  }\n"
            "  copy(%p0[%cid * 32:+32, :], %ub_0)\n"
            "}\n");
  EXPECT_EQ(r.ctx.stats["workspace_bytes"], 2 * 32 * 64 * 4);
}

TEST(LegalizeCopies, ConvertingL0cToUbConvertsOnTheFixPipeIntoAHalfWorkspace) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%ub_0, %l0c_0)\n")),
            StagedKernel("param %p2: gm float16[1, 64, 64] compiler_workspace\n", "2",
                         "  copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                         "  copy(%ub_0, %p2[%cid:+1, :, :])\n"));
}

TEST(LegalizeCopies, CrossCoreCopyKeepsTheFixpipeConversionRules) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies,
                  "param %p0: gm float32[16, 16] output\nout_idx = [0]\nworkspace_idx = []\n"
                  "launch(1, threads=0) (%cid, %vid) {\n"
                  "  alloc %l0c_0: l0c float32[16, 16]\n"
                  "  alloc %ub_0: ub int32[16, 16]\n"
                  "  copy(%ub_0, %l0c_0)\n}\n"),
            "");
  EXPECT_EQ(r.FirstError(),
            "copy l0c -> ub cannot convert float32 to int32: the fixpipe converts float32 to "
            "float32, float16 or bfloat16 and int32 to int32");
}

TEST(LegalizeCopies, UbToL1CannotConvertEvenThroughAWorkspace) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%l1_0, %ub_1)\n")), "");
  EXPECT_EQ(r.FirstError(),
            "copy ub -> l1 cannot convert float32 to float16: only the fixpipe paths (l0c -> gm, "
            "l0c -> l1) convert dtypes; use cast on the vector core");
}

TEST(LegalizeCopies, CrossCoreCopyShapeMismatchIsADiagnostic) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%ub_1[0:+32, :], %l0c_0)\n")), "");
  EXPECT_EQ(r.FirstError(), "copy shape mismatch: source is [64, 64] but destination is [32, 64]");
}

TEST(LegalizeCopies, CrossCoreCopyUnderARuntimeGridIsADiagnostic) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies,
                  "param %p0: gm int32[1] input\nout_idx = []\nworkspace_idx = []\n"
                  "launch(%p0[0], threads=0) (%cid, %vid) {\n"
                  "  alloc %l0c_0: l0c float32[16, 16]\n"
                  "  alloc %ub_0: ub float32[16, 16]\n"
                  "  copy(%ub_0, %l0c_0)\n"
                  "  copy(%ub_0, %l0c_0)\n}\n"),
            "");
  EXPECT_EQ(r.Messages().size(), 1u);
  EXPECT_EQ(r.FirstError(),
            "this copy needs a compiler workspace sized by the launch grid, which must be a "
            "compile-time constant here (got `%gm_0[0]`)");
  EXPECT_EQ(r.FirstErrorLine(), 7u);
}

TEST(LegalizeCopies, WorkspaceNamesAvoidTheKernelsParamNames) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  Result<ir::Kernel> in =
      ir::ParseTileIr(Kernel("  copy(%ub_1, %l0c_0)\n"), &r.sources, &r.diag, "t.tir");
  ASSERT_TRUE(in.ok());
  ir::BufferNode renamed = *in->params[0];
  renamed.name = "cv_workspace0";
  in->params[0] = ir::MakeBuffer(renamed);
  Result<ir::Kernel> out = LegalizeCopies(*in, r.ctx);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->params.size(), 3u);
  EXPECT_TRUE(out->params[2]->compiler_made);
  EXPECT_EQ(out->params[2]->role, ir::BufferRole::kWorkspace);
  EXPECT_EQ(out->params[2]->name, "cv_workspace1");
  EXPECT_EQ(out->workspace_idx, std::vector<int>{2});
}

TEST(LegalizeCopies, CvCombineDoesNotCoverKernelsWithExplicitScopes) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  scope vector {\n    copy(%l1_0, %ub_0)\n  }\n")), "");
  EXPECT_NE(r.FirstError().find("copy ub -> l1 has no on-chip path"), std::string::npos);
}

TEST(LegalizeCopies, ShapeMismatchIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%ub_0[0:+32, :], %p0[0:+32, 0:+32])\n")), "");
  EXPECT_EQ(r.FirstError(), "copy shape mismatch: source is [32, 32] but destination is [32, 64]");
}

TEST(LegalizeCopies, TransposedLoadSwapsTheSourceShape) {
  std::string ok = Kernel("  copy(%l0a_0[0:+32, :], %l1_0[:, 0:+32]) {transpose=true}\n");
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, ok), ok);
  PassRunner bad;
  EXPECT_EQ(bad.Run(LegalizeCopies, Kernel("  copy(%l0a_0[0:+32, :], %l1_0[0:+32, :]) "
                                           "{transpose=true}\n")),
            "");
  EXPECT_EQ(bad.FirstError(),
            "copy shape mismatch: source is [32, 64] (transposed) but destination is [32, 64]");
}

TEST(LegalizeCopies, DtypeConversionOnlyOnFixpipePaths) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%p1, %ub_0)\n")), "");
  EXPECT_EQ(r.FirstError(),
            "copy ub -> gm cannot convert float16 to float32: only the fixpipe paths (l0c -> gm, "
            "l0c -> l1) convert dtypes; use cast on the vector core");
}

TEST(LegalizeCopies, ConvertingUbToUbCopyBecomesAVectorCast) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%ub_0[0:+32, :], %ub_1[32:+32, :])\n")),
            Kernel("  cast(%ub_0[0:+32, :], %ub_1[32:+32, :]) {mode=\"CAST_RINT\"}\n"));
  EXPECT_EQ(r.ctx.stats["ub_casts"], 1);
  PassRunner relu;
  EXPECT_EQ(relu.Run(LegalizeCopies, Kernel("  copy(%ub_0, %ub_1) {enable_relu=true}\n")), "");
  EXPECT_EQ(relu.FirstError(),
            "enable_relu is only supported on the fixpipe paths (l0c -> gm, l0c -> l1), not on "
            "ub -> ub");
}

TEST(LegalizeCopies, FixpipeRejectsConversionsItCannotDo) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies,
                  "param %p0: gm int8[16, 16] output\nout_idx = [0]\nworkspace_idx = []\n"
                  "launch(1, threads=0) (%cid, %vid) {\n"
                  "  alloc %l0c_0: l0c float32[16, 16]\n"
                  "  copy(%p0, %l0c_0)\n}\n"),
            "");
  EXPECT_EQ(r.FirstError(),
            "copy l0c -> gm cannot convert float32 to int8: the fixpipe converts float32 to "
            "float32, float16 or bfloat16 and int32 to int32");
}

TEST(LegalizeCopies, ReluOnlyOnFixpipePaths) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%ub_0, %p0) {enable_relu=true}\n")), "");
  EXPECT_EQ(r.FirstError(),
            "enable_relu is only supported on the fixpipe paths (l0c -> gm, l0c -> l1), not on "
            "gm -> ub");
}

TEST(LegalizeCopies, TransposeOnlyOnSixteenBitL0Loads) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  copy(%ub_0, %p0) {transpose=true}\n")), "");
  EXPECT_EQ(r.FirstError(),
            "transpose is only supported on l1 -> l0a and l1 -> l0b loads, not on gm -> ub");
  PassRunner f32;
  EXPECT_EQ(f32.Run(LegalizeCopies,
                    "param %p0: gm float32[16, 16] input\nout_idx = []\nworkspace_idx = []\n"
                    "launch(1, threads=0) (%cid, %vid) {\n"
                    "  alloc %l1_0: l1 float32[16, 16]\n"
                    "  alloc %l0a_0: l0a float32[16, 16]\n"
                    "  copy(%l0a_0, %l1_0) {transpose=true}\n}\n"),
            "");
  EXPECT_EQ(f32.FirstError(), "a transposing l1 -> l0a load needs a 16-bit dtype, not float32");
}

TEST(LegalizeCopies, VarOperandIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(LegalizeCopies, Kernel("  alloc %var_0: var float16[1]\n"
                                         "  copy(%var_0, %ub_0[0:+1, 0:+1])\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "copy ub -> var has an operand in scope var, which is not a memory a copy can move "
            "data in");
}

}  // namespace
}  // namespace tilejit::passes
