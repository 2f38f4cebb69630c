// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/cross_core_sync.h"

#include <gtest/gtest.h>

#include <string>

#include "common/check.h"
#include "compiler/ir/ir_parser.h"
#include "compiler/target/npu_target.h"
#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

// Split kernels (combine_cv's output form): %p2 carries L0C data to the vector core, %p3 and
// %p4 UB data to the cube core.
std::string Launch(std::string_view body, std::string_view launch = "launch(2, threads=2)") {
  return std::string(
             "param %p0: gm float16[128, 64] input\n"
             "param %p1: gm float32[128, 64] output\n"
             "param %p2: gm float32[2, 64, 64] compiler_workspace\n"
             "param %p3: gm float32[2, 64, 64] compiler_workspace\n"
             "param %p4: gm float32[2, 64, 64] compiler_workspace\n"
             "out_idx = [1]\n"
             "workspace_idx = [2, 3, 4]\n") +
         std::string(launch) +
         " (%cid, %vid) {\n"
         "  alloc %l1_0: l1 float32[64, 64]\n"
         "  alloc %l0c_0: l0c float32[64, 64]\n"
         "  alloc %ub_0: ub float32[32, 64]\n" +
         std::string(body) + "}\n";
}

void EnableCvSync(PassRunner& r) {
  r.ctx.configs.auto_cv_combine = true;
  r.ctx.configs.auto_cv_sync = true;
}

TEST(CrossCoreSync, OneHandOffGetsAReadyFlagOnTheWritingPipe) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CrossCoreSync, Launch("  scope cube {\n"
                                        "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                        "  }\n"
                                        "  scope vector {\n"
                                        "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                                        "    copy(%p1[%vid * 32:+32, :], %ub_0)\n"
                                        "  }\n")),
            Launch("  scope cube {\n"
                   "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                   "    set_cross_flag(fix, 0, mode=2) {compiler}\n"
                   "  }\n"
                   "  scope vector {\n"
                   "    wait_cross_flag(0, pipe=mte2) {compiler}\n"
                   "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                   "    copy(%p1[%vid * 32:+32, :], %ub_0)\n"
                   "  }\n"));
  EXPECT_EQ(r.ctx.stats["cross_flags"], 2);
}

TEST(CrossCoreSync, LoopedHandOffsBothWaysGetSlotFreeFlagsPreArmedAndDrained) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CrossCoreSync, Launch("  scope cube {\n"
                                        "    for %v0 in serial(0, 4) {\n"
                                        "      copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                        "      copy(%l1_0, %p3[%cid:+1, :, :])\n"
                                        "    }\n"
                                        "  }\n"
                                        "  scope vector {\n"
                                        "    for %v1 in serial(0, 4) {\n"
                                        "      copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                                        "      copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_0)\n"
                                        "    }\n"
                                        "  }\n")),
            Launch("  scope cube {\n"
                   "    set_cross_flag(mte2, 3, mode=2) {compiler}\n"
                   "    for %v0 in serial(0, 4) {\n"
                   "      wait_cross_flag(1, pipe=fix) {compiler}\n"
                   "      copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                   "      set_cross_flag(fix, 0, mode=2) {compiler}\n"
                   "      wait_cross_flag(2, pipe=mte2) {compiler}\n"
                   "      copy(%l1_0, %p3[%cid:+1, :, :])\n"
                   "      set_cross_flag(mte2, 3, mode=2) {compiler}\n"
                   "    }\n"
                   "    wait_cross_flag(1, pipe=fix) {compiler}\n"
                   "  }\n"
                   "  scope vector {\n"
                   "    set_cross_flag(mte2, 1, mode=2) {compiler}\n"
                   "    for %v1 in serial(0, 4) {\n"
                   "      wait_cross_flag(0, pipe=mte2) {compiler}\n"
                   "      copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                   "      set_cross_flag(mte2, 1, mode=2) {compiler}\n"
                   "      wait_cross_flag(3, pipe=mte3) {compiler}\n"
                   "      copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_0)\n"
                   "      set_cross_flag(mte3, 2, mode=2) {compiler}\n"
                   "    }\n"
                   "    wait_cross_flag(3, pipe=mte3) {compiler}\n"
                   "  }\n"));
  EXPECT_EQ(r.ctx.stats["cross_flags"], 12);
}

