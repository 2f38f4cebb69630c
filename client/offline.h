// SPDX-License-Identifier: Apache-2.0
// The `tilejit` CLI's offline commands: the compiler and the simulated device linked
// in-process, no daemon needed.
//
//   tilejit compile FILE --entry E [--arg V]... [--config K=V]... [-o kernel.o]
//                   [--emit ir|key|asm] [--print-after P] [--stop-after P] [--time-passes]
//   tilejit run FILE|kernel.o [--entry E --arg V ...] --in a.npy ... --out DIR
//               [--check] [--perturb SEED] [--trace t.json] [--profile]
//   tilejit disasm kernel.o
//
// Each returns the process exit status: 0 success, 1 the kernel has errors (diagnostics) or
// the launch reported findings, 2 usage or I/O errors. Diagnostics go to stderr, results to
// stdout. Not thread-safe (writes the process's standard streams).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tilejit::client {

// What names a kernel to compile (shared by compile and run).
struct KernelSourceOptions {
  std::string file;
  std::string entry;
  std::vector<std::string> args, kwargs, configs, globals;
  std::string format = "tilelang";  // or "tile_ir"
  std::string target;
  std::optional<std::vector<int>> out_idx, workspace_idx;
};

struct CompileCommandOptions {
  KernelSourceOptions kernel;
  std::string output;  // -o: write the binary here
  std::string emit;    // "ir", "key", "asm" or empty (default: ir unless -o is given)
  std::vector<std::string> print_after;
  std::string stop_after;
  bool time_passes = false;
};

struct RunCommandOptions {
  KernelSourceOptions kernel;  // kernel.file may be a binary (ELF) instead of a source
  std::vector<std::string> inputs;
  std::string out_dir = ".";
  bool check = false;
  std::optional<unsigned long long> perturb_seed;
  std::string trace;
  bool profile = false;
};

int CompileCommand(const CompileCommandOptions& options);
int RunCommand(const RunCommandOptions& options);
int DisasmCommand(const std::string& path);

}  // namespace tilejit::client
