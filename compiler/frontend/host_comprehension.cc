// SPDX-License-Identifier: Apache-2.0
// List and dict comprehensions and generator expressions in host code.
//
// Python 3 scoping: the comprehension's targets live in a scope of its own (they do not leak
// into the function), and the first clause's iterable is evaluated in the enclosing scope,
// the later ones and every condition and element in the comprehension's scope. A generator
// expression is evaluated at once, to a list: host code only ever consumes it whole (sum,
// tuple, a for loop), and a factory runs before anything could observe the laziness.
//
// Each item a clause yields is a step of the frontend budget, and each element kept reserves
// its size first, so `[0 for _ in range(2**40)]` ends at a budget, not in an allocation.
#include "compiler/frontend/host_eval.h"

namespace tilejit::frontend {

std::optional<Value> Evaluator::EvalComprehension(const Expr& e, const ScopePtr& scope) {
  auto inner = std::make_shared<Scope>(scope);
  std::vector<Value> keys, values;
  if (!RunClauses(e, 0, scope, inner, &keys, &values)) return std::nullopt;
  if (e.kind == ExprKind::kDictComp) return MakeDict(keys, values, e.loc);
  return Value::List(std::move(keys));
}

// Runs clause `clause` and those after it; past the last clause, evaluates the element (a
// dict's key and value) into `keys` (and `values`).
bool Evaluator::RunClauses(const Expr& e, size_t clause, const ScopePtr& outer,
                           const ScopePtr& inner, std::vector<Value>* keys,
                           std::vector<Value>* values) {
  if (clause == e.generators.size()) {
    const bool dict = e.kind == ExprKind::kDictComp;
    if (!budget().Reserve((dict ? 2 : 1) * sizeof(Value) * (keys->size() + 1), e.loc, diag_)) {
      return false;
    }
    auto key = Eval(*e.left, inner);
    if (!key) return false;
    if (dict) {
      auto value = Eval(*e.right, inner);
      if (!value) return false;
      values->push_back(std::move(*value));
    }
    keys->push_back(std::move(*key));
    return true;
  }
  const Comprehension& c = e.generators[clause];
  const Flow ended = ForEach(*c.iter, clause == 0 ? outer : inner, [&](const Value& item) {
    if (!budget().Step(c.iter->loc, diag_) || !Assign(*c.target, item, inner)) {
      return Flow::kError;
    }
    for (const ExprPtr& cond : c.ifs) {
      std::optional<bool> keep = HostCondition(*cond, inner);
      if (!keep) return Flow::kError;
      if (!*keep) return Flow::kNormal;
    }
    return RunClauses(e, clause + 1, outer, inner, keys, values) ? Flow::kNormal : Flow::kError;
  });
  return ended == Flow::kNormal;
}

}  // namespace tilejit::frontend
