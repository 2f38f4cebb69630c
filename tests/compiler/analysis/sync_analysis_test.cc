// SPDX-License-Identifier: Apache-2.0
// The access model and the happens-before analysis shared by sync_insert and verify_sync.
#include "compiler/analysis/sync_analysis.h"

#include <gtest/gtest.h>

#include <string>

#include "compiler/analysis/sync_access.h"
#include "compiler/ir/ir_parser.h"

namespace tilejit::analysis::sync {
namespace {

constexpr std::string_view kHeader = R"(param %p0: gm float16[64, 64] input
param %p1: gm float32[64, 64] output
out_idx = [1]
workspace_idx = []
)";

struct Parsed {
  SourceManager sources;
  DiagnosticEngine diag{&sources};
  ir::Kernel kernel;
};

std::unique_ptr<Parsed> Parse(std::string_view core, std::string_view body) {
  auto p = std::make_unique<Parsed>();
  std::string text = std::string(kHeader) + "launch(1, threads=0) (%cid, %vid) {\n  scope " +
                     std::string(core) + " {\n" + std::string(body) + "  }\n}\n";
  Result<ir::Kernel> k = ir::ParseTileIr(text, &p->sources, &p->diag, "t.tir");
  EXPECT_TRUE(k.ok()) << p->diag.RenderAll();
  if (k.ok()) p->kernel = *k;
  return p;
}

// The analysis refers to the program's nodes: both live as long as the result.
struct Analyzed {
  std::unique_ptr<Program> program;
  Analysis analysis;
  const Analysis* operator->() const { return &analysis; }
};

Analyzed AnalyzeCore(const Parsed& p, ir::CoreKind core) {
  Analyzed out;
  out.program = std::make_unique<Program>(p.kernel.body, target::Ascend910B2(), core);
  out.analysis = Analyze(*out.program);
  return out;
}

// The leaves of the scope body, in order.
std::vector<const Node*> Leaves(const Program& prog) {
  std::vector<const Node*> out;
  std::vector<const Node*> stack{prog.root()};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (n->kind == NodeKind::kLeaf && !n->parts.empty()) out.push_back(n);
    for (auto it = n->kids.rbegin(); it != n->kids.rend(); ++it) stack.push_back(it->get());
  }
  return out;
}

TEST(SyncAccess, GivesEachCopyPathItsPipe) {
  auto p = Parse("cube",
                 "    alloc %l1_0: l1 float16[64, 64] @0\n"
                 "    alloc %l0a_0: l0a float16[64, 64] @0\n"
                 "    alloc %l0b_0: l0b float16[64, 64] @0\n"
                 "    alloc %l0c_0: l0c float32[64, 64] @0\n"
                 "    copy(%l1_0, %p0)\n"
                 "    copy(%l0a_0, %l1_0)\n"
                 "    mma(%l0c_0, %l0a_0, %l0b_0) {init=true}\n"
                 "    copy(%p1, %l0c_0)\n");
  Program prog(p->kernel.body, target::Ascend910B2(), ir::CoreKind::kCube);
  std::vector<const Node*> leaves = Leaves(prog);
  ASSERT_EQ(leaves.size(), 4u);
  EXPECT_EQ(leaves[0]->parts.at(0).pipe, ir::Pipe::kMte2);
  EXPECT_EQ(leaves[1]->parts.at(0).pipe, ir::Pipe::kMte1);
  EXPECT_EQ(leaves[2]->parts.at(0).pipe, ir::Pipe::kM);
  EXPECT_EQ(leaves[3]->parts.at(0).pipe, ir::Pipe::kFix);
  // mma writes C (first) and reads A and B.
  ASSERT_EQ(leaves[2]->parts[0].accesses.size(), 3u);
  EXPECT_TRUE(leaves[2]->parts[0].accesses[0].write);
  EXPECT_EQ(leaves[2]->parts[0].accesses[0].mem, target::Mem::kL0C);
  EXPECT_FALSE(leaves[2]->parts[0].accesses[1].write);
}

TEST(SyncAccess, NarrowsConstantRowsOfAnNdBufferAndWidensRuntimeOnes) {
  auto p = Parse("vector",
                 "    alloc %ub_0: ub float32[16, 64] @1024\n"
                 "    exp(%ub_0[4:+2, :], %ub_0[4:+2, :])\n"
                 "    exp(%ub_0[%cid:+2, :], %ub_0[%cid:+2, :])\n");
  Program prog(p->kernel.body, target::Ascend910B2(), ir::CoreKind::kVector);
  std::vector<const Node*> leaves = Leaves(prog);
  ASSERT_EQ(leaves.size(), 2u);
  const Access& a = leaves[0]->parts.at(0).accesses.at(0);
  EXPECT_EQ(a.begin, 1024 + 4 * 256);
  EXPECT_EQ(a.end, 1024 + 6 * 256);
  // The runtime row: a scalar part (none: %cid is a register) and the whole buffer.
  const Access& b = leaves[1]->parts.back().accesses.at(0);
  EXPECT_EQ(b.begin, 1024);
  EXPECT_EQ(b.end, 1024 + 16 * 256);
}

