// SPDX-License-Identifier: Apache-2.0
// Buffer subscripts. Region extents must be static (the IR's Range has a static extent), so a
// slice with runtime bounds is accepted only when hi - lo folds to a constant; the affine
// normal form below covers the `k * B:(k + 1) * B` idiom and its relatives (upstream's layer
// norm: `vid * B // 2:(vid + 1) * B // 2`, a floor division exact on every coefficient), and
// sees through the names a kernel body bound (`H1 = H0 + C`, then `Q[H0:H1]`: upstream's
// sparse attention).
#include "compiler/frontend/subscript.h"

#include <cstdio>
#include <map>

namespace tilejit::frontend {
namespace {

struct Linear {
  std::map<std::string, int64_t> terms;  // atom key -> coefficient
  int64_t c = 0;
  bool ok = true;
};

bool AddInto(Linear* acc, const Linear& x, int64_t scale) {
  int64_t t;
  if (__builtin_mul_overflow(x.c, scale, &t) || __builtin_add_overflow(acc->c, t, &acc->c)) {
    return false;
  }
  for (const auto& [k, v] : x.terms) {
    int64_t& slot = acc->terms[k];
    if (__builtin_mul_overflow(v, scale, &t) || __builtin_add_overflow(slot, t, &slot)) {
      return false;
    }
    if (slot == 0) acc->terms.erase(k);
  }
  return true;
}

// One StaticDiff's state: the bound names already linearised (`x = x + x` bound 20 times over
// would otherwise be expanded 2^20 times) and a budget of nodes, so the work stays bounded.
struct LinContext {
  const Evaluator* ev = nullptr;
  std::map<const ir::VarNode*, Linear> vars;
  int budget = 4096;
};

Linear Lin(const ir::Expr& e, LinContext& cx, int depth) {
  Linear out;
  if (depth > 64 || e == nullptr || --cx.budget < 0) {
    out.ok = false;
    return out;
  }
  if (auto v = ir::AsConstInt(e); v && e->dtype != ir::DType::kBool) {
    out.c = *v;
    return out;
  }
  if (const auto* b = ir::TryAs<ir::BinaryNode>(e)) {
    if (b->op == ir::BinaryOp::kAdd || b->op == ir::BinaryOp::kSub) {
      Linear x = Lin(b->a, cx, depth + 1), y = Lin(b->b, cx, depth + 1);
      out.ok = x.ok && y.ok && AddInto(&out, x, 1) &&
               AddInto(&out, y, b->op == ir::BinaryOp::kAdd ? 1 : -1);
      return out;
    }
    if (b->op == ir::BinaryOp::kFloorDiv) {  // exact when d divides every coefficient
      Linear x = Lin(b->a, cx, depth + 1), y = Lin(b->b, cx, depth + 1);
      const int64_t d = y.c;
      bool exact = x.ok && y.ok && y.terms.empty() && d > 0;
      for (const auto& [k, v] : x.terms) exact = exact && v % d == 0;
      if (exact) {
        for (const auto& [k, v] : x.terms) out.terms[k] = v / d;
        out.c = x.c / d - (x.c % d < 0 ? 1 : 0);  // Python's floor
        return out;
      }
    }
    if (b->op == ir::BinaryOp::kMul) {
      Linear x = Lin(b->a, cx, depth + 1), y = Lin(b->b, cx, depth + 1);
      if (x.ok && y.ok && (x.terms.empty() || y.terms.empty())) {
        out.ok = x.terms.empty() ? AddInto(&out, y, x.c) : AddInto(&out, x, y.c);
        return out;
      }
    }
  }
  if (const auto* u = ir::TryAs<ir::UnaryNode>(e); u && u->op == ir::UnaryOp::kNeg) {
    Linear x = Lin(u->a, cx, depth + 1);
    out.ok = x.ok && AddInto(&out, x, -1);
    return out;
  }
  if (const auto* r = ir::TryAs<ir::VarRefNode>(e); r && cx.ev != nullptr) {
    if (auto it = cx.vars.find(r->var.get()); it != cx.vars.end()) return it->second;
    if (ir::Expr bound = cx.ev->BoundValue(*r->var)) {
      return cx.vars[r->var.get()] = Lin(bound, cx, depth + 1);
    }
  }
  out.terms[StructKey(e)] = 1;
  return out;
}

}  // namespace

std::string StructKey(const ir::Expr& e) {
  if (e == nullptr) return "null";
  char buf[64];
  switch (e->kind) {
    case ir::ExprKind::kIntImm:
      return "i" + std::to_string(ir::As<ir::IntImmNode>(e).value);
    case ir::ExprKind::kFloatImm:
      std::snprintf(buf, sizeof(buf), "f%.17g", ir::As<ir::FloatImmNode>(e).value);
      return buf;
    case ir::ExprKind::kVarRef:
      std::snprintf(buf, sizeof(buf), "v%p",
                    static_cast<const void*>(ir::As<ir::VarRefNode>(e).var.get()));
      return buf;
    case ir::ExprKind::kBinary: {
      const auto& b = ir::As<ir::BinaryNode>(e);
      return "(" + StructKey(b.a) + std::string(ir::BinaryOpName(b.op)) + StructKey(b.b) + ")";
    }
    case ir::ExprKind::kUnary: {
      const auto& u = ir::As<ir::UnaryNode>(e);
      const char* sign = u.op == ir::UnaryOp::kNeg ? "-" : u.op == ir::UnaryOp::kNot ? "!" : "~";
      return sign + StructKey(u.a);
    }
    case ir::ExprKind::kSelect: {
      const auto& s = ir::As<ir::SelectNode>(e);
      return "sel(" + StructKey(s.cond) + "," + StructKey(s.t) + "," + StructKey(s.f) + ")";
    }
    case ir::ExprKind::kLoad: {
      const auto& l = ir::As<ir::LoadNode>(e);
      std::snprintf(buf, sizeof(buf), "b%p[", static_cast<const void*>(l.buffer.get()));
      std::string out = buf;
      for (const ir::Expr& i : l.indices) out += StructKey(i) + ",";
      return out + "]";
    }
    case ir::ExprKind::kCall: {
      const auto& c = ir::As<ir::CallNode>(e);
      std::string out = c.op + "(";
      for (const ir::Expr& a : c.args) out += StructKey(a) + ",";
      return out + ")";
    }
  }
  return "?";
}

std::optional<int64_t> StaticDiff(const ir::Expr& hi, const ir::Expr& lo, const Evaluator* ev) {
  LinContext cx;
  cx.ev = ev;
  Linear h = Lin(hi, cx, 0), l = Lin(lo, cx, 0);
  if (!h.ok || !l.ok) return std::nullopt;
  Linear d;
  if (!AddInto(&d, h, 1) || !AddInto(&d, l, -1) || !d.terms.empty()) return std::nullopt;
  return d.c;
}

namespace {

bool IsIntValue(const Value& v) { return v.kind == ValueKind::kInt || v.kind == ValueKind::kBool; }

}  // namespace

std::optional<Value> SubscriptBuffer(Evaluator& ev, const ir::Buffer& buffer, const Expr& index,
                                     const ScopePtr& scope, SourceLoc loc) {
  std::vector<const Expr*> parts;
  if (index.kind == ExprKind::kTuple) {
    for (const ExprPtr& e : index.elts) parts.push_back(e.get());
  } else {
    parts.push_back(&index);
  }
  const size_t rank = buffer->shape.size();
  if (parts.size() > rank) {
    ev.diag().Error(index.loc) << "too many indices for buffer '" << buffer->name << "' of rank "
                               << rank;
    return std::nullopt;
  }
  ir::Region region{buffer, {}, loc};
  std::vector<ir::Expr> indices;
  bool all_indices = parts.size() == rank;
  for (size_t d = 0; d < rank; ++d) {
    // A T.symbolic dim has no static size: only the lower bounds are checked here (its
    // regions are clipped at run time), and a slice's default end is the symbol.
    const bool symbolic = buffer->DimSymbol(d) != nullptr;
    const int64_t dim = symbolic ? INT64_MAX : buffer->shape[d];
    const Expr* p = d < parts.size() ? parts[d] : nullptr;
    if (p != nullptr && p->kind != ExprKind::kSlice) {
      auto v = ev.Eval(*p, scope);
      if (!v) return std::nullopt;
      v = ReadScalarVar(*v);
      if (IsIntValue(*v)) {
        int64_t i = v->kind == ValueKind::kInt ? v->i : v->b;
        if (i < 0 || i >= dim) {
          ev.diag().Error(p->loc) << "index " << i << " is out of bounds for dimension " << d
                                  << " of '" << buffer->name << "' (size " << dim << ")";
          return std::nullopt;
        }
      } else if (!v->IsRuntime()) {
        ev.diag().Error(p->loc) << "buffer indices must be integers, not " << TypeName(*v);
        return std::nullopt;
      }
      auto e = ev.ToExpr(*v, p->loc);
      if (!e) return std::nullopt;
      if (ir::IsFloat((*e)->dtype)) {
        ev.diag().Error(p->loc) << "buffer indices must be integers, not a float expression";
        return std::nullopt;
      }
      indices.push_back(*e);
      region.ranges.push_back(ir::Range{*e, 1});
      continue;
    }
    all_indices = false;
    if (p != nullptr && p->third) {
      ev.diag().Error(p->third->loc) << "a buffer slice cannot have a step";
      return std::nullopt;
    }
    std::optional<Value> lo = Value::Int(0), hi = Value::Int(dim);
    if (symbolic) hi = Value::OfExpr(ir::Ref(buffer->DimSymbol(d), loc));
    if (p != nullptr && p->left) lo = ev.Eval(*p->left, scope);
    if (!lo) return std::nullopt;
    if (p != nullptr && p->right) hi = ev.Eval(*p->right, scope);
    if (!hi) return std::nullopt;
    lo = ReadScalarVar(*lo);
    hi = ReadScalarVar(*hi);
    SourceLoc sloc = p ? p->loc : loc;
    for (const Value* b : {&*lo, &*hi}) {
      if (!IsIntValue(*b) && !b->IsRuntime()) {
        ev.diag().Error(sloc) << "slice bounds must be integers, not " << TypeName(*b);
        return std::nullopt;
      }
    }
    auto lo_e = ev.ToExpr(*lo, sloc);
    auto hi_e = lo_e ? ev.ToExpr(*hi, sloc) : std::nullopt;
    if (!hi_e) return std::nullopt;
    auto extent = StaticDiff(*hi_e, *lo_e, &ev);
    if (!extent) {
      ev.diag().Error(sloc) << "the extent of this slice is not a compile-time constant";
      return std::nullopt;
    }
    auto lo_c = ir::AsConstInt(*lo_e), hi_c = ir::AsConstInt(*hi_e);
    if (*extent <= 0 || *extent > dim || (lo_c && *lo_c < 0) || (hi_c && *hi_c > dim)) {
      ev.diag().Error(sloc) << "slice of extent " << *extent << " is out of bounds for dimension "
                            << d << " of '" << buffer->name << "' (size " << dim << ")";
      return std::nullopt;
    }
    region.ranges.push_back(ir::Range{*lo_e, *extent});
  }
  if (all_indices) return Value::OfElement(buffer, std::move(indices), loc);
  return Value::OfRegion(std::move(region));
}

}  // namespace tilejit::frontend
