// SPDX-License-Identifier: Apache-2.0
// Assembly-level tests of sync_all (docs/isa.md section 8), the launch-wide rendezvous of
// T.sync_all (AscendC SyncAll<false>): GM written before it by one block is read after it by
// another without an inter-block race, in checked and perturbed modes; a block that never
// reaches it is a deadlock; a grid larger than the device's resident blocks is refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT
using target::CoreMix;
using target::ElementType;

// Block b stores b + 10 into W[b], then (after sync_all when `sync`) reads W[(b + 1) % n] into
// Y[b]: a neighbour's value, written by another block.
std::string Neighbour(int n, bool sync, const std::string& skip_if_block = "") {
  std::string s =
      "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nget_cid rd=r3\n"
      "add rd=r4, rs1=r3, src2=10\nmul rd=r5, rs1=r3, src2=4\nadd rd=r6, rs1=r1, src2=r5\n"
      "st_gm rs1=r4, addr=r6, dtype=s32\n";
  if (!skip_if_block.empty()) {
    s += "cmp rd=r9, rs1=r3, src2=" + skip_if_block + ", cmp=eq\nbnz rs1=r9, off=2\n";
  }
  if (sync) s += "sync_all\n";
  s += "add rd=r7, rs1=r3, src2=1\nmod rd=r7, rs1=r7, src2=" + std::to_string(n) +
       "\nmul rd=r7, rs1=r7, src2=4\nadd rd=r7, rs1=r1, src2=r7\n"
       "ld_gm rd=r8, addr=r7, dtype=s32\nadd rd=r10, rs1=r2, src2=r5\n"
       "st_gm rs1=r8, addr=r10, dtype=s32\nend\n";
  return s;
}

struct GridRun {
  Result<LaunchReport> report;
  std::vector<int32_t> y;
};

GridRun RunGrid(int n, const std::string& aiv, CheckMode mode, uint64_t seed = 1) {
  SimDevice dev;
  Tensor w = Output(dev, ElementType::kInt32, {n}, "W");
  Tensor y = Output(dev, ElementType::kInt32, {n}, "Y");
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, n, "", aiv));
  EXPECT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.mode = mode;
  opt.seed = seed;
  const uint64_t args[] = {w.addr, y.addr};
  GridRun run{dev.Launch(*id, args, opt), {}};
  if (run.report.ok()) {
    std::vector<uint8_t> bytes = Read(dev, y);
    run.y.resize(n);
    std::memcpy(run.y.data(), bytes.data(), bytes.size());
  }
  return run;
}

TEST(SimSyncAll, WritesBeforeItAreReadByOtherBlocksAfterIt) {
  for (CheckMode mode : {CheckMode::kChecked, CheckMode::kPerturbed}) {
    GridRun run = RunGrid(6, Neighbour(6, true), mode, 7);
    ASSERT_TRUE(run.report.ok()) << run.report.status();
    EXPECT_TRUE(run.report->findings.empty()) << AllFindings(*run.report);
    for (int b = 0; b < 6; ++b) EXPECT_EQ(run.y[b], (b + 1) % 6 + 10) << "block " << b;
  }
}

TEST(SimSyncAll, WithoutItTheNeighboursReadIsAnInterBlockRace) {
  GridRun run = RunGrid(6, Neighbour(6, false), CheckMode::kChecked);
  ASSERT_TRUE(run.report.ok()) << run.report.status();
  EXPECT_TRUE(HasFinding(*run.report, FindingKind::kRace, "inter-block"))
      << AllFindings(*run.report);
}

TEST(SimSyncAll, ABlockThatSkipsItDeadlocksTheOthers) {
  GridRun run = RunGrid(4, Neighbour(4, true, "2"), CheckMode::kChecked);
  ASSERT_TRUE(run.report.ok()) << run.report.status();
  EXPECT_TRUE(HasFinding(*run.report, FindingKind::kDeadlock, "another block ended"))
      << AllFindings(*run.report);
}

TEST(SimSyncAll, MoreBlocksThanTheDeviceHoldsAtOnceAreRefused) {
  // A vector-only kernel with one AIV per block: 24 groups x 2 AIVs = 48 resident blocks.
  GridRun run = RunGrid(49, Neighbour(49, true), CheckMode::kFast);
  ASSERT_FALSE(run.report.ok());
  EXPECT_NE(run.report.status().message().find("49 blocks exceed the 48"), std::string::npos)
      << run.report.status();
}

// In a mixed kernel the AIC takes part too: the AIVs wait for it, and an AIC that ends without
// reaching the sync_all deadlocks its own block.
TEST(SimSyncAll, EveryCoreOfTheBlockTakesPart) {
  SimDevice dev;
  Tensor w = Output(dev, ElementType::kInt32, {2}, "W");
  Tensor y = Output(dev, ElementType::kInt32, {2}, "Y");
  const uint64_t args[] = {w.addr, y.addr};
  LaunchOptions opt;
  opt.mode = CheckMode::kChecked;
  auto with_aic =
      dev.LoadImage(Image(CoreMix::kMixed, 1, 2, "sync_all\nend\n", Neighbour(2, true)));
  ASSERT_TRUE(with_aic.ok()) << with_aic.status();
  auto ok = dev.Launch(*with_aic, args, opt);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(ok->findings.empty()) << AllFindings(*ok);
  auto aic_skips = dev.LoadImage(Image(CoreMix::kMixed, 1, 2, "end\n", Neighbour(2, true)));
  ASSERT_TRUE(aic_skips.ok()) << aic_skips.status();
  auto bad = dev.Launch(*aic_skips, args, opt);
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_TRUE(HasFinding(*bad, FindingKind::kDeadlock, "aic ended without reaching it"))
      << AllFindings(*bad);
}

}  // namespace
}  // namespace tilejit::runner::sim