// The vector-to-cube direction with two workspace slots written alternately (multi_buffer's
// form): two tokens, so the second slot's write does not wait for the first slot's read.
std::string TwoSlotBody(std::string_view between) {
  return "  scope cube {\n"
         "    for %v0 in serial(0, 4) {\n"
         "      copy(%l1_0, %p3[%cid:+1, :, :])\n" +
         std::string(between) +
         "      copy(%l1_0, %p4[%cid:+1, :, :])\n"
         "    }\n"
         "  }\n"
         "  scope vector {\n"
         "    for %v1 in serial(0, 4) {\n"
         "      copy(%p3[%cid:+1, %vid * 32:+32, :], %ub_0)\n"
         "      copy(%p4[%cid:+1, %vid * 32:+32, :], %ub_0)\n"
         "    }\n"
         "  }\n";
}

int CountOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CrossCoreSync, AlternatingSlotsPreArmAsManyTokensAsSlots) {
  PassRunner r;
  EnableCvSync(r);
  std::string out = r.Run(CrossCoreSync, Launch(TwoSlotBody("")));
  ASSERT_NE(out, "");
  // Ready 0 and slot-free 1 for the vector->cube direction; the cube pre-arms 2 tokens.
  EXPECT_NE(out.find("  scope cube {\n"
                     "    set_cross_flag(mte2, 1, mode=2) {compiler}\n"
                     "    set_cross_flag(mte2, 1, mode=2) {compiler}\n"
                     "    for %v0"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    }\n"
                     "    wait_cross_flag(1, pipe=mte3) {compiler}\n"
                     "    wait_cross_flag(1, pipe=mte3) {compiler}\n"
                     "  }\n}\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(CountOf(out, "set_cross_flag(mte2, 1"), 4);  // 2 pre-armed + 1 per read
}

TEST(CrossCoreSync, RuntimeLoopsAndIfsAreCountedConservatively) {
  PassRunner r;
  EnableCvSync(r);
  // A write of a slot in a loop with a runtime trip count may repeat with nothing between.
  std::string out = r.Run(CrossCoreSync, Launch("  scope cube {\n"
                                                "    for %v0 in serial(0, %cid + 1) {\n"
                                                "      copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                                "    }\n"
                                                "  }\n"
                                                "  scope vector {\n"
                                                "    for %v1 in serial(0, %cid + 1) {\n"
                                                "      copy(%ub_0, %p2[%cid:+1, 0:+32, :])\n"
                                                "    }\n"
                                                "  }\n"));
  EXPECT_EQ(CountOf(out, "set_cross_flag(mte2, 1, mode=2)"), 2) << out;  // 1 token + per read
}

TEST(CrossCoreSync, ConditionalWritesBetweenSlotsDoNotCount) {
  PassRunner r;
  EnableCvSync(r);
  std::string text = Launch(TwoSlotBody(""));
  // Guard the second slot's writes and reads: it may be absent, so only one token is safe.
  const std::string cube_w = "      copy(%l1_0, %p4[%cid:+1, :, :])\n";
  const std::string vec_w = "      copy(%p4[%cid:+1, %vid * 32:+32, :], %ub_0)\n";
  text.replace(text.find(cube_w), cube_w.size(), "      if %cid == 0 {\n  " + cube_w + "      }\n");
  text.replace(text.find(vec_w), vec_w.size(), "      if %cid == 0 {\n  " + vec_w + "      }\n");
  std::string out = r.Run(CrossCoreSync, text);
  EXPECT_EQ(CountOf(out, "set_cross_flag(mte2, 1, mode=2)"), 3) << out;  // 1 token + 2 reads
}

TEST(CrossCoreSync, AuthorCrossFlagIdsAreKeptAndAvoided) {
  PassRunner r;
  EnableCvSync(r);
  std::string out = r.Run(CrossCoreSync, Launch("  scope cube {\n"
                                                "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                                "    set_cross_flag(fix, 0, mode=2)\n"
                                                "  }\n"
                                                "  scope vector {\n"
                                                "    wait_cross_flag(0)\n"
                                                "    copy(%ub_0, %p2[%cid:+1, 0:+32, :])\n"
                                                "    set_cross_flag(mte2, 2, mode=2)\n"
                                                "  }\n"));
  EXPECT_NE(out.find("set_cross_flag(fix, 1, mode=2) {compiler}"), std::string::npos) << out;
  EXPECT_NE(out.find("    set_cross_flag(fix, 0, mode=2)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("wait_cross_flag(1, pipe=mte2) {compiler}"), std::string::npos) << out;
}

TEST(CrossCoreSync, RunningOutOfFlagIdsIsADiagnostic) {
  std::string flags;
  for (int id = 0; id < 10; ++id) {
    flags += "    set_cross_flag(fix, " + std::to_string(id) + ", mode=2)\n";
  }
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CrossCoreSync, Launch("  scope cube {\n" + flags +
                                        "    for %v0 in serial(0, 2) {\n"
                                        "      copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                        "    }\n"
                                        "  }\n"
                                        "  scope vector {\n"
                                        "    for %v1 in serial(0, 2) {\n"
                                        "      copy(%ub_0, %p2[%cid:+1, 0:+32, :])\n"
                                        "    }\n"
                                        "  }\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "automatic cross-core sync needs 2 cross-core flag ids, but the kernel's own cross "
            "flags leave fewer of the 11 ids (0..10) free; use fewer distinct ids in the kernel's "
            "own set_cross_flag/wait_cross_flag");
}

TEST(CrossCoreSync, HandOffUnderVidDependentControlFlowIsADiagnostic) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CrossCoreSync, Launch("  scope cube {\n"
                                        "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                        "  }\n"
                                        "  scope vector {\n"
                                        "    let %v0 = %vid * 2\n"
                                        "    if %v0 == 0 {\n"
                                        "      copy(%ub_0, %p2[%cid:+1, 0:+32, :])\n"
                                        "    }\n"
                                        "  }\n")),
            "");
  EXPECT_NE(r.FirstError().find("this cube/vector hand-off sits under a loop or `if` that depends "
                                "on vid"),
            std::string::npos)
      << r.FirstError();
  EXPECT_EQ(r.FirstErrorLine(), 18u);
}

