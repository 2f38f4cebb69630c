// SPDX-License-Identifier: Apache-2.0
// Tile-op lowerings: one tile op of the lowered IR -> ISA instructions through an Emitter.
// The statement walker (codegen.cc) dispatches on the op code; each function handles the
// ops listed beside it and CHECK-fails on any other.
//
// Preconditions (established by the pipeline; see compiler/pipeline.cc):
//  - every buffer has a hardware scope and every on-chip buffer an address;
//  - gemm_v0 has been expanded (expand_composites) and T.Parallel loops lowered;
//  - every copy is a legal path of the target (legalize_copies);
//  - the op sits in the program of the core type that executes it.
// Anything that exceeds an ISA limit (repeat <= 255, mask <= elements per repeat, mmad
// m/n/k <= 4095, burst counts and lengths, 8-bit strides) is split here into several
// instructions; the split is invisible to the IR.
//
// Thread safety: as Emitter.
#pragma once

#include "common/status.h"
#include "compiler/codegen/emitter.h"
#include "compiler/ir/ir.h"

namespace tilejit::codegen {

// copy on every legal path: gm->l1 (ND->zN), gm->ub, ub->gm, ub->ub, l1->gm, l1->l0a,
// l1->l0b, l0c->gm, l0c->l1; with tails (a GM side clipped at the GM tensor's bounds, the
// on-chip remainder zero-filled), pad_value, enable_relu (fixpipe paths) and transpose (L0
// loads). (copy.cc)
Status EmitCopy(Emitter& e, const ir::TileOpNode& op);

// fill(region: l1, value): fill_l1 on MTE2 (legalize_copies clears a tile so before a
// partial GM -> L1 copy at its base). (copy.cc)
Status EmitFillL1(Emitter& e, const ir::TileOpNode& op);

// mma(C: l0c, A: l0a, B: l0b) {init}. (cube.cc)
Status EmitMma(Emitter& e, const ir::TileOpNode& op);

// Vector ops on UB regions: fill, add..min (vector-vector, vector-scalar, scalar read from a
// UB element, per-row and per-column broadcast forms), exp..sigmoid, cast, broadcast,
// compare, select, axpy, reduce_sum/max/min (dim, clear), transpose, gather, gather_mask,
// createvecindex, the sort family (sort32, merge_sort, sort, topk: vector_sort.cc), the raw
// repeat form (block_reduce_*, wholereduce*, gatherb: vector_raw.cc) and set_deq_scale.
// (vector*.cc)
Status EmitVectorOp(Emitter& e, const ir::TileOpNode& op);

// printf {format} and dump_tensor {count, desc, shape} on either core: dbg_arg per value and
// dbg_print, or barrier(all) and dbg_dump, naming a print record the Emitter collects for
// the kernel metadata. (debug_print.cc)
Status EmitDebug(Emitter& e, const ir::TileOpNode& op);

}  // namespace tilejit::codegen
