// SPDX-License-Identifier: Apache-2.0
// One formatter for every tool, so the CLI, tilejit-run and the daemon print the same facts in
// the same words.
#include "runner/report_text.h"

#include <cstdio>
#include <map>
#include <sstream>

namespace tilejit::runner {
namespace {

constexpr std::string_view kStmtRef = "line-table stmt ";

std::string Printf(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// Busy share of every (core, pipe) over all blocks: summed occupancy / summed block span.
std::string PipeUtilisation(const LaunchReport& r) {
  std::map<std::string, uint64_t> busy;
  uint64_t span = 0;
  for (const BlockReport& b : r.blocks) {
    span += b.span_cycles;
    for (const PipeBusy& p : b.pipes) {
      busy[p.core + "." + std::string(target::PipeName(p.pipe))] += p.busy_cycles;
    }
  }
  if (span == 0) return "";
  std::string out = "pipe utilisation:";
  for (const auto& [lane, cycles] : busy) {
    out += Printf(" %s %.1f%%", lane.c_str(), 100.0 * static_cast<double>(cycles) / span);
  }
  return out + "\n";
}

// The shared-HBM model's part in kernel_cycles: a reader ranking configurations by cycles sees
// whether they are bandwidth-bound, and what the blocks alone would have taken.
std::string GmTraffic(const LaunchReport& r) {
  if (r.gm_bytes == 0) return "";
  std::string out = Printf("GM traffic: %llu bytes, %llu of them from HBM; ",
                           static_cast<unsigned long long>(r.gm_bytes),
                           static_cast<unsigned long long>(r.hbm_bytes));
  if (r.hbm_bound_waves == 0) return out + "no wave HBM-bound\n";
  return out + Printf("%lld of %lld wave(s) HBM-bound (blocks alone: %llu cycles)\n",
                      static_cast<long long>(r.hbm_bound_waves), static_cast<long long>(r.waves),
                      static_cast<unsigned long long>(r.block_bound_cycles));
}

}  // namespace

std::string NameStmts(std::string_view message, const StmtNamer& namer) {
  if (!namer) return std::string(message);
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t at = message.find(kStmtRef, pos);
    if (at == std::string_view::npos) break;
    size_t end = at + kStmtRef.size();
    uint32_t id = 0;
    bool digits = false;
    while (end < message.size() && message[end] >= '0' && message[end] <= '9') {
      id = id * 10 + static_cast<uint32_t>(message[end] - '0');
      digits = true;
      ++end;
    }
    std::optional<std::string> name = digits ? namer(id) : std::nullopt;
    out.append(message.substr(pos, at - pos));
    out.append(name ? *name : std::string(message.substr(at, end - at)));
    pos = end;
  }
  out.append(message.substr(pos));
  return out;
}

std::string FormatLaunchReport(const LaunchReport& r, const StmtNamer& namer) {
  std::ostringstream os;
  if (!r.device_output.empty()) os << "device output:\n" << r.device_output;
  os << "status: " << r.status.ToString() << "\n";
  if (!r.symbols.empty()) {  // a kernel with symbolic dims: what this launch bound
    os << "symbols:";
    for (const auto& [name, value] : r.symbols) os << " " << name << "=" << value;
    os << " (" << r.block_count << " block(s))\n";
  }
  os << Printf("kernel cycles: %llu (%lld wave(s); launch overhead %llu)\n",
               static_cast<unsigned long long>(r.kernel_cycles), static_cast<long long>(r.waves),
               static_cast<unsigned long long>(r.launch_overhead_cycles));
  os << GmTraffic(r);
  for (const BlockReport& b : r.blocks) {
    os << Printf("block %lld: span %llu, roofline %llu, efficiency %.3f\n",
                 static_cast<long long>(b.block), static_cast<unsigned long long>(b.span_cycles),
                 static_cast<unsigned long long>(b.roofline_cycles),
                 b.span_cycles ? static_cast<double>(b.roofline_cycles) / b.span_cycles : 0.0);
  }
  os << PipeUtilisation(r);
  for (const Finding& f : r.findings) {
    os << FindingKindName(f.kind) << ": " << NameStmts(f.message, namer) << "\n";
  }
  return os.str();
}

std::string FormatLineProfile(const LaunchReport& r, const StmtNamer& namer) {
  std::ostringstream os;
  os << Printf("%-28s %14s %10s\n", "stmt", "cycles", "count");
  for (const auto& row : r.line_cycles) {
    std::optional<std::string> name = namer ? namer(row.stmt) : std::nullopt;
    const std::string label = name ? *name : std::to_string(row.stmt);
    os << Printf("%-28s %14llu %10llu\n", label.c_str(),
                 static_cast<unsigned long long>(row.cycles),
                 static_cast<unsigned long long>(row.count));
  }
  return os.str();
}

}  // namespace tilejit::runner
