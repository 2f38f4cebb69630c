// SPDX-License-Identifier: Apache-2.0
// The sync-deletion candidates: compiler-made barriers one by one, straight-line set/wait
// pairs, and a loop-carried protocol (pre-arm, in-loop wait and set, drain) as one group;
// author syncs are never candidates.
#include <gtest/gtest.h>

#include "compiler/ir/ir_parser.h"
#include "sync_deletion.h"

namespace tilejit::devgen {
namespace {

constexpr const char* kProgram = R"(param %p0: gm float32[64] input
param %p1: gm float32[64] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[64] @0
  scope vector {
    copy(%ub_0, %p0)
    set_flag(mte2, v, 0) {compiler}
    wait_flag(mte2, v, 0) {compiler}
    barrier(v)
    set_flag(v, mte2, 1) {compiler}
    for %v0 in serial(0, 2) {
      wait_flag(v, mte2, 1) {compiler}
      copy(%ub_0, %p0)
      barrier(mte2) {compiler}
      set_flag(v, mte2, 1) {compiler}
    }
    wait_flag(v, mte2, 1) {compiler}
    copy(%p1, %ub_0)
  }
}
)";

TEST(SyncDeletion, CandidatesArePairsBarriersAndLoopCarriedGroups) {
  Result<ir::Kernel> k = ir::ParseTileIrString(kProgram);
  ASSERT_TRUE(k.ok()) << k.status();
  const std::vector<std::string> c = DescribeSyncCandidates(*k);
  ASSERT_EQ(c.size(), 3u) << ::testing::PrintToString(c);
  EXPECT_EQ(c[0], "set/wait mte2->v id 0 scope 1 lines 9/10 [#4, #5]");
  EXPECT_EQ(c[1], "barrier(mte2) line 16 [#11]");
  EXPECT_EQ(c[2], "flag group v->mte2 id 1 scope 1 (4 flags) [#7, #9, #12, #13]");
}

}  // namespace
}  // namespace tilejit::devgen
