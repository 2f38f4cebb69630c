// SPDX-License-Identifier: Apache-2.0
#include "runner/sim/race.h"

#include <gtest/gtest.h>

namespace tilejit::runner::sim {
namespace {

using target::Pipe;

constexpr int kAic = 0, kAiv0 = 1, kAiv1 = 2;

Access Ub(uint64_t b, uint64_t e, bool w) { return {MemSpace::kUb, b, e, w, false}; }
Access Gm(uint64_t b, uint64_t e, bool w) { return {MemSpace::kGm, b, e, w, false}; }

TEST(RaceDetector, ReportsUnorderedRawBetweenPipesNamingBothInstructions) {
  RaceDetector d;
  const Access load[] = {Gm(0, 512, false), Ub(0, 512, true)};
  d.OnInstr({kAiv0, 0, Pipe::kMte2}, load);
  const Access add[] = {Ub(0, 512, false), Ub(512, 1024, true)};
  d.OnInstr({kAiv0, 1, Pipe::kV}, add);
  ASSERT_EQ(d.findings().size(), 1u);
  const RaceFinding& f = d.findings()[0];
  EXPECT_EQ(f.kind, RaceKind::kRaw);
  EXPECT_EQ(f.scope, RaceScope::kInterPipe);
  EXPECT_EQ(f.space, MemSpace::kUb);
  EXPECT_EQ(f.first.pc, 0);
  EXPECT_EQ(f.second.pc, 1);
  EXPECT_EQ(f.end - f.begin, 512u);
}

TEST(RaceDetector, AnInPlaceInstructionDoesNotRaceWithItself) {
  RaceDetector d;
  const Access in_place[] = {Ub(0, 512, false), Ub(0, 512, true)};  // vexp x, x
  d.OnInstr({kAiv0, 0, Pipe::kV}, in_place);
  EXPECT_TRUE(d.findings().empty());
  // The next in-place op on the same pipe without a barrier still races with the first.
  d.OnInstr({kAiv0, 1, Pipe::kV}, in_place);
  ASSERT_EQ(d.findings().size(), 1u);
  EXPECT_EQ(d.findings()[0].first.pc, 0);
  EXPECT_EQ(d.findings()[0].second.pc, 1);
}

TEST(RaceDetector, AnInPlaceInstructionRacesWithAnEarlierReaderOfItsPipe) {
  // vconv y, x then vmaxs x, x, s on V without a barrier: the in-place op's own read of x must
  // not hide the older read from its write (WAR).
  RaceDetector d;
  const Access cast[] = {Ub(0, 512, false), Ub(1024, 2048, true)};
  d.OnInstr({kAiv0, 0, Pipe::kV}, cast);
  const Access in_place[] = {Ub(0, 512, false), Ub(0, 512, true)};
  d.OnInstr({kAiv0, 1, Pipe::kV}, in_place);
  ASSERT_EQ(d.findings().size(), 1u);
  EXPECT_EQ(d.findings()[0].kind, RaceKind::kWar);
  EXPECT_EQ(d.findings()[0].scope, RaceScope::kIntraPipe);
  EXPECT_EQ(d.findings()[0].first.pc, 0);
  EXPECT_EQ(d.findings()[0].second.pc, 1);
  // With a barrier between them there is nothing to report.
  RaceDetector ordered;
  ordered.OnInstr({kAiv0, 0, Pipe::kV}, cast);
  ordered.OnBarrier(kAiv0, Pipe::kV);
  ordered.OnInstr({kAiv0, 1, Pipe::kV}, in_place);
  EXPECT_TRUE(ordered.findings().empty());
}

TEST(RaceDetector, AnEventSetMustFollowThePreviousWaitOfTheEvent) {
  RaceDetector d;
  constexpr int kEvent = 5;
  // No wait yet: the first (pre-arming) set is fine.
  InstrRef wait;
  EXPECT_TRUE(d.EventSetOrdered(kAiv0, Pipe::kMte2, kEvent, &wait));
  // V waits for the event; a later set on MTE2 that never heard from V may double-set.
  d.OnEventWait(kAiv0, Pipe::kV, kEvent, 7);
  ASSERT_FALSE(d.EventSetOrdered(kAiv0, Pipe::kMte2, kEvent, &wait));
  EXPECT_EQ(wait.pc, 7);
  EXPECT_EQ(wait.pipe, Pipe::kV);
  // After a V -> MTE2 hand-off published after the wait, the set is ordered.
  d.Acquire(kAiv0, Pipe::kMte2, d.Publish(kAiv0, Pipe::kV));
  EXPECT_TRUE(d.EventSetOrdered(kAiv0, Pipe::kMte2, kEvent, &wait));
  // Other cores' events are separate, and a wait on the scalar unit orders everything.
  EXPECT_TRUE(d.EventSetOrdered(kAiv1, Pipe::kMte2, kEvent, &wait));
  d.OnEventWait(kAiv1, Pipe::kS, kEvent, 3);
  EXPECT_TRUE(d.EventSetOrdered(kAiv1, Pipe::kMte2, kEvent, &wait));
}

TEST(RaceDetector, SetWaitFlagOrdersTheHandOff) {
  RaceDetector d;
  const Access load[] = {Ub(0, 512, true)};
  d.OnInstr({kAiv0, 0, Pipe::kMte2}, load);
  d.Acquire(kAiv0, Pipe::kV, d.Publish(kAiv0, Pipe::kMte2));
  const Access add[] = {Ub(0, 512, false)};
  d.OnInstr({kAiv0, 3, Pipe::kV}, add);
  EXPECT_TRUE(d.findings().empty());
  // A second load into the same tile without a V -> MTE2 flag is a WAR against the add, and
  // without a barrier also a WAW against the first load on the same pipe.
  d.OnInstr({kAiv0, 4, Pipe::kMte2}, load);
  ASSERT_EQ(d.findings().size(), 2u);
  EXPECT_EQ(d.findings()[0].kind, RaceKind::kWaw);
  EXPECT_EQ(d.findings()[0].scope, RaceScope::kIntraPipe);
  EXPECT_EQ(d.findings()[1].kind, RaceKind::kWar);
  EXPECT_EQ(d.findings()[1].first.pc, 3);
}

TEST(RaceDetector, SamePipeNeedsBarrierExceptAccumulatingMmads) {
  RaceDetector d;
  const Access w[] = {Ub(0, 256, true)};
  const Access r[] = {Ub(0, 256, false)};
  d.OnInstr({kAiv0, 0, Pipe::kV}, w);
  d.OnInstr({kAiv0, 1, Pipe::kV}, r);
  ASSERT_EQ(d.findings().size(), 1u);
  EXPECT_EQ(d.findings()[0].scope, RaceScope::kIntraPipe);
  d.OnBarrier(kAiv0, Pipe::kV);
  d.OnInstr({kAiv0, 3, Pipe::kV}, w);  // ordered after both by the barrier
  EXPECT_EQ(d.findings().size(), 1u);

  RaceDetector m;
  const Access acc[] = {{MemSpace::kL0C, 0, 1024, true, true}};
  m.OnInstr({kAic, 0, Pipe::kM}, acc);
  m.OnInstr({kAic, 1, Pipe::kM}, acc);
  EXPECT_TRUE(m.findings().empty());
  const Access other[] = {{MemSpace::kL0C, 512, 1536, true, true}};
  m.OnInstr({kAic, 2, Pipe::kM}, other);
  EXPECT_FALSE(m.findings().empty());
}

TEST(RaceDetector, BarrierAllOrdersEveryPipeOfTheCore) {
  RaceDetector d;
  const Access w[] = {Ub(0, 256, true)};
  d.OnInstr({kAiv0, 0, Pipe::kMte2}, w);
  d.OnBarrier(kAiv0, Pipe::kAll);
  const Access r[] = {Ub(0, 256, false), Gm(0, 256, true)};
  d.OnInstr({kAiv0, 2, Pipe::kMte3}, r);
  EXPECT_TRUE(d.findings().empty());
}

TEST(RaceDetector, FlagOrderingIsTransitive) {
  RaceDetector d;
  const Access w[] = {Ub(0, 256, true)};
  d.OnInstr({kAiv0, 0, Pipe::kMte2}, w);
  d.Acquire(kAiv0, Pipe::kV, d.Publish(kAiv0, Pipe::kMte2));
  d.Acquire(kAiv0, Pipe::kMte3, d.Publish(kAiv0, Pipe::kV));
  const Access r[] = {Ub(0, 256, false)};
  d.OnInstr({kAiv0, 5, Pipe::kMte3}, r);
  EXPECT_TRUE(d.findings().empty());
}

TEST(RaceDetector, CrossCoreHandOffThroughGm) {
  RaceDetector racy;
  const Access store[] = {Gm(4096, 8192, true)};
  const Access load[] = {Gm(4096, 8192, false)};
  racy.OnInstr({kAic, 0, Pipe::kFix}, store);
  racy.OnInstr({kAiv1, 0, Pipe::kMte2}, load);
  ASSERT_EQ(racy.findings().size(), 1u);
  EXPECT_EQ(racy.findings()[0].scope, RaceScope::kInterCore);
  EXPECT_EQ(racy.findings()[0].first.core, kAic);
  EXPECT_EQ(racy.findings()[0].second.core, kAiv1);

  RaceDetector synced;
  synced.OnInstr({kAic, 0, Pipe::kFix}, store);
  synced.Acquire(kAiv1, Pipe::kS, synced.Publish(kAic, Pipe::kFix));
  synced.OnInstr({kAiv1, 2, Pipe::kMte2}, load);
  EXPECT_TRUE(synced.findings().empty());
}

TEST(RaceDetector, DisjointAndReadOnlyAccessesNeverRace) {
  RaceDetector d;
  const Access a[] = {Ub(0, 256, true), Gm(0, 100, false)};
  const Access b[] = {Ub(256, 512, true), Gm(0, 100, false)};
  d.OnInstr({kAiv0, 0, Pipe::kMte2}, a);
  d.OnInstr({kAiv0, 1, Pipe::kV}, b);
  d.OnInstr({kAiv1, 0, Pipe::kMte2}, a);  // another core's UB: a different memory
  EXPECT_TRUE(d.findings().empty());
}

TEST(RaceDetector, ReportsEachPairOnceAndCapsFindings) {
  RaceDetector d(3);
  const Access w[] = {Ub(0, 32, true)};
  for (int i = 0; i < 10; ++i) d.OnInstr({kAiv0, i, i % 2 ? Pipe::kV : Pipe::kMte2}, w);
  EXPECT_EQ(d.findings().size(), 3u);
  EXPECT_GT(d.suppressed(), 0u);
}

}  // namespace
}  // namespace tilejit::runner::sim