// A counter pairs the n-th write of its workspaces with the n-th read. Writes of a direction
// in another order than the reads (multi_buffer runs one family ahead of another) are paired
// by one counter per group that is in order; the in-order direction keeps one counter.
TEST(CrossCoreSync, HandOffsWrittenInAnotherOrderThanReadGetOneCounterEach) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CrossCoreSync, Launch("  scope cube {\n"
                                        "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                        "    copy(%p3[%cid:+1, :, :], %l0c_0)\n"
                                        "  }\n"
                                        "  scope vector {\n"
                                        "    copy(%ub_0, %p3[%cid:+1, %vid * 32:+32, :])\n"
                                        "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                                        "  }\n")),
            Launch("  scope cube {\n"
                   "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                   "    set_cross_flag(fix, 0, mode=2) {compiler}\n"
                   "    copy(%p3[%cid:+1, :, :], %l0c_0)\n"
                   "    set_cross_flag(fix, 1, mode=2) {compiler}\n"
                   "  }\n"
                   "  scope vector {\n"
                   "    wait_cross_flag(1, pipe=mte2) {compiler}\n"
                   "    copy(%ub_0, %p3[%cid:+1, %vid * 32:+32, :])\n"
                   "    wait_cross_flag(0, pipe=mte2) {compiler}\n"
                   "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                   "  }\n"));
  const std::string in_order = Launch(
      "  scope cube {\n"
      "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
      "    copy(%p3[%cid:+1, :, :], %l0c_0)\n"
      "  }\n"
      "  scope vector {\n"
      "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
      "    copy(%ub_0, %p3[%cid:+1, %vid * 32:+32, :])\n"
      "  }\n");
  const std::string out = r.Run(CrossCoreSync, in_order);
  EXPECT_EQ(CountOf(out, "set_cross_flag(fix, 0, mode=2)"), 2) << out;
  EXPECT_EQ(CountOf(out, "set_cross_flag(fix, 1,"), 0) << out;
}

