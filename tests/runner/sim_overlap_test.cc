// SPDX-License-Identifier: Apache-2.0
// Cube/vector overlap in BlockReport (runner/device.h): the busy-interval union per core and
// the intersection of the AIC's with the AIVs' ("either AIV busy"). The interval arithmetic is
// tested on hand-made intervals; the simulator's figures on tiny programs whose answer follows
// from single-instruction occupancies (timing.h), independent of the simulator's scheduling.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compiler/target/timing.h"
#include "runner/sim/busy_intervals.h"
#include "sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using target::CoreMix;
using namespace testing;  // NOLINT(build/namespaces): test helpers

TEST(BusyIntervals, UnionMergesOverlappingAndTouchingIntervals) {
  BusyIntervals b;
  b.Add(0, 10);
  b.Add(5, 12);   // overlaps
  b.Add(12, 15);  // touches
  b.Add(20, 30);
  b.Add(25, 25);  // empty: ignored
  ASSERT_EQ(b.Merged().size(), 2u);
  EXPECT_EQ(b.Merged()[0].begin, 0u);
  EXPECT_EQ(b.Merged()[0].end, 15u);
  EXPECT_EQ(b.Length(), 15u + 10u);
}

TEST(BusyIntervals, OutOfOrderIntervalsAreSortedBeforeMeasuring) {
  BusyIntervals b;
  b.Add(50, 60);
  b.Add(0, 10);
  b.Add(8, 55);  // bridges both
  EXPECT_EQ(b.Length(), 60u);
  ASSERT_EQ(b.Merged().size(), 1u);
}

TEST(BusyIntervals, IntersectionCountsOnlyCommonCycles) {
  BusyIntervals a, b;
  a.Add(0, 10);
  a.Add(20, 30);
  a.Add(40, 50);
  b.Add(5, 25);   // 5 with [0,10) and 5 with [20,30)
  b.Add(28, 45);  // 2 with [20,30) and 5 with [40,50)
  EXPECT_EQ(IntersectionLength(a, b), 17u);
  EXPECT_EQ(IntersectionLength(b, a), 17u);
  BusyIntervals empty;
  EXPECT_EQ(IntersectionLength(a, empty), 0u);
}

TEST(BusyIntervals, AddAllBuildsTheUnionOfTwoCores) {
  BusyIntervals aiv0, aiv1, any;
  aiv0.Add(0, 10);
  aiv1.Add(5, 20);
  any.AddAll(aiv0);
  any.AddAll(aiv1);
  EXPECT_EQ(any.Length(), 20u);  // not 10 + 15: a cycle both AIVs work counts once
}

std::string Mmad(int n) {
  return "mmad dst=0, src=0, src1=0, m=" + std::to_string(n) + ", n=" + std::to_string(n) +
         ", k=" + std::to_string(n) + ", init=1, dtype=f16\n";
}

std::string Vadds(int repeat) {
  return "vadds dst=4096, src=0, scalar=0x3f800000, repeat=" + std::to_string(repeat) +
         ", mask=128, dst_blk=1, src_blk=1, dst_rep=8, src_rep=8, dtype=f16\n";
}

uint64_t Occupancy(const std::string& line) {
  auto in = target::Assemble(line);
  EXPECT_TRUE(in.ok() && in->size() == 1u) << line;
  auto cost = target::StaticInstrCost(in->at(0), target::Ascend910B2());
  EXPECT_TRUE(cost.ok()) << cost.status();
  return static_cast<uint64_t>(std::max<int64_t>(1, cost->occupancy));
}

BlockReport RunOneBlock(CoreMix mix, int aivs, const std::string& aic, const std::string& aiv) {
  SimDevice dev;
  auto id = dev.LoadImage(Image(mix, aivs, 1, aic, aiv));
  EXPECT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.mode = CheckMode::kFast;  // uninitialised on-chip reads are fine for timing
  auto r = dev.Launch(*id, {}, opt);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->blocks.size(), 1u);
  return r->blocks.empty() ? BlockReport{} : r->blocks[0];
}

