// SPDX-License-Identifier: Apache-2.0
// combine_cv (DESIGN.md section 4, step 7; runs with TL_ASCEND_AUTO_CV_COMBINE): splits one
// launch body into the program of the cube core (AIC) and the program of the vector cores
// (AIV). The launch body becomes
//   <every allocation>  <the load-free lets at the head of the body>
//   scope cube { <cube projection> }  scope vector { <vector projection> }
// A projection keeps the leaves of its core type (classification: core_kind.h), the syncs on
// pipes both cores have (barrier all, MTE2/MTE3/S flags), scalar stores to var/GM buffers
// (unless they read one core's memory), and the loops, ifs and lets around them; empty loops
// and ifs are dropped. Author T.Scope blocks are inlined into their core's projection (their
// contents untouched); only the rest is classified. A side without work of its own is omitted.
//
// Diagnostics: a loop bound, condition or let both sides need that reads one core's memory
// (UB or L1/L0) cannot be replicated; a cross-core flag on a pipe both cores have outside
// T.Scope; a hand-off the split creates (a compiler workspace written on one core and read on
// the other, see cv_handoff.h) while TL_ASCEND_AUTO_CV_SYNC is off (nobody would order it).
// Statistic: "hand_offs" (compiler workspaces crossing cores).
//
// Pure function of its input; see pass.h for the pass contract and thread safety.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> CombineCv(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
