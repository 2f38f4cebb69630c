// SPDX-License-Identifier: Apache-2.0
// The shared-HBM floor of a launch (docs/timing_model.md): blocks that together stream more
// GM bytes than the chip's HBM moves in their span get kernel_cycles from the bytes, while
// compute-bound launches, single blocks and blocks re-reading the same data (L2 hits) keep
// the figure of their longest block.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT
using target::CoreMix;
using target::ElementType;

constexpr int64_t kBwTile = 128 * 1024;  // bytes each block streams in, and out

// Block b copies bytes [b * in_step, + in_len) of x to y at b * out_len (out_len bytes), through
// UB; `vadds` vector adds of 8 KiB each sit between the load and the store.
std::string BwCopyProgram(int64_t in_step, int64_t in_len, int64_t out_len, int vadds = 0) {
  std::string s =
      "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nget_cid rd=r4\n"
      "mul rd=r5, rs1=r4, src2=" +
      std::to_string(in_step) +
      "\nadd rd=r6, rs1=r1, src2=r5\n"
      "mul rd=r5, rs1=r4, src2=" +
      std::to_string(out_len) +
      "\nadd rd=r7, rs1=r2, src2=r5\n"
      "copy_gm_ub dst=0, src=r6, nburst=1, len=" +
      std::to_string(in_len) +
      ", src_stride=0, dst_stride=0, pad=0, padval=0, dtype=f16\n"
      "set_flag spipe=mte2, dpipe=v, event=0\nwait_flag spipe=mte2, dpipe=v, event=0\n";
  for (int i = 0; i < vadds; ++i) {
    s += "vadd dst=0, src=0, src1=0, repeat=32, mask=128, dst_blk=1, src_blk=1, src1_blk=1, "
         "dst_rep=8, src_rep=8, src1_rep=8, dtype=f16\n";
  }
  s += "set_flag spipe=v, dpipe=mte3, event=0\nwait_flag spipe=v, dpipe=mte3, event=0\n"
       "copy_ub_gm dst=r7, src=0, nburst=1, len=" +
       std::to_string(out_len) + ", src_stride=0, dst_stride=0, atomic=none, dtype=f16\n" + "end\n";
  return s;
}

struct CopySetup {
  int64_t blocks = 1;
  int64_t in_step = kBwTile;
  int64_t in_len = kBwTile;
  int64_t out_len = kBwTile;
  int vadds = 0;
  CheckMode mode = CheckMode::kChecked;
};

LaunchReport RunCopies(const CopySetup& s, const target::NpuTarget& t = target::Ascend910B2()) {
  SimDevice dev(t);
  const int64_t in_bytes = (s.blocks - 1) * s.in_step + s.in_len;
  Tensor x = Input(dev, ElementType::kFloat16, {in_bytes / 2},
                   std::vector<uint8_t>(static_cast<size_t>(in_bytes), 0), "x");
  Tensor y = Output(dev, ElementType::kFloat16, {s.blocks * s.out_len / 2}, "y");
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, s.blocks, "",
                                BwCopyProgram(s.in_step, s.in_len, s.out_len, s.vadds)));
  EXPECT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.mode = s.mode;
  const uint64_t args[] = {x.addr, y.addr};
  auto r = dev.Launch(*id, args, opt);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->status.ok()) << AllFindings(*r);
  return *r;
}

uint64_t BwCeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// 96 one-AIV blocks are two waves of 48 on the 910B2; each block reads and writes 128 KiB of
// its own, so a wave moves 12 MiB: 16384 cycles at 768 B/cycle, four times its blocks' span.
TEST(SimBandwidth, StreamingOverEveryCoreIsBoundByHbm) {
  const target::NpuTarget& t = target::Ascend910B2();
  ASSERT_EQ(t.hbm_bpc.value, 768);
  const LaunchReport r = RunCopies({.blocks = 96});
  ASSERT_EQ(r.waves, 2);
  const uint64_t wave_bytes = 48 * 2 * kBwTile;
  EXPECT_EQ(r.gm_bytes, 2 * wave_bytes);
  EXPECT_EQ(r.hbm_bytes, 2 * wave_bytes);
  EXPECT_EQ(r.hbm_bound_waves, 2);
  EXPECT_EQ(r.kernel_cycles, 2 * BwCeilDiv(wave_bytes, 768));
  EXPECT_GT(r.kernel_cycles, 3 * r.block_bound_cycles);  // the figure before the model
  EXPECT_EQ(r.blocks[0].gm_read_bytes, static_cast<uint64_t>(kBwTile));
  EXPECT_EQ(r.blocks[0].gm_write_bytes, static_cast<uint64_t>(kBwTile));
  EXPECT_EQ(r.blocks[0].gm_distinct_bytes, static_cast<uint64_t>(2 * kBwTile));
}

