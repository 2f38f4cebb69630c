// SPDX-License-Identifier: Apache-2.0
// Python's builtins over sequences (sum, any, all, list, tuple, enumerate, zip) and its math
// module, on host values. They take what a host `for` takes: a list, a tuple or a dict (its
// keys); a generator expression is a list here. enumerate and zip return lists of tuples, as
// consuming their iterators at once would. Every item walked is a step of the frontend budget,
// and a result's elements are reserved before they are made.
#include <cmath>
#include <limits>
#include <numeric>

#include "compiler/frontend/host_eval.h"

namespace tilejit::frontend {

const std::vector<Value>* Evaluator::IterableItems(const Value& v, std::string_view fn,
                                                   SourceLoc loc) {
  if (v.is_sequence() || v.kind == ValueKind::kDict) return v.items.get();
  diag_->Error(v.loc.known() ? v.loc : loc)
      << fn << "() needs a list, a tuple or a dict here, not " << TypeName(v);
  return nullptr;
}

std::optional<Value> Evaluator::SequenceBuiltin(const BuiltinRow& row, const BoundArgs& b,
                                                const std::vector<Value>& args, SourceLoc loc) {
  const std::string_view fn = row.name;
  if (row.handler == BuiltinHandler::kZip) {
    std::vector<const std::vector<Value>*> lists;
    size_t n = args.empty() ? 0 : SIZE_MAX;
    for (const Value& a : args) {
      if (!lists.emplace_back(IterableItems(a, fn, loc))) return std::nullopt;
      n = std::min(n, lists.back()->size());
    }
    if (!budget().Reserve(n * (lists.size() + 1) * sizeof(Value), loc, diag_)) return std::nullopt;
    std::vector<Value> out;
    for (size_t i = 0; i < n; ++i) {
      if (!budget().Step(loc, diag_)) return std::nullopt;
      std::vector<Value> tuple;
      for (const auto* list : lists) tuple.push_back((*list)[i]);
      out.push_back(Value::Tuple(std::move(tuple)));
    }
    return Value::List(std::move(out));
  }
  if (row.handler == BuiltinHandler::kSequence && !b[0]) {
    return fn == "list" ? Value::List({}) : Value::Tuple({});
  }
  const std::vector<Value>* items = IterableItems(*b[0], fn, loc);
  if (!items) return std::nullopt;
  switch (row.handler) {
    case BuiltinHandler::kSum: {
      if (b[1]->kind == ValueKind::kString) {
        diag_->Error(loc) << "sum() can't sum strings [use ''.join(seq) instead]";
        return std::nullopt;
      }
      Value total = *b[1];
      for (const Value& item : *items) {
        auto next =
            budget().Step(loc, diag_) ? BinOp(BinOpKind::kAdd, total, item, loc) : std::nullopt;
        if (!next) return std::nullopt;
        total = std::move(*next);
      }
      return total;
    }
    case BuiltinHandler::kAnyAll: {
      const bool any = fn == "any";
      for (const Value& item : *items) {
        if (!budget().Step(loc, diag_)) return std::nullopt;
        if (item.IsRuntime()) {
          diag_->Error(loc) << fn << "() of a runtime value is not allowed in host code";
          return std::nullopt;
        }
        if (Truthy(item) == any) return Value::Bool(any);
      }
      return Value::Bool(!any);
    }
    case BuiltinHandler::kSequence: {
      if (!budget().Reserve(items->size() * sizeof(Value), loc, diag_)) return std::nullopt;
      return fn == "list" ? Value::List(*items) : Value::Tuple(*items);
    }
    case BuiltinHandler::kEnumerate: {
      if (b[1]->kind != ValueKind::kInt) {
        diag_->Error(loc) << "enumerate() start must be an int, not " << TypeName(*b[1]);
        return std::nullopt;
      }
      if (!budget().Reserve(items->size() * 3 * sizeof(Value), loc, diag_)) return std::nullopt;
      std::vector<Value> out;
      int64_t index = b[1]->i;
      for (const Value& item : *items) {
        if (!budget().Step(loc, diag_)) return std::nullopt;
        out.push_back(Value::Tuple({Value::Int(index++), item}));
      }
      return Value::List(std::move(out));
    }
    default:
      break;
  }
  diag_->Error(loc) << "'" << fn << "' is not callable";
  return std::nullopt;
}

// Python's math functions: ceil and floor give ints (and refuse what no int64 holds), the
// others floats; a domain error is Python's "math domain error".
std::optional<Value> Evaluator::PythonMath(const BuiltinRow& row, const BoundArgs& b,
                                           SourceLoc loc) {
  const std::string_view fn = row.name.substr(5);  // past "math."
  for (const std::optional<Value>& a : b) {
    if (a && !a->is_numeric()) {
      diag_->Error(a->loc.known() ? a->loc : loc)
          << row.name << "() needs a host number, not " << TypeName(*a);
      return std::nullopt;
    }
  }
  const double x = DoubleOf(*b[0]);
  auto whole = [&](double v) -> std::optional<Value> {
    if (!std::isfinite(v) || std::fabs(v) >= 0x1p63) {
      diag_->Error(loc) << row.name << "() of " << Repr(*b[0]) << " is not a representable int";
      return std::nullopt;
    }
    return Value::Int(static_cast<int64_t>(v));
  };
  auto domain = [&](bool ok, double v) -> std::optional<Value> {
    if (ok && (std::isfinite(v) || !std::isfinite(x))) return Value::Float(v);
    diag_->Error(loc) << row.name << "(): math " << (ok ? "range" : "domain") << " error";
    return std::nullopt;
  };
  const bool is_float = b[0]->kind == ValueKind::kFloat;
  if (fn == "ceil") return is_float ? whole(std::ceil(x)) : Value::Int(IntOf(*b[0]));
  if (fn == "floor") return is_float ? whole(std::floor(x)) : Value::Int(IntOf(*b[0]));
  if (fn == "sqrt") return domain(x >= 0, std::sqrt(x));
  if (fn == "exp") return domain(true, std::exp(x));
  if (fn == "log2") return domain(x > 0, std::log2(x));
  if (fn == "log10") return domain(x > 0, std::log10(x));
  if (fn == "log") {
    if (!b[1]) return domain(x > 0, std::log(x));
    const double base = DoubleOf(*b[1]);
    return domain(x > 0 && base > 0 && base != 1, std::log(x) / std::log(base));
  }
  if (fn == "pow") return domain(true, std::pow(x, DoubleOf(*b[1])));
  if (fn == "isqrt" || fn == "gcd") {
    for (const std::optional<Value>& a : b) {
      if (a->kind == ValueKind::kFloat || IntOf(*a) == std::numeric_limits<int64_t>::min()) {
        diag_->Error(loc) << row.name << "() needs ints, not " << TypeName(*a);
        return std::nullopt;
      }
    }
    if (fn == "gcd") return Value::Int(std::gcd(IntOf(*b[0]), IntOf(*b[1])));
    if (IntOf(*b[0]) < 0) return domain(false, 0);
    const uint64_t n = static_cast<uint64_t>(IntOf(*b[0]));
    uint64_t r = static_cast<uint64_t>(std::sqrt(static_cast<double>(n)));
    while (r * r > n) --r;  // the double's rounding, corrected both ways
    while ((r + 1) * (r + 1) <= n) ++r;
    return Value::Int(static_cast<int64_t>(r));
  }
  diag_->Error(loc) << "'" << row.name << "' is not callable";
  return std::nullopt;
}

}  // namespace tilejit::frontend
