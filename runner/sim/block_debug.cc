// SPDX-License-Identifier: Apache-2.0
// Device printing (docs/isa.md, "Device printing"). Each core keeps its own text and the block
// joins them core after core at its end, so the output is in program order per core and the
// same in every run, whatever the timing. A dump reads memory with the bounds check of a scalar
// load but takes part in no race or never-written check: printing a buffer before it is filled,
// or another core's output while it is being written, is what a debugging dump is for, and it
// changes nothing the kernel computes.
#include <algorithm>

#include "runner/sim/block_runner.h"
#include "runner/sim/device_print.h"

namespace tilejit::runner::sim::internal {

using target::FieldId;
using target::Instr;
using target::Opcode;
using target::Pipe;
using target::PrintKind;
using target::PrintRecord;

namespace {

const PrintRecord* FindRecord(const KernelImage& image, const Instr& in, PrintKind kind) {
  const auto& prints = image.metadata.prints;
  if (static_cast<size_t>(in.msg) >= prints.size()) return nullptr;
  const PrintRecord& r = prints[in.msg];
  return r.kind == kind ? &r : nullptr;
}

MemSpace SpaceOf(const std::string& memory) {
  if (memory == "l1") return MemSpace::kL1;
  if (memory == "l0a") return MemSpace::kL0A;
  if (memory == "l0b") return MemSpace::kL0B;
  if (memory == "l0c") return MemSpace::kL0C;
  if (memory == "ub") return MemSpace::kUb;
  return MemSpace::kGm;
}

}  // namespace

bool BlockRunner::ExecPrint(CoreState& c, const Instr& in) {
  const int pc = static_cast<int>(c.pc);
  if (in.op == Opcode::kDbgArg) {
    if (c.print_args.size() >= target::kMaxPrintArgs) {
      Fault(c, pc, Pipe::kS,
            "more than " + std::to_string(target::kMaxPrintArgs) +
                " dbg_arg values before a dbg_print");
      return false;
    }
    c.print_args.push_back(c.regs[in.rs1]);
    return true;
  }
  const PrintRecord* r = FindRecord(*ctx_.image, in, PrintKind::kPrintf);
  if (r == nullptr) {
    Fault(c, pc, Pipe::kS,
          "dbg_print msg " + std::to_string(in.msg) +
              " names no printf record of the kernel metadata");
    return false;
  }
  std::vector<PrintArg> args;
  for (size_t i = 0; i < c.print_args.size(); ++i) {
    args.push_back(
        {c.print_args[i], i < r->args.size() ? r->args[i] : target::ElementType::kInt64});
  }
  c.print_args.clear();
  Print(c, FormatPrintf(r->format, args));
  return true;
}

void BlockRunner::ExecDump(CoreState& c, const Instr& in) {
  const int pc = static_cast<int>(c.pc);
  const PrintRecord* r = FindRecord(*ctx_.image, in, PrintKind::kDump);
  auto addr = target::ResolveOperand(in, FieldId::src, c.regs);
  if (r == nullptr || !addr.ok()) {
    Fault(c, pc, Pipe::kS,
          r == nullptr ? "dbg_dump msg " + std::to_string(in.msg) +
                             " names no dump record of the kernel metadata"
                       : addr.status().message());
    return;
  }
  const uint64_t bytes = static_cast<uint64_t>(r->count * target::ElementTypeBytes(r->dtype));
  const MemSpace space = SpaceOf(r->memory);
  Queued q{in, pc, c.stime};
  const Span span{space, static_cast<uint64_t>(*addr), bytes, false, false, false, false};
  if (!CheckSpans(c, q, {span}, /*observed=*/false)) return;
  const uint8_t* p = HostBytes(c, space, static_cast<uint64_t>(*addr), bytes);
  Print(c, FormatDump(*r, static_cast<uint64_t>(*addr), {p, bytes}));
  const uint64_t cost = t_.scalar_load.value;
  Trace(c, Pipe::kS, c.stime, c.stime + cost, pc);
  CountPc(c, pc, cost);
  c.pipes[static_cast<int>(Pipe::kS)].busy += cost;
  c.stime += cost;
  ++c.pc;
}

void BlockRunner::Print(CoreState& c, std::string_view text) {
  const std::string prefix = "[block " + std::to_string(block_) + " " + CoreName(c.index) + "] ";
  for (char ch : text) {
    if (c.printed.size() >= ctx_.device_output_per_block) return;
    if (c.printed.empty() || c.printed.back() == '\n') c.printed += prefix;
    c.printed += ch;
  }
}

void BlockRunner::CollectDeviceOutput() {
  std::string& out = result_.device_output;
  for (CoreState& c : cores_) {
    if (c.printed.empty()) continue;
    if (c.printed.back() != '\n') c.printed += '\n';
    out += c.printed;
  }
  if (out.size() > ctx_.device_output_per_block) {
    out.resize(ctx_.device_output_per_block);
    out += "\n[block " + std::to_string(block_) + "] (device output truncated)\n";
  }
}

}  // namespace tilejit::runner::sim::internal
