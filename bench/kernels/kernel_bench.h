// SPDX-License-Identifier: Apache-2.0
// bench/kernels: simulated cycles of whole kernels, compiled in process (compiler::Compile)
// and run once on the simulated NPU (runner::SimDevice, CheckMode::kFast; the timing model is
// deterministic, so one run is the figure). Used by kernels_bench (the table of issue 5,
// acceptance 5) and by its smoke test.
//
//   Variant v = GemmVariant("gemm_expert", kernels_dir + "/gemm_expert.py", "matmul",
//                           {1024, 1024, 1024, 128, 256, 64});
//   VariantResult r = RunVariant(v);
//   if (!r.compiled) puts(r.error.c_str());   // "does not compile yet: <first diagnostic>"
//
// Thread-compatible: each call builds its own compiler state and device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/target/kernel_metadata.h"
#include "runner/device.h"

namespace tilejit::bench {

// One input tensor of a kernel, filled with uniform [-1, 1) values from a fixed seed.
struct InputSpec {
  std::vector<int64_t> shape;
  target::ElementType dtype = target::ElementType::kFloat16;
};

struct Variant {
  std::string label;  // row name in the table
  std::string path;   // TileLang source file
  std::string entry;  // factory name
  std::vector<int64_t> args;
  std::vector<InputSpec> inputs;
  bool is_gemm = false;  // check sampled C elements against a float64 A @ B
};

// A GEMM variant: args are (M, N, K, block_M, block_N, block_K); inputs A (M, K), B (K, N).
Variant GemmVariant(std::string label, std::string path, std::string entry,
                    std::vector<int64_t> args);

struct VariantResult {
  bool compiled = false;
  // One line: "does not compile yet: <first diagnostic>", or "launch failed: <why>".
  std::string error;
  bool ran = false;  // launched and the report has no finding
  uint64_t kernel_cycles = 0;
  // The shared-HBM model (LaunchReport): the cycles without it (each wave as long as its
  // longest block), GM bytes moved, the part charged to HBM, waves it bound.
  uint64_t block_bound_cycles = 0;
  uint64_t gm_bytes = 0;
  uint64_t hbm_bytes = 0;
  int64_t hbm_bound_waves = 0;
  int64_t blocks = 0;
  int64_t waves = 0;
  double min_efficiency = 0;     // min over blocks of roofline_cycles / span_cycles
  double median_efficiency = 0;  // median over blocks of the same
  double median_overlap = 0;     // median over blocks of cube_vector_overlap / span
  double max_rel_error = -1;     // GEMM only: sampled elements vs float64; -1 not checked
  std::string output_dtype;      // dtype of the first output
  std::vector<runner::BlockReport> block_reports;  // the launch's, for per-block detail
};

// An elementwise variant (elementwise_add_expert.py's vec_add): args (M, N, block_M, block_N),
// inputs A and B, both (M, N) float32.
Variant ElementwiseVariant(std::string label, std::string path, std::vector<int64_t> args);

// Compiles and runs `v`. Never throws; problems land in `error`.
VariantResult RunVariant(const Variant& v);

// Compiles the TileLang file `path` (its `entry` factory called with integer `args`) exactly
// as the offline CLI does and returns the ELF kernel binary. On failure returns an empty
// binary and sets `*error` to one line: "does not compile yet: <first diagnostic>" or
// "cannot read <path>".
std::vector<uint8_t> CompileKernelFile(const std::string& path, const std::string& entry,
                                       const std::vector<int64_t>& args, std::string* error);

// Median of `values` (0 when empty); takes a copy because it reorders.
double Median(std::vector<double> values);

}  // namespace tilejit::bench