TEST(SyncAccess, LetsTheVectorUnitReadAUbScalarOperandOfTheOpsType) {
  auto q = Parse("vector",
                 "    alloc %ub_0: ub float32[8] @0\n"
                 "    alloc %ub_1: ub float32[8] @32\n"
                 "    mul(%ub_0, %ub_0, %ub_1[3])\n");
  Program prog(q->kernel.body, target::Ascend910B2(), ir::CoreKind::kVector);
  std::vector<const Node*> leaves = Leaves(prog);
  ASSERT_EQ(leaves.size(), 1u);
  // Same element type: the vector unit reads the element itself (a *_ub form).
  ASSERT_EQ(leaves[0]->parts.size(), 1u);
  EXPECT_EQ(leaves[0]->parts[0].pipe, ir::Pipe::kV);
  EXPECT_EQ(leaves[0]->parts[0].accesses.back().begin, 32 + 12);
}

TEST(SyncAnalysis, OrdersThroughAChainOfFlags) {
  // mte2 -> v -> mte3: the store of %ub_0 is ordered after its load through v.
  auto p = Parse("vector",
                 "    alloc %ub_0: ub float32[16, 64] @0\n"
                 "    alloc %ub_1: ub float32[16, 64] @4096\n"
                 "    copy(%ub_0, %p1[0:+16, :])\n"
                 "    set_flag(mte2, v, 0)\n"
                 "    wait_flag(mte2, v, 0)\n"
                 "    exp(%ub_1, %ub_0)\n"
                 "    set_flag(v, mte3, 0)\n"
                 "    wait_flag(v, mte3, 0)\n"
                 "    copy(%p1[16:+16, :], %ub_0)\n"
                 "    copy(%p1[16:+16, :], %ub_1)\n");
  Analyzed a = AnalyzeCore(*p, ir::CoreKind::kVector);
  // The two stores write the same GM rows on mte3 with nothing between them.
  ASSERT_EQ(a->hazards.size(), 1u);
  EXPECT_EQ(HazardKindName(a->hazards[0]), "WAW");
  EXPECT_TRUE(a->flags.empty());
}

TEST(SyncAnalysis, CrossCoreFlagsGiveNoIntraCoreOrder) {
  auto p = Parse("vector",
                 "    alloc %ub_0: ub float32[16, 64] @0\n"
                 "    copy(%ub_0, %p1[0:+16, :])\n"
                 "    set_cross_flag(mte2, 0, mode=2)\n"
                 "    wait_cross_flag(0, pipe=v)\n"
                 "    exp(%ub_0, %ub_0)\n");
  Analyzed a = AnalyzeCore(*p, ir::CoreKind::kVector);
  ASSERT_EQ(a->hazards.size(), 1u);
  EXPECT_EQ(HazardKindName(a->hazards[0]), "RAW");
}

TEST(SyncAnalysis, AWaitOnTheScalarUnitOrdersEveryPipe) {
  auto p = Parse("vector",
                 "    alloc %ub_0: ub float32[16, 64] @0\n"
                 "    copy(%ub_0, %p1[0:+16, :])\n"
                 "    set_flag(mte2, s, 0)\n"
                 "    wait_flag(mte2, s, 0)\n"
                 "    exp(%ub_0, %ub_0)\n"
                 "    copy(%p1[0:+16, :], %ub_0)\n");
  Analyzed a = AnalyzeCore(*p, ir::CoreKind::kVector);
  // The load is ordered for v and mte3; exp -> store is still open.
  ASSERT_EQ(a->hazards.size(), 1u);
  EXPECT_EQ(a->hazards[0].second->parts[0].pipe, ir::Pipe::kMte3);
  EXPECT_EQ(a->hazards[0].first->parts[0].pipe, ir::Pipe::kV);
}

