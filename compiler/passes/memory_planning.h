// SPDX-License-Identifier: Apache-2.0
// memory_planning (DESIGN.md section 4, step 9): gives every on-chip buffer (an Allocate of
// scope l1, l0a, l0b, l0c or ub) its byte offset in its memory.
//
// Common rules:
//  - addresses the author gave (T.annotate_address, ir::BufferNode::address) are kept; an
//    annotation that is not aligned to the layout's alignment or that runs past the memory
//    is a diagnostic; one that overlaps another annotated buffer is a warning (reuse by
//    hand: syncs and the race detector work by address);
//  - sizes and alignments are ir::LayoutOf's (fractal padding included), so placement
//    reserves exactly the bytes codegen addresses;
//  - a buffer that does not fit is a diagnostic naming the buffer, the memory, the bytes it
//    needs and the bytes still free, with a note listing the largest buffers of that memory.
//  - a buffer nothing reads or writes (upstream kernels declare staging tiles that only one
//    branch of a host `if` uses) gets no address and no bytes, in both placements;
//  - gemm_v0's L0 scratch (compiler_made on chip, expand_composites.h) is placed as one
//    buffer per memory: the size of the largest, the lifetime of all; each gets its offset.
// Placement:
//  - MEMORY_PLANNING and AUTO_SYNC on: reuse. Each buffer has a lifetime (buffer_lifetimes.h:
//    first to last access in program order, extended to every loop that uses it); annotated
//    buffers are reserved for the whole kernel. Largest first (ties: earlier lifetime, then
//    allocation order), each buffer goes at the lowest aligned offset that collides with no
//    annotated buffer and no placed buffer whose lifetime overlaps its own. Then, without
//    raising that first-fit high-water mark, buffers move so that the ones sharing bytes are
//    as far apart in program order as space allows (memory_planning_internal.h): a buffer
//    born right after the death of the one whose bytes it took must wait for that one's last
//    access. sync_insert runs after this pass and orders accesses by address, so shared bytes
//    are synchronised. A memory that does not fit is planned again with
//    analysis::LoopRule::kCrossingOnly lifetimes (tiles of one loop body rewritten whole each
//    iteration may share bytes).
//  - otherwise sequential, per memory in allocation order, with no reuse: every buffer goes at
//    the lowest aligned offset at or after the end of the previously placed one that does not
//    collide with an annotated buffer. With MEMORY_PLANNING on and AUTO_SYNC off a warning
//    says why there is no reuse (the author's syncs cannot order a reuse they do not know of).
//
// Statistics: "onchip_bytes_<mem>" (l1, l0a, l0b, l0c, ub) = the high-water mark of a memory
// (the end of its highest buffer), for each memory that has a buffer; "unused_buffers";
// "crossing_only_<mem>" when a memory needed the refined lifetimes.
// Pure function of its inputs; see pass.h for the pass contract and thread safety.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> MemoryPlanning(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
