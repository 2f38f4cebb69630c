// SPDX-License-Identifier: Apache-2.0
// The scheduling loop and the scalar units. Each iteration asks every agent (the scalar unit
// and each pipe of each core) for the earliest time it could act given the current state,
// and lets the earliest one act; an agent blocked on an event, a counter, a full queue or a
// drain reports "never". If nothing can act before every core ended, the block deadlocked.
// Scalar ALU instructions run in batches (they touch only registers), so the loop's cost is
// per dispatched or memory instruction, not per scalar instruction.
#include "runner/sim/block.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>

#include "compiler/target/timing.h"
#include "runner/sim/block_runner.h"
#include "runner/sim/half.h"

namespace tilejit::runner::sim {

BlockResult RunBlock(const LaunchContext& ctx, int64_t block) {
  internal::BlockRunner runner(ctx, block);
  return runner.Run();
}

namespace internal {

using target::CoreType;
using target::DType;
using target::FieldId;
using target::Instr;
using target::Opcode;
using target::Pipe;

namespace {

Result<Instr> Resolve(const Instr& in, std::span<const int64_t> regs) {
  Instr out = in;
  for (FieldId f : target::GetOpcodeInfo(in.op).fields) {
    if (target::GetFieldInfo(f).kind != target::FieldKind::kOpnd) continue;
    TILEJIT_ASSIGN_OR_RETURN(int64_t v, target::ResolveOperand(in, f, regs));
    target::SetField(out, f, {0, v});
  }
  return out;
}

// On-chip memories are recycled per host thread: fresh 100 KiB-scale allocations per block
// cost page faults that dominate short blocks. Reset() gives every block zeroed, never-written
// memory, so results do not depend on which thread ran which block before.
thread_local std::vector<std::unique_ptr<LocalMemory>> memory_pool;

std::unique_ptr<LocalMemory> TakeMemory(uint64_t bytes) {
  for (auto& m : memory_pool) {
    if (m != nullptr && m->size() == bytes) {
      std::unique_ptr<LocalMemory> out = std::move(m);
      std::erase(memory_pool, nullptr);
      out->Reset();
      return out;
    }
  }
  return std::make_unique<LocalMemory>(bytes);
}

}  // namespace

BlockRunner::~BlockRunner() {
  for (CoreState& c : cores_) {
    for (auto& m : c.mem) {
      if (m != nullptr && memory_pool.size() < 16) memory_pool.push_back(std::move(m));
    }
  }
}

BlockRunner::BlockRunner(const LaunchContext& ctx, int64_t block)
    : ctx_(ctx),
      t_(*ctx.target),
      block_(block),
      checked_(ctx.options.mode != CheckMode::kFast),
      perturbed_(ctx.options.mode == CheckMode::kPerturbed),
      races_(ctx.options.max_findings),
      rng_(ctx.options.seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(block)) {
  result_.report.block = block;
  result_.gm_traffic.set_max_ranges(ctx.gm_ranges_per_block);
  if (ctx.options.trace) {  // the per-line table is part of the trace only
    result_.pc_cycles[0].assign(ctx.image->aic.size(), 0);
    result_.pc_count[0].assign(ctx.image->aic.size(), 0);
    result_.pc_cycles[1].assign(ctx.image->aiv.size(), 0);
    result_.pc_count[1].assign(ctx.image->aiv.size(), 0);
  }
}

void BlockRunner::SetUpCores() {
  const target::KernelMetadata& m = ctx_.image->metadata;
  const bool aic = m.core_mix != target::CoreMix::kVectorOnly;
  const int aivs = m.core_mix == target::CoreMix::kCubeOnly ? 0 : m.vector_cores_per_block;
  for (int i = 0; i < kMaxCores; ++i) {
    CoreState& c = cores_[i];
    c.index = i;
    c.present = i == 0 ? aic : i <= aivs;
    if (!c.present) continue;
    c.type = i == 0 ? CoreType::kAic : CoreType::kAiv;
    c.code = i == 0 ? &ctx_.image->aic : &ctx_.image->aiv;
    c.lines = i == 0 ? &ctx_.image->aic_lines : &ctx_.image->aiv_lines;
    for (const target::MemInfo& mi : t_.mems) {
      if (mi.owner != c.type || mi.mem == target::Mem::kGM) continue;
      MemSpace s = MemSpace::kCount;
      switch (mi.mem) {
        case target::Mem::kL1:
          s = MemSpace::kL1;
          break;
        case target::Mem::kL0A:
          s = MemSpace::kL0A;
          break;
        case target::Mem::kL0B:
          s = MemSpace::kL0B;
          break;
        case target::Mem::kL0C:
          s = MemSpace::kL0C;
          break;
        case target::Mem::kUB:
          s = MemSpace::kUb;
          break;
        default:
          break;
      }
      if (s != MemSpace::kCount) c.mem[static_cast<int>(s)] = TakeMemory(mi.bytes.value);
    }
  }
}

bool BlockRunner::Drained(const CoreState& c) const {
  for (const PipeState& p : c.pipes) {
    if (!p.queue.empty()) return false;
  }
  return true;
}

uint64_t BlockRunner::DrainTime(const CoreState& c) const {
  uint64_t t = 0;
  for (const PipeState& p : c.pipes) t = std::max(t, std::max(p.last_complete, p.free_at));
  return t;
}

uint64_t BlockRunner::ScalarReadyTime(CoreState& c) {
  if (c.ended) return kNever;
  if (c.pc < 0 || c.pc >= static_cast<int64_t>(c.code->size())) return c.stime;  // faults
  const Instr& in = (*c.code)[c.pc];
  const target::OpcodeInfo& info = target::GetOpcodeInfo(in.op);
  if (in.op == Opcode::kSyncAll && c.at_grid) return kNever;  // released by GridRendezvous
  if (in.op == Opcode::kEnd || in.op == Opcode::kSyncAll ||
      (in.op == Opcode::kBarrier && in.pipe == Pipe::kAll)) {
    return Drained(c) ? std::max(c.stime, DrainTime(c)) : kNever;
  }
  if (info.unit == target::Unit::kScalar) return c.stime;
  const Pipe pipe = target::IssuePipe(in);
  if (pipe == Pipe::kS) {
    auto id = Resolve(in, c.regs);
    if (!id.ok()) return c.stime;  // the step reports the fault
    uint64_t t = 0;
    if (in.op == Opcode::kWaitFlag) {
      return EventReady(c, in.spipe, in.dpipe, static_cast<int>(id->event.imm), &t)
                 ? std::max(c.stime, t)
                 : kNever;
    }
    if (in.op == Opcode::kXwait) {
      return CrossReady(c, static_cast<int>(id->flag.imm), &t) ? std::max(c.stime, t) : kNever;
    }
    return c.stime;
  }
  if (c.pipes[static_cast<int>(pipe)].queue.size() >=
      static_cast<size_t>(t_.issue_queue_depth.value)) {
    return kNever;
  }
  return c.stime;
}

uint64_t BlockRunner::PipeReadyTime(CoreState& c, int pipe) {
  PipeState& p = c.pipes[pipe];
  if (p.queue.empty()) return kNever;
  const Queued& h = p.queue.front();
  uint64_t t = std::max(p.free_at, h.ready);
  uint64_t when = 0;
  switch (h.in.op) {
    case Opcode::kWaitFlag:
      if (!EventReady(c, h.in.spipe, h.in.dpipe, static_cast<int>(h.in.event.imm), &when)) {
        return kNever;
      }
      return std::max(t, when);
    case Opcode::kXwait:
      if (!CrossReady(c, static_cast<int>(h.in.flag.imm), &when)) return kNever;
      return std::max(t, when);
    case Opcode::kBarrier:
      return std::max(t, p.last_complete);
    default:
      return t;
  }
}

BlockResult BlockRunner::Run() {
  SetUpCores();
  const std::atomic<bool>* cancel = ctx_.options.cancel;
  for (uint64_t step = 1; !aborted_; ++step) {
    // A relaxed load every 4096 steps keeps the poll off the profile yet stops a long
    // simulation within microseconds of a cancellation.
    if (cancel != nullptr && step % 4096 == 0 && cancel->load(std::memory_order_relaxed)) {
      result_.cancelled = true;
      LeaveGrid();
      return std::move(result_);
    }
    uint64_t best = kNever;
    int best_core = -1, best_pipe = -1;
    bool busy = false;
    for (CoreState& c : cores_) {
      if (!c.present) continue;
      if (!c.ended || !Drained(c)) busy = true;
      const uint64_t s = ScalarReadyTime(c);
      if (s < best) best = s, best_core = c.index, best_pipe = -1;
      for (int p = 0; p < target::kNumPipes; ++p) {
        const uint64_t t = PipeReadyTime(c, p);
        if (t < best) best = t, best_core = c.index, best_pipe = p;
      }
    }
    if (!busy) break;
    if (best == kNever) {
      if (GridRendezvous()) continue;
      if (result_.cancelled) return std::move(result_);
      break;
    }
    if (perturbed_) ApplyPendingUpTo(best);
    if (best_pipe < 0) {
      ScalarStep(cores_[best_core]);
    } else {
      PipeStep(cores_[best_core], best_pipe, best);
    }
  }
  LeaveGrid();
  ApplyPendingUpTo(kNever);
  if (!aborted_) CheckBlockEnd();
  ReportRaces();
  BlockReport& r = result_.report;
  for (const CoreState& c : cores_) {
    if (!c.present) continue;
    r.span_cycles = std::max({r.span_cycles, c.stime, DrainTime(c)});
    for (Pipe p : target::PipesOf(t_, c.type)) {
      const uint64_t busy = c.pipes[static_cast<int>(p)].busy;
      r.pipes.push_back({CoreName(c.index), p, busy});
      r.roofline_cycles = std::max(r.roofline_cycles, busy);
    }
    r.instructions += c.executed;
  }
  result_.gm_traffic.Done();
  r.gm_read_bytes = result_.gm_traffic.read_bytes();
  r.gm_write_bytes = result_.gm_traffic.write_bytes();
  r.gm_distinct_bytes = result_.gm_traffic.distinct_bytes();
  ReportOverlap();
  CollectDeviceOutput();
  return std::move(result_);
}

void BlockRunner::ScalarStep(CoreState& c) {
  const uint64_t budget = ctx_.options.instr_budget;
  for (int batch = 0; batch < 256; ++batch) {
    if (c.pc < 0 || c.pc >= static_cast<int64_t>(c.code->size())) {
      Fault(c, static_cast<int>(std::max<int64_t>(0, c.code->size() - 1)), Pipe::kS,
            "execution ran past the end of the program (pc " + std::to_string(c.pc) + ")");
      return;
    }
    if (++c.executed > budget) {
      Add(FindingKind::kBudget, "block " + std::to_string(block_) + ", " + CoreName(c.index) +
                                    ": instruction budget of " + std::to_string(budget) +
                                    " exhausted at " + Describe(c.index, c.pc, Pipe::kS));
      aborted_ = true;
      return;
    }
    const Instr& in = (*c.code)[c.pc];
    const target::OpcodeInfo& info = target::GetOpcodeInfo(in.op);
    const int pc = static_cast<int>(c.pc);
    if (info.unit == target::Unit::kScalar && in.op != Opcode::kEnd &&
        info.timing == target::TimingClass::kScalarAlu) {
      const uint64_t before = c.stime;
      if (!ExecScalarAlu(c, in)) return;
      Trace(c, Pipe::kS, before, c.stime, pc);
      CountPc(c, pc, c.stime - before);
      c.pipes[static_cast<int>(Pipe::kS)].busy += c.stime - before;
      // Keep batching only while the next instruction is another plain ALU one.
      if (c.pc < 0 || c.pc >= static_cast<int64_t>(c.code->size())) continue;
      const target::OpcodeInfo& next = target::GetOpcodeInfo((*c.code)[c.pc].op);
      if (next.unit != target::Unit::kScalar || next.timing != target::TimingClass::kScalarAlu ||
          (*c.code)[c.pc].op == Opcode::kEnd) {
        return;
      }
      continue;
    }
    if (in.op == Opcode::kSyncAll) {  // drained (ScalarReadyTime); GridRendezvous goes on
      c.at_grid = true;
      c.grid_arrival = std::max(c.stime, DrainTime(c));
      if (checked_) races_.OnBarrier(c.index, Pipe::kAll);
      return;
    }
    if (info.unit == target::Unit::kScalar && in.op != Opcode::kEnd) {
      ExecScalarMemory(c, in);
      return;
    }
    if (in.op == Opcode::kEnd) {
      c.stime = std::max(c.stime, DrainTime(c)) + t_.scalar_alu.value;
      c.ended = true;
      return;
    }
    if (in.op == Opcode::kBarrier && in.pipe == Pipe::kAll) {
      c.stime = std::max(c.stime, DrainTime(c)) + t_.sync_cycles.value;
      if (checked_) races_.OnBarrier(c.index, Pipe::kAll);
      Trace(c, Pipe::kS, c.stime - t_.sync_cycles.value, c.stime, pc);
      ++c.pc;
      return;
    }
    Dispatch(c, in);
    return;
  }
}

void BlockRunner::Dispatch(CoreState& c, const Instr& in) {
  const int pc = static_cast<int>(c.pc);
  auto resolved = Resolve(in, c.regs);
  if (!resolved.ok()) {
    Fault(c, pc, target::IssuePipe(in), resolved.status().message());
    return;
  }
  const Pipe pipe = target::IssuePipe(in);
  if (pipe == Pipe::kS) {
    // set_flag s->x fires at once (scalar work is complete in order); waits passed their
    // readiness check in ScalarReadyTime.
    const uint64_t sync = t_.sync_cycles.value;
    uint64_t when = c.stime;
    if (in.op == Opcode::kSetFlag) {
      SetEvent(c, Pipe::kS, in.dpipe, static_cast<int>(resolved->event.imm), c.stime + sync, pc);
    } else if (in.op == Opcode::kWaitFlag) {
      EventReady(c, in.spipe, in.dpipe, static_cast<int>(resolved->event.imm), &when);
      TakeEvent(c, in.spipe, in.dpipe, static_cast<int>(resolved->event.imm), Pipe::kS,
                std::max(when, c.stime), pc);
    } else if (in.op == Opcode::kXwait) {
      CrossReady(c, static_cast<int>(resolved->flag.imm), &when);
      CrossTake(c, static_cast<int>(resolved->flag.imm), Pipe::kS, std::max(when, c.stime), pc);
    } else {
      Fault(c, pc, Pipe::kS, "instruction cannot be issued on the scalar pipe");
      return;
    }
    c.stime = std::max(when, c.stime) + sync;
    ++c.pc;
    return;
  }
  c.pipes[static_cast<int>(pipe)].queue.push_back({*resolved, pc, c.stime});
  c.stime += 1;  // one dispatch cycle
  ++c.pc;
}

}  // namespace internal
}  // namespace tilejit::runner::sim
