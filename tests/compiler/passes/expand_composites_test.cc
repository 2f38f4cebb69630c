// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/expand_composites.h"

#include <gtest/gtest.h>

#include <string>

#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

std::string Kernel(std::string_view allocs, std::string_view body) {
  return "param %p0: gm float16[256, 256] input\n"
         "param %p1: gm float32[256, 256] output\n"
         "out_idx = [1]\n"
         "workspace_idx = []\n"
         "launch(1, threads=0) (%cid, %vid) {\n" +
         std::string(allocs) + std::string(body) + "}\n";
}

// K fits one L0 slot: one slice in a one-slot scratch (multi_buffer may version the slot
// across loop iterations; a second slot inside the gemm would have nothing to overlap with).
// Like the vendor's gemm_v0 (tl_templates/ascend/common.h of TileLang-Ascend), the expansion
// waits for the MTE2 loads and the fixpipe before it, and makes the next ones wait for it.
TEST(ExpandComposites, SingleSliceGemmInExpertModeCarriesItsOwnSyncsOnOneSlot) {
  PassRunner r;
  std::string out = r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 float16[32, 48]\n"
                                                   "  alloc %l1_1: l1 float16[48, 64]\n"
                                                   "  alloc %l0c_0: l0c float32[32, 64]\n",
                                                   "  barrier(all)\n"
                                                   "  gemm_v0(%l0c_0, %l1_0, %l1_1) {init=true}\n"
                                                   "  barrier(all)\n"));
  EXPECT_EQ(out, Kernel("  alloc %l1_0: l1 float16[32, 48]\n"
                        "  alloc %l1_1: l1 float16[48, 64]\n"
                        "  alloc %l0c_0: l0c float32[32, 64]\n"
                        "  alloc %l0a_0: l0a float16[1, 32, 48] compiler_scratch\n"
                        "  alloc %l0b_0: l0b float16[1, 48, 64] compiler_scratch\n",
                        "  barrier(all)\n"
                        "  set_flag(mte2, mte1, 6) {compiler}\n"
                        "  wait_flag(mte2, mte1, 6) {compiler}\n"
                        "  set_flag(fix, m, 6) {compiler}\n"
                        "  wait_flag(fix, m, 6) {compiler}\n"
                        "  set_flag(m, mte1, 6) {compiler}\n"
                        "  wait_flag(m, mte1, 6) {compiler}\n"
                        "  copy(%l0a_0, %l1_0)\n"
                        "  copy(%l0b_0, %l1_1)\n"
                        "  set_flag(mte1, m, 6) {compiler}\n"
                        "  wait_flag(mte1, m, 6) {compiler}\n"
                        "  mma(%l0c_0, %l0a_0, %l0b_0) {init=true}\n"
                        "  set_flag(m, mte1, 6) {compiler}\n"
                        "  wait_flag(m, mte1, 6) {compiler}\n"
                        "  set_flag(mte1, mte2, 6) {compiler}\n"
                        "  wait_flag(mte1, mte2, 6) {compiler}\n"
                        "  set_flag(m, fix, 6) {compiler}\n"
                        "  wait_flag(m, fix, 6) {compiler}\n"
                        "  barrier(all)\n"));
  EXPECT_EQ(r.ctx.stats["gemm_v0_expanded"], 1);
  EXPECT_EQ(r.ctx.stats["k_slices"], 1);
  EXPECT_EQ(r.ctx.stats["scratch_bytes_l0a"], 2 * 3 * 512);
}

// sort and topk get 6 * N floats of UB scratch (N: actual_num rounded up to 32), merge_sort
// of 3 or 4 ways the floats of its first two lists (4 ways: block-aligned, plus the last two);
// sort32 and a 2-way merge need none. A second run adds nothing.
TEST(ExpandComposites, SortOpsGetTheirScratch) {
  PassRunner r;
  const std::string allocs =
      "  alloc %ub_0: ub float32[1, 160]\n"
      "  alloc %ub_1: ub float32[1, 320]\n"
      "  alloc %ub_2: ub float32[78]\n";
  std::string out = r.Run(ExpandComposites, Kernel(allocs,
                                                   "  sort(%ub_1, %ub_0) {count=131}\n"
                                                   "  merge_sort(%ub_1, %ub_2, %ub_2) {ways=2}\n"
                                                   "  merge_sort(%ub_1, %ub_2, %ub_2, %ub_2, "
                                                   "%ub_2) {ways=4}\n"));
  const std::string want = Kernel(allocs +
                                      "  alloc %ub_3: ub float32[960] compiler_scratch\n"
                                      "  alloc %ub_4: ub float32[316] compiler_scratch\n",
                                  "  sort(%ub_1, %ub_0, %ub_3) {count=131}\n"
                                  "  merge_sort(%ub_1, %ub_2, %ub_2) {ways=2}\n"
                                  "  merge_sort(%ub_1, %ub_2, %ub_2, %ub_2, %ub_2, %ub_4) "
                                  "{ways=4}\n");
  EXPECT_EQ(out, want);  // 4 ways: 156 floats rounded up to 160, then 156 more
  EXPECT_EQ(r.ctx.stats["sort_scratch_bytes"], (960 + 316) * 4);
  EXPECT_EQ(PassRunner().Run(ExpandComposites, want), want);
}

