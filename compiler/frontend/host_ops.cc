// SPDX-License-Identifier: Apache-2.0
// Python operators on frontend values. Host constants follow CPython exactly where kernels can
// observe it (floor division and modulo signs, int ** int, true division giving a float);
// ints are 64-bit and overflow is a diagnostic rather than a silent wrap. An operand that is
// a runtime value turns the operation into an IR expression.
#include <cmath>
#include <limits>

#include "compiler/frontend/host_eval.h"

namespace tilejit::frontend {
namespace {

// CPython's float floor division and modulo (Objects/floatobject.c float_divmod).
void FloatDivMod(double a, double b, double* div, double* mod) {
  double m = std::fmod(a, b);
  double d = (a - m) / b;
  if (m != 0.0) {
    if ((b < 0) != (m < 0)) {
      m += b;
      d -= 1.0;
    }
  } else {
    m = std::copysign(0.0, b);
  }
  double fl;
  if (d != 0.0) {
    fl = std::floor(d);
    if (d - fl > 0.5) fl += 1.0;
  } else {
    fl = std::copysign(0.0, a / b);
  }
  *div = fl;
  *mod = m;
}

}  // namespace

std::optional<ir::Expr> Evaluator::ToExpr(const Value& v, SourceLoc loc) {
  switch (v.kind) {
    case ValueKind::kInt: {
      bool fits =
          v.i >= std::numeric_limits<int32_t>::min() && v.i <= std::numeric_limits<int32_t>::max();
      return ir::IntImm(v.i, fits ? ir::DType::kInt32 : ir::DType::kInt64, loc);
    }
    case ValueKind::kBool:
      return ir::BoolImm(v.b, loc);
    case ValueKind::kFloat:
      return ir::FloatImm(v.f, ir::DType::kFloat32, loc);
    case ValueKind::kExpr:
      return v.expr;
    case ValueKind::kElement:
      return ir::Load(v.buffer, v.indices, loc.known() ? loc : v.loc);
    case ValueKind::kBuffer:  // a T.alloc_var scalar read as a value (init=a, T.max(a, b))
      if (IsScalarVar(v)) {
        const SourceLoc at = loc.known() ? loc : v.loc;
        return ir::Load(v.buffer, {ir::IntImm(0, ir::DType::kInt32, at)}, at);
      }
      [[fallthrough]];
    default:
      diag_->Error(loc) << "a " << TypeName(v) << " cannot be used as a runtime scalar";
      return std::nullopt;
  }
}

std::optional<Value> Evaluator::BinOp(BinOpKind op, const Value& a, const Value& b, SourceLoc loc) {
  if (IsScalarVar(a) || IsScalarVar(b)) return BinOp(op, ReadScalarVar(a), ReadScalarVar(b), loc);
  if (a.IsRuntime() || b.IsRuntime()) {
    ir::BinaryOp irop;
    switch (op) {
      case BinOpKind::kAdd:
        irop = ir::BinaryOp::kAdd;
        break;
      case BinOpKind::kSub:
        irop = ir::BinaryOp::kSub;
        break;
      case BinOpKind::kMult:
        irop = ir::BinaryOp::kMul;
        break;
      case BinOpKind::kDiv:
        irop = ir::BinaryOp::kDiv;
        break;
      case BinOpKind::kFloorDiv:
        irop = ir::BinaryOp::kFloorDiv;
        break;
      case BinOpKind::kMod:
        irop = ir::BinaryOp::kFloorMod;
        break;
      case BinOpKind::kBitAnd:
        irop = ir::BinaryOp::kBitAnd;
        break;
      case BinOpKind::kBitOr:
        irop = ir::BinaryOp::kBitOr;
        break;
      case BinOpKind::kBitXor:
        irop = ir::BinaryOp::kBitXor;
        break;
      case BinOpKind::kLShift:
        irop = ir::BinaryOp::kShl;
        break;
      case BinOpKind::kRShift:
        irop = ir::BinaryOp::kShr;
        break;
      default:
        diag_->Error(loc) << "operator '" << BinOpSymbol(op)
                          << "' is not supported on runtime values";
        return std::nullopt;
    }
    auto x = ToExpr(a, loc);
    auto y = x ? ToExpr(b, loc) : std::nullopt;
    if (!y) return std::nullopt;
    const bool bitwise = irop >= ir::BinaryOp::kBitAnd;
    if (bitwise && (ir::IsFloat((*x)->dtype) || ir::IsFloat((*y)->dtype))) {
      diag_->Error(loc) << "operator '" << BinOpSymbol(op) << "' needs integer operands";
      return std::nullopt;
    }
    if ((op == BinOpKind::kFloorDiv || op == BinOpKind::kMod) && ir::AsConstInt(*y) == 0) {
      diag_->Error(loc) << "integer division or modulo by zero";
      return std::nullopt;
    }
    return Value::OfExpr(ir::Binary(irop, *x, *y, loc));
  }
  // Sequences and strings.
  if (op == BinOpKind::kAdd && a.kind == b.kind &&
      (a.kind == ValueKind::kString || a.is_sequence())) {
    const bool text = a.kind == ValueKind::kString;
    const uint64_t bytes =
        text ? a.text.size() + b.text.size() : (a.size() + b.size()) * sizeof(Value);
    if (!budget().Reserve(bytes, loc, diag_)) return std::nullopt;
    if (text) return Value::Str(a.text + b.text);
    std::vector<Value> items = *a.items;
    items.insert(items.end(), b.items->begin(), b.items->end());
    return a.kind == ValueKind::kList ? Value::List(std::move(items))
                                      : Value::Tuple(std::move(items));
  }
  if (op == BinOpKind::kMult && (a.kind == ValueKind::kString || a.is_sequence()) &&
      (b.kind == ValueKind::kInt || b.kind == ValueKind::kBool)) {
    const uint64_t unit = a.kind == ValueKind::kString ? a.text.size() : a.size() * sizeof(Value);
    // An empty operand repeated any number of times is empty (and costs no loop).
    const int64_t count = unit == 0 ? 0 : std::max<int64_t>(0, IntOf(b));
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(unit, static_cast<uint64_t>(count), &bytes)) bytes = UINT64_MAX;
    if (!budget().Reserve(bytes, loc, diag_)) return std::nullopt;
    if (a.kind == ValueKind::kString) {
      std::string out;
      out.reserve(bytes);
      for (int64_t n = 0; n < count; ++n) out += a.text;
      return Value::Str(out);
    }
    std::vector<Value> items;
    items.reserve(static_cast<size_t>(count) * a.size());
    for (int64_t n = 0; n < count; ++n) items.insert(items.end(), a.items->begin(), a.items->end());
    return a.kind == ValueKind::kList ? Value::List(std::move(items))
                                      : Value::Tuple(std::move(items));
  }
  if (!a.is_numeric() || !b.is_numeric()) {
    diag_->Error(loc) << "unsupported operand types for " << BinOpSymbol(op) << ": '" << TypeName(a)
                      << "' and '" << TypeName(b) << "'";
    return std::nullopt;
  }
  bool floats = a.kind == ValueKind::kFloat || b.kind == ValueKind::kFloat;
  if (op == BinOpKind::kDiv ||
      (floats && op != BinOpKind::kLShift && op != BinOpKind::kRShift && op != BinOpKind::kBitAnd &&
       op != BinOpKind::kBitOr && op != BinOpKind::kBitXor && op != BinOpKind::kMatMult)) {
    double x = DoubleOf(a), y = DoubleOf(b);
    switch (op) {
      case BinOpKind::kAdd:
        return Value::Float(x + y);
      case BinOpKind::kSub:
        return Value::Float(x - y);
      case BinOpKind::kMult:
        return Value::Float(x * y);
      case BinOpKind::kDiv:
        if (y == 0.0) break;
        return Value::Float(x / y);
      case BinOpKind::kFloorDiv:
      case BinOpKind::kMod: {
        if (y == 0.0) break;
        double d, m;
        FloatDivMod(x, y, &d, &m);
        return Value::Float(op == BinOpKind::kFloorDiv ? d : m);
      }
      case BinOpKind::kPow:
        if (x == 0.0 && y < 0.0) break;
        if (x < 0.0 && y != std::floor(y)) {
          diag_->Error(loc) << "a negative number to a fractional power is complex (not supported)";
          return std::nullopt;
        }
        return Value::Float(std::pow(x, y));
      default:
        break;
    }
    diag_->Error(loc) << (op == BinOpKind::kPow ? "0.0 cannot be raised to a negative power"
                                                : "division by zero");
    return std::nullopt;
  }
  int64_t x = IntOf(a), y = IntOf(b), r = 0;
  bool overflow = false;
  switch (op) {
    case BinOpKind::kAdd:
      overflow = __builtin_add_overflow(x, y, &r);
      break;
    case BinOpKind::kSub:
      overflow = __builtin_sub_overflow(x, y, &r);
      break;
    case BinOpKind::kMult:
      overflow = __builtin_mul_overflow(x, y, &r);
      break;
    case BinOpKind::kFloorDiv:
    case BinOpKind::kMod: {
      if (y == 0) {
        diag_->Error(loc) << "integer division or modulo by zero";
        return std::nullopt;
      }
      if (x == std::numeric_limits<int64_t>::min() && y == -1) {
        overflow = true;
        break;
      }
      int64_t q = x / y, m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) {
        q -= 1;
        m += y;
      }
      r = op == BinOpKind::kFloorDiv ? q : m;
      break;
    }
    case BinOpKind::kPow: {
      if (y < 0) {
        if (x == 0) {
          diag_->Error(loc) << "0 cannot be raised to a negative power";
          return std::nullopt;
        }
        return Value::Float(std::pow(static_cast<double>(x), static_cast<double>(y)));
      }
      r = 1;
      for (int64_t n = 0; n < y && !overflow; ++n) {
        overflow = __builtin_mul_overflow(r, x, &r);
        if (r == 0 || r == 1) break;  // 0**n, 1**n
        if (r == -1 && x == -1) {
          r = (y % 2 == 0) ? 1 : -1;
          break;
        }
      }
      break;
    }
    case BinOpKind::kLShift:
      if (y < 0) {
        diag_->Error(loc) << "negative shift count";
        return std::nullopt;
      }
      overflow = y >= 63 ? x != 0
                         : (x > (std::numeric_limits<int64_t>::max() >> y) ||
                            x < (std::numeric_limits<int64_t>::min() >> y));
      if (!overflow) r = static_cast<int64_t>(static_cast<uint64_t>(x) << y);
      break;
    case BinOpKind::kRShift:
      if (y < 0) {
        diag_->Error(loc) << "negative shift count";
        return std::nullopt;
      }
      r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
      break;
    case BinOpKind::kBitAnd:
      r = x & y;
      if (a.kind == ValueKind::kBool && b.kind == ValueKind::kBool) return Value::Bool(r != 0);
      break;
    case BinOpKind::kBitOr:
      r = x | y;
      if (a.kind == ValueKind::kBool && b.kind == ValueKind::kBool) return Value::Bool(r != 0);
      break;
    case BinOpKind::kBitXor:
      r = x ^ y;
      if (a.kind == ValueKind::kBool && b.kind == ValueKind::kBool) return Value::Bool(r != 0);
      break;
    default:
      diag_->Error(loc) << "operator '" << BinOpSymbol(op) << "' is not supported";
      return std::nullopt;
  }
  if (overflow) {
    diag_->Error(loc) << "integer overflow in '" << BinOpSymbol(op)
                      << "' (ints are limited to 64 bits)";
    return std::nullopt;
  }
  return Value::Int(r);
}

