// SPDX-License-Identifier: Apache-2.0
#include "compiler/target/timing.h"

#include <gtest/gtest.h>

#include <array>

#include "compiler/target/asm.h"

namespace tilejit::target {
namespace {

struct GoldenRow {
  const char* name;
  const char* text;
  int64_t occupancy;
  int64_t latency;
};

constexpr GoldenRow kGolden[] = {
#define TILEJIT_GOLDEN(name, text, occ, lat) {name, text, occ, lat},
#include "tests/compiler/target/golden_cycles.inc"
#undef TILEJIT_GOLDEN
};

TEST(Timing, MatchesTheHandComputedGoldenTable) {
  for (const GoldenRow& row : kGolden) {
    Result<Instr> in = AssembleInstr(row.text);
    ASSERT_TRUE(in.ok()) << row.name << ": " << in.status();
    Result<Cost> c = StaticInstrCost(in.value(), Ascend910B2());
    ASSERT_TRUE(c.ok()) << row.name << ": " << c.status();
    EXPECT_EQ(c.value().occupancy, row.occupancy) << row.name;
    EXPECT_EQ(c.value().latency, row.latency) << row.name;
  }
}

TEST(Timing, GoldenTableCoversEveryTimingClassButEnd) {
  std::array<bool, 32> seen{};
  for (const GoldenRow& row : kGolden) {
    seen[static_cast<int>(GetOpcodeInfo(AssembleInstr(row.text).value().op).timing)] = true;
  }
  for (int i = 0; i <= static_cast<int>(TimingClass::kDmaFill); ++i) {
    if (static_cast<TimingClass>(i) == TimingClass::kEnd) continue;
    EXPECT_TRUE(seen[i]) << "timing class " << i << " has no golden row";
  }
}

Cost MmadCost(int64_t m, int64_t n, int64_t k) {
  Instr in;
  in.op = Opcode::kMmad;
  in.m = OpImm(m);
  in.n = OpImm(n);
  in.k = OpImm(k);
  in.init = OpImm(1);
  in.dtype = DType::kF16;
  return StaticInstrCost(in, Ascend910B2()).value();
}

TEST(Timing, DoublingKDoublesMmadOccupancyForLargeShapes) {
  for (auto [m, n, k] : {std::array<int64_t, 3>{128, 256, 256},
                         {256, 256, 512},
                         {128, 128, 1024},
                         {64, 512, 2000}}) {
    const Cost a = MmadCost(m, n, k);
    const Cost b = MmadCost(m, n, 2 * k);
    EXPECT_NEAR(static_cast<double>(b.occupancy) / a.occupancy, 2.0, 0.1) << m << "x" << n;
    EXPECT_NEAR(static_cast<double>(b.latency) / a.latency, 2.0, 0.1) << m << "x" << n;
  }
}

TEST(Timing, LatencyIsNeverBelowOccupancy) {
  for (const GoldenRow& row : kGolden) {
    const Cost c = StaticInstrCost(AssembleInstr(row.text).value(), Ascend910B2()).value();
    EXPECT_GE(c.latency, c.occupancy) << row.name;
    EXPECT_GE(c.occupancy, 1) << row.name;
  }
}

TEST(Timing, RegisterOperandsAreResolvedBeforeCosting) {
  Instr in = AssembleInstr(
                 "copy_gm_ub dst=0, src=r4, nburst=r5, len=r6+0, src_stride=0, dst_stride=0, "
                 "pad=0, padval=0, dtype=f16")
                 .value();
  std::array<int64_t, kNumRegs> regs{};
  regs[4] = 1 << 20;
  regs[5] = 1;
  regs[6] = 8192;
  Result<Cost> c = InstrCost(in, Ascend910B2(), regs);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c.value(), (Cost{111, 462}));  // the golden "copy_gm_ub 8KiB" row
  EXPECT_FALSE(StaticInstrCost(in, Ascend910B2()).ok());
  regs[5] = 0;  // nburst must be >= 1
  EXPECT_FALSE(InstrCost(in, Ascend910B2(), regs).ok());
}

TEST(Timing, SlowerClockDoesNotChangeCyclesButTheB4IsItsOwnTarget) {
  for (const GoldenRow& row : kGolden) {
    const Instr in = AssembleInstr(row.text).value();
    EXPECT_EQ(StaticInstrCost(in, Ascend910B4()).value(),
              StaticInstrCost(in, Ascend910B2()).value())
        << row.name;
  }
}

}  // namespace
}  // namespace tilejit::target
