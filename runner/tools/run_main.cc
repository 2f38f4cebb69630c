// SPDX-License-Identifier: Apache-2.0
// tilejit-run: runs a kernel binary on the simulated NPU.
//
//   tilejit-run KERNEL.bin [IN.npy ...] [--out-dir=DIR] [--mode=fast|checked|perturbed]
//               [--seed=N] [--trace=TRACE.json] [--profile] [--threads=N]
//
// Inputs are the kernel's input parameters in order; outputs are written as DIR/out<i>.npy in
// out_idx order (default DIR: the current directory). Prints the launch report (status,
// cycles, waves, per-block efficiency, findings); --profile adds the per-line-table-entry
// cycle table. Exit status: 0 clean, 1 findings, 2 usage or load errors.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "runner/npy.h"
#include "runner/runner.h"
#include "runner/sim/sim_device.h"

namespace {

using tilejit::runner::CheckMode;
using tilejit::runner::LaunchOptions;
using tilejit::runner::NpyArray;

int Usage() {
  std::fprintf(stderr,
               "usage: tilejit-run KERNEL.bin [IN.npy ...] [--out-dir=DIR] "
               "[--mode=fast|checked|perturbed] [--seed=N] [--trace=FILE] [--profile] "
               "[--threads=N]\n");
  return 2;
}

// Busy share of every (core, pipe) over all blocks: summed occupancy / summed block span.
void PrintPipeUtilisation(const tilejit::runner::LaunchReport& r) {
  std::map<std::string, uint64_t> busy;
  uint64_t span = 0;
  for (const auto& b : r.blocks) {
    span += b.span_cycles;
    for (const auto& p : b.pipes) {
      busy[p.core + "." + std::string(tilejit::target::PipeName(p.pipe))] += p.busy_cycles;
    }
  }
  if (span == 0) return;
  std::printf("pipe utilisation:");
  for (const auto& [lane, cycles] : busy) {
    std::printf(" %s %.1f%%", lane.c_str(), 100.0 * static_cast<double>(cycles) / span);
  }
  std::printf("\n");
}

bool Flag(const std::string& arg, const char* name, std::string* value) {
  const std::string prefix = std::string("--") + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  *value = arg.substr(prefix.size());
  return true;
}

int Main(int argc, char** argv) {
  std::vector<std::string> positional;
  std::string out_dir = ".", mode = "checked", trace_path, value;
  LaunchOptions opt;
  bool profile = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (Flag(a, "out-dir", &value)) {
      out_dir = value;
    } else if (Flag(a, "mode", &value)) {
      mode = value;
    } else if (Flag(a, "seed", &value)) {
      opt.seed = std::strtoull(value.c_str(), nullptr, 10);
    } else if (Flag(a, "threads", &value)) {
      opt.host_threads = std::atoi(value.c_str());
    } else if (Flag(a, "trace", &value)) {
      trace_path = value;
      opt.trace = true;
    } else if (a == "--profile") {
      profile = true;
      opt.trace = true;
    } else if (a.rfind("--", 0) == 0) {
      return Usage();
    } else {
      positional.push_back(a);
    }
  }
  if (positional.empty()) return Usage();
  if (mode == "fast") {
    opt.mode = CheckMode::kFast;
  } else if (mode == "perturbed") {
    opt.mode = CheckMode::kPerturbed;
  } else if (mode != "checked") {
    return Usage();
  }
  std::ifstream in(positional[0], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "tilejit-run: cannot open %s\n", positional[0].c_str());
    return 2;
  }
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  tilejit::runner::sim::SimDevice dev;
  auto id = dev.LoadBinary(bytes);
  if (!id.ok()) {
    std::fprintf(stderr, "tilejit-run: %s\n", id.status().ToString().c_str());
    return 2;
  }
  std::vector<NpyArray> inputs;
  for (size_t i = 1; i < positional.size(); ++i) {
    auto a = tilejit::runner::ReadNpyFile(positional[i]);
    if (!a.ok()) {
      std::fprintf(stderr, "tilejit-run: %s\n", a.status().ToString().c_str());
      return 2;
    }
    inputs.push_back(std::move(*a));
  }
  auto run = tilejit::runner::RunKernel(dev, *id, inputs, opt);
  if (!run.ok()) {
    std::fprintf(stderr, "tilejit-run: %s\n", run.status().ToString().c_str());
    return 2;
  }
  const auto& r = run->report;
  std::printf("status: %s\nkernel cycles: %llu (%lld wave(s); launch overhead %llu)\n",
              r.status.ToString().c_str(), static_cast<unsigned long long>(r.kernel_cycles),
              static_cast<long long>(r.waves),
              static_cast<unsigned long long>(r.launch_overhead_cycles));
  for (const auto& b : r.blocks) {
    std::printf("block %lld: span %llu, roofline %llu, efficiency %.3f\n",
                static_cast<long long>(b.block), static_cast<unsigned long long>(b.span_cycles),
                static_cast<unsigned long long>(b.roofline_cycles),
                b.span_cycles ? static_cast<double>(b.roofline_cycles) / b.span_cycles : 0.0);
  }
  PrintPipeUtilisation(r);
  for (const auto& f : r.findings) {
    std::printf("%s: %s\n", std::string(tilejit::runner::FindingKindName(f.kind)).c_str(),
                f.message.c_str());
  }
  if (profile) {
    std::printf("%-12s %14s %10s\n", "stmt", "cycles", "count");
    for (const auto& row : r.line_cycles) {
      std::printf("%-12u %14llu %10llu\n", row.stmt, static_cast<unsigned long long>(row.cycles),
                  static_cast<unsigned long long>(row.count));
    }
  }
  if (!trace_path.empty()) std::ofstream(trace_path) << r.trace_json;
  for (size_t i = 0; i < run->outputs.size(); ++i) {
    const std::string path = out_dir + "/out" + std::to_string(i) + ".npy";
    const auto st = tilejit::runner::WriteNpyFile(path, run->outputs[i]);
    if (!st.ok()) {
      std::fprintf(stderr, "tilejit-run: %s\n", st.ToString().c_str());
      return 2;
    }
  }
  return r.status.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
