// SPDX-License-Identifier: Apache-2.0
// A seeded generator of random Developer-mode kernels in Tile IR text (docs/tile_ir.md), at
// the level the frontend produces: GM params, unresolved `shared` / `fragment` buffers, copies
// GM <-> shared, vector tile ops, gemm_v0 into fragments, cube <-> vector hand-offs
// (fragment -> shared, shared -> shared feeding a later gemm), serial loops with static and
// runtime extents, nested loops and `if` on cid, under `threads=1` or `threads=2` launches.
//
//   GeneratedKernel k = GenerateKernel(seed);
//   // k.ir_text parses and verifies; compile it with the four Developer switches on
//   // (DeveloperPassConfigs in devgen_harness.h) and feed k.inputs shaped arrays.
//
// Every kernel is legal by construction: each buffer is read only after a definite write
// (loops always run at least once; after an `if` only what both branches wrote counts), each
// output element is written by exactly one core kind of exactly one block, exp and div get
// in-place guards (clamp, |x| + 1) and an interval bound per buffer inserts clamps before
// values could leave fp16 range. A seed always gives the same text (rng.h).
//
// Thread safety: GenerateKernel is a pure function of its arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace tilejit::devgen {

// Which cores the kernel's work needs.
enum class KernelMix : uint8_t { kAny, kVectorOnly, kCubeOnly, kMixed };

struct GenOptions {
  KernelMix mix = KernelMix::kAny;
  int min_steps = 6;   // random actions at the top level (loops and ifs count as one)
  int max_steps = 12;  //
  // Blocks: uniform in [min_grid, max(min_grid, 3)]. 6 runs every combination of the runtime
  // trip counts (cid % 3 + 1, cid % 2 + 1, and multi_buffer's remainders of them) and both
  // sides of every `if` on cid; 3 runs each trip count alone.
  int min_grid = 1;
};

// One input parameter the caller must supply (param order).
struct InputSpec {
  std::vector<int64_t> shape;
  ir::DType dtype = ir::DType::kFloat32;
};

struct GeneratedKernel {
  uint64_t seed = 0;
  std::string ir_text;
  std::vector<InputSpec> inputs;
  int threads = 1;
  int grid = 1;
  bool has_cube = false;    // gemm work (so results carry fp32 summation-order noise)
  bool has_vector = false;  // vector tile ops
  int handoffs = 0;         // fragment -> shared and shared -> shared(L1) copies
  int loops = 0;
  int ifs = 0;

  // One line: "seed=.. threads=.. grid=.. cube vector handoffs=.. loops=.. ifs=..".
  std::string Summary() const;
};

GeneratedKernel GenerateKernel(uint64_t seed, const GenOptions& options = {});

// Deterministic input values for a kernel: multiples of 1/8 in [-1, 1] (exact in fp16, so
// products of two inputs are exact in fp32), one stream per input, from `seed`.
std::vector<std::vector<float>> GenerateInputValues(const GeneratedKernel& kernel, uint64_t seed);

}  // namespace tilejit::devgen
