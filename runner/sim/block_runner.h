// SPDX-License-Identifier: Apache-2.0
// Internal to the simulator: the state machine behind RunBlock (block.h), split over
// block.cc (scheduling loop, scalar units, end-of-block checks), block_pipe.cc (pipe actions,
// synchronisation, data effects) and block_report.cc (naming instructions in findings).
#pragma once

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "runner/sim/block.h"

namespace tilejit::runner::sim::internal {

class BlockRunner {
 public:
  BlockRunner(const LaunchContext& ctx, int64_t block);
  ~BlockRunner();
  BlockRunner(const BlockRunner&) = delete;
  BlockRunner& operator=(const BlockRunner&) = delete;
  BlockResult Run();

 private:
  friend class CoreMemView;
  static constexpr uint64_t kNever = ~uint64_t{0};

  // Scheduling (block.cc).
  void SetUpCores();
  uint64_t ScalarReadyTime(CoreState& c);
  uint64_t PipeReadyTime(CoreState& c, int pipe);
  bool Drained(const CoreState& c) const;
  uint64_t DrainTime(const CoreState& c) const;
  void ScalarStep(CoreState& c);
  bool ExecScalarAlu(CoreState& c, const target::Instr& in);
  void ExecScalarMemory(CoreState& c, const target::Instr& in);
  // Device printing (block_debug.cc).
  bool ExecPrint(CoreState& c, const target::Instr& in);
  void ExecDump(CoreState& c, const target::Instr& in);
  void Print(CoreState& c, std::string_view text);
  void CollectDeviceOutput();
  void Dispatch(CoreState& c, const target::Instr& in);
  void ReportDeadlock();
  // sync_all (block_grid.cc): true when every core waiting at one was released.
  bool GridRendezvous();
  void LeaveGrid();
  void CheckBlockEnd();

  // Pipes and synchronisation (block_pipe.cc).
  void PipeStep(CoreState& c, int pipe, uint64_t t);
  void ExecPipeInstr(CoreState& c, int pipe, const Queued& q, uint64_t t);
  void SetEvent(CoreState& c, target::Pipe src, target::Pipe dst, int id, uint64_t time, int pc);
  bool EventReady(CoreState& c, target::Pipe src, target::Pipe dst, int id, uint64_t* time);
  void TakeEvent(CoreState& c, target::Pipe src, target::Pipe dst, int id, target::Pipe waiter,
                 uint64_t t, int pc);
  void CrossSet(CoreState& c, const target::Instr& in, uint64_t fire, int pc);
  bool CrossReady(CoreState& c, int id, uint64_t* time);
  void CrossTake(CoreState& c, int id, target::Pipe waiter, uint64_t t, int pc);
  // Bounds (and in checked modes alignment); `observed` false keeps the access out of the race
  // detector (a debugging dump: it changes nothing the kernel computes).
  bool CheckSpans(CoreState& c, const Queued& q, const std::vector<Span>& spans,
                  bool observed = true);
  // Keeps a GM access for the inter-block race check; past the block's share of
  // LaunchOptions::max_gm_records, a kLaunchCap finding ends the block.
  void RecordGmTouch(int core, int pc, target::Pipe pipe, const Span& s);
  void ApplyNow(CoreState& c, const Queued& q, const std::vector<Span>& spans);
  // Host pointer to `bytes` bytes at `addr` of `space` as core `c` sees them (validated range).
  const uint8_t* HostBytes(CoreState& c, MemSpace space, uint64_t addr, uint64_t bytes);
  void ApplyPendingUpTo(uint64_t t);
  void Trace(const CoreState& c, target::Pipe pipe, uint64_t start, uint64_t end, int pc,
             int64_t flow = -1, bool flow_out = false);
  // Adds to the per-pc cycle table (kept only for a traced launch).
  void CountPc(const CoreState& c, int pc, uint64_t cycles) {
    if (!ctx_.options.trace) return;
    result_.pc_cycles[c.index > 0][pc] += cycles;
    ++result_.pc_count[c.index > 0][pc];
  }

  // Findings (block_report.cc).
  std::string Describe(int core, int pc, target::Pipe pipe) const;
  std::string CoreName(int core) const;
  void Add(FindingKind kind, std::string message);
  void Fault(const CoreState& c, int pc, target::Pipe pipe, const std::string& what,
             FindingKind kind = FindingKind::kFault);
  void ReportRaces();
  void ReportOverlap();

  const LaunchContext& ctx_;
  const target::NpuTarget& t_;
  int64_t block_;
  bool checked_;
  bool perturbed_;
  bool aborted_ = false;
  std::array<CoreState, kMaxCores> cores_;
  RaceDetector races_;
  BlockResult result_;
  std::mt19937_64 rng_;
  int64_t next_flow_ = 0;
  int epoch_ = 0;  // sync_alls passed (GmTouch::epoch)
  bool left_grid_ = false;
  uint64_t seq_ = 0;
  struct Pending {
    uint64_t time;
    uint64_t seq;
    int core;
    Queued q;
    std::vector<Span> spans;
    bool operator>(const Pending& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
  std::vector<Span> scratch_spans_;
};

}  // namespace tilejit::runner::sim::internal