// Two slots of one family written in read order, another family overtaking them: the slots
// share one counter pair (two tokens, as for alternating slots), the other family gets its own.
TEST(CrossCoreSync, SlotsOfOneFamilyShareACounterWhenAnotherFamilyOvertakes) {
  PassRunner r;
  EnableCvSync(r);
  const std::string out =
      r.Run(CrossCoreSync, Launch("  scope cube {\n"
                                  "    for %v0 in serial(0, 2) {\n"
                                  "      copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                  "      copy(%p3[%cid:+1, :, :], %l0c_0)\n"
                                  "      copy(%p4[%cid:+1, :, :], %l0c_0)\n"
                                  "    }\n"
                                  "  }\n"
                                  "  scope vector {\n"
                                  "    for %v1 in serial(0, 2) {\n"
                                  "      copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                                  "      copy(%ub_0, %p4[%cid:+1, %vid * 32:+32, :])\n"
                                  "      copy(%ub_0, %p3[%cid:+1, %vid * 32:+32, :])\n"
                                  "    }\n"
                                  "  }\n"));
  // First fit: {p2, p3} (in order), then {p4}: ready 0 / slot-free 1, ready 2 / slot-free 3.
  EXPECT_EQ(CountOf(out, "set_cross_flag(fix, 0, mode=2)"), 2) << out;
  EXPECT_EQ(CountOf(out, "set_cross_flag(fix, 2, mode=2)"), 1) << out;
  EXPECT_EQ(CountOf(out, "wait_cross_flag(1, pipe=fix)"), 2 + 2) << out;  // writes + drain
  EXPECT_EQ(CountOf(out, "wait_cross_flag(3, pipe=fix)"), 1 + 1) << out;
}

// A workspace whose write sits under another loop or `if` structure than its read cannot be
// paired by any counter: a compiler bug upstream, refused instead of emitting a race.
TEST(CrossCoreSync, HandOffWrittenUnderAnotherStructureThanReadIsAnInternalError) {
  PassRunner r;
  EnableCvSync(r);
  const std::string unpaired = Launch(
      "  scope cube {\n"
      "    if %cid == 0 {\n"
      "      copy(%p2[%cid:+1, :, :], %l0c_0)\n"
      "    }\n"
      "  }\n"
      "  scope vector {\n"
      "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
      "  }\n");
  EXPECT_THROW(r.Run(CrossCoreSync, unpaired), InternalError);
}

