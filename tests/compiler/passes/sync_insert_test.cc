// SPDX-License-Identifier: Apache-2.0
// sync_insert: before/after Tile IR text for each placement rule, and the statistics.
#include "compiler/passes/sync_insert.h"

#include <gtest/gtest.h>

#include <string>

#include "compiler/passes/verify_sync.h"
#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

constexpr std::string_view kHeader = R"(param %p0: gm float32[64, 64] input
param %p1: gm float32[64, 64] output
out_idx = [1]
workspace_idx = []
)";

std::string Vector(std::string_view body) {
  return std::string(kHeader) + "launch(1, threads=0) (%cid, %vid) {\n  scope vector {\n" +
         std::string(body) + "  }\n}\n";
}

std::string Insert(PassRunner& r, const std::string& text) {
  r.ctx.configs.auto_sync = true;
  std::string out = r.Run(SyncInsert, text);
  // Whatever the pass makes must also pass the checker that runs after it.
  Result<ir::Kernel> k = ir::ParseTileIr(out, &r.sources, &r.diag, "out.tir");
  EXPECT_TRUE(k.ok()) << out;
  if (k.ok()) {
    for (const SyncFinding& f : CheckSyncs(*k, *r.ctx.target, {.auto_sync = true}))
      ADD_FAILURE() << f.message << "\n" << out;
  }
  return out;
}

TEST(SyncInsert, OrdersAStraightLineVectorKernelWithOnePairPerHandOff) {
  PassRunner r;
  std::string out = Insert(r, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                                     "    alloc %ub_1: ub float32[16, 64] @4096\n"
                                     "    copy(%ub_0, %p0[0:+16, :])\n"
                                     "    add(%ub_1, %ub_0, %ub_0)\n"
                                     "    copy(%p1[0:+16, :], %ub_1)\n"));
  EXPECT_EQ(out, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                        "    alloc %ub_1: ub float32[16, 64] @4096\n"
                        "    copy(%ub_0, %p0[0:+16, :])\n"
                        "    set_flag(mte2, v, 0) {compiler}\n"
                        "    wait_flag(mte2, v, 0) {compiler}\n"
                        "    add(%ub_1, %ub_0, %ub_0)\n"
                        "    set_flag(v, mte3, 0) {compiler}\n"
                        "    wait_flag(v, mte3, 0) {compiler}\n"
                        "    copy(%p1[0:+16, :], %ub_1)\n"));
  EXPECT_EQ(r.ctx.stats["set_wait_pairs"], 2);
  EXPECT_EQ(r.ctx.stats.count("barriers"), 0u);
}

TEST(SyncInsert, SetsAfterTheLastProducerItNeedsAndWaitsBeforeTheFirstConsumer) {
  PassRunner r;
  // The add needs only the first load: it may start while the second one still runs.
  std::string out = Insert(r, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                                     "    alloc %ub_1: ub float32[16, 64] @4096\n"
                                     "    copy(%ub_0, %p0[0:+16, :])\n"
                                     "    copy(%ub_1, %p0[16:+16, :])\n"
                                     "    add(%ub_0, %ub_0, %ub_0)\n"
                                     "    add(%ub_1, %ub_1, %ub_1)\n"));
  EXPECT_EQ(out, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                        "    alloc %ub_1: ub float32[16, 64] @4096\n"
                        "    copy(%ub_0, %p0[0:+16, :])\n"
                        "    set_flag(mte2, v, 0) {compiler}\n"
                        "    copy(%ub_1, %p0[16:+16, :])\n"
                        "    set_flag(mte2, v, 1) {compiler}\n"
                        "    wait_flag(mte2, v, 0) {compiler}\n"
                        "    add(%ub_0, %ub_0, %ub_0)\n"
                        "    wait_flag(mte2, v, 1) {compiler}\n"
                        "    add(%ub_1, %ub_1, %ub_1)\n"));
}

