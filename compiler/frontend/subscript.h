// SPDX-License-Identifier: Apache-2.0
// Buffer subscripts: `A[i, j]` (an element), `A[lo:hi, :]`, `x[i, :]` (regions), with static
// extents and static bounds checks, plus the small affine arithmetic that proves a slice
// `j * 64:(j + 1) * 64` has the static extent 64.
// Stateless helpers; diagnostics go to the evaluator's engine.
#pragma once

#include <optional>
#include <string>

#include "compiler/frontend/host_eval.h"
#include "compiler/ir/ir.h"

namespace tilejit::frontend {

// The value of buffer[index]: kElement when every dimension has a plain index, else kRegion
// (missing trailing dimensions are whole). nullopt after a diagnostic.
std::optional<Value> SubscriptBuffer(Evaluator& ev, const ir::Buffer& buffer, const Expr& index,
                                     const ScopePtr& scope, SourceLoc loc);

// hi - lo when it is a compile-time constant (both affine in the same runtime terms); with
// `ev`, a var the kernel body bound stands for its bound value (Evaluator::BoundValue).
std::optional<int64_t> StaticDiff(const ir::Expr& hi, const ir::Expr& lo,
                                  const Evaluator* ev = nullptr);

// A structural key of an expression (vars by identity), for comparing expressions.
std::string StructKey(const ir::Expr& e);

}  // namespace tilejit::frontend
