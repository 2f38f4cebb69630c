// SPDX-License-Identifier: Apache-2.0
// Pipe actions. A pipe takes the head of its queue when the previous instruction's occupancy
// ended (and, for waits, when the event or counter is available). set_flag/xset fire at
// max(now, completion of every earlier instruction of the pipe); the race detector receives
// the publishing pipe's clock at that point, which is exactly "every earlier instruction of
// the pipe", because pipes are processed in queue order.
//
// Data effects are applied when the instruction starts (fast and checked modes: the order of
// starts is a valid execution of any correctly synchronised program), or, in perturbed mode,
// at completion with randomised latencies, so that unsynchronised programs observe stale or
// poisoned data and compute wrong numbers.
#include <algorithm>
#include <bit>
#include <cstring>

#include "compiler/target/timing.h"
#include "runner/sim/block_runner.h"
#include "runner/sim/half.h"

namespace tilejit::runner::sim::internal {

using target::DType;
using target::Instr;
using target::Opcode;
using target::Pipe;

class CoreMemView : public MemView {
 public:
  CoreMemView(BlockRunner& r, CoreState& c) : r_(r), c_(c) {}
  uint8_t* Ptr(MemSpace space, uint64_t addr, uint64_t bytes) override {
    if (space == MemSpace::kGm) {
      // Instructions touch one tensor per operand, row after row: remember the last one.
      if (last_ == nullptr || addr < last_->addr || addr - last_->addr > last_->size ||
          bytes > last_->size - (addr - last_->addr)) {
        last_ = r_.ctx_.gm->Find(addr, bytes);
      }
      return last_->bytes.get() + (addr - last_->addr);
    }
    return c_.mem[static_cast<int>(space)]->data() + addr;
  }
  float& DeqScale() override { return c_.deq_scale; }

