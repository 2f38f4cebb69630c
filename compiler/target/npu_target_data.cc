// SPDX-License-Identifier: Apache-2.0
// The chip descriptions as data. Every figure is copied from reference/ascend_hw.md with its
// tag; a change here is a timing-model change and must come with a re-run of the golden cycle
// table (tests/compiler/target/golden_cycles.inc) and of every performance table.
#include "compiler/target/npu_target.h"

namespace tilejit::target {
namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGiB = 1024 * kMiB;

std::vector<MemInfo> Mems910B(int64_t gm_bytes, std::string_view gm_tag) {
  return {
      {Mem::kGM, CoreType::kAic, {gm_bytes, gm_tag}, {1, "D-align (512 preferred: D-bp512)"}},
      {Mem::kL1, CoreType::kAic, {512 * kKiB, "INI, CAT"}, {32, "D-align"}},
      {Mem::kL0A, CoreType::kAic, {64 * kKiB, "INI"}, {512, "D-align"}},
      {Mem::kL0B, CoreType::kAic, {64 * kKiB, "INI"}, {512, "D-align"}},
      {Mem::kL0C, CoreType::kAic, {128 * kKiB, "INI, T-cons"}, {64, "D-align"}},
      {Mem::kUB, CoreType::kAiv, {192 * kKiB, "INI"}, {32, "D-align"}},
      {Mem::kBT, CoreType::kAic, {1 * kKiB, "INI, CAT"}, {64, "D-align"}},
      {Mem::kFB, CoreType::kAic, {7 * kKiB, "INI, CAT"}, {64, "inferred"}},
  };
}

std::vector<DataPath> Paths910B() {
  using enum Mem;
  return {
      {kGM, kL1, Pipe::kMte2, CoreType::kAic, "D-stor, D-pipe"},
      {kGM, kL0A, Pipe::kMte2, CoreType::kAic, "D-stor, D-pipe"},
      {kGM, kL0B, Pipe::kMte2, CoreType::kAic, "D-stor, D-pipe"},
      {kL1, kL0A, Pipe::kMte1, CoreType::kAic, "D-stor, D-pipe, P-sync"},
      {kL1, kL0B, Pipe::kMte1, CoreType::kAic, "D-stor, D-pipe, P-sync"},
      {kL1, kBT, Pipe::kMte1, CoreType::kAic, "D-pipe"},
      {kL1, kGM, Pipe::kMte3, CoreType::kAic, "PY, P-sync"},
      {kL0C, kGM, Pipe::kFix, CoreType::kAic, "D-pipe, TRI"},
      {kL0C, kL1, Pipe::kFix, CoreType::kAic, "D-pipe, TRI"},
      {kL1, kFB, Pipe::kFix, CoreType::kAic, "D-pipe (pipe unverified)"},
      {kGM, kUB, Pipe::kMte2, CoreType::kAiv, "D-stor, D-pipe"},
      {kUB, kGM, Pipe::kMte3, CoreType::kAiv, "D-pipe"},
      {kUB, kUB, Pipe::kV, CoreType::kAiv, "D-pipe, PY"},
  };
}

std::vector<ForbiddenPath> Forbidden910B() {
  return {
      {Mem::kL0C, Mem::kUB, "no L0C->UB path before A5: stage through GM", "TRI"},
      {Mem::kUB, Mem::kL1, "no UB->L1 path on separated cores: stage through GM", "D-stor, T-mem"},
      {Mem::kL1, Mem::kUB, "no L1->UB path on separated cores: stage through GM", "D-stor, T-mem"},
  };
}

std::vector<PipePair> AicPairs() {
  using enum Pipe;
  return {{kMte2, kMte1}, {kMte1, kMte2}, {kMte1, kM},    {kM, kMte1},    {kMte2, kM},
          {kM, kMte2},    {kM, kFix},     {kFix, kM},     {kMte2, kFix},  {kFix, kMte2},
          {kFix, kMte3},  {kMte1, kMte3}, {kMte3, kMte1}, {kMte2, kMte3}, {kMte3, kMte2},
          {kS, kMte2},    {kMte2, kS},    {kS, kMte3},    {kMte3, kS},    {kFix, kS},
          {kM, kS}};
}

std::vector<PipePair> AivPairs() {
  using enum Pipe;
  return {{kMte2, kV},    {kV, kMte2}, {kV, kMte3}, {kMte3, kV}, {kMte2, kMte3},
          {kMte3, kMte2}, {kS, kV},    {kV, kS},    {kS, kMte2}, {kMte2, kS},
          {kS, kMte3},    {kMte3, kS}, {kV, kV}};
}

std::vector<CubeDtype> CubeDtypes() {
  constexpr std::string_view kShape = "INI DtypeMKN, D-mmad";
  return {
      {DType::kF16, DType::kF32, 16, 16, 16, {16, "PY"}, {4096, kShape}},
      {DType::kBF16, DType::kF32, 16, 16, 16, {16, "PY"}, {4096, kShape}},
      {DType::kS8, DType::kS32, 16, 32, 16, {32, "PY"}, {8192, kShape}},
      {DType::kF32, DType::kF32, 16, 8, 16, {4, "PY (model)"}, {1024, "PY (model)"}},
  };
}

std::vector<VecCost> VecCosts() {
  constexpr std::string_view kPy = "PY";
  const IntFig one{1, kPy};
  const IntFig p256{256, kPy};
  return {
      {TimingClass::kVecSimple, p256, p256, p256, p256, one, {4, kPy}, {6, kPy}},
      {TimingClass::kVecMul, p256, p256, {128, kPy}, p256, one, {5, kPy}, {7, kPy}},
      {TimingClass::kVecRec, p256, p256, p256, p256, one, {5, kPy}, {5, kPy}},
      {TimingClass::kVecTrans,
       {64, kPy},
       {128, kPy},
       {64, "inferred (float-only class)"},
       {128, "inferred (float-only class)"},
       one,
       {13, "PY (12-14, midpoint)"},
       {13, "PY (12-14, midpoint)"}},
      {TimingClass::kVecCast, p256, p256, p256, p256, one, {4, kPy}, {4, kPy}},
      {TimingClass::kVecCopy,
       {128, kPy},
       {128, kPy},
       {128, kPy},
       {128, kPy},
       one,
       {4, kPy},
       {4, kPy}},
      {TimingClass::kVecReduce,
       p256,
       p256,
       p256,
       p256,
       {7, kPy},
       {16, "PY (8-23, midpoint)"},
       {16, "PY (8-23, midpoint)"}},
  };
}

std::vector<FittedCost> FittedCosts() {
  constexpr std::string_view kGe = "GE";
  return {
      {"add_f16", {0.0103, kGe}, {22, kGe}},
      {"add_f32", {0.0206, kGe}, {23, kGe}},
      {"copy_f16", {0.0078, kGe}, {13, kGe}},
      {"exp", {0.031, kGe}, {28, kGe}},
      {"div", {0.046, kGe}, {29, kGe}},
      {"sqrt", {0.031, kGe}, {29, kGe}},
      {"whole_reduce_sum_f16", {0.055, kGe}, {35, kGe}},
      {"tanh", {0.20, kGe}, {182, kGe}},
  };
}

void SetTiming910B(NpuTarget& t) {
  t.mmad_state_latency = {20, "PY"};
  t.vec_costs = VecCosts();
  t.vec_pipeline_delay = {15, "PY"};
  t.vec_api_fixed_cost = {20, "GE"};
  t.vec_set_mask_cycles = {8, "PY"};
  t.ub_copy_latency = {12, "PY"};
  t.ub_copy_bpc = {256, "PY"};
  t.gm_read_bpc = {87, "PY"};
  t.gm_write_bpc = {87, "PY"};
  t.gm_read_latency = {351, "PY (347+4)"};
  t.gm_write_latency = {207, "PY (203+4)"};
  t.dma_uop_bytes = {512, "PY"};
  t.ub_bpc = {128, "PY"};
  t.l1_write_bpc = {256, "PY"};
  t.l1_read_bpc = {512, "INI (l1_to_l0_a)"};
  t.l0a_write_bpc = {256, "PY"};
  t.l0b_write_bpc = {128, "PY"};
  t.l0c_read_bpc = {128, "PY"};
  t.load2d_latency = {25, "PY (9+16)"};
  t.load3d_latency = {43, "PY (27+16)"};
  t.fix_l1_latency = {25, "inferred (as load2d)"};
  t.scalar_alu = {2, "PY"};
  t.scalar_load = {6, "PY"};
  t.scalar_store = {4, "PY"};
  t.sync_cycles = {1, "inferred"};
  t.cross_set_latency = {50, "inferred (one L2 hit, PY CacheConfig)"};
  t.kernel_launch_overhead_us = {10.0, "INI A3 table"};
  t.ddr_rate_bpc = {32, "INI A3 table, INI 910B4 fixture"};
  t.ub_to_l2_bpc = {64, "INI A3 table"};
  t.vec_pipe_head = {37, "GE"};
  t.kernel_head_cycles = {300, "GE"};
  t.mte2_head_threshold_bytes = {25 * 1024, "GE (25 KB)"};
  t.mte2_head_large_base = {1575.0, "GE"};
  t.mte2_head_large_per_block = {32.7, "GE"};
  t.mte2_head_small_base = {882.0, "GE"};
  t.mte2_head_small_per_block = {15.9, "GE"};
  t.mte3_head = {497, "GE"};
  t.fitted_api_costs = FittedCosts();
}

void SetFormats910B(NpuTarget& t) {
  t.event_ids_per_pair = {8, "D-flag, D-flagcce"};
  t.aic_event_pairs = AicPairs();
  t.aiv_event_pairs = AivPairs();
  t.event_pairs_tag = "D-flag (inferred from pipe sets)";
  t.cross_flag_ids = {11, "D-xcore"};
  t.cross_flag_ids_hw = {16, "D-xcore, P-sync"};
  t.cross_flag_counter_max = {16, "D-xcore"};
  t.cross_modes = {0, 1, 2};
  t.cross_modes_tag = "D-xcore";
  t.issue_queue_depth = {32, "PY"};
  t.c0_bytes = {32, "D-mmad"};
  t.fractal_rows = {16, "D-mmad, INI cube_m/n/k"};
  t.fractal_bytes = {512, "D-mmad"};
  t.cube_dtypes = CubeDtypes();
  t.mmad_max_mnk = {4095, "D-mmad"};
  t.repeat_bytes = {256, "D-vec"};
  t.max_repeat = {255, "D-vec"};
  t.mask_bits = {128, "D-vec"};
  t.block_bytes = {32, "D-vec"};
}

// The chip's HBM share as the INI tables state it, ddr_rate per core times the cores, rather
// than hbm_bw_bytes_per_s / clock (1.6e12 / 1.8e9 = 889): the per-die 1.6 TB/s is a peak
// quoted by public notes, the INI figure comes from the same vendor tables as the per-core
// rates the DMA formulas use, is a sustained share, and scales with each chip's core count
// and clock (the 910B4 has fewer HBM stacks) where the 1.6e12 does not.
int64_t HbmBpc(const NpuTarget& t) { return t.ddr_rate_bpc.value * t.num_groups.value; }

NpuTarget Make910B2() {
  NpuTarget t;
  t.name = "ascend910b2";
  t.soc = "Ascend910B2";
  t.npu_arch = {2201, "INI"};
  t.num_groups = {24, "INI"};
  t.aic_per_group = {1, "D-arch"};
  t.aiv_per_group = {2, "D-arch, T-mem, D-idx"};
  t.aic_clock_hz = {1.8e9, "INI"};
  t.aiv_clock_hz = {1.8e9, "INI (vec_freq assumed equal)"};
  t.gm_bytes = {64 * kGiB, "INI"};
  t.gm_preferred_align = {512, "D-bp512"};
  t.l2_bytes = {192 * kMiB, "INI, CAT, DVM"};
  t.l2_line_bytes = {512, "DVM, PY"};
  t.l2_hit_latency = {50, "PY"};
  t.l2_miss_extra = {150, "PY"};
  t.hbm_bw_bytes_per_s = {1.6e12, "INI (derived 1.38-1.42e12)"};
  t.l2_read_bpc = {110, "INI A3 table"};
  t.l2_write_bpc = {86, "INI A3 table"};
  t.mems = Mems910B(64 * kGiB, "INI");
  t.ub_banks = {64, "INI"};
  t.ub_bank_bytes = {4096, "INI"};
  t.ub_bank_groups = {16, "INI"};
  t.scalar_dcache_line = {64, "D-dcci"};
  t.aic_pipes = {Pipe::kS, Pipe::kMte1, Pipe::kMte2, Pipe::kMte3, Pipe::kM, Pipe::kFix};
  t.aiv_pipes = {Pipe::kS, Pipe::kV, Pipe::kMte2, Pipe::kMte3};
  t.pipes_tag = "D-pipe, T-sync (inferred per-core sets, ascend_hw.md section 3)";
  t.paths = Paths910B();
  t.forbidden_paths = Forbidden910B();
  SetFormats910B(t);
  SetTiming910B(t);
  t.hbm_bpc = {HbmBpc(t),
               "INI ddr_rate 32 x 24 groups = 1.38e12 B/s at 1.8 GHz (sustained share; not the "
               "1.6e12 peak)"};
  return t;
}

NpuTarget Make910B4() {
  NpuTarget t = Make910B2();
  t.name = "ascend910b4";
  t.soc = "Ascend910B4";
  t.num_groups = {20, "INI"};
  t.aic_clock_hz = {1.5e9, "INI"};
  t.aiv_clock_hz = {1.5e9, "INI (vec_freq assumed equal)"};
  t.gm_bytes = {32 * kGiB, "INI"};
  t.mems = Mems910B(32 * kGiB, "INI");
  t.l2_bytes = {96 * kMiB, "INI"};
  t.hbm_bpc = {HbmBpc(t), "INI ddr_rate 32 x 20 groups = 0.96e12 B/s at 1.5 GHz (sustained share)"};
  return t;
}

}  // namespace

const NpuTarget& Ascend910B2() {
  static const NpuTarget* const kTarget = new NpuTarget(Make910B2());
  return *kTarget;
}

const NpuTarget& Ascend910B4() {
  static const NpuTarget* const kTarget = new NpuTarget(Make910B4());
  return *kTarget;
}

}  // namespace tilejit::target
