// SPDX-License-Identifier: Apache-2.0
// The LaunchOptions caps on what a launch holds in host memory: a grid above max_blocks is
// refused before any block runs, and each block gets an even share of the GM access records
// and trace events, so a launch's memory does not grow with its grid or its instruction count.
#include <gtest/gtest.h>

#include <string>

#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT
using target::CoreMix;
using target::ElementType;

// `loads` GM -> UB copies of 4096 bytes, each to its own UB tile, from GM 8192 bytes apart (so
// no two merge into one record).
std::string StridedLoads(int loads) {
  std::string s = "ld_arg rd=r1, arg=0\n";
  for (int i = 0; i < loads; ++i) {
    s += "copy_gm_ub dst=" + std::to_string(i * 4096) + ", src=r1+" + std::to_string(i * 8192) +
         ", nburst=1, len=4096, src_stride=0, dst_stride=0, pad=0, padval=0, dtype=f16\n";
  }
  return s + "end\n";
}

struct CappedRun {
  SimDevice dev;
  Result<LaunchReport> report = Internal("not run");

  CappedRun(int64_t blocks, int loads, const LaunchOptions& opt) {
    auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, blocks, "", StridedLoads(loads)));
    EXPECT_TRUE(id.ok()) << id.status();
    const Tensor in = Input(dev, ElementType::kFloat16, {loads * 4096},
                            std::vector<uint8_t>(size_t(loads) * 8192, 0), "x");
    const uint64_t args[] = {in.addr};
    report = dev.Launch(*id, args, opt);
  }
};

TEST(SimLaunchCaps, GridAboveMaxBlocksIsRefusedBeforeAnyBlockRuns) {
  LaunchOptions opt;
  opt.max_blocks = 64;
  CappedRun run(65, 1, opt);
  ASSERT_FALSE(run.report.ok());
  EXPECT_EQ(run.report.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(run.report.status().message().find("65 blocks; the launch cap is 64"),
            std::string::npos)
      << run.report.status();
  // The format's own limit is far above the default cap: 2^31 blocks never get a result table.
  CappedRun huge(target::kMaxBlockCount, 1, LaunchOptions{});
  ASSERT_FALSE(huge.report.ok());
  EXPECT_EQ(huge.report.status().code(), StatusCode::kResourceExhausted) << huge.report.status();
  opt.max_blocks = 65;
  CappedRun at_cap(65, 1, opt);
  EXPECT_TRUE(at_cap.report.ok()) << at_cap.report.status();
}

TEST(SimLaunchCaps, BlockPastItsShareOfGmRecordsEndsWithALaunchCapFinding) {
  LaunchOptions opt;
  opt.max_gm_records = 8;  // two blocks: four records each
  CappedRun over(2, 5, opt);
  ASSERT_TRUE(over.report.ok()) << over.report.status();
  ASSERT_EQ(over.report->findings.size(), 2u);
  for (const Finding& f : over.report->findings) {
    EXPECT_EQ(f.kind, FindingKind::kLaunchCap);
    EXPECT_NE(f.message.find("more than 4 separate GM accesses"), std::string::npos) << f.message;
  }
  CappedRun within(2, 4, opt);
  ASSERT_TRUE(within.report.ok()) << within.report.status();
  EXPECT_TRUE(within.report->findings.empty());
  // Fast mode keeps no records, so the cap does not apply.
  opt.mode = CheckMode::kFast;
  CappedRun fast(2, 5, opt);
  ASSERT_TRUE(fast.report.ok()) << fast.report.status();
  EXPECT_TRUE(fast.report->findings.empty());
}

TEST(SimLaunchCaps, TraceEventsPastABlocksShareAreDroppedAndTheTraceSaysSo) {
  LaunchOptions opt;
  opt.trace = true;
  opt.max_trace_events = 3;
  CappedRun capped(1, 6, opt);
  ASSERT_TRUE(capped.report.ok()) << capped.report.status();
  const std::string& json = capped.report->trace_json;
  EXPECT_NE(json.find("trace truncated: "), std::string::npos) << json;
  opt.max_trace_events = 1000;
  CappedRun whole(1, 6, opt);
  ASSERT_TRUE(whole.report.ok()) << whole.report.status();
  EXPECT_EQ(whole.report->trace_json.find("trace truncated"), std::string::npos);
  EXPECT_GT(whole.report->trace_json.size(), json.size());
}

}  // namespace
}  // namespace tilejit::runner::sim
