// SPDX-License-Identifier: Apache-2.0
// Happens-before race detector for one block (one AIC and up to two AIVs).
//
// Agents are (core, pipe) pairs. Every non-scalar instruction gets an epoch on its agent; an
// access X (agent a, epoch e) happens before a later access by agent b iff e <= clock_b[a].
// Ordering sources, per DESIGN.md section 5:
//   * set_flag on pipe P / wait_flag on pipe Q: Q joins P's clock with P's own component
//     raised to P's current epoch (the set fires after every earlier P instruction completed);
//   * pipe_barrier(P): P's own component catches up with its current epoch (instructions of
//     one pipe overlap, so in-pipe order alone orders nothing);
//   * pipe_barrier(ALL): every pipe of the core joins every other's completed state;
//   * the scalar pipe is in order and synchronous: its own component is always current;
//   * cross-core flags carry a snapshot like set_flag, joined by the waiting core.
// Conflicts (at least one write, overlapping bytes, unordered) are reported once per
// instruction pair; accumulating mmads into the identical L0C region are exempt.
//
// The detector is driven by the executor in execution order; it is single-threaded (one per
// block, owned by the block's runner).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/target/pipe.h"

namespace tilejit::runner::sim {

enum class MemSpace : uint8_t { kGm = 0, kL1, kL0A, kL0B, kL0C, kUb, kCount };
std::string_view MemSpaceName(MemSpace space);

inline constexpr int kMaxCores = 3;  // core 0 = AIC, 1 = AIV0, 2 = AIV1
inline constexpr int kAgents = kMaxCores * target::kNumPipes;

// One byte interval touched by an instruction. Per-core memories are identified by the core
// that owns them (GM is shared; `core` is ignored for it).
struct Access {
  MemSpace space = MemSpace::kGm;
  uint64_t begin = 0;
  uint64_t end = 0;
  bool write = false;
  bool accumulate = false;  // mmad accumulating into its destination
  bool atomic = false;      // atomic-accumulate store: two atomic stores never conflict
};

// Identifies an instruction of the block: core and program counter (index in its stream).
struct InstrRef {
  int core = 0;
  int pc = 0;
  target::Pipe pipe = target::Pipe::kS;
};

using VectorClock = std::array<uint32_t, kAgents>;

enum class RaceKind : uint8_t { kRaw, kWar, kWaw };
enum class RaceScope : uint8_t { kIntraPipe, kInterPipe, kInterCore };
std::string_view RaceKindName(RaceKind kind);
std::string_view RaceScopeName(RaceScope scope);

struct RaceFinding {
  RaceKind kind = RaceKind::kRaw;
  RaceScope scope = RaceScope::kInterPipe;
  MemSpace space = MemSpace::kGm;
  int mem_core = 0;    // owner of the on-chip memory (meaningless for GM)
  uint64_t begin = 0;  // overlapping bytes
  uint64_t end = 0;
  InstrRef first;   // earlier access
  InstrRef second;  // later access
};

class RaceDetector {
 public:
  explicit RaceDetector(int max_findings = 64);

  // The instruction `ref` (its core and pipe) starts and touches `accesses`.
  void OnInstr(const InstrRef& ref, std::span<const Access> accesses);
  // pipe_barrier(pipe) on `core`; Pipe::kAll drains every pipe.
  void OnBarrier(int core, target::Pipe pipe);
  // The clock a set_flag (or cross-core set) on (core, pipe) publishes.
  VectorClock Publish(int core, target::Pipe pipe) const;
  // A wait on (core, pipe) passed, receiving `clock`. A wait on the scalar pipe stalls
  // dispatch, so every pipe of the core joins it.
  void Acquire(int core, target::Pipe pipe, const VectorClock& clock);

  // Event flags (docs/isa.md section 8): a set_flag must not fire before the previous wait of
  // its event consumed it, or it may find the event still set. `event` is any per-core key of
  // the (src, dst, id) event. A wait on the scalar pipe stalls dispatch, so everything after
  // it is ordered and it is not recorded.
  void OnEventWait(int core, target::Pipe pipe, int event, int pc);
  // Whether a set of `event` on (core, pipe) now happens after the event's last wait (true
  // when there was none); otherwise `*wait` names that wait.
  bool EventSetOrdered(int core, target::Pipe pipe, int event, InstrRef* wait) const;

  const std::vector<RaceFinding>& findings() const { return findings_; }
  uint64_t suppressed() const { return suppressed_; }

 private:
  struct Record {
    Access access;
    InstrRef ref;
    int agent;
    uint32_t epoch;
  };
  static int Agent(int core, target::Pipe pipe) {
    return core * target::kNumPipes + static_cast<int>(pipe);
  }
  std::vector<Record>& History(MemSpace space, int core);
  void Check(const Record& rec, int mem_core);
  void Insert(Record rec, int mem_core);
  void Prune(std::vector<Record>& records);
  std::vector<Record>::iterator FirstCandidate(std::vector<Record>& h, size_t slot, uint64_t begin);

  std::array<VectorClock, kAgents> clocks_{};
  std::array<uint32_t, kAgents> current_{};
  std::array<std::vector<Record>, static_cast<int>(MemSpace::kCount) * kMaxCores> history_;
  std::array<size_t, static_cast<int>(MemSpace::kCount) * kMaxCores> prune_at_{};
  std::array<uint64_t, static_cast<int>(MemSpace::kCount) * kMaxCores> max_len_{};
  struct EventWait {
    InstrRef ref;
    int agent = 0;
    uint32_t epoch = 0;
  };
  std::map<std::pair<int, int>, EventWait> event_waits_;  // (core, event) -> last wait
  std::vector<std::pair<uint64_t, uint64_t>> reported_;   // (first, second) packed refs
  std::vector<RaceFinding> findings_;
  int max_findings_;
  uint64_t suppressed_ = 0;
};

}  // namespace tilejit::runner::sim
