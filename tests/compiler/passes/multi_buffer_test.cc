// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/multi_buffer.h"

#include <gtest/gtest.h>

#include <string>

#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

constexpr std::string_view kParams = R"(param %p0: gm float16[1024, 1024] input
param %p1: gm float16[1024, 1024] input
param %p2: gm float32[1024, 1024] output
out_idx = [2]
workspace_idx = []
)";

std::string Kernel(std::string_view body, std::string_view params = kParams,
                   std::string_view launch = "launch(4, threads=0) (%cid, %vid) {\n") {
  return std::string(params) + std::string(launch) + std::string(body) + "}\n";
}

// A gemm main loop as expand_composites leaves it (one K slice per iteration); the slots
// multi_buffer adds for its compiler scratch are buffers of their own (no compiler_scratch).
constexpr std::string_view kGemmAllocs =
    "  alloc %l1_0: l1 float16[128, 64]\n"
    "  alloc %l1_1: l1 float16[64, 256]\n"
    "  alloc %l0c_0: l0c float32[128, 256]\n"
    "  alloc %l0a_0: l0a float16[1, 128, 64] compiler_scratch\n"
    "  alloc %l0b_0: l0b float16[1, 64, 256] compiler_scratch\n";

// tilejit.auto_multi_buffer on (as with MEMORY_PLANNING).
struct AutoRunner : PassRunner {
  AutoRunner() { ctx.configs.auto_multi_buffer = true; }
};

TEST(MultiBuffer, UnrollsASerialLoopAndVersionsTheTilesItRefills) {
  AutoRunner r;
  std::string out = r.Run(MultiBuffer, Kernel(std::string(kGemmAllocs) +
                                              "  for %v0 in serial(0, 4) {\n"
                                              "    copy(%l1_0, %p0[0:+128, %v0 * 64:+64])\n"
                                              "    copy(%l1_1, %p1[%v0 * 64:+64, 0:+256])\n"
                                              "    copy(%l0a_0, %l1_0)\n"
                                              "    copy(%l0b_0, %l1_1)\n"
                                              "    mma(%l0c_0, %l0a_0, %l0b_0) {init=%v0 == 0}\n"
                                              "  }\n"
                                              "  copy(%p2[0:+128, 0:+256], %l0c_0)\n"));
  // No hand-off in the body: one stage, so the copies stay in order (each pipe queues the same
  // work either way); the accumulator keeps one copy.
  EXPECT_EQ(out, Kernel("  alloc %l1_0: l1 float16[128, 64]\n"
                        "  alloc %l1_1: l1 float16[128, 64]\n"
                        "  alloc %l1_2: l1 float16[64, 256]\n"
                        "  alloc %l1_3: l1 float16[64, 256]\n"
                        "  alloc %l0c_0: l0c float32[128, 256]\n"
                        "  alloc %l0a_0: l0a float16[1, 128, 64] compiler_scratch\n"
                        "  alloc %l0a_1: l0a float16[1, 128, 64]\n"
                        "  alloc %l0b_0: l0b float16[1, 64, 256] compiler_scratch\n"
                        "  alloc %l0b_1: l0b float16[1, 64, 256]\n"
                        "  for %v0 in serial(0, 2) {\n"
                        "    copy(%l1_0, %p0[0:+128, %v0 * 2 * 64:+64])\n"
                        "    copy(%l1_2, %p1[%v0 * 2 * 64:+64, 0:+256])\n"
                        "    copy(%l0a_0, %l1_0)\n"
                        "    copy(%l0b_0, %l1_2)\n"
                        "    mma(%l0c_0, %l0a_0, %l0b_0) {init=%v0 * 2 == 0}\n"
                        "    copy(%l1_1, %p0[0:+128, (%v0 * 2 + 1) * 64:+64])\n"
                        "    copy(%l1_3, %p1[(%v0 * 2 + 1) * 64:+64, 0:+256])\n"
                        "    copy(%l0a_1, %l1_1)\n"
                        "    copy(%l0b_1, %l1_3)\n"
                        "    mma(%l0c_0, %l0a_1, %l0b_1) {init=%v0 * 2 + 1 == 0}\n"
                        "  }\n"
                        "  copy(%p2[0:+128, 0:+256], %l0c_0)\n"));
  EXPECT_EQ(r.ctx.stats["multi_buffered"], 4);
}

