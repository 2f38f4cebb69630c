// SPDX-License-Identifier: Apache-2.0
// The host handlers of the builtin registry: the T.* scalar helpers (ceildiv, min, max,
// if_then_else, infinity, cast, exp, ...) and the Python builtins kernels use. On host
// constants they compute; on runtime values they build IR. Arguments arrive bound to the
// row's signature (EvalHostBuiltin binds them once).
#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "compiler/frontend/host_eval.h"

namespace tilejit::frontend {
namespace {

bool IsIntLike(const Value& v) { return v.kind == ValueKind::kInt || v.kind == ValueKind::kBool; }

}  // namespace

std::optional<Value> Evaluator::CeilDiv(const Value& x, const Value& y, SourceLoc loc) {
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

// T.symbolic(name, dtype): TileLang's tir.Var for a dim bound at launch. Index arithmetic here
// is int32, so that is the one dtype (a wider dim is refused at launch, not truncated).
std::optional<Value> Evaluator::SymbolicDim(const Value& name, const Value* dtype, SourceLoc loc) {
  const bool ident =
      !name.text.empty() && name.text.size() <= 64 &&
      std::all_of(name.text.begin(), name.text.end(),
                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
      !std::isdigit(static_cast<unsigned char>(name.text[0]));
  if (name.kind != ValueKind::kString || !ident) {
    diag_->Error(loc) << "T.symbolic needs an identifier string as its name, not " << Repr(name);
    return std::nullopt;
  }
  if (dtype != nullptr) {
    auto d = DTypeOfValue(*dtype, loc, diag_);
    if (!d) return std::nullopt;
    if (*d != ir::DType::kInt32 && *d != ir::DType::kInt64) {
      diag_->Error(loc) << "T.symbolic dims are integers; dtype " << ir::DTypeName(*d) << " is not";
      return std::nullopt;
    }
  }
  return Value::OfExpr(ir::Ref(env().Symbol(name.text, loc), loc));
}

// T.min/T.max take two values; Python's min/max one iterable or several values.
std::optional<Value> Evaluator::MinMax(const BuiltinRow& row, std::vector<Value> vals,
                                       SourceLoc loc) {
  bool is_min = row.handler == BuiltinHandler::kMin;
  if (SignatureOf(row).variadic && vals.size() == 1 && vals[0].is_sequence()) vals = *vals[0].items;
  if (vals.empty()) {
    diag_->Error(loc) << row.name << "() expects at least 1 item";
    return std::nullopt;
  }
  Value acc = vals[0];
  for (size_t n = 1; n < vals.size(); ++n) {
    if (acc.IsRuntime() || vals[n].IsRuntime()) {
      auto a = ToExpr(acc, loc);
      auto c = a ? ToExpr(vals[n], loc) : std::nullopt;
      if (!c) return std::nullopt;
      acc =
          Value::OfExpr(ir::Binary(is_min ? ir::BinaryOp::kMin : ir::BinaryOp::kMax, *a, *c, loc));
      continue;
    }
    auto lt = CompareOp(CmpOpKind::kLt, vals[n], acc, loc);
    if (!lt) return std::nullopt;
    if (lt->b == is_min && !Equals(vals[n], acc)) acc = vals[n];
  }
  return acc;
}

// T.exp, T.log, T.sqrt, T.rsqrt, T.abs: folded for T.abs of a host number, else IR.
std::optional<Value> Evaluator::MathUnary(const std::string& op, const Value& x, SourceLoc loc) {
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

std::optional<Value> Evaluator::Logical(bool is_and, const Value& x, const Value& y,
                                        SourceLoc loc) {
  if (!x.IsRuntime() && !y.IsRuntime()) {
    return Value::Bool(is_and ? Truthy(x) && Truthy(y) : Truthy(x) || Truthy(y));
  }
  auto a = ToExpr(x, loc);
  auto c = a ? ToExpr(y, loc) : std::nullopt;
  if (!c) return std::nullopt;
  return Value::OfExpr(ir::Binary(is_and ? ir::BinaryOp::kAnd : ir::BinaryOp::kOr, *a, *c, loc));
}

// getattr(obj, name[, default]): the attribute rules of `obj.name`, so getattr(T.tile, op)
// resolves through the registry like T.tile.<op> does.
std::optional<Value> Evaluator::Getattr(const Value& obj, const Value& name,
                                        const std::optional<Value>& dflt, SourceLoc loc) {
  if (name.kind != ValueKind::kString) {
    diag_->Error(name.loc.known() ? name.loc : loc)
        << "getattr(): attribute name must be a str, not " << TypeName(name);
    return std::nullopt;
  }
  if (!dflt) return AttributeOf(obj, name.text, loc, obj.loc.known() ? obj.loc : loc);
  DiagnosticEngine quiet(diag_->sources());
  DiagnosticEngine* saved = diag_;
  diag_ = &quiet;
  auto v = AttributeOf(obj, name.text, loc, loc);
  diag_ = saved;
  return v ? v : dflt;
}

// len, abs, int, float, bool, str on host values.
std::optional<Value> Evaluator::PythonConversion(const BuiltinRow& row, const Value& x,
                                                 SourceLoc loc) {
  const BuiltinHandler h = row.handler;
  if (x.IsRuntime()) {
    diag_->Error(loc) << row.name << "() of a runtime value is not supported";
    return std::nullopt;
  }
  if (h == BuiltinHandler::kLen) {
    if (x.kind == ValueKind::kString) return Value::Int(static_cast<int64_t>(x.text.size()));
    if (x.is_sequence() || x.kind == ValueKind::kDict)
      return Value::Int(static_cast<int64_t>(x.size()));
  } else if (h == BuiltinHandler::kAbs && x.is_numeric()) {
    if (x.kind == ValueKind::kFloat) return Value::Float(std::fabs(x.f));
    if (IntOf(x) == std::numeric_limits<int64_t>::min()) {
      diag_->Error(loc) << "integer overflow in abs()";
      return std::nullopt;
    }
    return Value::Int(IntOf(x) < 0 ? -IntOf(x) : IntOf(x));
  } else if (h == BuiltinHandler::kInt) {
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
  } else if (h == BuiltinHandler::kFloat) {
    if (x.is_numeric()) return Value::Float(DoubleOf(x));
    if (x.kind == ValueKind::kString) {
      char* end = nullptr;
      double v = std::strtod(x.text.c_str(), &end);
      if (!x.text.empty() && end && *end == '\0') return Value::Float(v);
    }
  } else if (h == BuiltinHandler::kBool) {
    return Value::Bool(Truthy(x));
  } else if (h == BuiltinHandler::kStr) {
    return Value::Str(x.kind == ValueKind::kString ? x.text : Repr(x));
  }
  diag_->Error(loc) << row.name << "() does not accept " << Repr(x);
  return std::nullopt;
}

std::optional<Value> Evaluator::EvalHostBuiltin(const BuiltinRow& row, const Expr& call,
                                                const std::vector<Value>& args,
                                                const KwArgs& kwargs) {
  const std::string name(row.name);
  SourceLoc loc = call.loc;
  const Signature& sig = SignatureOf(row);
  std::optional<BoundArgs> b;
  if (!sig.variadic) {
    b = Bind(sig, args, kwargs, loc);
    if (!b) return std::nullopt;
  } else if (!kwargs.empty()) {
    diag_->Error(kwargs[0].second.loc) << name << "() takes no keyword arguments";
    return std::nullopt;
  }
  auto dtype_of = [&](const Value& v) { return DTypeOfValue(v, loc, diag_); };
  const Value* x = b && !b->empty() && (*b)[0] ? &*(*b)[0] : nullptr;
  switch (row.handler) {
    case BuiltinHandler::kCeilDiv:
      return CeilDiv(*x, *(*b)[1], loc);
    case BuiltinHandler::kSymbolic:
      return SymbolicDim(*x, (*b)[1] ? &*(*b)[1] : nullptr, loc);
    case BuiltinHandler::kUseSwizzle:
      return UseSwizzle(*b, loc);
    case BuiltinHandler::kNextPowerOf2: {
      if (x->kind != ValueKind::kInt || x->i < -(int64_t{1} << 61) || x->i > (int64_t{1} << 61)) {
        diag_->Error(loc) << name << "() needs an int within +-2^61, not " << Repr(*x);
        return std::nullopt;
      }
      // Python's (x - 1).bit_length() counts the bits of |x - 1|.
      const uint64_t m = x->i - 1 < 0 ? static_cast<uint64_t>(1 - x->i) : x->i - 1;
      return Value::Int(int64_t{1} << std::bit_width(m));
    }
    case BuiltinHandler::kMin:
    case BuiltinHandler::kMax:
      return MinMax(row, sig.variadic ? args : std::vector<Value>{*x, *(*b)[1]}, loc);
    case BuiltinHandler::kIfThenElse: {
      if (!x->IsRuntime()) return Truthy(*x) ? *(*b)[1] : *(*b)[2];
      auto c = ToExpr(*x, loc);
      auto t = c ? ToExpr(*(*b)[1], loc) : std::nullopt;
      auto f = t ? ToExpr(*(*b)[2], loc) : std::nullopt;
      if (!f) return std::nullopt;
      return Value::OfExpr(ir::Select(*c, *t, *f, loc));
    }
    case BuiltinHandler::kInfinity:
      if (!dtype_of(*x)) return std::nullopt;
      return Value::Float(std::numeric_limits<double>::infinity());
    case BuiltinHandler::kFloorOp:
      return BinOp(name == "T.floordiv" ? BinOpKind::kFloorDiv : BinOpKind::kMod, *x, *(*b)[1],
                   loc);
    case BuiltinHandler::kCast:
    case BuiltinHandler::kConvert: {
      const bool tvm_order = name == "T.Cast";
      const Value& value = tvm_order ? *(*b)[1] : *x;
      auto dt = row.handler == BuiltinHandler::kCast ? dtype_of(tvm_order ? *x : *(*b)[1])
                                                     : ir::ParseDType(name.substr(2));
      auto e = dt ? ToExpr(value, loc) : std::nullopt;
      if (!e) return std::nullopt;
      return Value::OfExpr(ir::Call("cast", {*e}, *dt, loc));
    }
    case BuiltinHandler::kMathUnary:
      return MathUnary(name.substr(2), *x, loc);
    case BuiltinHandler::kAnd:
    case BuiltinHandler::kOr:
      return Logical(row.handler == BuiltinHandler::kAnd, *x, *(*b)[1], loc);
    case BuiltinHandler::kDataType: {
      auto dt = dtype_of(*x);
      if (!dt) return std::nullopt;
      return Value::DataTypeOf(std::string(ir::DTypeName(*dt)));
    }
    case BuiltinHandler::kPrint:
      return Value::None();
    case BuiltinHandler::kGetattr:
      if (args.size() != 2 && args.size() != 3) {
        diag_->Error(loc) << "getattr() takes 2 or 3 arguments, not " << args.size();
        return std::nullopt;
      }
      return Getattr(args[0], args[1], args.size() == 3 ? std::optional(args[2]) : std::nullopt,
                     loc);
    case BuiltinHandler::kLayout:
      if (x->kind != ValueKind::kBuffer || x->buffer->scope == ir::MemScope::kGM) {
        diag_->Error(loc) << name << "() takes an on-chip buffer, not " << Repr(*x);
        return std::nullopt;
      }
      return Value::Str(name.ends_with("zn_layout") ? "zN" : "nZ");
    case BuiltinHandler::kSum:
    case BuiltinHandler::kAnyAll:
    case BuiltinHandler::kSequence:
    case BuiltinHandler::kEnumerate:
    case BuiltinHandler::kZip:
      return SequenceBuiltin(row, b ? *b : BoundArgs{}, args, loc);
    case BuiltinHandler::kPyMath:
      return PythonMath(row, *b, loc);
    case BuiltinHandler::kLen:
    case BuiltinHandler::kAbs:
    case BuiltinHandler::kInt:
    case BuiltinHandler::kFloat:
    case BuiltinHandler::kBool:
    case BuiltinHandler::kStr:
      return PythonConversion(row, *x, loc);
    default:
      diag_->Error(loc) << "'" << name << "' is not callable";
      return std::nullopt;
  }
}

}  // namespace tilejit::frontend
