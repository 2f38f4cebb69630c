// SPDX-License-Identifier: Apache-2.0
// Range bookkeeping of the shared-HBM floor (runner/sim/gm_traffic.h), by hand-made ranges.
#include "runner/sim/gm_traffic.h"

#include <gtest/gtest.h>

namespace tilejit::runner::sim {
namespace {

TEST(GmRanges, NormalizeSortsAndMergesOverlappingAndAdjacentRanges) {
  GmRanges r = {{30, 40}, {0, 10}, {10, 20}, {35, 50}, {60, 60}};
  NormalizeRanges(&r);
  EXPECT_EQ(r, (GmRanges{{0, 20}, {30, 50}}));
  EXPECT_EQ(RangeBytes(r), 40u);
}

TEST(GmRanges, BytesOutsideCountsOnlyUncoveredBytes) {
  const GmRanges base = {{10, 20}, {30, 40}};
  EXPECT_EQ(BytesOutside({{0, 50}}, base), 30u);
  EXPECT_EQ(BytesOutside({{12, 18}}, base), 0u);
  EXPECT_EQ(BytesOutside({{15, 35}, {45, 47}}, base), 12u);
  EXPECT_EQ(BytesOutside({{0, 5}}, {}), 5u);
}

TEST(GmTraffic, CountsReadsAndWritesAndDistinctBytes) {
  GmTraffic g;
  g.Add(0, 100, false);
  g.Add(100, 100, false);  // contiguous: one range
  g.Add(50, 100, true);    // re-touches bytes already read
  g.Finish();
  EXPECT_EQ(g.read_bytes(), 200u);
  EXPECT_EQ(g.write_bytes(), 100u);
  EXPECT_TRUE(g.complete());
  EXPECT_EQ(g.distinct_bytes(), 200u);
  EXPECT_EQ(g.ranges(), (GmRanges{{0, 200}}));
}

TEST(GmTraffic, TooManyDistinctRangesChargesEveryByte) {
  GmTraffic g;
  for (uint64_t i = 0; i <= GmTraffic::kMaxRanges; ++i) g.Add(i * 64, 32, false);
  g.Done();
  EXPECT_FALSE(g.complete());
  EXPECT_TRUE(g.ranges().empty());
  EXPECT_EQ(g.distinct_bytes(), (GmTraffic::kMaxRanges + 1) * 32);
  GmTraffic small;
  small.set_max_ranges(2);
  for (uint64_t i = 0; i < 3; ++i) small.Add(i * 64, 32, false);
  small.Done();
  EXPECT_FALSE(small.complete());
  EXPECT_EQ(small.distinct_bytes(), 96u);
}

TEST(HbmFloor, LaterWavesPayOnlyForBytesNoEarlierWaveTouched) {
  GmTraffic a, b, c;
  a.Add(0, 1000, false);
  b.Add(500, 1000, false);
  c.Add(0, 1500, true);
  for (GmTraffic* g : {&a, &b, &c}) g->Finish();
  HbmFloor hbm(/*hbm_bpc=*/100, /*l2_bytes=*/1 << 20);
  EXPECT_EQ(hbm.AddWave({&a, &b}), 1500u);  // the overlap once
  EXPECT_EQ(hbm.AddWave({&c}), 0u);         // all L2 hits
  EXPECT_EQ(hbm.Cycles(1500), 15u);
  EXPECT_EQ(hbm.Cycles(1501), 16u);
  EXPECT_EQ(HbmFloor(0, 1 << 20).Cycles(1500), 0u);
}

TEST(HbmFloor, AFootprintLargerThanTheL2StartsOver) {
  GmTraffic a, b;
  a.Add(0, 600, false);
  b.Add(1000, 600, false);
  a.Finish();
  b.Finish();
  HbmFloor hbm(100, /*l2_bytes=*/1000);
  EXPECT_EQ(hbm.AddWave({&a}), 600u);
  EXPECT_EQ(hbm.AddWave({&b}), 600u);  // 1200 > 1000: a's bytes are evicted
  EXPECT_EQ(hbm.AddWave({&a}), 600u);  // so a pays again
}

}  // namespace
}  // namespace tilejit::runner::sim
