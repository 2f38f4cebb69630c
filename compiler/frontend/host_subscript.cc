// SPDX-License-Identifier: Apache-2.0
// Subscripts in host code: buffer elements and regions (subscript.cc), list, tuple and string
// items and slices, dict lookups.
//
// Slices follow Python's rules (PySlice_AdjustIndices): bounds clamp instead of failing,
// negative bounds count from the end, the defaults depend on the step's sign, and a zero
// step is an error. The result is never longer than the sliced value, which the frontend
// budget already accounts for.
#include <algorithm>

#include "compiler/frontend/host_eval.h"
#include "compiler/frontend/subscript.h"

namespace tilejit::frontend {
namespace {

// A slice bound: nullopt for an absent one or None.
bool SliceBound(Evaluator& ev, const ExprPtr& x, const ScopePtr& scope,
                std::optional<int64_t>* out) {
  if (x == nullptr) return true;
  auto v = ev.Eval(*x, scope);
  if (!v) return false;
  if (v->kind == ValueKind::kNone) return true;
  if (v->kind != ValueKind::kInt && v->kind != ValueKind::kBool) {
    ev.diag().Error(x->loc) << "slice indices must be integers or None, not " << TypeName(*v);
    return false;
  }
  *out = IntOf(*v);
  return true;
}

// Python's clamping of one bound into [lo_end, hi_end] after counting a negative one from
// the end of a sequence of `size` items.
int64_t Clamp(int64_t i, int64_t size, int64_t lo_end, int64_t hi_end) {
  if (i < 0) i += size;
  return std::clamp(i, lo_end, hi_end);
}

}  // namespace

std::optional<Value> Evaluator::SliceSequence(const Value& base, const Expr& slice,
                                              const ScopePtr& scope) {
  if (!base.is_sequence() && base.kind != ValueKind::kString) {
    diag_->Error(slice.loc) << "slicing a " << TypeName(base) << " is not supported";
    return std::nullopt;
  }
  std::optional<int64_t> lower, upper, step;
  if (!SliceBound(*this, slice.left, scope, &lower) ||
      !SliceBound(*this, slice.right, scope, &upper) ||
      !SliceBound(*this, slice.third, scope, &step)) {
    return std::nullopt;
  }
  const int64_t by = step.value_or(1);
  if (by == 0) {
    diag_->Error(slice.third->loc) << "slice step cannot be zero";
    return std::nullopt;
  }
  const bool is_string = base.kind == ValueKind::kString;
  const int64_t size =
      is_string ? static_cast<int64_t>(base.text.size()) : static_cast<int64_t>(base.size());
  // Forward: [0, size]; backward: [-1, size - 1], where -1 means "before the first item".
  const int64_t lo_end = by > 0 ? 0 : -1, hi_end = by > 0 ? size : size - 1;
  const int64_t from = lower ? Clamp(*lower, size, lo_end, hi_end) : (by > 0 ? 0 : size - 1);
  const int64_t to = upper ? Clamp(*upper, size, lo_end, hi_end) : (by > 0 ? size : -1);
  std::string text;
  std::vector<Value> items;
  for (int64_t i = from; by > 0 ? i < to : i > to; i += by) {
    if (is_string) {
      text.push_back(base.text[static_cast<size_t>(i)]);
    } else {
      items.push_back(base.item(static_cast<size_t>(i)));
    }
  }
  if (is_string) return Value::Str(std::move(text));
  return base.kind == ValueKind::kList ? Value::List(std::move(items))
                                       : Value::Tuple(std::move(items));
}

std::optional<Value> Evaluator::EvalSubscript(const Expr& e, const ScopePtr& scope) {
  auto base = Eval(*e.left, scope);
  if (!base) return std::nullopt;
  if (base->kind == ValueKind::kBuffer)
    return SubscriptBuffer(*this, base->buffer, *e.right, scope, e.loc);
  if (e.right->kind == ExprKind::kSlice) return SliceSequence(*base, *e.right, scope);
  auto index = Eval(*e.right, scope);
  if (!index) return std::nullopt;
  if (base->is_sequence() || base->kind == ValueKind::kString) {
    if (index->kind != ValueKind::kInt && index->kind != ValueKind::kBool) {
      diag_->Error(e.right->loc) << TypeName(*base) << " indices must be integers, not "
                                 << TypeName(*index);
      return std::nullopt;
    }
    int64_t n = index->kind == ValueKind::kInt ? index->i : index->b;
    int64_t size = base->kind == ValueKind::kString ? static_cast<int64_t>(base->text.size())
                                                    : static_cast<int64_t>(base->size());
    if (n < 0) n += size;
    if (n < 0 || n >= size) {
      diag_->Error(e.right->loc) << TypeName(*base) << " index out of range";
      return std::nullopt;
    }
    if (base->kind == ValueKind::kString) return Value::Str(base->text.substr(n, 1));
    return base->item(static_cast<size_t>(n));
  }
  if (base->kind == ValueKind::kDict) {
    for (size_t n = 0; n < base->size(); ++n) {
      if (Equals(base->item(n), *index)) return (*base->values)[n];
    }
    diag_->Error(e.right->loc) << "key " << Repr(*index) << " not found in dict";
    return std::nullopt;
  }
  diag_->Error(e.loc) << "'" << TypeName(*base) << "' object is not subscriptable";
  return std::nullopt;
}

}  // namespace tilejit::frontend