TEST(MultiBuffer, OddStaticExtentRunsTheLastIterationAfterTheLoopOnSlotZero) {
  AutoRunner r;
  std::string out = r.Run(MultiBuffer, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                                              "  for %v0 in serial(0, 5) {\n"
                                              "    copy(%ub_0, %p2[%v0 * 32:+32, 0:+64])\n"
                                              "    exp(%ub_0, %ub_0)\n"
                                              "    copy(%p2[%v0 * 32:+32, 64:+64], %ub_0)\n"
                                              "  }\n"));
  EXPECT_EQ(out, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  for %v0 in serial(0, 2) {\n"
                        "    copy(%ub_0, %p2[%v0 * 2 * 32:+32, 0:+64])\n"
                        "    exp(%ub_0, %ub_0)\n"
                        "    copy(%p2[%v0 * 2 * 32:+32, 64:+64], %ub_0)\n"
                        "    copy(%ub_1, %p2[(%v0 * 2 + 1) * 32:+32, 0:+64])\n"
                        "    exp(%ub_1, %ub_1)\n"
                        "    copy(%p2[(%v0 * 2 + 1) * 32:+32, 64:+64], %ub_1)\n"
                        "  }\n"
                        "  copy(%ub_0, %p2[128:+32, 0:+64])\n"
                        "  exp(%ub_0, %ub_0)\n"
                        "  copy(%p2[128:+32, 64:+64], %ub_0)\n"));
}

TEST(MultiBuffer, AGroupOfOneIsInlinedWithoutALoop) {
  AutoRunner r;
  std::string out = r.Run(MultiBuffer, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                                              "  for %v0 in serial(2, 3) {\n"
                                              "    copy(%ub_0, %p2[%v0 * 32:+32, 0:+64])\n"
                                              "    copy(%p2[%v0 * 32:+32, 64:+64], %ub_0)\n"
                                              "  }\n"));
  EXPECT_EQ(out, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  copy(%ub_0, %p2[64:+32, 0:+64])\n"
                        "  copy(%p2[64:+32, 64:+64], %ub_0)\n"
                        "  copy(%ub_1, %p2[96:+32, 0:+64])\n"
                        "  copy(%p2[96:+32, 64:+64], %ub_1)\n"
                        "  copy(%ub_0, %p2[128:+32, 0:+64])\n"
                        "  copy(%p2[128:+32, 64:+64], %ub_0)\n"));
}

TEST(MultiBuffer, RuntimeExtentGuardsEachRemainingIteration) {
  PassRunner r;  // T.Pipelined needs no switch
  std::string out = r.Run(MultiBuffer, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                                              "  for %v0 in pipelined(0, %cid + 3, stages=3) {\n"
                                              "    copy(%ub_0, %p2[%v0 * 32:+32, 0:+64])\n"
                                              "    copy(%p2[%v0 * 32:+32, 64:+64], %ub_0)\n"
                                              "  }\n"));
  EXPECT_EQ(out, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  alloc %ub_2: ub float32[32, 64]\n"
                        "  for %v0 in serial(0, (%cid + 3) // 3) {\n"
                        "    copy(%ub_0, %p2[%v0 * 3 * 32:+32, 0:+64])\n"
                        "    copy(%p2[%v0 * 3 * 32:+32, 64:+64], %ub_0)\n"
                        "    copy(%ub_1, %p2[(%v0 * 3 + 1) * 32:+32, 0:+64])\n"
                        "    copy(%p2[(%v0 * 3 + 1) * 32:+32, 64:+64], %ub_1)\n"
                        "    copy(%ub_2, %p2[(%v0 * 3 + 2) * 32:+32, 0:+64])\n"
                        "    copy(%p2[(%v0 * 3 + 2) * 32:+32, 64:+64], %ub_2)\n"
                        "  }\n"
                        "  if (%cid + 3) % 3 > 0 {\n"
                        "    copy(%ub_0, %p2[(%cid + 3) // 3 * 3 * 32:+32, 0:+64])\n"
                        "    copy(%p2[(%cid + 3) // 3 * 3 * 32:+32, 64:+64], %ub_0)\n"
                        "  }\n"
                        "  if (%cid + 3) % 3 > 1 {\n"
                        "    copy(%ub_1, %p2[((%cid + 3) // 3 * 3 + 1) * 32:+32, 0:+64])\n"
                        "    copy(%p2[((%cid + 3) // 3 * 3 + 1) * 32:+32, 64:+64], %ub_1)\n"
                        "  }\n"));
  EXPECT_EQ(r.ctx.stats["multi_buffered"], 1);
}

