// SPDX-License-Identifier: Apache-2.0
// legalize_copies (DESIGN.md section 4, step 5): checks that every copy is a data path the
// target has AND our ISA implements (docs/isa.md section 5):
//   gm->l1, gm->ub, ub->gm, ub->ub, l1->gm, l1->l0a, l1->l0b, l0c->gm, l0c->l1.
// Findings, each a diagnostic at the copy:
//  - gm->l0a / gm->l0b (hardware paths our ISA lacks): stage through L1;
//  - any other illegal pair: names the path ("ub -> l0a") and the legal paths from that
//    source and into that destination;
//  - l0c->ub and ub->l1 (no on-chip path on 910B): with CV_COMBINE on and no explicit
//    T.Scope they become a round trip through a compiler workspace (cv_handoff.h: a new GM
//    param, a cube-side and a vector-side copy), counted ("cv_round_trips",
//    "workspace_bytes"); their shapes and conversions are checked as for the fixpipe paths
//    (l0c->ub converts like l0c->gm, ub->l1 converts nothing); a non-constant grid is a
//    diagnostic. Otherwise a diagnostic suggesting a declared workspace (workspace_idx)
//    ordered with set_cross_flag / wait_cross_flag;
//  - operand shapes that differ (after dropping leading unit dims; a transposing L0 load
//    swaps the two dims of its source);
//  - a dtype conversion, or enable_relu, on a path other than the fixpipe paths l0c->gm and
//    l0c->l1; a conversion the fixpipe cannot do (f32 -> f32/f16/bf16, s32 -> s32). A
//    converting ub->ub copy is not an error: it becomes `cast(dst, src) {mode="CAST_RINT"}`
//    on the same V pipe (statistic "ub_casts");
//  - transpose on anything but a 16-bit l1->l0a / l1->l0b load.
// The kernel is otherwise returned unchanged. Statistic: "copies" = copies checked.
// Pure function of its inputs; see pass.h for the pass contract and thread safety.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> LegalizeCopies(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
