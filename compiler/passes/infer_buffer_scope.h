// SPDX-License-Identifier: Apache-2.0
// infer_buffer_scope: resolves the Developer-mode scopes by how each buffer is used, so that
// every later pass sees only hardware memories (no kShared / kFragment buffer survives).
//
//  - alloc_fragment -> L0A, L0B or L0C by its operand position in gemm_v0 / mma (A, B, C); a
//    fragment no gemm uses -> L0C (the cube's accumulator tile).
//  - alloc_shared -> L1 when it feeds cube work: it is operand A/B of a gemm (or mma), or it
//    is only ever copied between GM and cube buffers other than L1 (at least one of them a
//    cube buffer); otherwise UB (vector work, scalar reads/writes, copies to or from UB or L1
//    (no L1 -> L1 path exists; UB -> L1 is staged through GM), unused).
//  - Diagnostics, at the alloc line with notes at the conflicting uses: a fragment in two
//    operand positions (A of one gemm, C of another); a shared buffer used both by cube work
//    and by vector work (the fix is two buffers and a copy, which legalize_copies stages).
//  - Everything else (GM params, Expert scopes alloc_L1/alloc_ub/alloc_L0*) is unchanged.
//    Whether a tile is legal in the scope it gets (shape, dtype, capacity) is checked by the
//    later passes; the rewritten buffer keeps its alloc SourceLoc and name hint.
//
// Statistics: "l1", "ub", "l0a", "l0b", "l0c" (buffers resolved to each scope).
// Thread safety: a pure function of its input.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> InferBufferScope(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
