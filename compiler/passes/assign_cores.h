// SPDX-License-Identifier: Apache-2.0
// assign_cores: puts every tile op and sync statement inside a `scope cube` or `scope vector`,
// the form codegen projects into one program per core type (codegen/codegen.h).
//
//  - A kernel without T.Scope whose work is all cube (gemm, mma, copies touching L1/L0) or all
//    vector (vector ops, copies touching UB) is wrapped whole in one scope of that kind; this is
//    how Expert cube-only and vector-only kernels (the seed's Expert GEMM) need no T.Scope.
//  - A kernel that uses T.Scope keeps the author's scopes; statements the author left outside
//    go into a scope of their own kind, and a sync naming only pipes both cores have
//    (barrier_all, mte2/mte3/s pairs) is given to both.
//  - Cube work inside T.Scope("V") or vector work inside T.Scope("C") is a diagnostic.
//  - Cube and vector work mixed with neither T.Scope nor TL_ASCEND_AUTO_CV_COMBINE is a
//    diagnostic naming both fixes.
//
// Thread safety: a pure function of its input.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> AssignCores(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
