// SPDX-License-Identifier: Apache-2.0
// lower_parallel (DESIGN.md section 4, step 3): turns `for ... in parallel` nests whose body
// is element-wise scalar Stores into tile vector ops on whole UB regions, e.g.
//
//   for %v0 in parallel(0, 64) { for %v1 in parallel(0, 64) {
//     %ub_0[%v0, %v1] = %ub_0[%v0, %v1] * 2.0 + %ub_1[%v0] } }
// becomes
//   mul(%ub_2, %ub_0, 2.0)          # %ub_2: a UB temporary [64, 64]
//   barrier(v)                      # Expert mode only (see below)
//   add(%ub_0, %ub_2, %ub_1)        # %ub_1 [64] broadcast per row
//
// A nest is one or two parallel loops with constant bounds (outer var = rows, inner =
// columns). Each store's value maps to a sequence of tile ops:
//  - a load indexed by every loop var is a tile; by only the row (column) var a per-row
//    (per-column) broadcast operand; by none a scalar operand, as is any loop-invariant
//    scalar expression (constants, runtime scalars, GM/var loads; a UB element only as a
//    single load, the vector "scalar from UB" form);
//  - + - * / min max -> add sub mul div min max (vector-vector, vector-scalar, broadcast);
//    a scalar or broadcast first operand of - or / is rewritten (x*-1 + s, 1/x * s);
//  - unary minus -> mul by -1; exp log sqrt rsqrt abs -> exp ln sqrt rsqrt abs; cast -> cast
//    (CAST_TRUNC from float to integer, else CAST_RINT);
//  - T.if_then_else(a cmp b, t, f) -> compare into a uint8 mask temporary + select.
// GM operands are staged (upstream's automatic copies): an element-wise read of a GM region
// is a copy into a UB temporary first; a store to GM computes the value in a UB tile (the
// operand itself when the value is one UB region) and copies it out.
// Intermediate values live in UB temporaries (new Allocates at the start of the launch body,
// pooled by shape and dtype and reused by later stores). A store whose value reads the
// destination buffer at another position is computed into a temporary and copied, since
// vector ops only allow exact in-place operands. Statements of one nest run in order.
// With AUTO_SYNC off (Expert mode) the pass orders the hazards it creates itself: a
// barrier(v) goes between two generated ops that touch a common buffer where one writes it
// (barrier(all) when a staging copy is involved, and after a nest's last staging copy).
// With AUTO_SYNC on sync_insert does that.
//
// Not lowerable, each a diagnostic naming the construct: a store outside UB and GM (L1), a
// GM read by row or column only, an
// index that is not `loop var + invariant offset`, a store that does not use every loop var
// (a reduction pattern), loop vars in another order than the nest (a transpose), an
// element-wise read of an L1 or L0 buffer, the loop var used as a value, operators without a
// vector op (//, %, logic), mixed tile dtypes, a per-row operand combined with a per-column
// one, a condition that is not one comparison, other statements in the nest, deeper nests.
// A nest whose body has an if statement (a branch per element) becomes serial loops of
// scalar code instead, with a warning (upstream's fallback; T.if_then_else vectorises).
// Statistics: "nests_lowered", "nests_serialised", "tile_ops", "barriers", "temp_bytes" (UB
// bytes of new temps).
// Pure function of its inputs; see pass.h for the pass contract and thread safety.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> LowerParallel(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