TEST(ExpandComposites, SlicesKByTheLargestFittingDivisorWithRuntimeInit) {
  // Whole K = 512 needs 2 x 128 KiB of l0a; 128 is the largest multiple of 16 dividing 512 whose
  // two slots fit (2 x 32 KiB in l0a and in l0b).
  PassRunner r;
  std::string out =
      r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 float16[128, 512]\n"
                                     "  alloc %l1_1: l1 float16[512, 128]\n"
                                     "  alloc %l0c_0: l0c float32[128, 128]\n",
                                     "  for %v0 in serial(0, 4) {\n"
                                     "    gemm_v0(%l0c_0, %l1_0, %l1_1) {init=%v0 == 0}\n"
                                     "  }\n"));
  EXPECT_EQ(out, Kernel("  alloc %l1_0: l1 float16[128, 512]\n"
                        "  alloc %l1_1: l1 float16[512, 128]\n"
                        "  alloc %l0c_0: l0c float32[128, 128]\n"
                        "  alloc %l0a_0: l0a float16[2, 128, 128] compiler_scratch\n"
                        "  alloc %l0b_0: l0b float16[2, 128, 128] compiler_scratch\n",
                        "  for %v0 in serial(0, 4) {\n"
                        "    set_flag(mte2, mte1, 6) {compiler}\n"
                        "    wait_flag(mte2, mte1, 6) {compiler}\n"
                        "    set_flag(fix, m, 6) {compiler}\n"
                        "    wait_flag(fix, m, 6) {compiler}\n"
                        "    set_flag(m, mte1, 6) {compiler}\n"
                        "    set_flag(m, mte1, 7) {compiler}\n"
                        "    for %v1 in serial(0, 4) {\n"
                        "      wait_flag(m, mte1, 6 + %v1 % 2) {compiler}\n"
                        "      copy(%l0a_0[%v1 % 2:+1, :, :], %l1_0[:, %v1 * 128:+128])\n"
                        "      copy(%l0b_0[%v1 % 2:+1, :, :], %l1_1[%v1 * 128:+128, :])\n"
                        "      set_flag(mte1, m, 6 + %v1 % 2) {compiler}\n"
                        "      wait_flag(mte1, m, 6 + %v1 % 2) {compiler}\n"
                        "      mma(%l0c_0, %l0a_0[%v1 % 2:+1, :, :], %l0b_0[%v1 % 2:+1, :, :]) "
                        "{init=%v0 == 0 and %v1 == 0}\n"
                        "      set_flag(m, mte1, 6 + %v1 % 2) {compiler}\n"
                        "    }\n"
                        "    wait_flag(m, mte1, 6) {compiler}\n"
                        "    wait_flag(m, mte1, 7) {compiler}\n"
                        "    set_flag(mte1, mte2, 6) {compiler}\n"
                        "    wait_flag(mte1, mte2, 6) {compiler}\n"
                        "    set_flag(m, fix, 6) {compiler}\n"
                        "    wait_flag(m, fix, 6) {compiler}\n"
                        "  }\n"));
  EXPECT_EQ(r.ctx.stats["k_slices"], 4);
}