TEST(MultiBuffer, ATripCountOfAtLeastOneAlwaysRunsTheLastGroupsFirstCopy) {
  // `cid % 4 + 1` >= 1: (n - 1) // 3 groups, then the last group's first iteration under a let
  // and without a guard, so no path skips every copy (sync analysis would walk it otherwise).
  PassRunner r;
  std::string out =
      r.Run(MultiBuffer, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                                "  for %v0 in pipelined(0, %cid % 4 + 1, stages=3) {\n"
                                "    copy(%ub_0, %p2[%v0 * 32:+32, 0:+64])\n"
                                "    copy(%p2[%v0 * 32:+32, 64:+64], %ub_0)\n"
                                "  }\n"));
  EXPECT_EQ(out, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  alloc %ub_2: ub float32[32, 64]\n"
                        "  for %v0 in serial(0, %cid % 4 // 3) {\n"
                        "    copy(%ub_0, %p2[%v0 * 3 * 32:+32, 0:+64])\n"
                        "    copy(%p2[%v0 * 3 * 32:+32, 64:+64], %ub_0)\n"
                        "    copy(%ub_1, %p2[(%v0 * 3 + 1) * 32:+32, 0:+64])\n"
                        "    copy(%p2[(%v0 * 3 + 1) * 32:+32, 64:+64], %ub_1)\n"
                        "    copy(%ub_2, %p2[(%v0 * 3 + 2) * 32:+32, 0:+64])\n"
                        "    copy(%p2[(%v0 * 3 + 2) * 32:+32, 64:+64], %ub_2)\n"
                        "  }\n"
                        "  let %v1 = %cid % 4 // 3 * 3\n"
                        "  copy(%ub_0, %p2[%v1 * 32:+32, 0:+64])\n"
                        "  copy(%p2[%v1 * 32:+32, 64:+64], %ub_0)\n"
                        "  if %cid % 4 % 3 >= 1 {\n"
                        "    copy(%ub_1, %p2[(%v1 + 1) * 32:+32, 0:+64])\n"
                        "    copy(%p2[(%v1 + 1) * 32:+32, 64:+64], %ub_1)\n"
                        "  }\n"
                        "  if %cid % 4 % 3 >= 2 {\n"
                        "    copy(%ub_2, %p2[(%v1 + 2) * 32:+32, 0:+64])\n"
                        "    copy(%p2[(%v1 + 2) * 32:+32, 64:+64], %ub_2)\n"
                        "  }\n"));
}

TEST(MultiBuffer, KeepsOneCopyOfCarriedValuesAndOfBuffersReadAfterTheLoop) {
  AutoRunner r;
  std::string in = Kernel(
      "  alloc %ub_0: ub float32[32, 64]\n"
      "  alloc %ub_1: ub float32[32]\n"
      "  alloc %ub_2: ub float32[32, 64]\n"
      "  fill(%ub_1, 0.0)\n"
      "  for %v0 in serial(0, 4) {\n"
      "    copy(%ub_0, %p2[%v0 * 32:+32, 0:+64])\n"
      "    reduce_max(%ub_1, %ub_0) {clear=false, dim=-1}\n"
      "    copy(%ub_2, %p2[%v0 * 32:+32, 0:+64])\n"
      "  }\n"
      "  copy(%p2[0:+32, 0:+64], %ub_2)\n");
  std::string out = r.Run(MultiBuffer, in);
  EXPECT_EQ(out, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  alloc %ub_2: ub float32[32]\n"
                        "  alloc %ub_3: ub float32[32, 64]\n"
                        "  fill(%ub_2, 0.0)\n"
                        "  for %v0 in serial(0, 2) {\n"
                        "    copy(%ub_0, %p2[%v0 * 2 * 32:+32, 0:+64])\n"
                        "    reduce_max(%ub_2, %ub_0) {clear=false, dim=-1}\n"
                        "    copy(%ub_3, %p2[%v0 * 2 * 32:+32, 0:+64])\n"
                        "    copy(%ub_1, %p2[(%v0 * 2 + 1) * 32:+32, 0:+64])\n"
                        "    reduce_max(%ub_2, %ub_1) {clear=false, dim=-1}\n"
                        "    copy(%ub_3, %p2[(%v0 * 2 + 1) * 32:+32, 0:+64])\n"
                        "  }\n"
                        "  copy(%p2[0:+32, 0:+64], %ub_3)\n"));
  EXPECT_EQ(r.ctx.stats["multi_buffered"], 1);
}

TEST(MultiBuffer, LeavesSerialLoopsAloneWithoutAutoMultiBuffer) {
  PassRunner r;
  std::string in = Kernel(
      "  alloc %ub_0: ub float32[32, 64]\n"
      "  for %v0 in serial(0, 4) {\n"
      "    copy(%ub_0, %p2[%v0 * 32:+32, 0:+64])\n"
      "    copy(%p2[%v0 * 32:+32, 64:+64], %ub_0)\n"
      "  }\n");
  EXPECT_EQ(r.Run(MultiBuffer, in), in);
  EXPECT_EQ(r.ctx.stats.count("multi_buffered"), 0u);
}

