// SPDX-License-Identifier: Apache-2.0
// Every finding names the instruction(s) involved the same way: core, pipe, program counter,
// the instruction in assembler syntax (asm.h) and its line-table entry (IR statement id), so
// that a report can be traced back to the kernel source through the request's source map.
#include <sstream>

#include "compiler/target/asm.h"
#include "compiler/target/line_table.h"
#include "runner/sim/block_runner.h"

namespace tilejit::runner::sim::internal {

using target::Instr;
using target::Opcode;
using target::Pipe;

std::string BlockRunner::CoreName(int core) const {
  return core == 0 ? "aic" : core == 1 ? "aiv0" : "aiv1";
}

std::string BlockRunner::Describe(int core, int pc, Pipe pipe) const {
  const CoreState& c = cores_[core];
  std::ostringstream os;
  os << CoreName(core) << " pipe " << target::PipeName(pipe) << " pc " << pc;
  if (c.code != nullptr && pc >= 0 && pc < static_cast<int>(c.code->size())) {
    const Instr& in = (*c.code)[pc];
    os << " `" << target::Disassemble(in) << "`";
    if (pc < static_cast<int>(c.lines->size())) {
      if ((*c.lines)[pc] != target::kNoStmt) os << " (line-table stmt " << (*c.lines)[pc] << ")";
    } else {
      os << " (line " << in.line << ")";
    }
  }
  return os.str();
}

void BlockRunner::Add(FindingKind kind, std::string message) {
  if (static_cast<int>(result_.findings.size()) >= ctx_.options.max_findings) {
    ++result_.suppressed;
    return;
  }
  result_.findings.push_back({kind, block_, std::move(message)});
}

void BlockRunner::Fault(const CoreState& c, int pc, Pipe pipe, const std::string& what,
                        FindingKind kind) {
  Add(kind, "block " + std::to_string(block_) + ": " + std::string(FindingKindName(kind)) + " at " +
                Describe(c.index, pc, pipe) + ": " + what);
  aborted_ = true;
}

void BlockRunner::ReportRaces() {
  for (const RaceFinding& f : races_.findings()) {
    std::ostringstream os;
    os << "block " << block_ << ": " << RaceKindName(f.kind) << " race (" << RaceScopeName(f.scope)
       << ") on " << MemSpaceName(f.space);
    if (f.space != MemSpace::kGm) os << " of " << CoreName(f.mem_core);
    os << " bytes [" << f.begin << ", " << f.end << ")";
    if (f.space == MemSpace::kGm) {
      if (const auto* a = ctx_.gm->Nearest(f.begin)) {
        os << " (tensor '" << a->name << "' offset " << f.begin - a->addr << ")";
      }
    }
    os << ": " << Describe(f.first.core, f.first.pc, f.first.pipe) << " is unordered with "
       << Describe(f.second.core, f.second.pc, f.second.pipe);
    Add(FindingKind::kRace, os.str());
  }
  result_.suppressed += races_.suppressed();
}

// The AIVs' unions are merged into one "either AIV busy" set before intersecting with the
// AIC's, so a cycle in which both AIVs work beside the cube counts once, not twice.
void BlockRunner::ReportOverlap() {
  BlockReport& r = result_.report;
  BusyIntervals aiv_any;
  for (const CoreState& c : cores_) {
    if (!c.present) continue;
    if (c.index == 0) {
      r.aic_busy_cycles = c.busy.Length();
    } else {
      r.aiv_busy_cycles.push_back(c.busy.Length());
      aiv_any.AddAll(c.busy);
    }
  }
  r.aiv_any_busy_cycles = aiv_any.Length();
  if (cores_[0].present) r.cube_vector_overlap_cycles = IntersectionLength(cores_[0].busy, aiv_any);
}

void BlockRunner::ReportDeadlock() {
  std::ostringstream os;
  os << "block " << block_ << ": deadlock: every pipe is waiting and nothing is in flight;";
  for (CoreState& c : cores_) {
    if (!c.present || c.ended) continue;
    if (c.pc >= 0 && c.pc < static_cast<int64_t>(c.code->size())) {
      const Instr& in = (*c.code)[c.pc];
      const char* why = in.op == Opcode::kEnd        ? "waits for its pipes to drain at end"
                        : in.op == Opcode::kBarrier  ? "waits for its pipes to drain"
                        : in.op == Opcode::kWaitFlag ? "waits for an event never set"
                        : in.op == Opcode::kXwait    ? "waits for a cross-core flag never set"
                        : in.op == Opcode::kSyncAll  ? "waits at sync_all"
                                                     : "waits for a full dispatch queue";
      os << " scalar unit at " << Describe(c.index, static_cast<int>(c.pc), Pipe::kS) << " " << why;
      if (in.op == Opcode::kWaitFlag) {
        os << " (" << target::PipeName(in.spipe) << " -> " << target::PipeName(in.dpipe) << ", id "
           << in.event.imm << (in.event.is_static() ? "" : " + register") << ")";
      } else if (in.op == Opcode::kXwait) {
        os << " (cross-core flag " << in.flag.imm << (in.flag.is_static() ? "" : " + register")
           << ")";
      }
      os << ";";
    }
    for (int p = 0; p < target::kNumPipes; ++p) {
      const PipeState& ps = c.pipes[p];
      if (ps.queue.empty()) continue;
      const Queued& h = ps.queue.front();
      os << " " << Describe(c.index, h.pc, static_cast<Pipe>(p));
      if (h.in.op == Opcode::kWaitFlag) {
        os << " waits for event (" << target::PipeName(h.in.spipe) << " -> "
           << target::PipeName(h.in.dpipe) << ", id " << h.in.event.imm << ") that is never set";
      } else if (h.in.op == Opcode::kXwait) {
        os << " waits for cross-core flag " << h.in.flag.imm << " that is never set";
      } else {
        os << " is blocked";
      }
      os << ";";
    }
  }
  Add(FindingKind::kDeadlock, os.str());
}

void BlockRunner::CheckBlockEnd() {
  for (const CoreState& c : cores_) {
    if (!c.present) continue;
    for (int i = 0; i < static_cast<int>(c.events.size()); ++i) {
      const EventFlag& ev = c.events[i];
      if (!ev.set) continue;
      const int id = i % 8, pair = i / 8;
      const Pipe src = static_cast<Pipe>(pair / target::kNumPipes);
      const Pipe dst = static_cast<Pipe>(pair % target::kNumPipes);
      Add(FindingKind::kFlagMisuse,
          "block " + std::to_string(block_) + ": event (" + std::string(target::PipeName(src)) +
              " -> " + std::string(target::PipeName(dst)) + ", id " + std::to_string(id) +
              ") set by " + Describe(c.index, ev.setter_pc, src) +
              " is still armed at the end of the block (no matching wait_flag)");
    }
    for (int id = 0; id < kCrossIds; ++id) {
      if (c.xcount[id].empty()) continue;
      const CrossEntry& e = c.xcount[id].front();
      Add(FindingKind::kFlagMisuse, "block " + std::to_string(block_) + ": cross-core flag " +
                                        std::to_string(id) + " of " + CoreName(c.index) + " has " +
                                        std::to_string(c.xcount[id].size()) +
                                        " unconsumed set(s) at the end of the block, first by " +
                                        Describe(e.setter_core, e.setter_pc, Pipe::kAll));
    }
    for (int v = 0; v < 2; ++v) {
      for (int id = 0; id < kCrossIds; ++id) {
        if (c.xpair[v][id].empty()) continue;
        const CrossEntry& e = c.xpair[v][id].front();
        Add(FindingKind::kFlagMisuse,
            "block " + std::to_string(block_) + ": cross-core flag " + std::to_string(id) +
                " set by " + Describe(e.setter_core, e.setter_pc, Pipe::kAll) +
                " never paired with the sibling AIV's set (mode 2 needs both AIVs)");
      }
    }
  }
}

}  // namespace tilejit::runner::sim::internal