// multi_buffer's rotation: the prologue writes slot p2 and the loop reads it a trip later,
// and the epilogue reads what the loop's last trip wrote. Loops of constant trip count are
// compared as the sequence they run, so one counter pairs them.
TEST(CrossCoreSync, RotatedLoopWithPrologueAndEpilogueIsPairedAsItRuns) {
  PassRunner r;
  EnableCvSync(r);
  const std::string out =
      r.Run(CrossCoreSync, Launch("  scope cube {\n"
                                  "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                  "    for %v0 in serial(0, 3) {\n"
                                  "      copy(%p3[%cid:+1, :, :], %l0c_0)\n"
                                  "      copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                  "    }\n"
                                  "    copy(%p3[%cid:+1, :, :], %l0c_0)\n"
                                  "  }\n"
                                  "  scope vector {\n"
                                  "    for %v1 in serial(0, 3) {\n"
                                  "      copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                                  "      copy(%ub_0, %p3[%cid:+1, %vid * 32:+32, :])\n"
                                  "    }\n"
                                  "    copy(%ub_0, %p2[%cid:+1, %vid * 32:+32, :])\n"
                                  "    copy(%ub_0, %p3[%cid:+1, %vid * 32:+32, :])\n"
                                  "  }\n"));
  ASSERT_NE(out, "");
  // One direction in order: ready 0 and slot-free 1 (statements: 4 writes, 4 reads), two
  // tokens (the slots alternate).
  EXPECT_EQ(CountOf(out, "set_cross_flag(fix, 0, mode=2)"), 4) << out;
  EXPECT_EQ(CountOf(out, "set_cross_flag(mte2, 1, mode=2)"), 2 + 4) << out;
  EXPECT_EQ(CountOf(out, "wait_cross_flag(1, pipe=fix)"), 4 + 2) << out;
  EXPECT_EQ(CountOf(out, "cross_flag(fix, 2"), 0) << out;
}

TEST(CrossCoreSync, WorkspaceFamilyDropsTheSlotSuffixes) {
  ir::BufferNode b;
  b.name = "cv_workspace2_slot1_slot3";
  EXPECT_EQ(WorkspaceFamily(b), "cv_workspace2");
  b.name = "cv_workspace2";
  EXPECT_EQ(WorkspaceFamily(b), "cv_workspace2");
  b.name = "ws_slot";  // no digits: not a slot suffix
  EXPECT_EQ(WorkspaceFamily(b), "ws_slot");
  b.name = "ws_slotx1";
  EXPECT_EQ(WorkspaceFamily(b), "ws_slotx1");
}

TEST(CrossCoreSync, PerFamilyCountersNeedTwoFreeIdsPerFamily) {
  // Three workspaces: six ids fit in eleven; with six author ids they do not.
  Result<ir::Kernel> k = ir::ParseTileIrString(Launch(""));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_TRUE(CrossFlagsPerFamily(*k, target::Ascend910B2()));
  std::string flags;
  for (int id = 0; id < 6; ++id) flags += "  set_cross_flag(fix, " + std::to_string(id) + ")\n";
  Result<ir::Kernel> busy = ir::ParseTileIrString(Launch("  scope cube {\n" + flags + "  }\n"));
  ASSERT_TRUE(busy.ok()) << busy.status();
  EXPECT_FALSE(CrossFlagsPerFamily(*busy, target::Ascend910B2()));
}

// A workspace the kernel declares (workspace_idx), written once by the cube and read four
// times by each vector core (upstream's pipeline/matmul_add_pipeline.py): the cube sets the
// ready counter once per read, and each read waits for one.
std::string DeclaredWorkspace(std::string_view body) {
  return std::string(
             "param %p0: gm float32[64, 64] output\n"
             "param %p1: gm float32[64, 64] workspace\n"
             "out_idx = [0]\n"
             "workspace_idx = [1]\n"
             "launch(1, threads=0) (%cid, %vid) {\n"
             "  alloc %l0c_0: l0c float32[64, 64]\n"
             "  alloc %ub_0: ub float32[32, 16]\n") +
         std::string(body) + "}\n";
}

