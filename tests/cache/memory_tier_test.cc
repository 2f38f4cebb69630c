// SPDX-License-Identifier: Apache-2.0
#include "cache/memory_tier.h"

#include <gtest/gtest.h>

#include "cache_test_util.h"

namespace tilejit::cache {
namespace {

using testing::KeyFor;
using testing::MakeEntry;

std::shared_ptr<const Entry> Shared(int n, size_t bytes = 100) {
  return std::make_shared<const Entry>(MakeEntry(n, bytes));
}

TEST(MemoryTier, HitReturnsTheSameSharedEntry) {
  MemoryTier tier(10'000);
  auto entry = Shared(1);
  tier.Put(entry);
  EXPECT_EQ(tier.Get(KeyFor(1)), entry);
  EXPECT_EQ(tier.Get(KeyFor(2)), nullptr);
  const MemoryTierStats stats = tier.Stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.bytes, MemoryTier::Charge(*entry));
}

TEST(MemoryTier, EvictsLeastRecentlyUsedToStayUnderBudget) {
  const uint64_t charge = MemoryTier::Charge(*Shared(1));
  MemoryTier tier(3 * charge);
  tier.Put(Shared(1));
  tier.Put(Shared(2));
  tier.Put(Shared(3));
  ASSERT_NE(tier.Get(KeyFor(1)), nullptr);  // 2 is now the coldest
  tier.Put(Shared(4));
  EXPECT_EQ(tier.Get(KeyFor(2)), nullptr);
  EXPECT_NE(tier.Get(KeyFor(1)), nullptr);
  EXPECT_NE(tier.Get(KeyFor(3)), nullptr);
  EXPECT_NE(tier.Get(KeyFor(4)), nullptr);
  EXPECT_EQ(tier.Stats().evictions, 1u);
  EXPECT_LE(tier.Stats().bytes, 3 * charge);
}

TEST(MemoryTier, EntryLargerThanBudgetIsNotKept) {
  MemoryTier tier(500);
  tier.Put(Shared(1));
  tier.Put(Shared(2, 1000));
  EXPECT_EQ(tier.Get(KeyFor(2)), nullptr);
  EXPECT_NE(tier.Get(KeyFor(1)), nullptr);
}

TEST(MemoryTier, ReplacingAnEntryUpdatesItsCharge) {
  MemoryTier tier(10'000);
  tier.Put(Shared(1, 100));
  tier.Put(Shared(1, 300));
  EXPECT_EQ(tier.Stats().entries, 1u);
  EXPECT_EQ(tier.Stats().bytes, MemoryTier::Charge(*Shared(1, 300)));
  EXPECT_EQ(tier.Get(KeyFor(1))->binary.size(), 300u);
}

TEST(MemoryTier, EraseAndClear) {
  MemoryTier tier(10'000);
  tier.Put(Shared(1));
  tier.Put(Shared(2));
  EXPECT_TRUE(tier.Erase(KeyFor(1)));
  EXPECT_FALSE(tier.Erase(KeyFor(1)));
  tier.Clear();
  EXPECT_EQ(tier.Stats().entries, 0u);
  EXPECT_EQ(tier.Stats().bytes, 0u);
  EXPECT_EQ(tier.Get(KeyFor(2)), nullptr);
}

TEST(MemoryTier, ZeroBudgetDisablesTheTier) {
  MemoryTier tier(0);
  tier.Put(Shared(1));
  EXPECT_EQ(tier.Get(KeyFor(1)), nullptr);
}

}  // namespace
}  // namespace tilejit::cache
