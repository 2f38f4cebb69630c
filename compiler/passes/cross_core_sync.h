// SPDX-License-Identifier: Apache-2.0
// cross_core_sync (DESIGN.md section 4, step 8; runs with TL_ASCEND_AUTO_CV_COMBINE and
// TL_ASCEND_AUTO_CV_SYNC, after combine_cv): orders every cube<->vector hand-off through a
// workspace, the compiler's or the kernel's own (workspace_idx; cv_handoff.h), with
// cross-core flags, all mode 2 and `{compiler}`.
// Counters: each direction's hand-offs share one pair of counters when the producer writes
// them in the order the consumer reads them; otherwise (multi_buffer ran the cube a stage
// ahead, see CrossFlagsPerFamily) each workspace family of the direction (a workspace and its
// multi_buffer slots, WorkspaceFamily) gets its own pair. Per counter:
//  - ready: the producer sets it on the pipe that wrote the workspace (fix for L0C->GM, mte3
//    for UB->GM) right after the write; the consumer waits for it on mte2 right before the
//    read;
//  - slot-free, for workspaces that may be written more than once (in a loop, or by several
//    copies): the consumer sets it on mte2 after each read, the producer waits for it on the
//    write pipe before each write; the consumer pre-arms T tokens at the start of its program
//    and the producer drains T at the end of its own, so every counter is zero at block end.
//    T is the smallest distance, in the counter's writes, between two writes of one
//    workspace (multi_buffer's slots are distinct workspaces), at most 8.
// A workspace the kernel declares is ordered when its writes and reads pair one to one, or
// when it is written once and read a constant N <= 8 times (its own ready counter, set N
// times after the write); other declared workspaces stay the author's.
// Ids are the lowest of 0..NpuTarget::cross_flag_ids-1 that the kernel's own cross flags do
// not use. Works for threads=1 (one AIV: a mode-2 set from it counts at once) and for the
// 1:2 forms (the AIC's counter counts once both AIVs have set).
// Diagnostics: ids exhausted; an author cross flag with a runtime id; a hand-off under a loop
// or `if` that depends on vid. Statistic: "cross_flags" (set and wait statements added).
//
// Pure functions; see pass.h for the pass contract and thread safety.
#pragma once

#include <string_view>

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"
#include "compiler/target/npu_target.h"

namespace tilejit::passes {

Result<ir::Kernel> CrossCoreSync(const ir::Kernel& kernel, PassContext& ctx);

// The family of compiler workspace `ws`: its name without the `_slot<i>` suffixes
// multi_buffer gives the slots it adds (a workspace and all its slots share one family).
std::string_view WorkspaceFamily(const ir::BufferNode& ws);

// True if cross_core_sync can always give every workspace family its own ready and slot-free
// counters in `kernel`: two ids per compiler workspace family, next to the distinct constant
// ids of the kernel's own cross flags, fit in target.cross_flag_ids. multi_buffer asks this
// before it lets one family's hand-offs overtake another's (so the writes of a direction
// need to stay in read order only within each family). Slots added later do not change the
// answer (they join their original's family).
bool CrossFlagsPerFamily(const ir::Kernel& kernel, const target::NpuTarget& target);

}  // namespace tilejit::passes