std::optional<Value> Evaluator::UnaryOp(UnaryOpKind op, const Value& a, SourceLoc loc) {
  if (IsScalarVar(a)) return UnaryOp(op, ReadScalarVar(a), loc);
  if (op == UnaryOpKind::kNot && !a.IsRuntime()) return Value::Bool(!Truthy(a));
  if (a.IsRuntime()) {
    auto x = ToExpr(a, loc);
    if (!x) return std::nullopt;
    switch (op) {
      case UnaryOpKind::kUSub:
        return Value::OfExpr(ir::Unary(ir::UnaryOp::kNeg, *x, loc));
      case UnaryOpKind::kUAdd:
        return Value::OfExpr(*x);
      case UnaryOpKind::kNot:
        return Value::OfExpr(ir::Unary(ir::UnaryOp::kNot, *x, loc));
      case UnaryOpKind::kInvert:
        if (ir::IsFloat((*x)->dtype)) break;
        return Value::OfExpr(ir::Unary(ir::UnaryOp::kBitNot, *x, loc));
    }
    diag_->Error(loc) << "bad operand type for unary ~: '" << ir::DTypeName((*x)->dtype) << "'";
    return std::nullopt;
  }
  if (!a.is_numeric()) {
    diag_->Error(loc) << "bad operand type for unary operator: '" << TypeName(a) << "'";
    return std::nullopt;
  }
  if (a.kind == ValueKind::kFloat) {
    if (op == UnaryOpKind::kInvert) {
      diag_->Error(loc) << "bad operand type for unary ~: 'float'";
      return std::nullopt;
    }
    return Value::Float(op == UnaryOpKind::kUSub ? -a.f : a.f);
  }
  int64_t x = IntOf(a);
  switch (op) {
    case UnaryOpKind::kUSub:
      if (x == std::numeric_limits<int64_t>::min()) {
        diag_->Error(loc) << "integer overflow in unary '-'";
        return std::nullopt;
      }
      return Value::Int(-x);
    case UnaryOpKind::kInvert:
      return Value::Int(~x);
    default:
      return Value::Int(x);
  }
}