// AIC and both AIVs issue one instruction each as their first one, so all three start on the
// same cycle: AIC busy = [d, d+M), each AIV busy = [d, d+V), overlap = min(M, V).
TEST(SimOverlap, ConcurrentCubeAndVectorWorkOverlapsByTheShorterOccupancy) {
  for (auto [mmad_n, vadds_repeat] : {std::pair{128, 8}, std::pair{16, 200}}) {
    const std::string aic = Mmad(mmad_n), aiv = Vadds(vadds_repeat);
    const uint64_t m = Occupancy(aic), v = Occupancy(aiv);
    ASSERT_NE(m, v);
    BlockReport b = RunOneBlock(CoreMix::kMixed, 2, aic + "end\n", aiv + "end\n");
    EXPECT_EQ(b.aic_busy_cycles, m);
    ASSERT_EQ(b.aiv_busy_cycles.size(), 2u);
    EXPECT_EQ(b.aiv_busy_cycles[0], v);
    EXPECT_EQ(b.aiv_busy_cycles[1], v);
    EXPECT_EQ(b.aiv_any_busy_cycles, v);  // the two AIVs' identical intervals count once
    EXPECT_EQ(b.cube_vector_overlap_cycles, std::min(m, v)) << "m=" << m << " v=" << v;
    EXPECT_LE(b.cube_vector_overlap_cycles, b.span_cycles);
  }
}

// The AIVs wait for the AIC's cross-core flag, raised after the mmad completes: no overlap,
// although both cores are busy for the same totals as above.
TEST(SimOverlap, VectorWorkAfterACrossCoreFlagDoesNotOverlapTheCube) {
  const std::string mmad = Mmad(128), vadds = Vadds(8);
  BlockReport b = RunOneBlock(CoreMix::kMixed, 2, mmad + "xset pipe=m, xmode=2, flag=1\nend\n",
                              "xwait pipe=s, flag=1\n" + vadds + "end\n");
  EXPECT_EQ(b.aic_busy_cycles, Occupancy(mmad));
  EXPECT_EQ(b.aiv_any_busy_cycles, Occupancy(vadds));
  EXPECT_EQ(b.cube_vector_overlap_cycles, 0u);
  EXPECT_GE(b.span_cycles, b.aic_busy_cycles + b.aiv_any_busy_cycles);
}

// Two independent AIC instructions on different pipes (MTE1 and M) run at the same time: the
// AIC's busy time is their union, less than their summed occupancy.
TEST(SimOverlap, AicBusyIsTheUnionOverItsPipes) {
  const std::string load =
      "load_l0a dst=32768, src=0, rows=128, cols=64, src_pitch=128, transpose=0, dtype=f16\n";
  const std::string mmad = Mmad(128);
  BlockReport b = RunOneBlock(CoreMix::kCubeOnly, 0, mmad + load + "end\n", "");
  const uint64_t m = Occupancy(mmad), l = Occupancy(load);
  EXPECT_LT(b.aic_busy_cycles, m + l);
  EXPECT_GE(b.aic_busy_cycles, std::max(m, l));
  EXPECT_TRUE(b.aiv_busy_cycles.empty());
  EXPECT_EQ(b.cube_vector_overlap_cycles, 0u);
}

TEST(SimOverlap, VectorOnlyKernelHasNoCubeBusyTimeAndNoOverlap) {
  const std::string vadds = Vadds(8);
  BlockReport b = RunOneBlock(CoreMix::kVectorOnly, 1, "", vadds + "end\n");
  EXPECT_EQ(b.aic_busy_cycles, 0u);
  ASSERT_EQ(b.aiv_busy_cycles.size(), 1u);
  EXPECT_EQ(b.aiv_busy_cycles[0], Occupancy(vadds));
  EXPECT_EQ(b.cube_vector_overlap_cycles, 0u);
}

}  // namespace
}  // namespace tilejit::runner::sim