constexpr std::string_view kWorkspaceOut = R"(param %p0: gm float16[1024, 1024] input
param %p1: gm float32[1024, 1024] output
param %p2: gm float32[4, 64, 64] compiler_workspace
param %p3: gm float16[4, 64, 64] compiler_workspace
param %p4: gm float32[4, 64, 64] compiler_workspace
param %p5: gm float16[4, 64, 64] compiler_workspace
out_idx = [1]
workspace_idx = [2, 3, 4, 5]
)";

constexpr std::string_view kWorkspaceParams = R"(param %p0: gm float16[1024, 1024] input
param %p1: gm float32[1024, 1024] output
param %p2: gm float32[4, 64, 64] compiler_workspace
param %p3: gm float16[4, 64, 64] compiler_workspace
out_idx = [1]
workspace_idx = [2, 3]
)";

TEST(MultiBuffer, VersionsCompilerWorkspacesAsNewParams) {
  AutoRunner r;
  std::string out =
      r.Run(MultiBuffer, Kernel("  alloc %l1_0: l1 float16[64, 64]\n"
                                "  alloc %l0c_0: l0c float32[64, 64]\n"
                                "  alloc %ub_0: ub float32[32, 64]\n"
                                "  alloc %ub_1: ub float16[32, 64]\n"
                                "  for %v0 in serial(0, 4) {\n"
                                "    copy(%l1_0, %p0[%v0 * 64:+64, 0:+64])\n"
                                "    fill(%l0c_0, 0.0)\n"
                                "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                                "    cast(%ub_1, %ub_0)\n"
                                "    copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_1)\n"
                                "    copy(%l1_0, %p3[%cid:+1, :, :])\n"
                                "  }\n",
                                kWorkspaceParams, "launch(4, threads=2) (%cid, %vid) {\n"));
  // Stage by stage (a stage starts at each workspace read), copy by copy within a stage, and
  // within a copy's stage what its workspace write needs first (the fill before the load): the
  // cube produces both copies' hand-offs before the vector consumes the first. Two groups are
  // software-pipelined: group 0's first stage (lines 1-6), then group 1's first stage ahead of
  // group 0's later ones where dependences allow (the two fills; its workspace writes wait
  // for the vector's reads of their slots only: the flags are per workspace family here, so
  // they need not wait behind group 0's vector->cube writes), then group 1's later stages.
  EXPECT_EQ(out, Kernel("  alloc %l1_0: l1 float16[64, 64]\n"
                        "  alloc %l1_1: l1 float16[64, 64]\n"
                        "  alloc %l0c_0: l0c float32[64, 64]\n"
                        "  alloc %l0c_1: l0c float32[64, 64]\n"
                        "  alloc %ub_0: ub float32[32, 64]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  alloc %ub_2: ub float16[32, 64]\n"
                        "  alloc %ub_3: ub float16[32, 64]\n"
                        "  fill(%l0c_0, 0.0)\n"
                        "  copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                        "  copy(%l1_0, %p0[0:+64, 0:+64])\n"
                        "  fill(%l0c_1, 0.0)\n"
                        "  copy(%p4[%cid:+1, :, :], %l0c_1)\n"
                        "  copy(%l1_1, %p0[64:+64, 0:+64])\n"
                        "  fill(%l0c_0, 0.0)\n"
                        "  fill(%l0c_1, 0.0)\n"
                        "  copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                        "  copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                        "  cast(%ub_2, %ub_0)\n"
                        "  copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_2)\n"
                        "  copy(%ub_1, %p4[%cid:+1, %vid * 32:+32, :])\n"
                        "  copy(%p4[%cid:+1, :, :], %l0c_1)\n"
                        "  cast(%ub_3, %ub_1)\n"
                        "  copy(%p5[%cid:+1, %vid * 32:+32, :], %ub_3)\n"
                        "  copy(%l1_0, %p3[%cid:+1, :, :])\n"
                        "  copy(%l1_0, %p0[128:+64, 0:+64])\n"
                        "  copy(%l1_1, %p5[%cid:+1, :, :])\n"
                        "  copy(%l1_1, %p0[192:+64, 0:+64])\n"
                        "  copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                        "  cast(%ub_2, %ub_0)\n"
                        "  copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_2)\n"
                        "  copy(%ub_1, %p4[%cid:+1, %vid * 32:+32, :])\n"
                        "  cast(%ub_3, %ub_1)\n"
                        "  copy(%p5[%cid:+1, %vid * 32:+32, :], %ub_3)\n"
                        "  copy(%l1_0, %p3[%cid:+1, :, :])\n"
                        "  copy(%l1_1, %p5[%cid:+1, :, :])\n",
                        kWorkspaceOut, "launch(4, threads=2) (%cid, %vid) {\n"));
}

