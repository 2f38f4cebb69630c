// SPDX-License-Identifier: Apache-2.0
// RunKernel: launches a loaded kernel with TileLang's allocation convention (DESIGN.md
// section 5): the caller passes the input tensors only, in parameter order; the runner
// allocates the outputs and workspaces (declared and compiler-made; their bytes start
// never-written), launches, copies the outputs back in `out_idx` order and frees everything.
//
// Inputs are checked against the metadata (dtype and shape; a bfloat16 parameter also
// accepts uint16 arrays holding the bit patterns, since NumPy has no bfloat16). A kernel with
// symbolic dims (T.symbolic) gets its symbols bound from the input shapes
// (target::BindLaunchShapes): outputs and workspaces are allocated at the bound shapes, the
// symbol values go in the argument slots after the addresses, and a grid of 0 blocks is an
// OK launch that runs nothing (outputs are still allocated and returned).
// Thread-compatible like the Device it uses.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/result.h"
#include "compiler/target/launch_shapes.h"
#include "runner/device.h"
#include "runner/npy.h"

namespace tilejit::runner {

struct RunResult {
  LaunchReport report;
  std::vector<NpyArray> outputs;  // out_idx order
};

Result<RunResult> RunKernel(Device& device, KernelId id, std::span<const NpyArray> inputs,
                            const LaunchOptions& options);

// The allocation convention underneath RunKernel, for callers that bring their own buffers
// (the C runtime): allocates every parameter of the kernel in metadata order at the shapes of
// `shapes` (a binding of this kernel's metadata: target::BindLaunchShapes; inputs initialised by
// `copy_in`, outputs and workspaces never-written), launches with the symbol slots appended,
// calls `copy_out` for every output parameter (in parameter order) and frees everything on
// every path. The report's `symbols` and `block_count` say what was bound.
// `highest_address`, when given, receives the end of the highest GM byte allocated.
struct ParamBuffers {
  // (parameter index, its tensor) -> fill / read the tensor's bytes.
  std::function<Status(size_t, const Tensor&)> copy_in;
  std::function<Status(size_t, const Tensor&)> copy_out;
  // Also read inputs back after the launch (kernels without out_idx update their arguments).
  bool copy_back_inputs = false;
};
Result<LaunchReport> LaunchWithParams(Device& device, KernelId id,
                                      const target::LaunchShapes& shapes,
                                      const ParamBuffers& buffers, const LaunchOptions& options,
                                      uint64_t* highest_address = nullptr);

}  // namespace tilejit::runner
