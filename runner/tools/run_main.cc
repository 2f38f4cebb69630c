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
#include <string>
#include <vector>

#include "runner/npy.h"
#include "runner/report_text.h"
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
  std::fputs(tilejit::runner::FormatLaunchReport(r, nullptr).c_str(), stdout);
  if (profile) std::fputs(tilejit::runner::FormatLineProfile(r, nullptr).c_str(), stdout);
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