// kWorkspaceParams after versioning both workspaces.
constexpr std::string_view kWorkspaceOut6 = R"(param %p0: gm float16[1024, 1024] input
param %p1: gm float32[1024, 1024] output
param %p2: gm float32[4, 64, 64] compiler_workspace
param %p3: gm float16[4, 64, 64] compiler_workspace
param %p4: gm float32[4, 64, 64] compiler_workspace
param %p5: gm float16[4, 64, 64] compiler_workspace
out_idx = [1]
workspace_idx = [2, 3, 4, 5]
)";

TEST(MultiBuffer, PipelinesThreeGroupsAndLoadsAheadOfTheHandOffWait) {
  AutoRunner r;
  std::string out =
      r.Run(MultiBuffer, Kernel("  alloc %l1_0: l1 float16[64, 64]\n"
                                "  alloc %l1_1: l1 float16[64, 64]\n"
                                "  alloc %l1_2: l1 float16[64, 64]\n"
                                "  alloc %l0c_0: l0c float32[64, 64]\n"
                                "  alloc %ub_0: ub float32[32, 64]\n"
                                "  alloc %ub_1: ub float16[32, 64]\n"
                                "  for %v0 in serial(0, 6) {\n"
                                "    copy(%l1_0, %p0[%v0 * 64:+64, 0:+64])\n"
                                "    fill(%l0c_0, 0.0)\n"
                                "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                                "    cast(%ub_1, %ub_0)\n"
                                "    copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_1)\n"
                                "    copy(%l1_1, %p3[%cid:+1, :, :])\n"
                                "    copy(%l1_2, %p0[%v0 * 64:+64, 64:+64])\n"
                                "  }\n",
                                kWorkspaceParams, "launch(4, threads=2) (%cid, %vid) {\n"));
  // Three groups: group 0's first stage, a loop of two trips each running group g's later
  // stages behind group g + 1's loads and fills, then group 2's later stages. Within a stage
  // the loads that do not wait for the hand-off (%l1_4, %l1_5) go ahead of its reads.
  EXPECT_EQ(out, Kernel("  alloc %l1_0: l1 float16[64, 64]\n"
                        "  alloc %l1_1: l1 float16[64, 64]\n"
                        "  alloc %l1_2: l1 float16[64, 64]\n"
                        "  alloc %l1_3: l1 float16[64, 64]\n"
                        "  alloc %l1_4: l1 float16[64, 64]\n"
                        "  alloc %l1_5: l1 float16[64, 64]\n"
                        "  alloc %l0c_0: l0c float32[64, 64]\n"
                        "  alloc %l0c_1: l0c float32[64, 64]\n"
                        "  alloc %ub_0: ub float32[32, 64]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  alloc %ub_2: ub float16[32, 64]\n"
                        "  alloc %ub_3: ub float16[32, 64]\n"
                        "  fill(%l0c_0, 0.0)\n"
                        "  copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                        "  copy(%l1_0, %p0[0:+64, 0:+64])\n"
                        "  fill(%l0c_1, 0.0)\n"
                        "  copy(%p4[%cid:+1, :, :], %l0c_1)\n"
                        "  copy(%l1_1, %p0[64:+64, 0:+64])\n"
                        "  for %v0 in serial(0, 2) {\n"
                        "    fill(%l0c_0, 0.0)\n"
                        "    copy(%l1_0, %p0[(%v0 * 2 + 2) * 64:+64, 0:+64])\n"
                        "    fill(%l0c_1, 0.0)\n"
                        "    copy(%l1_1, %p0[(%v0 * 2 + 2 + 1) * 64:+64, 0:+64])\n"
                        "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                        "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                        "    cast(%ub_2, %ub_0)\n"
                        "    copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_2)\n"
                        "    copy(%ub_1, %p4[%cid:+1, %vid * 32:+32, :])\n"
                        "    copy(%p4[%cid:+1, :, :], %l0c_1)\n"
                        "    cast(%ub_3, %ub_1)\n"
                        "    copy(%p5[%cid:+1, %vid * 32:+32, :], %ub_3)\n"
                        "    copy(%l1_4, %p0[%v0 * 2 * 64:+64, 64:+64])\n"
                        "    copy(%l1_5, %p0[(%v0 * 2 + 1) * 64:+64, 64:+64])\n"
                        "    copy(%l1_2, %p3[%cid:+1, :, :])\n"
                        "    copy(%l1_3, %p5[%cid:+1, :, :])\n"
                        "  }\n"
                        "  copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                        "  cast(%ub_2, %ub_0)\n"
                        "  copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_2)\n"
                        "  copy(%ub_1, %p4[%cid:+1, %vid * 32:+32, :])\n"
                        "  cast(%ub_3, %ub_1)\n"
                        "  copy(%p5[%cid:+1, %vid * 32:+32, :], %ub_3)\n"
                        "  copy(%l1_4, %p0[256:+64, 64:+64])\n"
                        "  copy(%l1_5, %p0[320:+64, 64:+64])\n"
                        "  copy(%l1_2, %p3[%cid:+1, :, :])\n"
                        "  copy(%l1_3, %p5[%cid:+1, :, :])\n",
                        kWorkspaceOut6, "launch(4, threads=2) (%cid, %vid) {\n"));
}

