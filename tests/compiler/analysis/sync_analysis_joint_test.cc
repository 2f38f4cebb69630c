// SPDX-License-Identifier: Apache-2.0
// The two-core analysis (sync::AnalyzeCores): orders through the other core's cross-core flags,
// FIFO pairing of counters, loops walked together, and the fall-back when the programs' control
// flow does not line up. Each case is also analysed one core at a time, where the cross-core
// flags give no order, so every test shows the difference.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "compiler/analysis/sync_analysis.h"
#include "compiler/ir/ir_parser.h"

namespace tilejit::analysis::sync {
namespace {

constexpr std::string_view kJointHeader = R"(param %p0: gm float16[64, 64] input
param %p1: gm float32[64, 64] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 float16[64, 64] @0
  alloc %l0a_0: l0a float16[64, 64] @0
)";

struct JointAnalyzed {
  SourceManager sources;
  DiagnosticEngine diag{&sources};
  ir::Kernel kernel;
  std::unique_ptr<Program> cube, vector;
  std::array<Analysis, 2> together;
  Analysis cube_alone;
};

// A cube program and a vector program of one kernel, analysed both ways.
std::unique_ptr<JointAnalyzed> Analyze2(std::string_view cube, std::string_view vector) {
  auto a = std::make_unique<JointAnalyzed>();
  const std::string text = std::string(kJointHeader) + "  scope cube {\n" + std::string(cube) +
                           "  }\n  scope vector {\n" + std::string(vector) + "  }\n}\n";
  Result<ir::Kernel> k = ir::ParseTileIr(text, &a->sources, &a->diag, "t.tir");
  EXPECT_TRUE(k.ok()) << a->diag.RenderAll();
  if (!k.ok()) return a;
  a->kernel = *k;
  a->cube = std::make_unique<Program>(a->kernel.body, target::Ascend910B2(), ir::CoreKind::kCube);
  a->vector =
      std::make_unique<Program>(a->kernel.body, target::Ascend910B2(), ir::CoreKind::kVector);
  a->together = AnalyzeCores(*a->cube, *a->vector);
  a->cube_alone = Analyze(*a->cube);
  return a;
}

// The cube reads L1 on mte1, tells the vector, and reloads L1 on mte2 once the vector answers:
// a WAR ordered only by the round trip.
constexpr std::string_view kCubeRoundTrip =
    "    copy(%l1_0, %p0)\n"
    "    set_flag(mte2, mte1, 0)\n"
    "    wait_flag(mte2, mte1, 0)\n"
    "    copy(%l0a_0, %l1_0)\n"
    "    set_cross_flag(mte1, 0, mode=2)\n"
    "    wait_cross_flag(1, pipe=mte2)\n"
    "    copy(%l1_0, %p0)\n";

TEST(SyncAnalysisJoint, RoundTripThroughTheOtherCoreOrdersAWar) {
  auto a = Analyze2(kCubeRoundTrip,
                    "    wait_cross_flag(0, pipe=mte2)\n"
                    "    set_cross_flag(mte2, 1, mode=2)\n");
  ASSERT_NE(a->cube, nullptr);
  EXPECT_TRUE(a->together[0].cross_core);
  EXPECT_TRUE(a->together[0].hazards.empty());
  // Alone: the reload races with the mte1 read (WAR) and the first load (WAW).
  ASSERT_EQ(a->cube_alone.hazards.size(), 2u);
  EXPECT_EQ(HazardKindName(a->cube_alone.hazards[0]), "WAW");
  EXPECT_EQ(HazardKindName(a->cube_alone.hazards[1]), "WAR");
}

TEST(SyncAnalysisJoint, TheOtherCoreMustPassItsWaitBeforeItsSet) {
  // The vector answers before it has seen the cube's set: nothing is ordered.
  auto a = Analyze2(kCubeRoundTrip,
                    "    set_cross_flag(mte2, 1, mode=2)\n"
                    "    wait_cross_flag(0, pipe=mte2)\n");
  ASSERT_NE(a->cube, nullptr);
  EXPECT_TRUE(a->together[0].cross_core);
  EXPECT_EQ(a->together[0].hazards.size(), 2u);
}

TEST(SyncAnalysisJoint, AWaitPairsWithTheSetOfItsCountNotTheLatest) {
  // A pre-armed token makes the cube's first wait pair with the set made before the vector saw
  // anything; only a second wait is ordered after the round trip.
  const std::string vector =
      "    set_cross_flag(mte2, 1, mode=2)\n"
      "    wait_cross_flag(0, pipe=mte2)\n"
      "    set_cross_flag(mte2, 1, mode=2)\n";
  auto one = Analyze2(std::string(kCubeRoundTrip) + "    wait_cross_flag(1, pipe=mte2)\n", vector);
  ASSERT_NE(one->cube, nullptr);
  EXPECT_EQ(one->together[0].hazards.size(), 2u);
  auto two = Analyze2(
      "    copy(%l1_0, %p0)\n"
      "    set_flag(mte2, mte1, 0)\n"
      "    wait_flag(mte2, mte1, 0)\n"
      "    copy(%l0a_0, %l1_0)\n"
      "    set_cross_flag(mte1, 0, mode=2)\n"
      "    wait_cross_flag(1, pipe=mte2)\n"
      "    wait_cross_flag(1, pipe=mte2)\n"
      "    copy(%l1_0, %p0)\n",
      vector);
  ASSERT_NE(two->cube, nullptr);
  EXPECT_TRUE(two->together[0].hazards.empty());
}

TEST(SyncAnalysisJoint, LoopsWalkedTogetherCarryTheOrderToTheNextIteration) {
  // The slot-free protocol: the vector pre-arms one token and frees the slot each iteration;
  // iteration i's reload waits for the token the vector sent after iteration i - 1's read.
  auto a = Analyze2(
      "    for %i in serial(0, 4) {\n"
      "      wait_cross_flag(1, pipe=mte2)\n"
      "      copy(%l1_0, %p0)\n"
      "      set_flag(mte2, mte1, 0)\n"
      "      wait_flag(mte2, mte1, 0)\n"
      "      copy(%l0a_0, %l1_0)\n"
      "      set_cross_flag(mte1, 0, mode=2)\n"
      "    }\n"
      "    wait_cross_flag(1, pipe=mte2)\n",
      "    set_cross_flag(mte2, 1, mode=2)\n"
      "    for %i in serial(0, 4) {\n"
      "      wait_cross_flag(0, pipe=mte2)\n"
      "      set_cross_flag(mte2, 1, mode=2)\n"
      "    }\n");
  ASSERT_NE(a->cube, nullptr);
  EXPECT_TRUE(a->together[0].cross_core);
  EXPECT_TRUE(a->together[0].hazards.empty());
  // Alone: the reload, and the next iteration's set of the mte2 -> mte1 event, race with the
  // previous iteration.
  ASSERT_FALSE(a->cube_alone.hazards.empty());
  for (const Hazard& h : a->cube_alone.hazards) EXPECT_NE(h.carried, nullptr);
}

TEST(SyncAnalysisJoint, ControlFlowThatDoesNotLineUpFallsBackToOneCoreAtATime) {
  // The vector's flags sit in a loop the cube does not have: the counts cannot be paired.
  auto a = Analyze2(kCubeRoundTrip,
                    "    for %i in serial(0, 1) {\n"
                    "      wait_cross_flag(0, pipe=mte2)\n"
                    "      set_cross_flag(mte2, 1, mode=2)\n"
                    "    }\n");
  ASSERT_NE(a->cube, nullptr);
  EXPECT_FALSE(a->together[0].cross_core);
  EXPECT_EQ(a->together[0].hazards.size(), 2u);
}

TEST(SyncAnalysisJoint, CountersSetInAnotherModeAreNotFollowed) {
  // Mode 1 (AIV to AIV) never reaches the cube: flag 1 is not an AIC <-> AIV counter.
  auto a = Analyze2(kCubeRoundTrip,
                    "    wait_cross_flag(0, pipe=mte2)\n"
                    "    set_cross_flag(mte2, 1, mode=1)\n");
  ASSERT_NE(a->cube, nullptr);
  EXPECT_EQ(a->together[0].hazards.size(), 2u);
}

}  // namespace
}  // namespace tilejit::analysis::sync