TEST(CrossCoreSync, DeclaredWorkspaceWrittenOnceAndReadFourTimesGetsFourReadySets) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(
      r.Run(CrossCoreSync, DeclaredWorkspace("  scope cube {\n"
                                             "    copy(%p1, %l0c_0)\n"
                                             "  }\n"
                                             "  scope vector {\n"
                                             "    for %v0 in serial(0, 4) {\n"
                                             "      copy(%ub_0, %p1[%vid * 32:+32, %v0 * 16:+16])\n"
                                             "      copy(%p0[%vid * 32:+32, %v0 * 16:+16], %ub_0)\n"
                                             "    }\n"
                                             "  }\n")),
      DeclaredWorkspace("  scope cube {\n"
                        "    copy(%p1, %l0c_0)\n"
                        "    set_cross_flag(fix, 0, mode=2) {compiler}\n"
                        "    set_cross_flag(fix, 0, mode=2) {compiler}\n"
                        "    set_cross_flag(fix, 0, mode=2) {compiler}\n"
                        "    set_cross_flag(fix, 0, mode=2) {compiler}\n"
                        "  }\n"
                        "  scope vector {\n"
                        "    for %v0 in serial(0, 4) {\n"
                        "      wait_cross_flag(0, pipe=mte2) {compiler}\n"
                        "      copy(%ub_0, %p1[%vid * 32:+32, %v0 * 16:+16])\n"
                        "      copy(%p0[%vid * 32:+32, %v0 * 16:+16], %ub_0)\n"
                        "    }\n"
                        "  }\n"));
  EXPECT_EQ(r.ctx.stats["cross_flags"], 5);
}

// Written in a loop, or read more often than a counter can hold, it stays the author's.
TEST(CrossCoreSync, DeclaredWorkspaceRewrittenOrReadTooOftenIsLeftToTheAuthor) {
  for (std::string body : {std::string("  scope cube {\n"
                                       "    for %v0 in serial(0, 2) {\n"
                                       "      copy(%p1, %l0c_0)\n"
                                       "    }\n"
                                       "  }\n"
                                       "  scope vector {\n"
                                       "    for %v1 in serial(0, 4) {\n"
                                       "      copy(%ub_0, %p1[%vid * 32:+32, %v1 * 16:+16])\n"
                                       "    }\n"
                                       "  }\n"),
                           std::string("  scope cube {\n"
                                       "    copy(%p1, %l0c_0)\n"
                                       "  }\n"
                                       "  scope vector {\n"
                                       "    for %v0 in serial(0, 9) {\n"
                                       "      copy(%ub_0, %p1[0:+32, 0:+16])\n"
                                       "    }\n"
                                       "  }\n")}) {
    PassRunner r;
    EnableCvSync(r);
    std::string text = DeclaredWorkspace(body);
    EXPECT_EQ(r.Run(CrossCoreSync, text), text);
    EXPECT_EQ(r.ctx.stats["cross_flags"], 0);
  }
}

// A declared workspace written and read once per trip of a loop whose trip count is known
// only at run time (upstream's fa_opt flash attentions loop over a core's share of the
// tasks): the same extent on both sides is the same count, so it is paired like the
// compiler's own hand-offs. With extents that differ it stays the author's.
std::string RuntimeLoopHandOff(std::string_view vector_extent) {
  return DeclaredWorkspace(std::string("  let %v0 = select(%cid < 1, 2, 0)\n"
                                       "  scope cube {\n"
                                       "    for %v1 in serial(0, %v0) {\n"
                                       "      copy(%p1, %l0c_0)\n"
                                       "    }\n"
                                       "  }\n"
                                       "  scope vector {\n"
                                       "    for %v1 in serial(0, ") +
                           std::string(vector_extent) +
                           ") {\n"
                           "      copy(%ub_0, %p1[%vid * 32:+32, 0:+16])\n"
                           "    }\n"
                           "  }\n");
}

TEST(CrossCoreSync, DeclaredWorkspaceInALoopOfRuntimeTripCountIsPaired) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CrossCoreSync, RuntimeLoopHandOff("%v0")),
            DeclaredWorkspace("  let %v0 = select(%cid < 1, 2, 0)\n"
                              "  scope cube {\n"
                              "    for %v1 in serial(0, %v0) {\n"
                              "      wait_cross_flag(1, pipe=fix) {compiler}\n"
                              "      copy(%p1, %l0c_0)\n"
                              "      set_cross_flag(fix, 0, mode=2) {compiler}\n"
                              "    }\n"
                              "    wait_cross_flag(1, pipe=fix) {compiler}\n"
                              "  }\n"
                              "  scope vector {\n"
                              "    set_cross_flag(mte2, 1, mode=2) {compiler}\n"
                              "    for %v1 in serial(0, %v0) {\n"
                              "      wait_cross_flag(0, pipe=mte2) {compiler}\n"
                              "      copy(%ub_0, %p1[%vid * 32:+32, 0:+16])\n"
                              "      set_cross_flag(mte2, 1, mode=2) {compiler}\n"
                              "    }\n"
                              "  }\n"));
}

