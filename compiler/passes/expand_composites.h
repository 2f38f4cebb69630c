// SPDX-License-Identifier: Apache-2.0
// expand_composites (DESIGN.md section 4, step 4): replaces every composite tile op by the
// primitive ops codegen lowers one to one, so that placement sees the scratch tiles and sync
// sees each pipe's work separately.
//
// gemm_v0(C: l0c, A: l1, B: l1) {init, transpose_A, transpose_B} becomes, per gemm:
//   - compiler-owned double-buffered L0 tiles: Allocates of l0a [2, m, kstep] and
//     l0b [2, kstep, n] (dtype of A/B) at the start of the launch body; gemms of the same
//     dtype, m, n and kstep share one pair. The pairs are compiler scratch (compiler_made):
//     memory_planning puts every one of a memory at the same offset, since gemms run one
//     after another on the cube (each one's loads wait for the previous one's mma: by address
//     in sync_insert, by the drained events below in Expert mode), so each pair only has to
//     fit next to the kernel's own L0 buffers, not next to the other gemms' pairs;
//   - a serial loop over the K slices (slot = k % 2): copy L1 -> l0a[slot], L1 -> l0b[slot]
//     (with transpose_A/B the L1 operand holds the transposed matrix and the load transposes),
//     then mma(C, l0a[slot], l0b[slot]) with init only on the first slice (`init` may be a
//     runtime condition: init and k == 0). A tail slice (K not a multiple of kstep) follows
//     the loop with static extents; a single slice needs no loop.
//   kstep: the whole K when two slots of it fit, else the largest multiple of 16 (32 for
//   8-bit types: one C0) dividing K such that both slots fit in the L0A/L0B bytes the kernel's
//   own L0 allocations leave (ir::LayoutOf sizes), else the largest
//   fitting multiple with a tail slice.
//   - With AUTO_SYNC off (Expert mode) the expansion carries its own syncs on the reserved
//     event ids 6 and 7 (slot s uses 6 + s) of the m -> mte1 and mte1 -> m pairs: both
//     m -> mte1 ids are pre-armed before the slices and drained after them; per slice:
//     wait(m -> mte1) before reloading the slot, set/wait(mte1 -> m) between the loads and
//     the mma, set(m -> mte1) after it. So the author's barrier_all around a gemm_v0 stays
//     sufficient. With AUTO_SYNC on it emits none (sync_insert orders everything).
// sort, topk and merge_sort of 3 or 4 lists get their UB scratch as a last operand: a
// compiler-made float32 buffer of ir::SortScratchElements at the start of the launch body,
// every one at the same offset (memory_planning), as the ops run one after another on the
// vector pipe; a sort whose destination is not in UB is a diagnostic.
// Diagnostics (at the gemm or the offending sync): an operand outside l1 (A, B) / l0c (C),
// naming it, its scope and the required scopes; shape or dtype mismatches; L0 tiles that do
// not fit even with the smallest slice; a transposed operand that is not 16-bit; and, in an
// Expert kernel containing a gemm_v0, any set/wait on ids 6 or 7 of those two pairs.
// Statistics: "gemm_v0_expanded", "k_slices" (static slice count summed over gemms),
// "scratch_bytes_l0a" / "scratch_bytes_l0b", "sort_scratch_bytes".
// Pure function of its inputs; see pass.h for the pass contract and thread safety.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> ExpandComposites(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
