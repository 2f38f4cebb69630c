// SPDX-License-Identifier: Apache-2.0
// NpuTarget: the data description of a 910B-class NPU (separated AIC/AIV organisation).
// Every number is a Figure carrying its source tag from reference/ascend_hw.md (D-*, PY, INI,
// ...; "inferred" marks our own deduction, "model" a figure only a cost model provides).
// Other chips are other instances of the same struct, never code changes.
//
// Instances returned by Ascend910B2()/Ascend910B4()/FindTarget() are immutable statics that
// live for the whole process; they are safe to read from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/target/isa.h"
#include "compiler/target/pipe.h"

namespace tilejit::target {

// A number with its source tag.
template <typename T>
struct Figure {
  T value{};
  std::string_view tag;
};
using IntFig = Figure<int64_t>;
using RealFig = Figure<double>;

enum class CoreType : uint8_t { kAic = 0, kAiv = 1 };
std::string_view CoreTypeName(CoreType c);  // "aic", "aiv"

// Memories visible to instructions. Append only (order used in serialisation).
enum class Mem : uint8_t { kGM = 0, kL1, kL0A, kL0B, kL0C, kUB, kBT, kFB };
inline constexpr int kNumMems = 8;
std::string_view MemName(Mem m);  // "gm", "l1", "l0a", "l0b", "l0c", "ub", "bt", "fb"

struct MemInfo {
  Mem mem;
  CoreType owner;  // core type that owns one instance (GM: kAic, shared by all)
  IntFig bytes;    // capacity per owning core (GM: per chip)
  IntFig align;    // required start alignment in bytes
};

// A legal data path and the pipe that moves it.
struct DataPath {
  Mem src;
  Mem dst;
  Pipe pipe;
  CoreType core;
  std::string_view tag;
};

// A path that does not exist on this chip; codegen must route around it.
struct ForbiddenPath {
  Mem src;
  Mem dst;
  std::string_view reason;
  std::string_view tag;
};

struct PipePair {
  Pipe src;
  Pipe dst;
  bool operator==(const PipePair&) const = default;
};

// Cube shape and rate per input dtype.
struct CubeDtype {
  DType in;
  DType acc;
  int64_t frac_m, frac_k, frac_n;  // fractal shape (16, C0, 16)
  IntFig kstep;                    // k consumed per cycle per 16x16 output fractal
  IntFig macs_per_cycle;
};

// Vector cost class: uops = ceil(bytes / P) * T; end = issue + uops + D + pipeline delay.
struct VecCost {
  TimingClass cls;
  IntFig p_f16, p_f32, p_s16, p_s32;  // bytes per cycle by dtype
  IntFig t;                           // throughput factor
  IntFig d_int, d_fp;                 // op latency by dtype class
};

// A fitted per-API cost, cycles = per_elem * elements + fixed (GE). Reported for calibration;
// the per-instruction model does not use it.
struct FittedCost {
  std::string_view op;
  RealFig per_elem;
  RealFig fixed;
};

struct NpuTarget {
  std::string_view name;  // canonical lower-case name used by FindTarget ("ascend910b2")
  std::string_view soc;   // "Ascend910B2"
  IntFig npu_arch;

  // Organisation.
  IntFig num_groups;     // AIC count = logical block slots per wave
  IntFig aic_per_group;  // 1
  IntFig aiv_per_group;  // 2
  RealFig aic_clock_hz;
  RealFig aiv_clock_hz;

  // Memory.
  IntFig gm_bytes;
  IntFig gm_preferred_align;  // full DMA bandwidth at this alignment
  IntFig l2_bytes, l2_line_bytes, l2_hit_latency, l2_miss_extra;
  RealFig hbm_bw_bytes_per_s;  // the spec sheet's per-die peak, reported only
  // Whole-chip GM (HBM) bandwidth in bytes per AIC clock cycle, shared by every core of a
  // launch: the simulator's per-wave floor (docs/timing_model.md). 0: not modelled.
  IntFig hbm_bpc;
  IntFig l2_read_bpc, l2_write_bpc;  // bytes/cycle/core
  std::vector<MemInfo> mems;         // one per Mem except GM first; see MemInfoOf
  IntFig ub_banks, ub_bank_bytes, ub_bank_groups;
  IntFig scalar_dcache_line;

  // Pipes and paths.
  std::vector<Pipe> aic_pipes;
  std::vector<Pipe> aiv_pipes;
  std::string_view pipes_tag;
  std::vector<DataPath> paths;
  std::vector<ForbiddenPath> forbidden_paths;

  // Synchronisation.
  IntFig event_ids_per_pair;  // 8
  std::vector<PipePair> aic_event_pairs;
  std::vector<PipePair> aiv_event_pairs;
  std::string_view event_pairs_tag;
  IntFig cross_flag_ids;          // usable ids 0..cross_flag_ids-1 (11)
  IntFig cross_flag_ids_hw;       // 16 (4-bit message field)
  IntFig cross_flag_counter_max;  // 16 pending sets per id
  std::vector<int64_t> cross_modes;
  std::string_view cross_modes_tag;
  IntFig issue_queue_depth;

