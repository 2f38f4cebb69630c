// SPDX-License-Identifier: Apache-2.0
// Builtins callable in expression context: the T.* scalar helpers (ceildiv, min, max,
// if_then_else, infinity, cast, exp, ...) and the Python builtins kernels use. On host
// constants they compute; on runtime values they build IR.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "compiler/frontend/host_eval.h"

namespace tilejit::frontend {
namespace {

bool IsIntLike(const Value& v) { return v.kind == ValueKind::kInt || v.kind == ValueKind::kBool; }
int64_t IntOf(const Value& v) { return v.kind == ValueKind::kInt ? v.i : v.b; }
double DoubleOf(const Value& v) { return v.kind == ValueKind::kFloat ? v.f : IntOf(v); }

}  // namespace

std::optional<Value> Evaluator::EvalHostBuiltin(const std::string& name, const Expr& call,
                                                const std::vector<Value>& args,
                                                const KwArgs& kwargs) {
  SourceLoc loc = call.loc;
  auto bind = [&](std::initializer_list<std::string_view> params, size_t required) {
    return Bind(Signature{name, params, required}, args, kwargs, loc);
  };
  auto dtype_of = [&](const Value& v) { return DTypeOfValue(v, loc, diag_); };
  if (name == "T.ceildiv") {
    auto b = bind({"a", "b"}, 2);
    if (!b) return std::nullopt;
    const Value &x = *(*b)[0], &y = *(*b)[1];
    if (IsIntLike(x) && IsIntLike(y)) {
      if (IntOf(y) == 0) {
        diag_->Error(loc) << "T.ceildiv by zero";
        return std::nullopt;
      }
      auto neg = UnaryOp(UnaryOpKind::kUSub, x, loc);
      auto q = neg ? BinOp(BinOpKind::kFloorDiv, *neg, y, loc) : std::nullopt;
      return q ? UnaryOp(UnaryOpKind::kUSub, *q, loc) : std::nullopt;
    }
    auto ym1 = BinOp(BinOpKind::kSub, y, Value::Int(1), loc);
    auto sum = ym1 ? BinOp(BinOpKind::kAdd, x, *ym1, loc) : std::nullopt;
    return sum ? BinOp(BinOpKind::kFloorDiv, *sum, y, loc) : std::nullopt;
  }
  if (name == "T.min" || name == "T.max" || name == "min" || name == "max") {
    bool is_min = name == "T.min" || name == "min";
    std::vector<Value> vals = args;
    if (!kwargs.empty()) {
      diag_->Error(kwargs[0].second.loc) << name << "() takes no keyword arguments";
      return std::nullopt;
    }
    if (vals.size() == 1 && vals[0].is_sequence()) vals = *vals[0].items;
    if (vals.size() < (name[0] == 'T' ? 2u : 1u) || (name[0] == 'T' && vals.size() != 2)) {
      diag_->Error(loc) << name << "() expects "
                        << (name[0] == 'T' ? "2 arguments" : "at least 1 item");
      return std::nullopt;
    }
    Value acc = vals[0];
    for (size_t n = 1; n < vals.size(); ++n) {
      if (acc.IsRuntime() || vals[n].IsRuntime()) {
        auto a = ToExpr(acc, loc);
        auto c = a ? ToExpr(vals[n], loc) : std::nullopt;
        if (!c) return std::nullopt;
        acc = Value::OfExpr(
            ir::Binary(is_min ? ir::BinaryOp::kMin : ir::BinaryOp::kMax, *a, *c, loc));
        continue;
      }
      auto lt = CompareOp(CmpOpKind::kLt, vals[n], acc, loc);
      if (!lt) return std::nullopt;
      if (lt->b == is_min && !Equals(vals[n], acc)) acc = vals[n];
    }
    return acc;
  }
  if (name == "T.if_then_else") {
    auto b = bind({"cond", "true_value", "false_value"}, 3);
    if (!b) return std::nullopt;
    if (!(*b)[0]->IsRuntime()) return Truthy(*(*b)[0]) ? *(*b)[1] : *(*b)[2];
    auto c = ToExpr(*(*b)[0], loc);
    auto t = c ? ToExpr(*(*b)[1], loc) : std::nullopt;
    auto f = t ? ToExpr(*(*b)[2], loc) : std::nullopt;
    if (!f) return std::nullopt;
    return Value::OfExpr(ir::Select(*c, *t, *f, loc));
  }
  if (name == "T.infinity") {
    auto b = bind({"dtype"}, 1);
    if (!b || !dtype_of(*(*b)[0])) return std::nullopt;
    return Value::Float(std::numeric_limits<double>::infinity());
  }
  if (name == "T.cast" || (name.size() > 2 && ir::ParseDType(name.substr(2)))) {
    bool generic = name == "T.cast";
    auto b = generic ? bind({"value", "dtype"}, 2) : bind({"value"}, 1);
    if (!b) return std::nullopt;
    auto dt = generic ? dtype_of(*(*b)[1]) : ir::ParseDType(name.substr(2));
    if (!dt) return std::nullopt;
    auto x = ToExpr(*(*b)[0], loc);
    if (!x) return std::nullopt;
    return Value::OfExpr(ir::Call("cast", {*x}, *dt, loc));
  }
  if (name == "T.exp" || name == "T.log" || name == "T.sqrt" || name == "T.rsqrt" ||
      name == "T.abs") {
    auto b = bind({"x"}, 1);
    if (!b) return std::nullopt;
    const Value& x = *(*b)[0];
    std::string op = name.substr(2);
    if (x.is_numeric() && op == "abs" &&
        !(x.kind == ValueKind::kInt && x.i == std::numeric_limits<int64_t>::min())) {
      return x.kind == ValueKind::kFloat ? Value::Float(std::fabs(x.f))
                                         : Value::Int(IntOf(x) < 0 ? -IntOf(x) : IntOf(x));
    }
    auto e = ToExpr(x, loc);
    if (!e) return std::nullopt;
    ir::DType t = ir::IsFloat((*e)->dtype) ? (*e)->dtype : ir::DType::kFloat32;
    return Value::OfExpr(ir::Call(op, {*e}, op == "abs" ? (*e)->dtype : t, loc));
  }
  if (name == "T.And" || name == "T.Or") {
    auto b = bind({"a", "b"}, 2);
    if (!b) return std::nullopt;
    const Value &x = *(*b)[0], &y = *(*b)[1];
    if (!x.IsRuntime() && !y.IsRuntime()) {
      return Value::Bool(name == "T.And" ? Truthy(x) && Truthy(y) : Truthy(x) || Truthy(y));
    }
    auto a = ToExpr(x, loc);
    auto c = a ? ToExpr(y, loc) : std::nullopt;
    if (!c) return std::nullopt;
    return Value::OfExpr(
        ir::Binary(name == "T.And" ? ir::BinaryOp::kAnd : ir::BinaryOp::kOr, *a, *c, loc));
  }
  if (name == "DataType") {
    auto b = bind({"dtype"}, 1);
    if (!b) return std::nullopt;
    auto dt = dtype_of(*(*b)[0]);
    if (!dt) return std::nullopt;
    return Value::DataTypeOf(std::string(ir::DTypeName(*dt)));
  }
  if (name == "print") return Value::None();
  auto b = bind({"x"}, 1);
  if (!b) return std::nullopt;
  const Value& x = *(*b)[0];
  if (x.IsRuntime()) {
    diag_->Error(loc) << name << "() of a runtime value is not supported";
    return std::nullopt;
  }
  if (name == "len") {
    if (x.kind == ValueKind::kString) return Value::Int(static_cast<int64_t>(x.text.size()));
    if (x.is_sequence() || x.kind == ValueKind::kDict)
      return Value::Int(static_cast<int64_t>(x.size()));
  } else if (name == "abs" && x.is_numeric()) {
    if (x.kind == ValueKind::kFloat) return Value::Float(std::fabs(x.f));
    if (IntOf(x) == std::numeric_limits<int64_t>::min()) {
      diag_->Error(loc) << "integer overflow in abs()";
      return std::nullopt;
    }
    return Value::Int(IntOf(x) < 0 ? -IntOf(x) : IntOf(x));
  } else if (name == "int") {
    if (IsIntLike(x)) return Value::Int(IntOf(x));
    if (x.kind == ValueKind::kFloat) {
      if (!std::isfinite(x.f) || std::fabs(x.f) >= 9.2e18) {
        diag_->Error(loc) << "cannot convert " << Repr(x) << " to int";
        return std::nullopt;
      }
      return Value::Int(static_cast<int64_t>(x.f));
    }
    if (x.kind == ValueKind::kString) {
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(x.text.c_str(), &end, 10);
      if (!x.text.empty() && end && *end == '\0' && errno == 0) return Value::Int(v);
    }
  } else if (name == "float") {
    if (x.is_numeric()) return Value::Float(DoubleOf(x));
    if (x.kind == ValueKind::kString) {
      char* end = nullptr;
      double v = std::strtod(x.text.c_str(), &end);
      if (!x.text.empty() && end && *end == '\0') return Value::Float(v);
    }
  } else if (name == "bool") {
    return Value::Bool(Truthy(x));
  } else if (name == "str") {
    return Value::Str(x.kind == ValueKind::kString ? x.text : Repr(x));
  }
  diag_->Error(loc) << name << "() does not accept " << Repr(x);
  return std::nullopt;
}

}  // namespace tilejit::frontend
