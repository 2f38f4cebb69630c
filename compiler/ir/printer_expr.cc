// SPDX-License-Identifier: Apache-2.0
// Expression half of the canonical printer, and the namer shared with the statement half.
//
// The printer names nodes lazily, at their first appearance in the output, so the names
// depend only on the text order and never on name hints or pointer values. Expressions are
// printed with the minimum parentheses the parser's precedence table needs (see
// docs/tile_ir.md): a left operand may sit at its operator's level, a right operand must bind
// tighter, so that the parse reproduces the tree exactly.
#include <charconv>
#include <cmath>

#include "compiler/ir/printer.h"
#include "compiler/ir/printer_internal.h"

namespace tilejit::ir {

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

namespace {

// Parser precedence levels (higher binds tighter).
enum Prec : int {  // Python's
  kPrecOr = 1,
  kPrecAnd = 2,
  kPrecNot = 3,
  kPrecCmp = 4,
  kPrecBitOr = 5,
  kPrecBitXor = 6,
  kPrecBitAnd = 7,
  kPrecShift = 8,
  kPrecAdd = 9,
  kPrecMul = 10,
  kPrecNeg = 11,
  kPrecPrimary = 12,
};

int BinaryPrec(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr:
      return kPrecOr;
    case BinaryOp::kAnd:
      return kPrecAnd;
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
      return kPrecCmp;
    case BinaryOp::kBitOr:
      return kPrecBitOr;
    case BinaryOp::kBitXor:
      return kPrecBitXor;
    case BinaryOp::kBitAnd:
      return kPrecBitAnd;
    case BinaryOp::kShl:
    case BinaryOp::kShr:
      return kPrecShift;
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return kPrecAdd;
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      return kPrecPrimary;  // printed as min(a, b)
    default:
      return kPrecMul;
  }
}

bool IsBareNumber(const Expr& e) {
  if (const auto* i = TryAs<IntImmNode>(e)) return i->dtype == DType::kInt32;
  if (const auto* f = TryAs<FloatImmNode>(e)) return f->dtype == DType::kFloat32;
  return false;
}

int ExprPrec(const Expr& e) {
  if (const auto* b = TryAs<BinaryNode>(e)) return BinaryPrec(b->op);
  if (const auto* u = TryAs<UnaryNode>(e)) return u->op == UnaryOp::kNot ? kPrecNot : kPrecNeg;
  return kPrecPrimary;
}

}  // namespace

const std::string& IrNamer::VarName(const Var& v) {
  auto it = vars_.find(v.get());
  if (it != vars_.end()) return it->second;
  return vars_[v.get()] = "%v" + std::to_string(next_var_++);
}

void IrNamer::NameKernelVars(const Var& cid, const Var& vid) {
  std::string suffix = kernels_ == 0 ? "" : std::to_string(kernels_);
  ++kernels_;
  if (cid != nullptr && !vars_.contains(cid.get())) vars_[cid.get()] = "%cid" + suffix;
  if (vid != nullptr && !vars_.contains(vid.get())) vars_[vid.get()] = "%vid" + suffix;
}

const std::string& IrNamer::BufferName(const Buffer& b) {
  auto it = buffers_.find(b.get());
  if (it != buffers_.end()) return it->second;
  std::string scope(MemScopeName(b->scope));
  return buffers_[b.get()] = "%" + scope + "_" + std::to_string(per_scope_[scope]++);
}

void IrNamer::NameSymbol(const Var& v) {
  if (!vars_.contains(v.get())) vars_[v.get()] = "%s" + std::to_string(next_symbol_++);
}

void IrNamer::NameParam(const Buffer& b) {
  if (!buffers_.contains(b.get())) buffers_[b.get()] = "%p" + std::to_string(next_param_++);
}

void ExprPrinter::Print(const Expr& e, int min_prec) {
  if (e == nullptr) {
    out_ += "<null>";
    return;
  }
  bool parens = ExprPrec(e) < min_prec;
  if (parens) out_ += '(';
  PrintBare(e);
  if (parens) out_ += ')';
}

void ExprPrinter::PrintLiteral(const Expr& e) {
  if (const auto* i = TryAs<IntImmNode>(e)) {
    if (i->dtype == DType::kInt32) {
      out_ += std::to_string(i->value);
    } else if (i->dtype == DType::kBool && (i->value == 0 || i->value == 1)) {
      out_ += i->value != 0 ? "true" : "false";
    } else {
      out_ += std::string(DTypeName(i->dtype)) + "(" + std::to_string(i->value) + ")";
    }
    return;
  }
  const auto& f = As<FloatImmNode>(e);
  if (f.dtype == DType::kFloat32) {
    out_ += FormatDouble(f.value);
  } else {
    out_ += std::string(DTypeName(f.dtype)) + "(" + FormatDouble(f.value) + ")";
  }
}

void ExprPrinter::PrintArgs(const std::vector<Expr>& args) {
  out_ += '(';
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out_ += ", ";
    Print(args[i], 0);
  }
  out_ += ')';
}

void ExprPrinter::PrintBare(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
      return PrintLiteral(e);
    case ExprKind::kVarRef: {
      const Var& v = As<VarRefNode>(e).var;
      out_ += v == nullptr ? "<null>" : names_->VarName(v);
      return;
    }
    case ExprKind::kBinary:
      return PrintBinary(As<BinaryNode>(e));
    case ExprKind::kUnary: {
      const auto& u = As<UnaryNode>(e);
      if (u.op == UnaryOp::kNot) {
        out_ += "not ";
        return Print(u.a, kPrecNot);
      }
      out_ += u.op == UnaryOp::kBitNot ? '~' : '-';
      // "-5" would read back as the literal -5, so a negated literal keeps its parentheses.
      return Print(u.a, IsBareNumber(u.a) ? kPrecPrimary + 1 : kPrecPrimary);
    }
    case ExprKind::kSelect: {
      const auto& s = As<SelectNode>(e);
      out_ += "select";
      return PrintArgs({s.cond, s.t, s.f});
    }
    case ExprKind::kLoad: {
      const auto& l = As<LoadNode>(e);
      out_ += l.buffer == nullptr ? "<null>" : names_->BufferName(l.buffer);
      out_ += '[';
      for (size_t i = 0; i < l.indices.size(); ++i) {
        if (i > 0) out_ += ", ";
        Print(l.indices[i], 0);
      }
      out_ += ']';
      return;
    }
    case ExprKind::kCall: {
      const auto& c = As<CallNode>(e);
      out_ += c.op;
      DType natural = c.args.empty() || c.args[0] == nullptr ? DType::kFloat32 : c.args[0]->dtype;
      if (c.dtype != natural) out_ += "<" + std::string(DTypeName(c.dtype)) + ">";
      return PrintArgs(c.args);
    }
  }
}

void ExprPrinter::PrintBinary(const BinaryNode& b) {
  if (b.op == BinaryOp::kMin || b.op == BinaryOp::kMax) {
    out_ += BinaryOpName(b.op);
    return PrintArgs({b.a, b.b});
  }
  int prec = BinaryPrec(b.op);
  // Comparisons do not chain, so both sides of one must bind tighter.
  Print(b.a, prec == kPrecCmp ? prec + 1 : prec);
  out_ += ' ';
  out_ += BinaryOpName(b.op);
  out_ += ' ';
  Print(b.b, prec + 1);
}

}  // namespace tilejit::ir
