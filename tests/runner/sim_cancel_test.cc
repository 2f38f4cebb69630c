// SPDX-License-Identifier: Apache-2.0
// LaunchOptions::cancel: a launch stops early with kCancelled once its flag reads true (the
// daemon's Launch deadline is built on it), and a flag that stays false changes nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT
using target::CoreMix;

constexpr const char* kEndlessLoop = "loop: jmp off=loop\nend\n";

TEST(SimCancel, PresetFlagStopsLaunchWithCancelled) {
  SimDevice dev;
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, 4, "", kEndlessLoop));
  ASSERT_TRUE(id.ok()) << id.status();
  std::atomic<bool> cancel{true};
  LaunchOptions opt;
  opt.instr_budget = ~uint64_t{0};  // only the flag can end this launch
  opt.cancel = &cancel;
  auto r = dev.Launch(*id, {}, opt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_NE(r.status().message().find("launch cancelled after 0 of 4 block(s)"), std::string::npos)
      << r.status();
}

TEST(SimCancel, FlagSetDuringRunStopsRunningBlock) {
  SimDevice dev;
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, 1, "", kEndlessLoop));
  ASSERT_TRUE(id.ok()) << id.status();
  std::atomic<bool> cancel{false};
  LaunchOptions opt;
  // Far more than the test could ever run: without the flag the launch would not end here.
  opt.instr_budget = uint64_t{1} << 40;
  opt.host_threads = 1;
  opt.cancel = &cancel;
  std::thread canceller([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel.store(true);
  });
  auto r = dev.Launch(*id, {}, opt);
  canceller.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled) << r.status();
}

TEST(SimCancel, UnsetFlagLeavesLaunchUnchanged) {
  SimDevice dev;
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, 2, "", kEndlessLoop));
  ASSERT_TRUE(id.ok()) << id.status();
  std::atomic<bool> cancel{false};
  LaunchOptions opt;
  opt.instr_budget = 20000;
  opt.cancel = &cancel;
  auto r = dev.Launch(*id, {}, opt);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->findings.size(), 2u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kBudget);
}

}  // namespace
}  // namespace tilejit::runner::sim
