// SPDX-License-Identifier: Apache-2.0
// squeeze_columns: an [R, 1] UB buffer (R > 1) that only vector ops and scalar accesses use
// becomes an [R] buffer, so that it and an [R] buffer hold their R values the same way.
//
// Why: UB rows are 32-byte aligned (target/tile_layout.h), so an [R, 1] buffer keeps one value
// per 32-byte block while an [R] buffer is dense; no vector instruction pairs the two. The
// language treats them as one shape (frontend/shape_rules.h): upstream kernels divide an [R]
// row sum by an [R, 1] count. Squeezed, such ops are element-wise over dense vectors, and the
// buffer takes R * element bytes instead of R * 32.
//
//  - A use that keeps the buffer squeezable: any operand of fill, createvecindex, the
//    element-wise binary and unary ops, cast, axpy and a UB -> UB copy; the source of a
//    broadcast; the destination of a reduction; an element load or store (`m[i, 0]`).
//  - Anything else keeps [R, 1]: a copy with another memory (a DMA writes whole 32-byte
//    blocks per row), compare and select (their masks are per row), gather, transpose, cube
//    work, a column offset other than 0, an author-given address.
//  - The [R, 1] operands of one element-wise op or UB copy are squeezed together or not at
//    all (a component): one kept member, or an [R, 1] part of a larger buffer among them
//    (`r[i, :, :]` of an [S, R, 1] buffer), keeps the whole component.
//  - Rewrite: alloc [R, 1] -> [R]; every region drops its last range ([a:+n, 0:+1] ->
//    [a:+n]); every load and store drops its last index.
//  - Diagnostic: an element-wise op left with an [R] and an [R, 1] operand, at the op, with a
//    note at the use that kept the [R, 1] buffer as it is.
//
// Statistics: "squeezed".
// Thread safety: a pure function of its input.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> SqueezeColumns(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
