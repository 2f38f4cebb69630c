// SPDX-License-Identifier: Apache-2.0
// A host interpreter of frontend-level Tile IR: the reference the Developer-kernel tests
// compare compiled kernels against. It runs each logical block's program sequentially (the
// semantics the author wrote, before any pass splits it across cores), with the simulator's
// numeric conventions: every vector op computes in double from its stored inputs and rounds
// once to the destination dtype on store (fp16 by round-to-nearest-even through float),
// reductions accumulate in double in row order, exp/ln/sqrt/sigmoid evaluate in float, and
// gemm_v0 / mma sum in double and store fp32 (the device sums in fp32 in an unspecified
// order, so cube results agree within a tolerance, not bit for bit).
//
//   Result<std::vector<HostTensor>> outs = Interpret(kernel, inputs);
//
// Launch forms: `threads=1|2` runs the body once per block (the logical program; the split
// between vector cores is the compiler's business). The `(cid, vid)` form of Expert kernels
// runs the cube part once, then the vector part for vid 0 and 1 (statements inside
// `scope cube|vector` go to that part; other tile ops by the memories they touch; scalar code
// to every part). That order is right for kernels whose cube feeds their vector side.
//
// Errors (kInvalidArgument, naming the statement's source location): reading a never-written
// element (on-chip or GM), an output element no block wrote, an on-chip access out of bounds,
// an op or operand form the interpreter does not know. Sync statements are no-ops.
//
// Thread safety: Interpret is reentrant.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "compiler/ir/ir.h"

namespace tilejit::devgen {

// A dense row-major tensor whose values are exactly representable in `dtype`.
struct HostTensor {
  ir::DType dtype = ir::DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<double> data;
};

// `inputs`: one tensor per input param, in param order (values are rounded to the param's
// dtype on entry). Returns the outputs in out_idx order.
Result<std::vector<HostTensor>> Interpret(const ir::Kernel& kernel,
                                          const std::vector<HostTensor>& inputs);

// `value` rounded to `dtype` as the device stores it (fp16/bf16 through float, RINT).
double RoundTo(ir::DType dtype, double value);

}  // namespace tilejit::devgen