 private:
  BlockRunner& r_;
  CoreState& c_;
  GlobalMemory::Allocation* last_ = nullptr;
};

namespace {

int EventIndex(Pipe src, Pipe dst, int id) {
  return (static_cast<int>(src) * target::kNumPipes + static_cast<int>(dst)) * 8 + id;
}

int64_t AlignmentOf(const target::NpuTarget& t, MemSpace s) {
  target::Mem m = target::Mem::kGM;
  switch (s) {
    case MemSpace::kL1:
      m = target::Mem::kL1;
      break;
    case MemSpace::kL0A:
      m = target::Mem::kL0A;
      break;
    case MemSpace::kL0B:
      m = target::Mem::kL0B;
      break;
    case MemSpace::kL0C:
      m = target::Mem::kL0C;
      break;
    case MemSpace::kUb:
      m = target::Mem::kUB;
      break;
    default:
      return 1;
  }
  const target::MemInfo* mi = target::MemInfoOf(t, m);
  return mi != nullptr ? mi->align.value : 1;
}

void Join(VectorClock& a, const VectorClock& b) {
  for (int i = 0; i < kAgents; ++i) a[i] = std::max(a[i], b[i]);
}

}  // namespace

void BlockRunner::Trace(const CoreState& c, Pipe pipe, uint64_t start, uint64_t end, int pc,
                        int64_t flow, bool flow_out) {
  if (!ctx_.options.trace) return;
  if (result_.trace.size() >= ctx_.trace_events_per_block) {
    ++result_.trace_dropped;
    return;
  }
  result_.trace.push_back({c.index, pipe, start, end, pc, flow, flow_out});
}

void BlockRunner::PipeStep(CoreState& c, int pipe, uint64_t t) {
  PipeState& p = c.pipes[pipe];
  const Queued q = std::move(p.queue.front());
  p.queue.pop_front();
  const uint64_t sync = t_.sync_cycles.value;
  const Pipe self = static_cast<Pipe>(pipe);
  switch (q.in.op) {
    case Opcode::kSetFlag: {
      const uint64_t fire = std::max(t, p.last_complete) + sync;
      SetEvent(c, q.in.spipe, q.in.dpipe, static_cast<int>(q.in.event.imm), fire, q.pc);
      p.free_at = t + sync;
      return;
    }
    case Opcode::kWaitFlag:
      TakeEvent(c, q.in.spipe, q.in.dpipe, static_cast<int>(q.in.event.imm), self, t, q.pc);
      p.free_at = t + sync;
      return;
    case Opcode::kBarrier:
      if (checked_) races_.OnBarrier(c.index, self);
      Trace(c, self, t, t + sync, q.pc);
      p.free_at = t + sync;
      return;
    case Opcode::kXset:
      CrossSet(c, q.in, std::max(t, p.last_complete) + t_.cross_set_latency.value, q.pc);
      p.free_at = t + sync;
      return;
    case Opcode::kXwait:
      CrossTake(c, static_cast<int>(q.in.flag.imm), self, t, q.pc);
      p.free_at = t + sync;
      return;
    default:
      ExecPipeInstr(c, pipe, q, t);
  }
}

void BlockRunner::ExecPipeInstr(CoreState& c, int pipe, const Queued& q, uint64_t t) {
  PipeState& p = c.pipes[pipe];
  auto cost = target::StaticInstrCost(q.in, t_);
  if (!cost.ok()) {
    Fault(c, q.pc, static_cast<Pipe>(pipe), cost.status().message());
    return;
  }
  // One access-set buffer for the block's instructions (perturbed mode moves it into the
  // pending effect, leaving it empty for the next one).
  std::vector<Span>& spans = scratch_spans_;
  spans.clear();
  DescribeAccesses(q.in, &spans);
  if (!CheckSpans(c, q, spans)) return;
  for (const Span& s : spans) {
    if (s.space == MemSpace::kGm) result_.gm_traffic.Add(s.addr, s.bytes, s.write);
  }
  const uint64_t occ = std::max<int64_t>(1, cost->occupancy);
  uint64_t lat = std::max<uint64_t>(occ, cost->latency);
  if (perturbed_) {
    std::uniform_real_distribution<double> scale(0.25, 4.0);
    lat = std::max<uint64_t>(occ, static_cast<uint64_t>(static_cast<double>(lat) * scale(rng_)));
  }
  uint64_t complete = t + lat;
  if (perturbed_ && static_cast<Pipe>(pipe) == Pipe::kM) {
    complete = std::max(complete, p.last_complete);  // the cube orders its own chain
  }
  if (perturbed_) {
    pending_.push({complete, seq_++, c.index, q, std::move(spans)});
  } else {
    ApplyNow(c, q, spans);
  }
  p.free_at = t + occ;
  p.last_complete = std::max(p.last_complete, complete);
  p.busy += occ;
  if (static_cast<Pipe>(pipe) != Pipe::kS) c.busy.Add(t, t + occ);
  CountPc(c, q.pc, occ);
  Trace(c, static_cast<Pipe>(pipe), t, complete, q.pc);
}

bool BlockRunner::CheckSpans(CoreState& c, const Queued& q, const std::vector<Span>& spans,
                             bool observed) {
  const Pipe pipe = target::GetOpcodeInfo(q.in.op).unit == target::Unit::kScalar
                        ? Pipe::kS
                        : target::IssuePipe(q.in);
  for (const Span& s : spans) {
    // Built only when a fault is reported: this loop runs for every span of every instruction.
    const auto where = [&s] {
      return std::string(MemSpaceName(s.space)) + " bytes [" + std::to_string(s.addr) + ", " +
             std::to_string(s.addr + s.bytes) + ")";
    };
    if (s.space == MemSpace::kGm) {
      if (ctx_.gm->Find(s.addr, s.bytes) == nullptr) {
        const GlobalMemory::Allocation* near = ctx_.gm->Nearest(s.addr);
        std::string hint = near == nullptr ? "below every allocation"
                                           : "nearest allocation '" + near->name + "' is [" +
                                                 std::to_string(near->addr) + ", " +
                                                 std::to_string(near->addr + near->size) + ")";
        Fault(c, q.pc, pipe, "out-of-bounds access to " + where() + ": " + hint,
              FindingKind::kOutOfBounds);
        return false;
      }
    } else {
      const auto& mem = c.mem[static_cast<int>(s.space)];
      if (mem == nullptr) {
        Fault(c, q.pc, pipe,
              "illegal data path: " + CoreName(c.index) + " has no " +
                  std::string(MemSpaceName(s.space)),
              FindingKind::kIllegalPath);
        return false;
      }
      if (s.addr > mem->size() || s.bytes > mem->size() - s.addr) {
        Fault(c, q.pc, pipe,
              "out-of-bounds access to " + where() + " (size " + std::to_string(mem->size()) + ")",
              FindingKind::kOutOfBounds);
        return false;
      }
    }
    if (!checked_) continue;
    const int64_t align = s.element ? static_cast<int64_t>(s.bytes) : AlignmentOf(t_, s.space);
    if (align > 1 && s.addr % align != 0) {
      Fault(c, q.pc, pipe,
            "misaligned access to " + where() + " (needs " + std::to_string(align) +
                "-byte alignment)",
            FindingKind::kMisaligned);
      return false;
    }
  }
  if (checked_ && observed) {
    std::vector<Access> acc;
    acc.reserve(spans.size());
    for (const Span& s : spans) {
      acc.push_back({s.space, s.addr, s.addr + s.bytes, s.write, s.accumulate, s.atomic});
      if (s.space == MemSpace::kGm) RecordGmTouch(c.index, q.pc, pipe, s);
    }
    races_.OnInstr({c.index, q.pc, pipe}, acc);
  }
  return true;
}

void BlockRunner::RecordGmTouch(int core, int pc, Pipe pipe, const Span& s) {
  if (aborted_) return;
  auto& touches = result_.gm_touches;
  if (!touches.empty()) {
    GmTouch& last = touches.back();
    if (last.end == s.addr && last.write == s.write && last.atomic == s.atomic && last.pc == pc &&
        last.core == core && last.epoch == epoch_) {
      last.end = s.addr + s.bytes;
      return;
    }
  }
  if (touches.size() >= ctx_.gm_records_per_block) {
    Add(FindingKind::kLaunchCap,
        "block " + std::to_string(block_) + ", " + CoreName(core) + ": more than " +
            std::to_string(ctx_.gm_records_per_block) +
            " separate GM accesses to keep for the inter-block race check (the block's share "
            "of the launch's cap) at " +
            Describe(core, pc, pipe) + "; launch in fast mode, or with fewer blocks");
    return;
  }
  touches.push_back({s.addr, s.addr + s.bytes, s.write, s.atomic, core, pc, epoch_});
}

const uint8_t* BlockRunner::HostBytes(CoreState& c, MemSpace space, uint64_t addr, uint64_t bytes) {
  return CoreMemView(*this, c).Ptr(space, addr, bytes);
}

void BlockRunner::ApplyNow(CoreState& c, const Queued& q, const std::vector<Span>& spans) {
  if (aborted_) return;
  CoreMemView view(*this, c);
  if (checked_) {
    for (const Span& s : spans) {
      if (s.write && !s.atomic) continue;
      WrittenMap& wm = s.space == MemSpace::kGm ? ctx_.gm->Find(s.addr, s.bytes)->written
                                                : c.mem[static_cast<int>(s.space)]->written();
      const uint64_t base = s.space == MemSpace::kGm ? ctx_.gm->Find(s.addr, s.bytes)->addr : 0;
      const uint64_t bad = wm.FirstUnwritten(s.addr - base, s.addr - base + s.bytes);
      if (bad < s.addr - base + s.bytes) {
        Add(FindingKind::kUninitRead,
            "block " + std::to_string(block_) + ": read of never-written " +
                std::string(MemSpaceName(s.space)) + " byte " + std::to_string(bad + base) +
                " (run [" + std::to_string(s.addr) + ", " + std::to_string(s.addr + s.bytes) +
                ")) by " + Describe(c.index, q.pc, target::IssuePipe(q.in)));
        break;
      }
    }
  }
  const Opcode op = q.in.op;
  if (op == Opcode::kLdUb || op == Opcode::kLdGm || op == Opcode::kStUb || op == Opcode::kStGm) {
    const MemSpace space =
        op == Opcode::kLdUb || op == Opcode::kStUb ? MemSpace::kUb : MemSpace::kGm;
    const uint64_t eb = target::DTypeBytes(q.in.dtype);
    uint8_t* p = view.Ptr(space, q.in.addr.imm, eb);
    const DType d = q.in.dtype;
    if (op == Opcode::kLdUb || op == Opcode::kLdGm) {
      int64_t v = 0;
      if (d == DType::kF16 || d == DType::kBF16) {
        v = std::bit_cast<uint32_t>(static_cast<float>(LoadElem(p, d)));
      } else if (d == DType::kF32 || d == DType::kU8 || d == DType::kU16 || d == DType::kU32) {
        uint32_t u = 0;
        std::memcpy(&u, p, eb);
        v = u;
      } else {
        v = static_cast<int64_t>(LoadElem(p, d));
        if (d == DType::kS64) std::memcpy(&v, p, 8);
      }
      if (q.in.rd != 0) c.regs[q.in.rd] = v;
    } else {
      const int64_t v = c.regs[q.in.rs1];
      if (d == DType::kF16 || d == DType::kBF16) {
        StoreElem(p, d, std::bit_cast<float>(static_cast<uint32_t>(v)));
      } else {
        std::memcpy(p, &v, eb);  // little-endian truncation
      }
    }
  } else {
    const Status st = ApplyEffect(q.in, view);
    if (!st.ok()) {
      Fault(c, q.pc, target::IssuePipe(q.in), st.message());
      return;
    }
  }
  if (!checked_) return;
  for (const Span& s : spans) {
    if (!s.write) continue;
    if (s.space == MemSpace::kGm) {
      GlobalMemory::Allocation* a = ctx_.gm->Find(s.addr, s.bytes);
      a->written.Mark(s.addr - a->addr, s.addr - a->addr + s.bytes);
    } else {
      c.mem[static_cast<int>(s.space)]->written().Mark(s.addr, s.addr + s.bytes);
    }
  }
}

void BlockRunner::ApplyPendingUpTo(uint64_t t) {
  while (!pending_.empty() && pending_.top().time <= t) {
    Pending p = pending_.top();
    pending_.pop();
    ApplyNow(cores_[p.core], p.q, p.spans);
  }
}

bool BlockRunner::EventReady(CoreState& c, Pipe src, Pipe dst, int id, uint64_t* time) {
  const EventFlag& ev = c.events[EventIndex(src, dst, id)];
  if (!ev.set) return false;
  *time = ev.time;
  return true;
}

void BlockRunner::SetEvent(CoreState& c, Pipe src, Pipe dst, int id, uint64_t time, int pc) {
  EventFlag& ev = c.events[EventIndex(src, dst, id)];
  if (ev.set) {
    Add(FindingKind::kFlagMisuse,
        "block " + std::to_string(block_) + ": double set of event (" +
            std::string(target::PipeName(src)) + " -> " + std::string(target::PipeName(dst)) +
            ", id " + std::to_string(id) + ") by " + Describe(c.index, pc, src) +
            " while it is still set by " + Describe(c.index, ev.setter_pc, src) +
            " (no wait_flag in between)");
    return;
  }
  InstrRef wait;
  if (checked_ && !races_.EventSetOrdered(c.index, src, EventIndex(src, dst, id), &wait)) {
    // It did not happen in this run, but nothing orders it: other timings would double-set.
    Add(FindingKind::kFlagMisuse,
        "block " + std::to_string(block_) + ": set of event (" +
            std::string(target::PipeName(src)) + " -> " + std::string(target::PipeName(dst)) +
            ", id " + std::to_string(id) + ") by " + Describe(c.index, pc, src) +
            " is unordered with its previous wait_flag " + Describe(wait.core, wait.pc, wait.pipe) +
            " (a possible double set)");
  }
  ev.set = true;
  ev.time = time;
  ev.setter_pc = pc;
  ev.flow = next_flow_++;
  if (checked_) ev.clock = races_.Publish(c.index, src);
  Trace(c, src, time > 0 ? time - 1 : 0, time, pc, ev.flow, true);
}

void BlockRunner::TakeEvent(CoreState& c, Pipe src, Pipe dst, int id, Pipe waiter, uint64_t t,
                            int pc) {
  EventFlag& ev = c.events[EventIndex(src, dst, id)];
  ev.set = false;
  if (checked_) {
    races_.Acquire(c.index, waiter, ev.clock);
    races_.OnEventWait(c.index, waiter, EventIndex(src, dst, id), pc);
  }
  Trace(c, waiter, t, t + t_.sync_cycles.value, pc, ev.flow, false);
}

void BlockRunner::CrossSet(CoreState& c, const Instr& in, uint64_t fire, int pc) {
  const int id = static_cast<int>(in.flag.imm);
  CrossEntry e{fire, {}, c.index, pc, next_flow_++};
  if (checked_) e.clock = races_.Publish(c.index, in.pipe);
  Trace(c, in.pipe, fire > 0 ? fire - 1 : 0, fire, pc, e.flow, true);
  const size_t limit = static_cast<size_t>(t_.cross_flag_counter_max.value);
  auto push = [&](CoreState& to, const CrossEntry& entry) {
    to.xcount[id].push_back(entry);
    if (to.xcount[id].size() > limit) {
      Fault(c, pc, in.pipe,
            "cross-core flag " + std::to_string(id) + " counter of " + CoreName(to.index) +
                " exceeds " + std::to_string(limit),
            FindingKind::kFlagMisuse);
    }
  };
  if (in.xmode == 1) {
    CoreState& sib = cores_[c.index == 1 ? 2 : 1];
    if (c.index == 0 || !sib.present) {
      Fault(c, pc, in.pipe, "xset mode 1 needs two AIVs in the block", FindingKind::kFlagMisuse);
      return;
    }
    push(sib, e);
    return;
  }
  if (in.xmode != 2) {
    Fault(c, pc, in.pipe, "xset mode 0 (all-core rendezvous) is not supported by the simulator");
    return;
  }
  if (c.index == 0) {
    bool any = false;
    for (int i = 1; i < kMaxCores; ++i) {
      if (cores_[i].present) push(cores_[i], e), any = true;
    }
    if (!any) Fault(c, pc, in.pipe, "xset mode 2 on the AIC but the block has no AIV");
    return;
  }
  CoreState& aic = cores_[0];
  if (!aic.present) {
    Fault(c, pc, in.pipe, "xset mode 2 on an AIV but the block has no AIC");
    return;
  }
  aic.xpair[c.index - 1][id].push_back(e);
  // The AIC's counter increments once every AIV of the group has set.
  while (true) {
    CrossEntry merged{0, {}, c.index, pc, e.flow};
    for (int i = 1; i < kMaxCores; ++i) {
      if (cores_[i].present && aic.xpair[i - 1][id].empty()) return;
    }
    for (int i = 1; i < kMaxCores; ++i) {
      if (!cores_[i].present) continue;
      const CrossEntry& x = aic.xpair[i - 1][id].front();
      merged.time = std::max(merged.time, x.time);
      Join(merged.clock, x.clock);
      aic.xpair[i - 1][id].pop_front();
    }
    push(aic, merged);
  }
}

bool BlockRunner::CrossReady(CoreState& c, int id, uint64_t* time) {
  if (c.xcount[id].empty()) return false;
  *time = c.xcount[id].front().time;
  return true;
}

void BlockRunner::CrossTake(CoreState& c, int id, Pipe waiter, uint64_t t, int pc) {
  const CrossEntry e = c.xcount[id].front();
  c.xcount[id].pop_front();
  if (checked_) races_.Acquire(c.index, waiter, e.clock);
  Trace(c, waiter, t, t + t_.sync_cycles.value, pc, e.flow, false);
}

}  // namespace tilejit::runner::sim::internal