TEST(SyncAnalysis, MarksTheLoopOfALoopCarriedHazard) {
  auto p = Parse("vector",
                 "    alloc %ub_0: ub float32[16, 64] @0\n"
                 "    for %v0 in serial(0, 4) {\n"
                 "      exp(%ub_0, %ub_0)\n"
                 "    }\n");
  Analyzed a = AnalyzeCore(*p, ir::CoreKind::kVector);
  ASSERT_EQ(a->hazards.size(), 1u);
  ASSERT_NE(a->hazards[0].carried, nullptr);
  EXPECT_EQ(a->hazards[0].carried->kind, NodeKind::kFor);
  EXPECT_EQ(a->hazards[0].first, a->hazards[0].second);
}

TEST(SyncAnalysis, ALoopOfOneTripCarriesNothing) {
  // The back edge of a one-trip loop is never taken: the store and the next iteration's
  // exp never meet, so the only hazard is the in-iteration exp -> store RAW, not carried.
  auto p = Parse("vector",
                 "    alloc %ub_0: ub float32[16, 64] @0\n"
                 "    for %v0 in serial(0, 1) {\n"
                 "      exp(%ub_0, %ub_0)\n"
                 "      copy(%p1[0:+16, :], %ub_0)\n"
                 "    }\n");
  Analyzed a = AnalyzeCore(*p, ir::CoreKind::kVector);
  ASSERT_EQ(a->hazards.size(), 1u);
  EXPECT_EQ(a->hazards[0].carried, nullptr);
  EXPECT_EQ(HazardKindName(a->hazards[0]), "RAW");
}

TEST(SyncAnalysis, AfterALoopOfTwoTripsKeepsOrdersTheFirstTripCompletesLate) {
  // The first load reaches v only at the end of trip 1 and mte2 (through mte3) in trip 2, so
  // after two trips the second load into %ub_0 is ordered after the first.
  auto p = Parse("vector",
                 "    alloc %ub_0: ub float16[16, 64] @0\n"
                 "    alloc %ub_1: ub float16[16, 64] @2048\n"
                 "    alloc %ub_2: ub float16[16, 64] @4096\n"
                 "    copy(%ub_0, %p0[0:+16, :])\n"
                 "    for %v0 in serial(0, 2) {\n"
                 "      set_flag(v, mte3, 0)\n"
                 "      wait_flag(v, mte3, 0)\n"
                 "      set_flag(mte3, mte2, 0)\n"
                 "      wait_flag(mte3, mte2, 0)\n"
                 "      copy(%ub_1, %p0[16:+16, :])\n"
                 "      set_flag(mte2, v, 0)\n"
                 "      wait_flag(mte2, v, 0)\n"
                 "      exp(%ub_2, %ub_1)\n"
                 "    }\n"
                 "    copy(%ub_0, %p0[32:+16, :])\n");
  Analyzed a = AnalyzeCore(*p, ir::CoreKind::kVector);
  for (const Hazard& h : a->hazards) {
    ADD_FAILURE() << HazardKindName(h) << " between nodes " << h.first->id << " and "
                  << h.second->id;
  }
}

TEST(SyncAnalysis, LeavesTheOtherCoresScopesOut) {
  auto p = Parse("cube",
                 "    alloc %l1_0: l1 float16[64, 64] @0\n"
                 "    copy(%l1_0, %p0)\n");
  Analyzed a = AnalyzeCore(*p, ir::CoreKind::kVector);
  EXPECT_TRUE(a->hazards.empty());
  Program prog(p->kernel.body, target::Ascend910B2(), ir::CoreKind::kVector);
  EXPECT_TRUE(Leaves(prog).empty());
}

TEST(SyncAnalysis, ALoopWhoseTripCountIsAtLeastOneOrdersWhatFollowsIt) {
  // The only order of the load before the mte1 read is the barrier inside the loop: it holds after
  // the loop when it surely runs (`cid % 2 + 1` >= 1), not when it may run zero times.
  auto body = [](std::string_view extent) {
    return "    alloc %l1_0: l1 float16[64, 64] @0\n"
           "    alloc %l0a_0: l0a float16[64, 64] @0\n"
           "    copy(%l1_0, %p0)\n"
           "    for %i in serial(0, " +
           std::string(extent) +
           ") {\n"
           "      barrier(all)\n"
           "    }\n"
           "    copy(%l0a_0, %l1_0)\n";
  };
  auto surely = Parse("cube", body("%cid % 2 + 1"));
  EXPECT_TRUE(AnalyzeCore(*surely, ir::CoreKind::kCube)->hazards.empty());
  auto maybe = Parse("cube", body("%cid % 2"));
  EXPECT_EQ(AnalyzeCore(*maybe, ir::CoreKind::kCube)->hazards.size(), 1u);
}

}  // namespace
}  // namespace tilejit::analysis::sync