TEST(SyncInsert, PutsABarrierBetweenDependentStatementsOfOnePipe) {
  PassRunner r;
  std::string out = Insert(r, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                                     "    alloc %ub_1: ub float32[16, 64] @4096\n"
                                     "    alloc %ub_2: ub float32[16, 64] @8192\n"
                                     "    exp(%ub_1, %ub_0)\n"
                                     "    exp(%ub_2, %ub_0)\n"
                                     "    add(%ub_2, %ub_1, %ub_2)\n"));
  // The two exps only read %ub_0 in common: no order between them.
  EXPECT_EQ(out, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                        "    alloc %ub_1: ub float32[16, 64] @4096\n"
                        "    alloc %ub_2: ub float32[16, 64] @8192\n"
                        "    exp(%ub_1, %ub_0)\n"
                        "    exp(%ub_2, %ub_0)\n"
                        "    barrier(v) {compiler}\n"
                        "    add(%ub_2, %ub_1, %ub_2)\n"));
  EXPECT_EQ(r.ctx.stats["barriers"], 1);
}

TEST(SyncInsert, PreArmsLoopCarriedPairsAndDrainsThemAfterTheLoop) {
  PassRunner r;
  std::string out = Insert(r, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                                     "    alloc %ub_1: ub float32[16, 64] @4096\n"
                                     "    for %v0 in serial(0, 4) {\n"
                                     "      copy(%ub_0, %p0[%v0 * 16:+16, :])\n"
                                     "      add(%ub_1, %ub_0, %ub_0)\n"
                                     "      copy(%p1[%v0 * 16:+16, :], %ub_1)\n"
                                     "    }\n"));
  // The WAW of the two stores to %p1 is ordered through the vector pipe (mte3 -> v -> mte3).
  EXPECT_EQ(out, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                        "    alloc %ub_1: ub float32[16, 64] @4096\n"
                        "    set_flag(v, mte2, 0) {compiler}\n"
                        "    set_flag(mte3, v, 0) {compiler}\n"
                        "    for %v0 in serial(0, 4) {\n"
                        "      wait_flag(v, mte2, 0) {compiler}\n"
                        "      copy(%ub_0, %p0[%v0 * 16:+16, :])\n"
                        "      set_flag(mte2, v, 0) {compiler}\n"
                        "      wait_flag(mte2, v, 0) {compiler}\n"
                        "      wait_flag(mte3, v, 0) {compiler}\n"
                        "      add(%ub_1, %ub_0, %ub_0)\n"
                        "      set_flag(v, mte2, 0) {compiler}\n"
                        "      set_flag(v, mte3, 0) {compiler}\n"
                        "      wait_flag(v, mte3, 0) {compiler}\n"
                        "      copy(%p1[%v0 * 16:+16, :], %ub_1)\n"
                        "      set_flag(mte3, v, 0) {compiler}\n"
                        "    }\n"
                        "    wait_flag(mte3, v, 0) {compiler}\n"
                        "    wait_flag(v, mte2, 0) {compiler}\n"));
  EXPECT_EQ(r.ctx.stats["set_wait_pairs"], 4);
  EXPECT_EQ(r.ctx.stats.count("barriers"), 0u);
}

TEST(SyncInsert, OrdersAnIfByOnePairAroundItWithoutBarriers) {
  PassRunner r;
  std::string out = Insert(r, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                                     "    alloc %ub_1: ub float32[16, 64] @4096\n"
                                     "    fill(%ub_0, 0.0)\n"
                                     "    if %cid == 0 {\n"
                                     "      copy(%ub_0, %p0[0:+16, :])\n"
                                     "    }\n"
                                     "    add(%ub_1, %ub_0, %ub_0)\n"));
  // The fill -> add order on v comes through the mte2 pipe: no barrier(v) either.
  EXPECT_EQ(out, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                        "    alloc %ub_1: ub float32[16, 64] @4096\n"
                        "    fill(%ub_0, 0.0)\n"
                        "    set_flag(v, mte2, 0) {compiler}\n"
                        "    wait_flag(v, mte2, 0) {compiler}\n"
                        "    if %cid == 0 {\n"
                        "      copy(%ub_0, %p0[0:+16, :])\n"
                        "    }\n"
                        "    set_flag(mte2, v, 0) {compiler}\n"
                        "    wait_flag(mte2, v, 0) {compiler}\n"
                        "    add(%ub_1, %ub_0, %ub_0)\n"));
}

