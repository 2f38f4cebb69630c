// SPDX-License-Identifier: Apache-2.0
// BlockRunner: executes one logical block (its AIC and AIVs, co-scheduled so that cross-core
// flags work) with the execution semantics of docs/isa.md section 1 and DESIGN.md section 5:
// an in-order scalar unit per core that dispatches into per-pipe queues; pipes that start an
// instruction when the previous one's occupancy ends and complete it after its latency;
// set_flag firing when every earlier instruction of its pipe completed; wait_flag, barrier,
// xset/xwait. Time advances as a discrete-event simulation: the agent (scalar unit or pipe)
// with the earliest possible action acts next, ties broken by a fixed order, so results are
// deterministic.
//
// In checked and perturbed modes every instruction's access set is validated (bounds,
// alignment), fed to the race detector and checked for never-written reads; flag misuse,
// deadlocks and the instruction budget are reported. Faults stop the block.
//
// A BlockRunner is used by one thread; several run concurrently on one GlobalMemory.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "compiler/target/npu_target.h"
#include "runner/device.h"
#include "runner/sim/busy_intervals.h"
#include "runner/sim/gm_traffic.h"
#include "runner/sim/memory.h"
#include "runner/sim/ops.h"
#include "runner/sim/race.h"

namespace tilejit::runner::sim {

// Read-only inputs shared by every block of a launch.
class GridBarrier;

struct LaunchContext {
  const KernelImage* image = nullptr;
  const target::NpuTarget* target = nullptr;
  GlobalMemory* gm = nullptr;
  std::vector<uint64_t> args;
  LaunchOptions options;
  // The rendezvous of `sync_all` when the kernel has one (every block on its own thread);
  // null otherwise. Not owned.
  GridBarrier* grid = nullptr;
  int64_t block_count = 0;  // the launch's grid (what get_block_num returns)
  // Each block's share of the launch's caps (LaunchOptions, kMaxDeviceOutputBytes).
  uint64_t gm_records_per_block = 0;
  size_t gm_ranges_per_block = GmTraffic::kMaxRanges;  // GmTraffic::set_max_ranges
  uint64_t trace_events_per_block = 0;
  size_t device_output_per_block = 0;
};

// One executed instruction or flag event, for the Chrome trace.
struct TraceEvent {
  int core = 0;  // 0 AIC, 1 AIV0, 2 AIV1
  target::Pipe pipe = target::Pipe::kS;
  uint64_t start = 0;
  uint64_t end = 0;
  int pc = 0;
  int64_t flow = -1;      // >= 0: flag hand-off id (set and matching wait share it)
  bool flow_out = false;  // the setting side of a hand-off
};

// One GM byte range a block touched (checked modes), for the inter-block race check: blocks
// have no way to order their accesses, so a write by one overlapping any access by another
// is a race (atomic accumulations excepted).
struct GmTouch {
  uint64_t begin = 0;
  uint64_t end = 0;
  bool write = false;
  bool atomic = false;
  int core = 0;
  int pc = 0;
  int epoch = 0;  // sync_alls the block passed before it: other epochs are ordered
};

struct BlockResult {
  BlockReport report;
  std::vector<GmTouch> gm_touches;
  GmTraffic gm_traffic;  // every mode: the shared-HBM floor of the block's wave
  std::vector<Finding> findings;
  uint64_t suppressed = 0;
  std::vector<TraceEvent> trace;
  uint64_t trace_dropped = 0;  // events past the block's share of LaunchOptions::max_trace_events
  // Summed occupancy and instruction count per pc, per core type (0 AIC, 1 AIV).
  std::array<std::vector<uint64_t>, 2> pc_cycles;
  std::array<std::vector<uint64_t>, 2> pc_count;
  bool cancelled = false;  // stopped early by LaunchOptions::cancel; the rest is partial
  // Device printing: this block's lines, core after core (aic, aiv0, aiv1), each core's in
  // program order, each line prefixed "[block B core] ".
  std::string device_output;
};

// Runs block `block` to completion (or to its first fault). Never throws for kernel problems.
BlockResult RunBlock(const LaunchContext& ctx, int64_t block);

namespace internal {

struct Queued {
  target::Instr in;  // resolved: every Opnd a constant
  int pc = 0;
  uint64_t ready = 0;  // dispatch time
};

struct PipeState {
  std::deque<Queued> queue;
  uint64_t free_at = 0;
  uint64_t last_complete = 0;
  uint64_t busy = 0;
};

struct EventFlag {
  bool set = false;
  uint64_t time = 0;
  VectorClock clock{};
  int setter_pc = -1;
  int64_t flow = -1;
};

struct CrossEntry {
  uint64_t time = 0;
  VectorClock clock{};
  int setter_core = 0;
  int setter_pc = 0;
  int64_t flow = -1;
};

inline constexpr int kCrossIds = 16;

struct CoreState {
  bool present = false;
  bool ended = false;
  int index = 0;  // 0 AIC, 1 AIV0, 2 AIV1
  target::CoreType type = target::CoreType::kAic;
  const std::vector<target::Instr>* code = nullptr;
  const std::vector<uint32_t>* lines = nullptr;
  std::array<int64_t, target::kNumRegs> regs{};
  int64_t pc = 0;
  float deq_scale = 1.0f;  // DEQSCALE (ops.h, MemView::DeqScale)
  uint64_t stime = 0;      // when the scalar unit can act next
  uint64_t executed = 0;
  std::array<PipeState, target::kNumPipes> pipes;
  BusyIntervals busy;  // occupancy intervals of the non-scalar pipes (cube/vector overlap)
  std::array<EventFlag, target::kNumPipes * target::kNumPipes * 8> events;
  std::array<std::deque<CrossEntry>, kCrossIds> xcount;
  // AIC only: mode-2 sets of each AIV waiting for the sibling's set (pairing).
  std::array<std::array<std::deque<CrossEntry>, kCrossIds>, 2> xpair;
  std::array<std::unique_ptr<LocalMemory>, static_cast<int>(MemSpace::kCount)> mem;
  bool at_grid = false;             // waiting at a sync_all (pc still on it)
  uint64_t grid_arrival = 0;        // when it got there, its pipes drained
  std::vector<int64_t> print_args;  // dbg_arg values awaiting a dbg_print
  std::string printed;              // this core's device output, each line prefixed
};

}  // namespace internal
}  // namespace tilejit::runner::sim