std::optional<Value> Evaluator::CompareOp(CmpOpKind op, const Value& a, const Value& b,
                                          SourceLoc loc) {
  const bool identity = op == CmpOpKind::kIs || op == CmpOpKind::kIsNot || op == CmpOpKind::kIn ||
                        op == CmpOpKind::kNotIn;
  if (!identity && (IsScalarVar(a) || IsScalarVar(b))) {
    return CompareOp(op, ReadScalarVar(a), ReadScalarVar(b), loc);
  }
  if (a.IsRuntime() || b.IsRuntime()) {
    ir::BinaryOp irop;
    switch (op) {
      case CmpOpKind::kEq:
        irop = ir::BinaryOp::kEq;
        break;
      case CmpOpKind::kNotEq:
        irop = ir::BinaryOp::kNe;
        break;
      case CmpOpKind::kLt:
        irop = ir::BinaryOp::kLt;
        break;
      case CmpOpKind::kLtE:
        irop = ir::BinaryOp::kLe;
        break;
      case CmpOpKind::kGt:
        irop = ir::BinaryOp::kGt;
        break;
      case CmpOpKind::kGtE:
        irop = ir::BinaryOp::kGe;
        break;
      default:
        diag_->Error(loc) << "'is' and 'in' are not supported on runtime values";
        return std::nullopt;
    }
    auto x = ToExpr(a, loc);
    auto y = x ? ToExpr(b, loc) : std::nullopt;
    if (!y) return std::nullopt;
    return Value::OfExpr(ir::Binary(irop, *x, *y, loc));
  }
  switch (op) {
    case CmpOpKind::kEq:
      return Value::Bool(Equals(a, b));
    case CmpOpKind::kNotEq:
      return Value::Bool(!Equals(a, b));
    case CmpOpKind::kIs:
    case CmpOpKind::kIsNot: {
      bool same = a.kind == b.kind && (a.kind == ValueKind::kNone || a.kind == ValueKind::kBool)
                      ? Equals(a, b)
                      : (a.kind == b.kind && Equals(a, b) && !a.is_number());
      return Value::Bool(op == CmpOpKind::kIs ? same : !same);
    }
    case CmpOpKind::kIn:
    case CmpOpKind::kNotIn: {
      bool found = false;
      if (b.kind == ValueKind::kString && a.kind == ValueKind::kString) {
        found = b.text.find(a.text) != std::string::npos;
      } else if (b.is_sequence() || b.kind == ValueKind::kDict) {
        for (const Value& item : *b.items) found = found || Equals(item, a);
      } else {
        diag_->Error(loc) << "argument of type '" << TypeName(b) << "' is not iterable";
        return std::nullopt;
      }
      return Value::Bool(op == CmpOpKind::kIn ? found : !found);
    }
    default:
      break;
  }
  int c = 0;
  if (a.is_numeric() && b.is_numeric()) {
    if (a.kind == ValueKind::kFloat || b.kind == ValueKind::kFloat) {
      double x = DoubleOf(a), y = DoubleOf(b);
      if (std::isnan(x) || std::isnan(y)) return Value::Bool(false);
      c = x < y ? -1 : (x > y ? 1 : 0);
    } else {
      c = IntOf(a) < IntOf(b) ? -1 : (IntOf(a) > IntOf(b) ? 1 : 0);
    }
  } else if (a.kind == ValueKind::kString && b.kind == ValueKind::kString) {
    c = a.text < b.text ? -1 : (a.text > b.text ? 1 : 0);
  } else {
    diag_->Error(loc) << "ordering comparison not supported between '" << TypeName(a) << "' and '"
                      << TypeName(b) << "'";
    return std::nullopt;
  }
  switch (op) {
    case CmpOpKind::kLt:
      return Value::Bool(c < 0);
    case CmpOpKind::kLtE:
      return Value::Bool(c <= 0);
    case CmpOpKind::kGt:
      return Value::Bool(c > 0);
    default:
      return Value::Bool(c >= 0);
  }
}

}  // namespace tilejit::frontend