TEST(SyncInsert, SeesBuffersThatShareAnAddressAsOneMemory) {
  PassRunner r;
  // %ub_1 reuses %ub_0's bytes: loading it must wait until the store has read %ub_0.
  std::string out = Insert(r, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                                     "    alloc %ub_1: ub float32[16, 64] @0\n"
                                     "    copy(%p1[0:+16, :], %ub_0)\n"
                                     "    copy(%ub_1, %p0[0:+16, :])\n"));
  EXPECT_EQ(out, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                        "    alloc %ub_1: ub float32[16, 64] @0\n"
                        "    copy(%p1[0:+16, :], %ub_0)\n"
                        "    set_flag(mte3, mte2, 0) {compiler}\n"
                        "    wait_flag(mte3, mte2, 0) {compiler}\n"
                        "    copy(%ub_1, %p0[0:+16, :])\n"));
}

TEST(SyncInsert, KeepsTheAuthorsFlagsAndAvoidsTheirIds) {
  PassRunner r;
  std::string out = Insert(r, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                                     "    alloc %ub_1: ub float32[16, 64] @4096\n"
                                     "    copy(%ub_0, %p0[0:+16, :])\n"
                                     "    set_flag(mte2, v, 0)\n"
                                     "    wait_flag(mte2, v, 0)\n"
                                     "    add(%ub_0, %ub_0, %ub_0)\n"
                                     "    copy(%ub_1, %p0[16:+16, :])\n"
                                     "    add(%ub_1, %ub_1, %ub_1)\n"));
  EXPECT_EQ(out, Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                        "    alloc %ub_1: ub float32[16, 64] @4096\n"
                        "    copy(%ub_0, %p0[0:+16, :])\n"
                        "    set_flag(mte2, v, 0)\n"
                        "    wait_flag(mte2, v, 0)\n"
                        "    add(%ub_0, %ub_0, %ub_0)\n"
                        "    copy(%ub_1, %p0[16:+16, :])\n"
                        "    set_flag(mte2, v, 1) {compiler}\n"
                        "    wait_flag(mte2, v, 1) {compiler}\n"
                        "    add(%ub_1, %ub_1, %ub_1)\n"));
  EXPECT_EQ(r.ctx.stats["set_wait_pairs"], 1);
}

TEST(SyncInsert, FallsBackToABarrierWhenEveryEventIdIsLive) {
  PassRunner r;
  std::string body;
  for (int i = 0; i < 9; ++i)
    body +=
        "    alloc %ub_" + std::to_string(i) + ": ub float32[8] @" + std::to_string(i * 32) + "\n";
  for (int i = 0; i < 9; ++i)
    body += "    copy(%ub_" + std::to_string(i) + ", %p0[" + std::to_string(i) + ":+1, 0:+8])\n";
  for (int i = 0; i < 9; ++i)
    body += "    exp(%ub_" + std::to_string(i) + ", %ub_" + std::to_string(i) + ")\n";
  std::string out = Insert(r, Vector(body));
  EXPECT_EQ(r.ctx.stats["set_wait_pairs"], 8) << out;
  EXPECT_EQ(r.ctx.stats["sync_fallbacks"], 1) << out;
  EXPECT_NE(out.find("    barrier(all) {compiler}\n    exp(%ub_8, %ub_8)"), std::string::npos)
      << out;
}

TEST(SyncInsert, LetsAccumulatingMmasIntoOneRegionFollowEachOther) {
  PassRunner r;
  std::string cube = std::string(kHeader) + R"(launch(1, threads=0) (%cid, %vid) {
  scope cube {
    alloc %l0a_0: l0a float16[16, 16] @0
    alloc %l0b_0: l0b float16[16, 16] @0
    alloc %l0c_0: l0c float32[32, 16] @0
    mma(%l0c_0[0:+16, :], %l0a_0, %l0b_0) {init=true}
    mma(%l0c_0[0:+16, :], %l0a_0, %l0b_0) {init=false}
    mma(%l0c_0[8:+16, :], %l0a_0, %l0b_0) {init=false}
  }
}
)";
  std::string out = Insert(r, cube);
  // Only the third mma, into a different (overlapping) region, needs the cube drained.
  EXPECT_NE(out.find("{init=false}\n    barrier(m) {compiler}\n    mma(%l0c_0[8:+16, :], "),
            std::string::npos)
      << out;
  EXPECT_EQ(r.ctx.stats["barriers"], 1) << out;
}

