// SPDX-License-Identifier: Apache-2.0
// Histories are kept per memory as vectors sorted by start address: an instruction touches a
// few intervals, a block's history of still-relevant accesses stays short because (a) a new access
// by the same agent that covers an old one replaces it (any later access ordered after the new one
// is ordered after the old one too, and one unordered with both races with the new one), and (b)
// records that every possible accessor of the memory already orders are dropped.
#include "runner/sim/race.h"

#include <algorithm>

namespace tilejit::runner::sim {
namespace {

using target::Pipe;

uint64_t Pack(const InstrRef& r) {
  return (static_cast<uint64_t>(r.core) << 32) | static_cast<uint32_t>(r.pc);
}

// Pipes that can touch a memory space (scalar only GM and UB), per the data paths of
// reference/ascend_hw.md section 3.
bool CanAccess(MemSpace space, Pipe pipe) {
  switch (space) {
    case MemSpace::kGm:
      return pipe == Pipe::kS || pipe == Pipe::kMte2 || pipe == Pipe::kMte3 || pipe == Pipe::kFix;
    case MemSpace::kL1:
      return pipe == Pipe::kMte1 || pipe == Pipe::kMte2 || pipe == Pipe::kMte3 ||
             pipe == Pipe::kFix;
    case MemSpace::kL0A:
    case MemSpace::kL0B:
      return pipe == Pipe::kMte1 || pipe == Pipe::kMte2 || pipe == Pipe::kM;
    case MemSpace::kL0C:
      return pipe == Pipe::kM || pipe == Pipe::kFix;
    case MemSpace::kUb:
      return pipe == Pipe::kS || pipe == Pipe::kV || pipe == Pipe::kMte2 || pipe == Pipe::kMte3;
    case MemSpace::kCount:
      break;
  }
  return false;
}

void Join(VectorClock& into, const VectorClock& from) {
  for (int i = 0; i < kAgents; ++i) into[i] = std::max(into[i], from[i]);
}

}  // namespace

std::string_view MemSpaceName(MemSpace space) {
  static constexpr std::string_view kNames[] = {"GM", "L1", "L0A", "L0B", "L0C", "UB"};
  const int i = static_cast<int>(space);
  return i < static_cast<int>(MemSpace::kCount) ? kNames[i] : "?";
}
std::string_view RaceKindName(RaceKind kind) {
  static constexpr std::string_view kNames[] = {"RAW", "WAR", "WAW"};
  return kNames[static_cast<int>(kind)];
}
std::string_view RaceScopeName(RaceScope scope) {
  static constexpr std::string_view kNames[] = {"intra-pipe", "inter-pipe", "inter-core"};
  return kNames[static_cast<int>(scope)];
}

RaceDetector::RaceDetector(int max_findings) : max_findings_(max_findings) { prune_at_.fill(64); }

std::vector<RaceDetector::Record>& RaceDetector::History(MemSpace space, int core) {
  const int mem_core = space == MemSpace::kGm ? 0 : core;
  return history_[static_cast<int>(space) * kMaxCores + mem_core];
}

void RaceDetector::OnInstr(const InstrRef& ref, std::span<const Access> accesses) {
  const int agent = Agent(ref.core, ref.pipe);
  const uint32_t epoch = ++current_[agent];
  // Every access is checked before any is recorded: an in-place instruction (read and write
  // of one range) would otherwise replace an older read of its agent with its own read, and
  // its write, exempt against its own accesses, would miss the WAR with that older read.
  for (const Access& a : accesses) {
    if (a.begin < a.end) Check(Record{a, ref, agent, epoch}, ref.core);
  }
  for (const Access& a : accesses) {
    if (a.begin < a.end) Insert(Record{a, ref, agent, epoch}, ref.core);
  }
  if (ref.pipe == Pipe::kS) clocks_[agent][agent] = epoch;  // scalar is in order
}

// Histories are sorted by start address; records are never longer than max_len_, so every
// record overlapping [b, e) starts in [b - max_len_, e).
std::vector<RaceDetector::Record>::iterator RaceDetector::FirstCandidate(std::vector<Record>& h,
                                                                         size_t slot,
                                                                         uint64_t begin) {
  const uint64_t from = begin > max_len_[slot] ? begin - max_len_[slot] : 0;
  return std::lower_bound(h.begin(), h.end(), from,
                          [](const Record& r, uint64_t v) { return r.access.begin < v; });
}

void RaceDetector::Check(const Record& rec, int mem_core) {
  const VectorClock& clock = clocks_[rec.agent];
  auto& history = History(rec.access.space, mem_core);
  const size_t slot = &history - history_.data();
  for (auto it = FirstCandidate(history, slot, rec.access.begin);
       it != history.end() && it->access.begin < rec.access.end; ++it) {
    const Record& x = *it;
    if (!x.access.write && !rec.access.write) continue;
    if (x.access.atomic && rec.access.atomic) continue;
    if (x.access.end <= rec.access.begin) continue;
    if (x.epoch <= clock[x.agent]) continue;
    if (x.agent == rec.agent && x.epoch == rec.epoch) continue;  // its own accesses (in place)
    if (x.agent == rec.agent && x.access.accumulate && rec.access.accumulate &&
        x.access.begin == rec.access.begin && x.access.end == rec.access.end) {
      continue;  // the cube orders consecutive accumulations into one L0C region
    }
    const std::pair<uint64_t, uint64_t> key{Pack(x.ref), Pack(rec.ref)};
    if (std::find(reported_.begin(), reported_.end(), key) != reported_.end()) continue;
    if (static_cast<int>(findings_.size()) >= max_findings_) {
      ++suppressed_;
      continue;
    }
    reported_.push_back(key);
    RaceFinding f;
    f.kind = x.access.write ? (rec.access.write ? RaceKind::kWaw : RaceKind::kRaw) : RaceKind::kWar;
    f.scope = x.ref.core != rec.ref.core ? RaceScope::kInterCore
              : x.agent == rec.agent     ? RaceScope::kIntraPipe
                                         : RaceScope::kInterPipe;
    f.space = rec.access.space;
    f.mem_core = mem_core;
    f.begin = std::max(x.access.begin, rec.access.begin);
    f.end = std::min(x.access.end, rec.access.end);
    f.first = x.ref;
    f.second = rec.ref;
    findings_.push_back(f);
  }
}

void RaceDetector::Insert(Record rec, int mem_core) {
  auto& records = History(rec.access.space, mem_core);
  const size_t slot = &records - history_.data();
  // Drop older records of the same agent that the new one covers (see the file comment).
  auto first = std::lower_bound(records.begin(), records.end(), rec.access.begin,
                                [](const Record& r, uint64_t v) { return r.access.begin < v; });
  auto last = first;
  while (last != records.end() && last->access.begin < rec.access.end) ++last;
  auto kept = std::remove_if(first, last, [&](const Record& x) {
    return x.agent == rec.agent && x.access.end <= rec.access.end &&
           (rec.access.write || !x.access.write) && x.access.accumulate == rec.access.accumulate &&
           x.access.atomic == rec.access.atomic;
  });
  records.erase(kept, last);
  auto pos = std::upper_bound(records.begin(), records.end(), rec.access.begin,
                              [](uint64_t v, const Record& r) { return v < r.access.begin; });
  max_len_[slot] = std::max(max_len_[slot], rec.access.end - rec.access.begin);
  records.insert(pos, rec);
  if (records.size() >= prune_at_[slot]) {
    Prune(records);
    prune_at_[slot] = std::max<size_t>(64, records.size() * 2);
  }
}

void RaceDetector::Prune(std::vector<Record>& records) {
  if (records.empty()) return;
  const MemSpace space = records.front().access.space;
  const bool shared = space == MemSpace::kGm;
  const int owner = records.front().ref.core;
  std::erase_if(records, [&](const Record& x) {
    for (int core = 0; core < kMaxCores; ++core) {
      if (!shared && core != owner) continue;
      for (int p = 0; p < target::kNumPipes; ++p) {
        if (!CanAccess(space, static_cast<Pipe>(p))) continue;
        const int agent = Agent(core, static_cast<Pipe>(p));
        if (x.epoch > clocks_[agent][x.agent]) return false;
      }
    }
    return true;
  });
}

void RaceDetector::OnEventWait(int core, Pipe pipe, int event, int pc) {
  if (pipe == Pipe::kS) {
    event_waits_.erase({core, event});
    return;
  }
  const int agent = Agent(core, pipe);
  // The wait is an instruction of its pipe: later work of the pipe (and whatever it
  // publishes) is ordered after it.
  event_waits_[{core, event}] = {{core, pc, pipe}, agent, ++current_[agent]};
}

bool RaceDetector::EventSetOrdered(int core, Pipe pipe, int event, InstrRef* wait) const {
  auto it = event_waits_.find({core, event});
  if (it == event_waits_.end()) return true;
  const EventWait& w = it->second;
  const int agent = Agent(core, pipe);
  if (agent == w.agent || w.epoch <= clocks_[agent][w.agent]) return true;
  *wait = w.ref;
  return false;
}

VectorClock RaceDetector::Publish(int core, Pipe pipe) const {
  const int agent = Agent(core, pipe);
  VectorClock c = clocks_[agent];
  c[agent] = current_[agent];
  return c;
}

void RaceDetector::Acquire(int core, Pipe pipe, const VectorClock& clock) {
  if (pipe != Pipe::kS) {
    Join(clocks_[Agent(core, pipe)], clock);
    return;
  }
  for (int p = 0; p < target::kNumPipes; ++p)
    Join(clocks_[Agent(core, static_cast<Pipe>(p))], clock);
}

void RaceDetector::OnBarrier(int core, Pipe pipe) {
  if (pipe != Pipe::kAll) {
    const int agent = Agent(core, pipe);
    clocks_[agent][agent] = current_[agent];
    return;
  }
  VectorClock all{};
  for (int p = 0; p < target::kNumPipes; ++p) Join(all, Publish(core, static_cast<Pipe>(p)));
  for (int p = 0; p < target::kNumPipes; ++p) Join(clocks_[Agent(core, static_cast<Pipe>(p))], all);
}

}  // namespace tilejit::runner::sim