TEST(CrossCoreSync, DeclaredWorkspaceInLoopsOfOtherExtentsIsLeftToTheAuthor) {
  PassRunner r;
  EnableCvSync(r);
  const std::string text = RuntimeLoopHandOff("%v0 + 1");
  EXPECT_EQ(r.Run(CrossCoreSync, text), text);
  EXPECT_EQ(r.ctx.stats["cross_flags"], 0);
}

// A declared workspace the vector cores fill one row per copy in a loop and the cube reads
// whole once per iteration (upstream's sparse flash attentions): the row loop is one write,
// so the ready flag follows the loop and, the fill being repeated, the slot-free wait
// precedes it.
TEST(CrossCoreSync, DeclaredWorkspaceFilledByARowLoopIsOneWriteOfIt) {
  auto kernel = [](std::string_view cube, std::string_view vector,
                   std::string_view cube_prologue = "") {
    return std::string(
               "param %p0: gm float16[3, 32, 64] input\n"
               "param %p1: gm float16[32, 64] workspace\n"
               "out_idx = []\n"
               "workspace_idx = [1]\n"
               "launch(1, threads=0) (%cid, %vid) {\n"
               "  alloc %l1_0: l1 float16[32, 64]\n"
               "  alloc %ub_0: ub float16[64]\n"
               "  scope cube {\n") +
           std::string(cube_prologue) + "    for %v0 in serial(0, 3) {\n" + std::string(cube) +
           "    }\n"
           "  }\n"
           "  scope vector {\n" +
           std::string(vector) + "  }\n}\n";
  };
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CrossCoreSync, kernel("      copy(%l1_0, %p1)\n",
                                        "    for %v1 in serial(0, 3) {\n"
                                        "      for %v2 in serial(0, 16) {\n"
                                        "        copy(%ub_0, %p0[%v1:+1, %vid * 16 + %v2:+1, :])\n"
                                        "        copy(%p1[%vid * 16 + %v2:+1, :], %ub_0)\n"
                                        "      }\n"
                                        "    }\n")),
            kernel("      wait_cross_flag(0, pipe=mte2) {compiler}\n"
                   "      copy(%l1_0, %p1)\n"
                   "      set_cross_flag(mte2, 1, mode=2) {compiler}\n",
                   "    for %v1 in serial(0, 3) {\n"
                   "      wait_cross_flag(1, pipe=mte3) {compiler}\n"
                   "      for %v2 in serial(0, 16) {\n"
                   "        copy(%ub_0, %p0[%v1:+1, %vid * 16 + %v2:+1, :])\n"
                   "        copy(%p1[%vid * 16 + %v2:+1, :], %ub_0)\n"
                   "      }\n"
                   "      set_cross_flag(mte3, 0, mode=2) {compiler}\n"
                   "    }\n"
                   "    wait_cross_flag(1, pipe=mte3) {compiler}\n",
                   "    set_cross_flag(mte2, 1, mode=2) {compiler}\n"));
  EXPECT_EQ(r.ctx.stats["cross_flags"], 6);
}

TEST(CrossCoreSync, KernelWithoutCompilerWorkspacesIsUnchanged) {
  PassRunner r;
  EnableCvSync(r);
  std::string text = Launch("  scope vector {\n    copy(%p1[0:+32, :], %ub_0)\n  }\n");
  EXPECT_EQ(r.Run(CrossCoreSync, text), text);
  EXPECT_EQ(r.ctx.stats["cross_flags"], 0);
}

}  // namespace
}  // namespace tilejit::passes
