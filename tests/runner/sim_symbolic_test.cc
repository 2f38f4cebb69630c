// SPDX-License-Identifier: Apache-2.0
// Dynamic shapes through RunKernel and the simulator: a hand-built binary that reads its
// symbol from the argument slot after the addresses, launched at several M (0 included), and
// the launch errors of mismatched shapes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runner/runner.h"
#include "runner/sim/sim_device.h"
#include "tests/runner/symbolic_kernel.h"

namespace tilejit::runner {
namespace {

using target::ElementType;
using ::testing::HasSubstr;

NpyArray RowsArray(int64_t rows) {
  NpyArray a;
  a.dtype = ElementType::kInt32;
  a.shape = {rows, 8};
  a.data = tilejit::testing::CopyRowsInput(rows);
  return a;
}

TEST(SimSymbolic, CopiesMRowsAtEveryM) {
  sim::SimDevice dev;
  auto id = dev.LoadBinary(tilejit::testing::CopyRowsFile());
  ASSERT_TRUE(id.ok()) << id.status();
  for (int64_t m : {1, 5, 64, 65, 200, 0}) {
    const NpyArray a = RowsArray(m);
    auto run = RunKernel(dev, *id, std::span<const NpyArray>(&a, 1), LaunchOptions{});
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_TRUE(run->report.status.ok()) << "M=" << m << ": " << run->report.status;
    EXPECT_EQ(run->report.block_count, (m + 63) / 64);
    EXPECT_EQ(static_cast<int64_t>(run->report.blocks.size()), (m + 63) / 64);
    ASSERT_EQ(run->report.symbols.size(), 1u);
    EXPECT_EQ(run->report.symbols[0], (std::pair<std::string, int64_t>{"M", m}));
    ASSERT_EQ(run->outputs.size(), 1u);
    EXPECT_EQ(run->outputs[0].shape, (std::vector<int64_t>{m, 8}));
    EXPECT_EQ(run->outputs[0].data, a.data) << "M=" << m;  // every row, in checked mode
  }
}

TEST(SimSymbolic, MismatchedShapesAreClearErrors) {
  sim::SimDevice dev;
  auto id = dev.LoadBinary(tilejit::testing::CopyRowsFile());
  ASSERT_TRUE(id.ok()) << id.status();
  NpyArray a = RowsArray(4);
  a.shape = {4, 9};
  a.data.resize(4 * 9 * 4);
  auto run = RunKernel(dev, *id, std::span<const NpyArray>(&a, 1), LaunchOptions{});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("A: dim 1 is 9 but the kernel was compiled for 8"));
  a = RowsArray(tilejit::testing::kCopyRowsMax + 1);
  run = RunKernel(dev, *id, std::span<const NpyArray>(&a, 1), LaunchOptions{});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("symbol M is 4097 from A (dim 0), above its max"));
}

TEST(SimSymbolic, DeviceEvaluatesTheGridFromTheSymbolSlots) {
  sim::SimDevice dev;
  auto id = dev.LoadBinary(tilejit::testing::CopyRowsFile());
  ASSERT_TRUE(id.ok()) << id.status();
  auto in = dev.Allocate(ElementType::kInt32, {130, 8}, "A", true);
  auto out = dev.Allocate(ElementType::kInt32, {130, 8}, "B", false);
  ASSERT_TRUE(in.ok() && out.ok());
  ASSERT_TRUE(dev.CopyToDevice(*in, tilejit::testing::CopyRowsInput(130)).ok());
  const uint64_t args[] = {in->addr, out->addr, 130};
  auto r = dev.Launch(*id, args, LaunchOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->block_count, 3);
  EXPECT_TRUE(r->status.ok()) << r->status;
  const uint64_t short_args[] = {in->addr, out->addr};
  auto bad = dev.Launch(*id, short_args, LaunchOptions{});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("depends on 1 symbol(s)"));
}

}  // namespace
}  // namespace tilejit::runner
