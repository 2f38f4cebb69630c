// SPDX-License-Identifier: Apache-2.0
// The JSON is written by hand (a flat array of events with numbers and fixed ASCII strings),
// which keeps the runner free of a JSON dependency; instruction names go through Escape.
#include "runner/sim/trace.h"

#include <map>
#include <sstream>

#include "compiler/target/asm.h"
#include "compiler/target/line_table.h"

namespace tilejit::runner::sim {
namespace {

std::string Escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

const char* CoreLabel(int core) { return core == 0 ? "aic" : core == 1 ? "aiv0" : "aiv1"; }

}  // namespace

std::string_view LaneName(target::Pipe pipe) {
  switch (pipe) {
    case target::Pipe::kS:
      return "SCALAR";
    case target::Pipe::kV:
      return "VECTOR";
    case target::Pipe::kM:
      return "CUBE";
    case target::Pipe::kMte1:
      return "MTE1";
    case target::Pipe::kMte2:
      return "MTE2";
    case target::Pipe::kMte3:
      return "MTE3";
    case target::Pipe::kFix:
      return "FIXP";
    case target::Pipe::kAll:
      return "ALL";
  }
  return "?";
}

std::string ChromeTraceJson(const KernelImage& image, const std::vector<BlockResult>& blocks,
                            double clock_hz) {
  const double us_per_cycle = 1e6 / clock_hz;
  std::ostringstream os;
  os.precision(12);
  os << "{\"traceEvents\":[";
  bool first = true;
  auto sep = [&] {
    if (!first) os << ",\n";
    first = false;
  };
  for (const BlockResult& b : blocks) {
    const int64_t pid = b.report.block;
    sep();
    os << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
       << ",\"args\":{\"name\":\"block " << pid << "\"}}";
    std::map<int, bool> lanes;
    for (const TraceEvent& e : b.trace) lanes[e.core * 8 + static_cast<int>(e.pipe)] = true;
    for (const auto& [tid, unused] : lanes) {
      sep();
      os << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
         << ",\"args\":{\"name\":\"" << CoreLabel(tid / 8) << " "
         << LaneName(static_cast<target::Pipe>(tid % 8)) << "\"}}";
    }
    if (b.trace_dropped > 0) {
      sep();
      os << "{\"ph\":\"i\",\"s\":\"p\",\"name\":\"trace truncated: " << b.trace_dropped
         << " more events (the block's share of the launch's trace cap)\",\"pid\":" << pid
         << ",\"ts\":0}";
    }
    for (const TraceEvent& e : b.trace) {
      const auto& code = e.core == 0 ? image.aic : image.aiv;
      const int tid = e.core * 8 + static_cast<int>(e.pipe);
      const std::string name = e.pc < static_cast<int>(code.size())
                                   ? std::string(target::OpcodeName(code[e.pc].op))
                                   : "?";
      const double ts = static_cast<double>(e.start) * us_per_cycle;
      const double dur = static_cast<double>(e.end - e.start) * us_per_cycle;
      sep();
      os << "{\"ph\":\"X\",\"name\":\"" << Escape(name) << "\",\"pid\":" << pid
         << ",\"tid\":" << tid << ",\"ts\":" << ts << ",\"dur\":" << dur
         << ",\"args\":{\"pc\":" << e.pc << ",\"instr\":\""
         << Escape(e.pc < static_cast<int>(code.size()) ? target::Disassemble(code[e.pc]) : "")
         << "\"}}";
      if (e.flow >= 0) {
        sep();
        os << "{\"ph\":\"" << (e.flow_out ? "s" : "f") << "\",\"name\":\"flag\",\"cat\":\"flag\""
           << ",\"id\":" << (pid << 20) + e.flow << ",\"pid\":" << pid << ",\"tid\":" << tid
           << ",\"ts\":" << ts << (e.flow_out ? "" : ",\"bp\":\"e\"") << "}";
      }
    }
  }
  os << "],\"displayTimeUnit\":\"ns\"}";
  return os.str();
}

std::vector<LaunchReport::LineCycles> LineCycleTable(const KernelImage& image,
                                                     const std::vector<BlockResult>& blocks) {
  std::map<uint32_t, LaunchReport::LineCycles> by_stmt;
  for (const BlockResult& b : blocks) {
    for (int type = 0; type < 2; ++type) {
      const auto& lines = type == 0 ? image.aic_lines : image.aiv_lines;
      for (size_t pc = 0; pc < b.pc_cycles[type].size(); ++pc) {
        if (b.pc_count[type][pc] == 0) continue;
        const auto& code = type == 0 ? image.aic : image.aiv;
        // The binary's line table when present, else the instruction's own line index.
        const uint32_t stmt = pc < lines.size() ? lines[pc] : code[pc].line;
        auto& row = by_stmt[stmt];
        row.stmt = stmt;
        row.cycles += b.pc_cycles[type][pc];
        row.count += b.pc_count[type][pc];
      }
    }
  }
  std::vector<LaunchReport::LineCycles> out;
  for (const auto& [stmt, row] : by_stmt) out.push_back(row);
  return out;
}

}  // namespace tilejit::runner::sim
