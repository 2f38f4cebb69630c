// SPDX-License-Identifier: Apache-2.0
// The parts of legalize_copies (legalize_copies.cc, legalize_copies_cv.cc). Not part of the
// pass API.
//
// Cube <-> vector hand-offs through compiler workspaces: the rewrite legalize_copies applies
// to L0C->UB and UB->L1 copies when TL_ASCEND_AUTO_CV_COMBINE is on and the kernel has no
// T.Scope (DESIGN.md section 4, step 5).
//
// For each such copy a new GM parameter is appended to Kernel::params and
// Kernel::workspace_idx: role kWorkspace, compiler_made, shape [grid, <shape of the cube-side
// buffer>]; block cid owns index cid of dim 0. The copy becomes two copies at its position:
//   L0C->UB  copy(%ws[%cid:+1, <whole l0c>], %l0c)       cube side, FIX pipe (keeps relu)
//            copy(%ub, %ws[%cid:+1, <the l0c region>])   vector side, MTE2
//   UB->L1   copy(%ws[%cid:+1, <the l1 region>], %ub)    vector side, MTE3
//            copy(%l1, %ws[%cid:+1, <whole l1>])         cube side, MTE2
// The cube side always moves the whole cube buffer, so it never depends on vid. With two
// AIVs, a UB->L1 copy whose regions do not depend on vid (a UB tile replicated on both AIVs)
// is halved by rows between them (`+ %vid * R/2`), so their workspace writes are disjoint. An
// L0C->UB copy that converts (float32 -> float16/bfloat16) does the conversion on the FIX pipe: the
// workspace has the UB buffer's dtype. Statistic: "workspace_bytes" (bytes per block).
//
// Pure functions; thread-safe.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes::legalize_copies_internal {

// Rewrites every cross-core copy of `kernel` as above. The copies must already have been
// checked (shapes, conversions). A launch grid that is not a compile-time constant is a
// diagnostic at the first such copy (the workspace is sized by it).
Result<ir::Kernel> StageCrossCoreCopies(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes::legalize_copies_internal
