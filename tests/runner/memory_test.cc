// SPDX-License-Identifier: Apache-2.0
#include "runner/sim/memory.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace tilejit::runner::sim {
namespace {

TEST(WrittenMap, ReportsFirstNeverWrittenByte) {
  WrittenMap m(1000);
  EXPECT_EQ(m.FirstUnwritten(0, 1000), 0u);
  m.Mark(0, 130);
  m.Mark(131, 700);
  EXPECT_EQ(m.FirstUnwritten(0, 1000), 130u);
  EXPECT_EQ(m.FirstUnwritten(131, 700), 700u);
  EXPECT_EQ(m.FirstUnwritten(100, 1000), 130u);
  EXPECT_EQ(m.FirstUnwritten(650, 1000), 700u);
  m.Mark(130, 131);
  m.Mark(700, 1000);
  EXPECT_EQ(m.FirstUnwritten(0, 1000), 1000u);
}

TEST(WrittenMap, ConcurrentMarksOfNeighbouringBytesAreNotLost) {
  WrittenMap m(64 * 1024);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m, t] {
      for (uint64_t i = t; i < 64 * 1024; i += 4) m.Mark(i, i + 1);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(m.FirstUnwritten(0, 64 * 1024), 64u * 1024);
}

TEST(GlobalMemory, FindsAllocationsAndRejectsOutOfBounds) {
  GlobalMemory gm;
  auto a = gm.Allocate(1000, "a", true);
  auto b = gm.Allocate(10, "b", false);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a % kGmAlign, 0u);
  EXPECT_EQ(*b % kGmAlign, 0u);
  EXPECT_GE(*b, *a + 1000 + kGmGuard);
  EXPECT_NE(gm.Find(*a, 1000), nullptr);
  EXPECT_EQ(gm.Find(*a + 1, 1000), nullptr);
  EXPECT_EQ(gm.Find(*a - 1, 1), nullptr);
  EXPECT_EQ(gm.Find(*b + 10, 1), nullptr);
  EXPECT_EQ(gm.Find(*a, 1)->name, "a");
  // Inputs start written, outputs poisoned.
  EXPECT_EQ(gm.Find(*a, 1)->written.FirstUnwritten(0, 1000), 1000u);
  EXPECT_EQ(gm.Find(*b, 1)->written.FirstUnwritten(0, 10), 0u);
  const char data[4] = {1, 2, 3, 4};
  EXPECT_TRUE(gm.Write(*b + 2, data, 4).ok());
  EXPECT_EQ(gm.Find(*b, 1)->written.FirstUnwritten(2, 6), 6u);
  EXPECT_FALSE(gm.Write(*b + 8, data, 4).ok());
  EXPECT_TRUE(gm.Free(*a).ok());
  EXPECT_EQ(gm.Find(*a, 1), nullptr);
  EXPECT_FALSE(gm.Free(*a).ok());
}

}  // namespace
}  // namespace tilejit::runner::sim