// A partial last wave is charged only its own blocks' bytes.
TEST(SimBandwidth, EachWaveIsChargedItsOwnBytes) {
  const LaunchReport r = RunCopies({.blocks = 84});
  ASSERT_EQ(r.waves, 2);
  EXPECT_EQ(r.hbm_bound_waves, 2);
  EXPECT_EQ(r.kernel_cycles, BwCeilDiv(48 * 2 * kBwTile, 768) + BwCeilDiv(36 * 2 * kBwTile, 768));
  // 12 blocks in the last wave move 3 MiB, 4096 cycles: less than their own span, which stays.
  const LaunchReport few = RunCopies({.blocks = 60});
  EXPECT_EQ(few.hbm_bound_waves, 1);
  EXPECT_EQ(few.kernel_cycles, BwCeilDiv(48 * 2 * kBwTile, 768) + few.blocks[59].span_cycles);
}

// One block cannot outrun the chip: its DMA pipes together move less than hbm_bpc.
TEST(SimBandwidth, SingleBlockKeepsItsSpan) {
  const LaunchReport r = RunCopies({.blocks = 1});
  EXPECT_EQ(r.gm_bytes, static_cast<uint64_t>(2 * kBwTile));
  EXPECT_EQ(r.hbm_bound_waves, 0);
  EXPECT_EQ(r.kernel_cycles, r.blocks[0].span_cycles);
  EXPECT_EQ(r.kernel_cycles, r.block_bound_cycles);
}

// 48 blocks with 200 vector adds each over 8 KiB: the vector pipe, not HBM, sets the time.
TEST(SimBandwidth, ComputeBoundLaunchKeepsItsLongestBlock) {
  const LaunchReport r = RunCopies({.blocks = 48,
                                    .in_step = 8192,
                                    .in_len = 8192,
                                    .out_len = 8192,
                                    .vadds = 200,
                                    .mode = CheckMode::kFast});
  EXPECT_EQ(r.hbm_bound_waves, 0);
  EXPECT_GT(r.kernel_cycles, BwCeilDiv(r.hbm_bytes, 768) * 4);
  uint64_t longest = 0;
  for (const BlockReport& b : r.blocks) longest = std::max(longest, b.span_cycles);
  EXPECT_EQ(r.kernel_cycles, longest);
  EXPECT_EQ(r.kernel_cycles, r.block_bound_cycles);
}

// Every block reads the same 128 KiB and writes 4 KiB of its own: the shared tile comes from
// HBM once (then from the L2), so 96 blocks stay bound by their own spans although they read
// 12 MiB in all.
TEST(SimBandwidth, BytesReadAgainAreL2Hits) {
  const LaunchReport r = RunCopies({.blocks = 96, .in_step = 0, .out_len = 4096});
  EXPECT_EQ(r.gm_bytes, 96u * (kBwTile + 4096));
  EXPECT_EQ(r.hbm_bytes, kBwTile + 96u * 4096);
  EXPECT_EQ(r.hbm_bound_waves, 0);
  EXPECT_EQ(r.kernel_cycles, r.block_bound_cycles);
}

// A target without the figure (hbm_bpc 0) times launches as before the model.
TEST(SimBandwidth, ZeroHbmBandwidthMeansNotModelled) {
  target::NpuTarget t = target::Ascend910B2();
  t.hbm_bpc.value = 0;
  const LaunchReport r = RunCopies({.blocks = 96}, t);
  EXPECT_EQ(r.hbm_bound_waves, 0);
  EXPECT_EQ(r.kernel_cycles, r.block_bound_cycles);
  EXPECT_EQ(r.kernel_cycles, RunCopies({.blocks = 96}).block_bound_cycles);
}

}  // namespace
}  // namespace tilejit::runner::sim