TEST(ExpandComposites, TransposedOperandsAndATailSliceWithAutoSync) {
  // K = 136 has no multiple-of-16 divisor; B's two slots allow at most 64, so two slices of 64
  // (slots 0 and 1, constants under AUTO_SYNC) and a tail of 8 follow with static extents. B^T
  // is held in L1 ([n, k]).
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out = r.Run(
      ExpandComposites, Kernel("  alloc %l1_0: l1 float16[128, 136]\n"
                               "  alloc %l1_1: l1 float16[256, 136]\n"
                               "  alloc %l0c_0: l0c float32[128, 256]\n",
                               "  gemm_v0(%l0c_0, %l1_0, %l1_1) {init=true, transpose_B=true}\n"));
  EXPECT_EQ(out, Kernel("  alloc %l1_0: l1 float16[128, 136]\n"
                        "  alloc %l1_1: l1 float16[256, 136]\n"
                        "  alloc %l0c_0: l0c float32[128, 256]\n"
                        "  alloc %l0a_0: l0a float16[2, 128, 64] compiler_scratch\n"
                        "  alloc %l0b_0: l0b float16[2, 64, 256] compiler_scratch\n",
                        "  copy(%l0a_0[0:+1, :, :], %l1_0[:, 0:+64])\n"
                        "  copy(%l0b_0[0:+1, :, :], %l1_1[:, 0:+64]) {transpose=true}\n"
                        "  mma(%l0c_0, %l0a_0[0:+1, :, :], %l0b_0[0:+1, :, :]) {init=true}\n"
                        "  copy(%l0a_0[1:+1, :, :], %l1_0[:, 64:+64])\n"
                        "  copy(%l0b_0[1:+1, :, :], %l1_1[:, 64:+64]) {transpose=true}\n"
                        "  mma(%l0c_0, %l0a_0[1:+1, :, :], %l0b_0[1:+1, :, :])\n"
                        "  copy(%l0a_0[0:+1, :, 0:+8], %l1_0[:, 128:+8])\n"
                        "  copy(%l0b_0[0:+1, 0:+8, :], %l1_1[:, 128:+8]) {transpose=true}\n"
                        "  mma(%l0c_0, %l0a_0[0:+1, :, 0:+8], %l0b_0[0:+1, 0:+8, :])\n"));
  EXPECT_EQ(r.ctx.stats["k_slices"], 3);
}

TEST(ExpandComposites, TransposedAReadsKRowsOfTheL1Tile) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out =
      r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 float16[64, 32]\n"
                                     "  alloc %l1_1: l1 float16[64, 32]\n"
                                     "  alloc %l0c_0: l0c float32[32, 32]\n",
                                     "  gemm_v0(%l0c_0, %l1_0, %l1_1) {transpose_A=true}\n"));
  EXPECT_NE(out.find("  copy(%l0a_0, %l1_0) {transpose=true}\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  mma(%l0c_0, %l0a_0, %l0b_0)\n"), std::string::npos) << out;
}

TEST(ExpandComposites, IdenticalGemmsShareOneScratchPair) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out = r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 float16[32, 32]\n"
                                                   "  alloc %l0c_0: l0c float32[32, 32]\n",
                                                   "  gemm_v0(%l0c_0, %l1_0, %l1_0) {init=true}\n"
                                                   "  gemm_v0(%l0c_0, %l1_0, %l1_0)\n"));
  EXPECT_EQ(out.find("%l0a_1"), std::string::npos) << out;
  EXPECT_EQ(r.ctx.stats["gemm_v0_expanded"], 2);
}

TEST(ExpandComposites, KernelWithoutGemmIsReturnedAsIs) {
  PassRunner r;
  Result<ir::Kernel> in = ir::ParseTileIrString(Kernel("  alloc %ub_0: ub float16[16, 16]\n",
                                                       "  set_flag(m, mte1, 6)\n"
                                                       "  wait_flag(m, mte1, 6)\n"));
  ASSERT_TRUE(in.ok());
  Result<ir::Kernel> out = ExpandComposites(*in, r.ctx);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->body, in->body);
}

TEST(ExpandComposites, ExpertKernelUsingReservedIdsIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 float16[32, 32]\n"
                                           "  alloc %l0c_0: l0c float32[32, 32]\n",
                                           "  set_flag(mte1, m, 7)\n"
                                           "  wait_flag(mte1, m, 7)\n"
                                           "  gemm_v0(%l0c_0, %l1_0, %l1_0)\n")),
            "");
  ASSERT_EQ(r.Messages().size(), 2u);
  EXPECT_EQ(r.FirstError(),
            "set_flag on mte1 -> m uses event id 7, reserved in Expert mode for the expansion of "
            "gemm_v0: ids 6 and 7 of the mte1 -> m, m -> mte1, mte2 -> mte1, fix -> m, mte1 -> "
            "mte2 and m -> fix pairs; use ids 0 to 5");
  EXPECT_EQ(r.FirstErrorLine(), 8u);
  ASSERT_EQ(r.diag.diagnostics()[0].notes.size(), 1u);
  EXPECT_EQ(r.diag.diagnostics()[0].notes[0].loc.line, 10u);
}