  // Data formats.
  IntFig c0_bytes;       // 32: C0 = c0_bytes / sizeof(T)
  IntFig fractal_rows;   // 16
  IntFig fractal_bytes;  // 512 (L0A/L0B/L1 fractal)
  std::vector<CubeDtype> cube_dtypes;
  IntFig mmad_max_mnk;  // 4095
  IntFig repeat_bytes;  // 256
  IntFig max_repeat;    // 255
  IntFig mask_bits;     // 128
  IntFig block_bytes;   // 32 (vector block, UB granule)

  // Timing: cube.
  IntFig mmad_state_latency;  // 20
  // Timing: vector.
  std::vector<VecCost> vec_costs;
  IntFig vec_pipeline_delay;  // 15
  IntFig vec_api_fixed_cost;  // ~20 (GE fit; reported, not used by the per-instruction model)
  IntFig vec_set_mask_cycles;
  IntFig ub_copy_latency;  // UB->UB: ceil(burst/256) per burst + this
  IntFig ub_copy_bpc;      // 256
  // Timing: data movement (bytes/cycle/core unless noted).
  IntFig gm_read_bpc, gm_write_bpc;
  IntFig gm_read_latency, gm_write_latency;
  IntFig dma_uop_bytes;  // one issue cycle per uop of this many bytes (>= 1 per burst)
  IntFig ub_bpc, l1_write_bpc, l1_read_bpc, l0a_write_bpc, l0b_write_bpc, l0c_read_bpc;
  IntFig load2d_latency, load3d_latency;
  IntFig fix_l1_latency;
  // Timing: scalar.
  IntFig scalar_alu, scalar_load, scalar_store;
  IntFig sync_cycles;        // set/wait/barrier pass-through cost on their pipe
  IntFig cross_set_latency;  // cycles from the set firing to the peer's counter update
  // Kernel level.
  RealFig kernel_launch_overhead_us;

  // Further section 6 figures kept for calibration and reporting (not used by timing.cc).
  IntFig ddr_rate_bpc;  // aggregate HBM share per core
  IntFig ub_to_l2_bpc;
  IntFig vec_pipe_head;       // GE "pipe head"
  IntFig kernel_head_cycles;  // GE "kernel head"
  IntFig mte2_head_threshold_bytes;
  RealFig mte2_head_large_base, mte2_head_large_per_block;  // loads >= threshold
  RealFig mte2_head_small_base, mte2_head_small_per_block;
  IntFig mte3_head;
  std::vector<FittedCost> fitted_api_costs;
};

const NpuTarget& Ascend910B2();
const NpuTarget& Ascend910B4();
// Accepts "ascend910b2" / "ascend910b4" (any case; the soc spelling "Ascend910B2" too).
// nullptr if unknown.
const NpuTarget* FindTarget(std::string_view name);
// Names FindTarget accepts.
std::vector<std::string_view> TargetNames();

// Lowercase hex SHA-256 over a canonical serialisation of every field (values and tags).
// Stable across processes and builds; part of compile cache keys.
std::string TargetHash(const NpuTarget& t);
// Visits every scalar figure (Figure members and the per-entry figures of cube_dtypes,
// vec_costs and mems) with a dotted name, e.g. "mems.l1.bytes", in a fixed order.
void ForEachFigure(
    const NpuTarget& t,
    const std::function<void(std::string_view name, double value, std::string_view tag)>& fn);
// The canonical serialisation itself (one "key=value [tag]" line per figure), for debugging
// and for the hash.
std::string SerializeTarget(const NpuTarget& t);

// Lookups.
const MemInfo* MemInfoOf(const NpuTarget& t, Mem m);
const std::vector<Pipe>& PipesOf(const NpuTarget& t, CoreType c);
bool HasPipe(const NpuTarget& t, CoreType c, Pipe p);
const DataPath* FindPath(const NpuTarget& t, Mem src, Mem dst);  // nullptr if not legal
bool IsForbiddenPath(const NpuTarget& t, Mem src, Mem dst);
bool IsLegalEventPair(const NpuTarget& t, CoreType c, Pipe src, Pipe dst);
const CubeDtype* FindCubeDtype(const NpuTarget& t, DType in);
const VecCost* FindVecCost(const NpuTarget& t, TimingClass cls);
// Derived cube peak in FLOP/s (2 x MACs per cycle x AICs x clock); 0 without a cube rate.
double CubePeakFlops(const NpuTarget& t, DType in);
// C0 = c0_bytes / sizeof(T): 16 for f16/bf16, 8 for f32, 32 for s8.
int64_t C0Elems(const NpuTarget& t, DType d);

// Checks an instruction against a core type on this target: the opcode is allowed on the core,
// its pipes exist there and an event's pipe pair is legal. (Field limits: Validate in isa.h.)
Status ValidateForCore(const Instr& in, CoreType core, const NpuTarget& t);

// Checks a whole instruction stream for one core type: every instruction passes Validate and
// ValidateForCore, and ValidateControlFlow holds. Errors name the instruction index.
Status ValidateProgram(std::span<const Instr> program, CoreType core, const NpuTarget& t);

// The stream's control flow alone: non-empty, branch targets inside the stream, and control
// cannot run past the end (the last instruction is `end` or `jmp`).
Status ValidateControlFlow(std::span<const Instr> program);

}  // namespace tilejit::target