TEST(MultiBuffer, ReorderingHoistsTheNextCopysFirstStageButNeverAcrossASync) {
  AutoRunner r;
  std::string out =
      r.Run(MultiBuffer, Kernel("  alloc %l1_0: l1 float16[64, 64]\n"
                                "  alloc %ub_0: ub float32[32, 64]\n"
                                "  for %v0 in serial(0, 2) {\n"
                                "    copy(%l1_0, %p0[%v0 * 64:+64, 0:+64])\n"
                                "    barrier(all)\n"
                                "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                                "  }\n",
                                kWorkspaceParams, "launch(4, threads=2) (%cid, %vid) {\n"));
  // The second copy's load (stage 0) goes before the first copy's workspace read (stage 1),
  // but not before the first copy's barrier.
  EXPECT_EQ(out, Kernel("  alloc %l1_0: l1 float16[64, 64]\n"
                        "  alloc %l1_1: l1 float16[64, 64]\n"
                        "  alloc %ub_0: ub float32[32, 64]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  copy(%l1_0, %p0[0:+64, 0:+64])\n"
                        "  barrier(all)\n"
                        "  copy(%l1_1, %p0[64:+64, 0:+64])\n"
                        "  copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                        "  barrier(all)\n"
                        "  copy(%ub_1, %p2[%cid:+1, %vid * 32:+32, :])\n",
                        kWorkspaceParams, "launch(4, threads=2) (%cid, %vid) {\n"));
}

TEST(MultiBuffer, UsesTheSecondSlotOfATwoSlotScratch) {
  AutoRunner r;
  std::string out = r.Run(MultiBuffer, Kernel("  alloc %l1_0: l1 float16[128, 64]\n"
                                              "  alloc %l0a_0: l0a float16[2, 128, 64]\n"
                                              "  for %v0 in serial(0, 2) {\n"
                                              "    copy(%l1_0, %p0[0:+128, %v0 * 64:+64])\n"
                                              "    copy(%l0a_0[0:+1, :, :], %l1_0)\n"
                                              "    copy(%p2[0:+128, 0:+64], %l0a_0[0:+1, :, :])\n"
                                              "  }\n"));
  EXPECT_EQ(out, Kernel("  alloc %l1_0: l1 float16[128, 64]\n"
                        "  alloc %l1_1: l1 float16[128, 64]\n"
                        "  alloc %l0a_0: l0a float16[2, 128, 64]\n"
                        "  copy(%l1_0, %p0[0:+128, 0:+64])\n"
                        "  copy(%l0a_0[0:+1, :, :], %l1_0)\n"
                        "  copy(%p2[0:+128, 0:+64], %l0a_0[0:+1, :, :])\n"
                        "  copy(%l1_1, %p0[0:+128, 64:+64])\n"
                        "  copy(%l0a_0[1:+1, :, :], %l1_1)\n"
                        "  copy(%p2[0:+128, 0:+64], %l0a_0[1:+1, :, :])\n"));
}