TEST(ExpandComposites, ReservedIdsAreFreeWithAutoSync) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  EXPECT_NE(r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 float16[32, 32]\n"
                                           "  alloc %l0c_0: l0c float32[32, 32]\n",
                                           "  set_flag(m, mte1, 6)\n"
                                           "  wait_flag(m, mte1, 6)\n"
                                           "  gemm_v0(%l0c_0, %l1_0, %l1_0)\n")),
            "");
  EXPECT_TRUE(r.Messages().empty());
}

TEST(ExpandComposites, OperandOutsideL1IsADiagnosticNamingItsScope) {
  PassRunner r;
  EXPECT_EQ(r.Run(ExpandComposites, Kernel("  alloc %ub_0: ub float16[32, 32]\n"
                                           "  alloc %l1_0: l1 float16[32, 32]\n"
                                           "  alloc %l0c_0: l0c float32[32, 32]\n",
                                           "  gemm_v0(%l0c_0, %l1_0, %ub_0)\n")),
            "");
  EXPECT_EQ(r.FirstError(), "gemm_v0 operand B is in ub; gemm_v0 needs A and B in l1 and C in l0c");
  EXPECT_EQ(r.FirstErrorLine(), 9u);
}

TEST(ExpandComposites, ShapeMismatchIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 float16[32, 48]\n"
                                           "  alloc %l1_1: l1 float16[32, 64]\n"
                                           "  alloc %l0c_0: l0c float32[32, 64]\n",
                                           "  gemm_v0(%l0c_0, %l1_0, %l1_1)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "gemm_v0 shape mismatch: A is [32, 48], B is [32, 64] and C is [32, 64] (A and B as "
            "used, after transpose_A/transpose_B)");
}

TEST(ExpandComposites, DtypeMismatchIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 float16[32, 32]\n"
                                           "  alloc %l0c_0: l0c float16[32, 32]\n",
                                           "  gemm_v0(%l0c_0, %l1_0, %l1_0)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "gemm_v0 dtypes float16 x float16 -> float16 are not supported: A and B must both be "
            "float16, bfloat16, float32 (accumulating into float32) or int8 (into int32)");
}

TEST(ExpandComposites, TransposedFloat32OperandIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 float32[32, 32]\n"
                                           "  alloc %l0c_0: l0c float32[32, 32]\n",
                                           "  gemm_v0(%l0c_0, %l1_0, %l1_0) {transpose_B=true}\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "gemm_v0 with transpose_B needs 16-bit A and B (the transposing L0 load), not float32");
}

TEST(ExpandComposites, Int8SlicesKInWholeC0Blocks) {
  // int8: C0 = 32, so K slices are multiples of 32. Whole K = 2048 needs 128 KiB of l0a
  // ([64, 2048]); 512 is the largest multiple of 32 dividing 2048 whose two slots fit
  // (2 x 32 KiB). Under AUTO_SYNC the four slices run as two pairs of constant slots.
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  std::string out = r.Run(ExpandComposites, Kernel("  alloc %l1_0: l1 int8[64, 2048]\n"
                                                   "  alloc %l1_1: l1 int8[2048, 32]\n"
                                                   "  alloc %l0c_0: l0c int32[64, 32]\n",
                                                   "  gemm_v0(%l0c_0, %l1_0, %l1_1)\n"));
  EXPECT_NE(out.find("alloc %l0a_0: l0a int8[2, 64, 512]"), std::string::npos) << out;
  EXPECT_NE(out.find("for %v0 in serial(0, 2) {\n"
                     "    copy(%l0a_0[0:+1, :, :], %l1_0[:, %v0 * 2 * 512:+512])\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    copy(%l0a_0[1:+1, :, :], %l1_0[:, (%v0 * 2 + 1) * 512:+512])\n"),
            std::string::npos)
      << out;
}

TEST(ExpandComposites, NoRoomLeftInL0IsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(ExpandComposites, Kernel("  alloc %l0a_0: l0a float16[128, 256]\n"
                                           "  alloc %l1_0: l1 float16[32, 32]\n"
                                           "  alloc %l0c_0: l0c float32[32, 32]\n",
                                           "  gemm_v0(%l0c_0, %l1_0, %l1_0)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "gemm_v0 L0 tiles do not fit: two K slices of 16 need 2048 bytes of l0a and 2048 bytes "
            "of l0b, but only 0 and 65536 bytes are free");
}

}  // namespace
}  // namespace tilejit::passes
