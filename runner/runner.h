// SPDX-License-Identifier: Apache-2.0
// RunKernel: launches a loaded kernel with TileLang's allocation convention (DESIGN.md
// section 5): the caller passes the input tensors only, in parameter order; the runner
// allocates the outputs and workspaces (declared and compiler-made; their bytes start
// never-written), launches, copies the outputs back in `out_idx` order and frees everything.
//
// Inputs are checked against the metadata (dtype and shape; a bfloat16 parameter also
// accepts uint16 arrays holding the bit patterns, since NumPy has no bfloat16).
// Thread-compatible like the Device it uses.
#pragma once

#include <span>
#include <vector>

#include "common/result.h"
#include "runner/device.h"
#include "runner/npy.h"

namespace tilejit::runner {

struct RunResult {
  LaunchReport report;
  std::vector<NpyArray> outputs;  // out_idx order
};

Result<RunResult> RunKernel(Device& device, KernelId id, std::span<const NpyArray> inputs,
                            const LaunchOptions& options);

}  // namespace tilejit::runner