TEST(MultiBuffer, WarnsWhenPipelinedStagesDoNotFitAndVersionsWhatFits) {
  PassRunner r;
  std::string out = r.Run(MultiBuffer, Kernel("  alloc %ub_0: ub float32[256, 128]\n"
                                              "  alloc %ub_1: ub float32[32, 64]\n"
                                              "  for %v0 in pipelined(0, 4, stages=2) {\n"
                                              "    copy(%ub_0, %p2[%v0 * 256:+256, 0:+128])\n"
                                              "    copy(%ub_1, %p2[%v0 * 32:+32, 0:+64])\n"
                                              "    copy(%p2[%v0 * 256:+256, 0:+128], %ub_0)\n"
                                              "    copy(%p2[%v0 * 32:+32, 0:+64], %ub_1)\n"
                                              "  }\n"));
  EXPECT_EQ(out, Kernel("  alloc %ub_0: ub float32[256, 128]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  alloc %ub_2: ub float32[32, 64]\n"
                        "  for %v0 in serial(0, 2) {\n"
                        "    copy(%ub_0, %p2[%v0 * 2 * 256:+256, 0:+128])\n"
                        "    copy(%ub_1, %p2[%v0 * 2 * 32:+32, 0:+64])\n"
                        "    copy(%p2[%v0 * 2 * 256:+256, 0:+128], %ub_0)\n"
                        "    copy(%p2[%v0 * 2 * 32:+32, 0:+64], %ub_1)\n"
                        "    copy(%ub_0, %p2[(%v0 * 2 + 1) * 256:+256, 0:+128])\n"
                        "    copy(%ub_2, %p2[(%v0 * 2 + 1) * 32:+32, 0:+64])\n"
                        "    copy(%p2[(%v0 * 2 + 1) * 256:+256, 0:+128], %ub_0)\n"
                        "    copy(%p2[(%v0 * 2 + 1) * 32:+32, 0:+64], %ub_2)\n"
                        "  }\n"));
  ASSERT_EQ(r.Messages(Severity::kWarning).size(), 1u);
  EXPECT_EQ(r.Messages(Severity::kWarning)[0],
            "T.Pipelined(num_stages=2) does not fit: 'ub_0' keeps a single copy, since 1 more "
            "would need 131072 bytes of ub and only 57344 of its 196608 bytes are free");
  EXPECT_EQ(r.FirstErrorLine(), 0u);
}

TEST(MultiBuffer, CopiesOfTheBodyGetFreshVars) {
  AutoRunner r;
  std::string out = r.Run(MultiBuffer, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                                              "  for %v0 in serial(0, 4) {\n"
                                              "    let %v1 = %v0 * 32\n"
                                              "    copy(%ub_0, %p2[%v1:+32, 0:+64])\n"
                                              "    for %v2 in serial(0, 2) {\n"
                                              "      copy(%p2[%v1:+32, %v2 * 64:+64], %ub_0)\n"
                                              "    }\n"
                                              "  }\n"));
  EXPECT_EQ(out, Kernel("  alloc %ub_0: ub float32[32, 64]\n"
                        "  alloc %ub_1: ub float32[32, 64]\n"
                        "  for %v0 in serial(0, 2) {\n"
                        "    let %v1 = %v0 * 2 * 32\n"
                        "    let %v2 = (%v0 * 2 + 1) * 32\n"
                        "    copy(%ub_0, %p2[%v1:+32, 0:+64])\n"
                        "    for %v3 in serial(0, 2) {\n"
                        "      copy(%p2[%v1:+32, %v3 * 64:+64], %ub_0)\n"
                        "    }\n"
                        "    copy(%ub_1, %p2[%v2:+32, 0:+64])\n"
                        "    for %v4 in serial(0, 2) {\n"
                        "      copy(%p2[%v2:+32, %v4 * 64:+64], %ub_1)\n"
                        "    }\n"
                        "  }\n"));
}

// Three hand-offs per iteration, cube -> vector -> cube -> vector (flash attention's scores,
// probabilities and P @ V block): four stages.
constexpr std::string_view kThreeHandOffParams = R"(param %p0: gm float16[1024, 1024] input
param %p1: gm float32[1024, 1024] output
param %p2: gm float32[4, 64, 64] compiler_workspace
param %p3: gm float16[4, 64, 64] compiler_workspace
param %p4: gm float32[4, 64, 64] compiler_workspace
out_idx = [1]
workspace_idx = [2, 3, 4]
)";

std::string ThreeHandOffLoop(std::string_view before_loop) {
  return Kernel(std::string("  alloc %l1_0: l1 float16[64, 64]\n"
                            "  alloc %l0c_0: l0c float32[64, 64]\n"
                            "  alloc %l0a_0: l0a float16[64, 64]\n"
                            "  alloc %l0b_0: l0b float16[64, 64]\n"
                            "  alloc %l0c_1: l0c float32[64, 64]\n"
                            "  alloc %ub_0: ub float32[32, 64]\n"
                            "  alloc %ub_1: ub float16[32, 64]\n"
                            "  alloc %ub_2: ub float32[32, 64]\n"
                            "  alloc %ub_3: ub float32[32, 64]\n") +
                    std::string(before_loop) +
                    "  fill(%ub_3, 0.0)\n"
                    "  for %v0 in serial(0, 6) {\n"
                    "    fill(%l0c_0, 0.0)\n"
                    "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                    "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                    "    cast(%ub_1, %ub_0)\n"
                    "    copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_1)\n"
                    "    copy(%l1_0, %p3[%cid:+1, :, :])\n"
                    "    copy(%l0a_0, %l1_0)\n"
                    "    mma(%l0c_1, %l0a_0, %l0b_0) {init=true}\n"
                    "    copy(%p4[%cid:+1, :, :], %l0c_1)\n"
                    "    copy(%ub_2, %p4[%cid:+1, %vid * 32:+32, :])\n"
                    "    add(%ub_3, %ub_3, %ub_2)\n"
                    "  }\n"
                    "  copy(%p1[%vid * 32:+32, 0:+64], %ub_3)\n",
                kThreeHandOffParams, "launch(4, threads=2) (%cid, %vid) {\n");
}

