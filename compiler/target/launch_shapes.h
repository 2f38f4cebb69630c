// SPDX-License-Identifier: Apache-2.0
// The launch binding of symbolic shapes (TileLang's T.symbolic): from a kernel's metadata and
// the shapes of the caller's tensors, the value of every symbol, the launch's block count and
// the concrete shape and size of every parameter. Every launcher (the runner, the C runtime,
// the CLI, the daemon, the Python package through the C runtime) goes through here, so the
// rules and the error messages exist once.
//
// Launch ABI (docs/binary_format.md): argument slot i < params.size() holds the GM address of
// param i, slot params.size() + j the value of symbol j (LaunchArgs builds the slots).
//
// The metadata must be valid (ValidateKernelMetadata); shapes are only read during a call.
// Pure functions returning values; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "compiler/target/kernel_metadata.h"

namespace tilejit::target {

// Where a symbol got its value: dim `dim` of param `param`.
struct SymbolSource {
  int param = -1;
  int dim = -1;
};

struct LaunchShapes {
  std::vector<int64_t> symbols;       // bound value of each symbol, in metadata.symbols order
  std::vector<SymbolSource> sources;  // where each was bound (the first tensor naming it)
  int64_t block_count = 0;            // the grid; 0 is an empty launch that runs no block
  std::vector<std::vector<int64_t>> shapes;  // concrete shape of every param, in params order
  std::vector<int64_t> bytes;                // byte size of every param, in params order
  int64_t total_bytes = 0;                   // sum of `bytes`

  bool operator==(const LaunchShapes&) const = default;
};

// The shape of one tensor the caller passes for param `param`. Not owned.
struct GivenShape {
  int param = -1;
  std::span<const int64_t> shape;
};

// Binds the symbols from `given` (processed in order; each param at most once, every input
// param exactly once; outputs may be given too, then they must agree) and derives the rest:
// outputs and workspaces from the symbols, dim 0 of a kBlockCountDim compiler workspace from
// the block count. kInvalidArgument, naming the parameter (its metadata name) and dim:
//   rank mismatch                  "A: rank 1 but the kernel expects rank 2"
//   static dim differs             "A: dim 0 is 65 but the kernel was compiled for 64"
//   a symbol bound twice           "symbol M is 64 from A (dim 0) but 65 from C (dim 0)"
//   value negative or above max    "symbol M is 70000 from A (dim 0), above its max 65536"
//   a tensor's bytes overflow int64, the grid divides by zero or overflows, a block count
//   outside [0, kMaxBlockCount], a compiler workspace too small for its blocks.
Result<LaunchShapes> BindLaunchShapes(const KernelMetadata& m, std::span<const GivenShape> given);

// BindLaunchShapes for exactly the input params: input_shapes[k] is the shape of the k-th
// input param (params order), the runner's convention. A count mismatch is kInvalidArgument.
Result<LaunchShapes> BindInputShapes(const KernelMetadata& m,
                                     std::span<const std::vector<int64_t>> input_shapes);

// The block count of a launch with these symbol values: block_count for a static grid, else the
// grid program's value, which must lie in [0, kMaxBlockCount]. kInvalidArgument otherwise or if
// `symbols` does not have one value per symbol. For devices, which see only argument slots.
Result<int64_t> LaunchBlockCount(const KernelMetadata& m, std::span<const int64_t> symbols);

// The argument slots of a launch: the param addresses (one per param, params order) followed
// by the symbol values (two's complement in uint64). kInvalidArgument on a count mismatch.
Result<std::vector<uint64_t>> LaunchArgs(const KernelMetadata& m, const LaunchShapes& shapes,
                                         std::span<const uint64_t> param_addresses);

// "M=64, N=128" for the bound symbols (empty when there are none), for reports.
std::string SymbolBindingText(const KernelMetadata& m, std::span<const int64_t> symbols);

}  // namespace tilejit::target
