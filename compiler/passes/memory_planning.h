// SPDX-License-Identifier: Apache-2.0
// memory_planning (DESIGN.md section 4, step 9): gives every on-chip buffer (an Allocate of
// scope l1, l0a, l0b, l0c or ub) its byte offset in its memory.
//
// This version places buffers sequentially, per memory in allocation order, with no reuse:
//  - addresses the author gave (T.annotate_address, ir::BufferNode::address) are kept; an
//    annotation that is not aligned to the layout's alignment, that overlaps another
//    annotated buffer or that runs past the memory is a diagnostic;
//  - every other buffer goes at the lowest aligned offset at or after the end of the
//    previously placed one that does not collide with an annotated buffer;
//  - sizes and alignments are codegen::LayoutOf's (fractal padding included), so placement
//    reserves exactly the bytes codegen addresses;
//  - a buffer that does not fit is a diagnostic naming the buffer, the memory, the bytes it
//    needs and the bytes still free, with a note listing the largest buffers of that memory.
// With MEMORY_PLANNING and AUTO_SYNC both on, liveness-based reuse will come (next issue);
// with MEMORY_PLANNING on and AUTO_SYNC off placement stays sequential and a warning says
// why (the author's syncs cannot order reuse they do not know about).
//
// Statistics: "<mem>_bytes" = the bytes a memory uses (the end of its highest buffer).
// Pure function of its inputs; see pass.h for the pass contract and thread safety.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> MemoryPlanning(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