TEST(SyncInsert, GoesThroughTheScalarUnitForAPairTheCoreLacks) {
  PassRunner r;
  // fix -> mte1 has no event on the AIC: the L1 tile fix writes is awaited on s.
  std::string cube = std::string(kHeader) + R"(launch(1, threads=0) (%cid, %vid) {
  scope cube {
    alloc %l0c_0: l0c float32[16, 16] @0
    alloc %l1_0: l1 float32[16, 16] @0
    alloc %l0a_0: l0a float32[16, 16] @0
    copy(%l1_0, %l0c_0)
    copy(%l0a_0, %l1_0)
  }
}
)";
  std::string out = Insert(r, cube);
  EXPECT_NE(out.find("    copy(%l1_0, %l0c_0)\n    set_flag(fix, s, 0) {compiler}\n"
                     "    wait_flag(fix, s, 0) {compiler}\n    copy(%l0a_0, %l1_0)"),
            std::string::npos)
      << out;
}

TEST(SyncInsert, OrdersAScalarStoreBeforeTheVectorReadOfIt) {
  PassRunner r;
  std::string out = Insert(r, Vector("    alloc %ub_0: ub float32[8] @0\n"
                                     "    alloc %ub_1: ub float32[8] @32\n"
                                     "    %ub_0[0] = 1.0\n"
                                     "    exp(%ub_1, %ub_0)\n"));
  EXPECT_NE(out.find("    %ub_0[0] = 1.0\n    set_flag(s, v, 0) {compiler}\n"
                     "    wait_flag(s, v, 0) {compiler}\n    exp("),
            std::string::npos)
      << out;
}

TEST(SyncInsert, DrainsAScopeThatALaterScopeOfItsKindFollows) {
  PassRunner r;
  std::string text = std::string(kHeader) + R"(launch(1, threads=0) (%cid, %vid) {
  alloc %ub_0: ub float32[16, 64] @0
  scope vector {
    copy(%ub_0, %p0[0:+16, :])
  }
  scope vector {
    copy(%p1[0:+16, :], %ub_0)
  }
}
)";
  std::string out = Insert(r, text);
  EXPECT_NE(out.find("    copy(%ub_0, %p0[0:+16, :])\n    barrier(all) {compiler}\n  }"),
            std::string::npos)
      << out;
}

TEST(SyncInsert, LeavesOutAnOrderTheOtherCoreAlreadyGives) {
  // The cube reloads L1 after the vector answered a flag the cube raised once its mte1 read of
  // L1 was done: that round trip orders the reload after the read (and after the first load),
  // so the reload needs nothing of its own; analysed alone, the cube would get an mte1 -> mte2
  // pair before it.
  PassRunner r;
  auto kernel = [](std::string_view cube) {
    return std::string(kHeader) +
           "launch(1, threads=1) (%cid, %vid) {\n"
           "  alloc %l1_0: l1 float16[64, 64] @0\n"
           "  alloc %l0a_0: l0a float16[64, 64] @0\n"
           "  scope cube {\n" +
           std::string(cube) +
           "  }\n"
           "  scope vector {\n"
           "    wait_cross_flag(0, pipe=mte2)\n"
           "    set_cross_flag(mte2, 1, mode=2)\n"
           "  }\n"
           "}\n";
  };
  std::string out = Insert(r, kernel("    copy(%l1_0, %p0)\n"
                                     "    copy(%l0a_0, %l1_0)\n"
                                     "    set_cross_flag(mte1, 0, mode=2)\n"
                                     "    wait_cross_flag(1, pipe=mte2)\n"
                                     "    copy(%l1_0, %p0)\n"));
  EXPECT_EQ(out, kernel("    copy(%l1_0, %p0)\n"
                        "    set_flag(mte2, mte1, 0) {compiler}\n"
                        "    wait_flag(mte2, mte1, 0) {compiler}\n"
                        "    copy(%l0a_0, %l1_0)\n"
                        "    set_cross_flag(mte1, 0, mode=2)\n"
                        "    wait_cross_flag(1, pipe=mte2)\n"
                        "    copy(%l1_0, %p0)\n"));
  EXPECT_EQ(r.ctx.stats["set_wait_pairs"], 1);
}

}  // namespace
}  // namespace tilejit::passes