// Position of the n-th (0-based) occurrence of `what` in `text` at or after `from`.
size_t Nth(const std::string& text, const std::string& what, int n, size_t from = 0) {
  size_t at = text.find(what, from);
  for (int i = 0; i < n && at != std::string::npos; ++i) at = text.find(what, at + 1);
  return at;
}

// With two free flag ids per workspace family, each family keeps its own order only: the
// rotated body runs the next group's first two stages (the cube's scores, the vectors' use
// of them) beside the current group's last two, and the cube writes the next scores before
// the current P @ V block. Group 0's first two stages form the prologue.
TEST(MultiBuffer, RotatesHalfTheStagesAheadAndLetsAFamilyOvertakeAnother) {
  AutoRunner r;
  const std::string out = r.Run(MultiBuffer, ThreeHandOffLoop(""));

  ASSERT_NE(out, "");
  const size_t loop = out.find("  for %v");
  ASSERT_NE(loop, std::string::npos) << out;
  // Prologue: both copies' scores read and probabilities written by the vectors.
  EXPECT_LT(Nth(out, "cast(", 1), loop) << out;
  EXPECT_GT(Nth(out, "mma(", 0), loop) << out;  // P @ V waits for the loop
  // In the loop: the next scores (a write from %l0c_0) before the P @ V block (from %l0c_2).
  const size_t next_scores = out.find(":, :], %l0c_0)", loop);
  const size_t pv_block = out.find(":, :], %l0c_2)", loop);
  ASSERT_NE(next_scores, std::string::npos) << out;
  EXPECT_LT(next_scores, pv_block) << out;
  // The vectors read the next scores before the current P @ V block (its round trip through
  // the cube is the longer wait).
  EXPECT_LT(out.find("%ub_0, %p2[", loop), out.find("%ub_4, %p4[", loop)) << out;
}

// Author cross flags leave too few ids for a counter pair per family: the hand-offs of a
// direction keep one order, so the next scores wait behind the current P @ V block.
TEST(MultiBuffer, KeepsOneOrderPerDirectionWhenFlagIdsAreShort) {
  AutoRunner r;
  std::string flags;
  for (int id = 0; id < 6; ++id) flags += "  set_cross_flag(fix, " + std::to_string(id) + ")\n";
  const std::string out = r.Run(MultiBuffer, ThreeHandOffLoop(flags));
  ASSERT_NE(out, "");
  const size_t loop = out.find("  for %v");
  ASSERT_NE(loop, std::string::npos) << out;
  const size_t next_scores = out.find(":, :], %l0c_0)", loop);
  const size_t pv_block = out.find(":, :], %l0c_2)", loop);
  ASSERT_NE(pv_block, std::string::npos) << out;
  EXPECT_LT(pv_block, next_scores) << out;
}

TEST(MultiBuffer, IgnoresAFirstWriteUnderAnIfAndAnInnerLoopOfAnOuterLoopThatReads) {
  AutoRunner r;
  std::string in = Kernel(
      "  alloc %ub_0: ub float32[32, 64]\n"
      "  alloc %ub_1: ub float32[32, 64]\n"
      "  for %v0 in serial(0, 4) {\n"
      "    if %cid == 0 {\n"
      "      copy(%ub_0, %p2[%v0 * 32:+32, 0:+64])\n"
      "    }\n"
      "    copy(%p2[%v0 * 32:+32, 0:+64], %ub_0)\n"
      "    copy(%p2[%v0 * 32:+32, 0:+64], %ub_1)\n"
      "    for %v1 in serial(0, 4) {\n"
      "      copy(%ub_1, %p2[%v1 * 32:+32, 0:+64])\n"
      "      copy(%p2[%v1 * 32:+32, 64:+64], %ub_1)\n"
      "    }\n"
      "  }\n");
  EXPECT_EQ(r.Run(MultiBuffer, in), in);
}

}  // namespace
}  // namespace tilejit::passes
