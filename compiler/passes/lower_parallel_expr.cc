// SPDX-License-Identifier: Apache-2.0
// One store of a T.Parallel nest -> tile ops. The expression tree is lowered bottom-up;
// each node yields a Value (a scalar operand, or a UB region of class full/row/column), and
// each operator emits the tile op(s) that compute it into a slot: the store's destination for
// the root when that is safe, a temporary the operand already owns (in place), or a fresh
// temporary. Non-commutative operators whose tile operand comes second are rewritten rather
// than refused, because the vector ops only accept a scalar or a broadcast operand second.
#include <string>
#include <utility>

#include "compiler/ir/visitor.h"
#include "compiler/passes/lower_parallel_internal.h"
#include "compiler/target/tile_layout.h"

namespace tilejit::passes::parallel {
namespace {

using ir::TileOpCode;

struct Affine {
  int var = -1;     // nest var index, -1 when the index is loop-invariant
  ir::Expr offset;  // null: 0
};

ir::Expr AddFolded(const ir::Expr& a, const ir::Expr& b) {
  if (b == nullptr || ir::AsConstInt(b) == 0) return a;
  if (a == nullptr || ir::AsConstInt(a) == 0) return b;
  return ir::Binary(ir::BinaryOp::kAdd, a, b, b->loc);
}

// `e` as (loop var + invariant offset); nullopt when it is not of that form.
std::optional<Affine> AffineOf(const ir::Expr& e, const Nest& nest) {
  if (!nest.UsesVar(e)) return Affine{-1, e};
  if (const auto* v = ir::TryAs<ir::VarRefNode>(e)) return Affine{nest.VarIndex(v->var.get()), {}};
  const auto* b = ir::TryAs<ir::BinaryNode>(e);
  if (b == nullptr || (b->op != ir::BinaryOp::kAdd && b->op != ir::BinaryOp::kSub)) return {};
  std::optional<Affine> x = AffineOf(b->a, nest), y = AffineOf(b->b, nest);
  if (!x || !y) return {};
  if (b->op == ir::BinaryOp::kSub) {
    if (y->var >= 0) return {};
    return Affine{x->var, x->offset ? ir::Binary(ir::BinaryOp::kSub, x->offset, b->b, e->loc)
                                    : ir::Unary(ir::UnaryOp::kNeg, b->b, e->loc)};
  }
  if (x->var >= 0 && y->var >= 0) return {};
  return Affine{std::max(x->var, y->var),
                AddFolded(x->var >= 0 ? x->offset : b->a, y->var >= 0 ? y->offset : b->b)};
}

std::vector<int64_t> Extents(const ir::Region& r) {
  std::vector<int64_t> out;
  for (const ir::Range& rg : r.ranges) out.push_back(rg.extent);
  return out;
}

std::vector<int64_t> LastTwo(std::vector<int64_t> e) {
  while (e.size() > 2 && e.front() == 1) e.erase(e.begin());
  return e;
}

std::optional<std::string> CompareMode(ir::BinaryOp op) {
  switch (op) {
    case ir::BinaryOp::kEq:
      return "EQ";
    case ir::BinaryOp::kNe:
      return "NE";
    case ir::BinaryOp::kLt:
      return "LT";
    case ir::BinaryOp::kLe:
      return "LE";
    case ir::BinaryOp::kGt:
      return "GT";
    case ir::BinaryOp::kGe:
      return "GE";
    default:
      return std::nullopt;
  }
}

// Whether `e` loads `dest`'s buffer at indices other than `indices`.
bool ReadsElsewhere(const ir::Expr& e, const ir::Buffer& dest, const std::vector<ir::Expr>& idx) {
  class Finder : public ir::Visitor {
   public:
    Finder(const ir::Buffer& b, const std::vector<ir::Expr>& i) : buffer(b), indices(i) {}
    const ir::Buffer& buffer;
    const std::vector<ir::Expr>& indices;
    bool found = false;

   protected:
    void VisitLoad(const ir::LoadNode& op) override {
      if (op.buffer == buffer) {
        bool same = op.indices.size() == indices.size();
        for (size_t i = 0; same && i < indices.size(); ++i)
          same = ExprEqual(op.indices[i], indices[i]);
        found = found || !same;
      }
      ir::Visitor::VisitLoad(op);
    }
  } finder(dest, idx);
  finder.Visit(e);
  return finder.found;
}

std::string Quoted(const ir::Buffer& b) { return "'" + b->name + "'"; }

}  // namespace

std::optional<TileOpCode> BinaryTileOp(ir::BinaryOp op) {
  switch (op) {
    case ir::BinaryOp::kAdd:
      return TileOpCode::kAdd;
    case ir::BinaryOp::kSub:
      return TileOpCode::kSub;
    case ir::BinaryOp::kMul:
      return TileOpCode::kMul;
    case ir::BinaryOp::kDiv:
      return TileOpCode::kDiv;
    case ir::BinaryOp::kMin:
      return TileOpCode::kMin;
    case ir::BinaryOp::kMax:
      return TileOpCode::kMax;
    case ir::BinaryOp::kBitAnd:
      return TileOpCode::kBitwiseAnd;
    case ir::BinaryOp::kBitOr:
      return TileOpCode::kBitwiseOr;
    case ir::BinaryOp::kBitXor:
      return TileOpCode::kBitwiseXor;
    case ir::BinaryOp::kShl:
      return TileOpCode::kShiftLeft;
    case ir::BinaryOp::kShr:
      return TileOpCode::kShiftRight;
    default:
      return std::nullopt;
  }
}

bool StoreLowerer::Lower(const ir::StoreNode& store) {
  loc_ = store.loc;
  const ir::Buffer& b = store.buffer;
  if (b->scope != ir::MemScope::kUB && b->scope != ir::MemScope::kGM) {
    ctx_.diag->Error(store.loc) << "T.Parallel store to " << ir::MemScopeName(b->scope)
                                << " buffer " << Quoted(b)
                                << " cannot become a vector op: vector ops write UB only; store "
                                   "into a UB tile and copy it out";
    return false;
  }
  Cls cls = Cls::kFull;
  std::optional<ir::Region> dest = Access(b, store.indices, store.loc, &cls);
  if (!dest) return false;
  if (cls != Cls::kFull) {
    ctx_.diag->Error(store.loc) << "T.Parallel store to " << Quoted(b)
                                << " does not use every loop var of the nest (a reduction "
                                   "pattern or a repeated write); use reduce_sum/max/min";
    return false;
  }
  if (b->scope == ir::MemScope::kGM) return LowerToGm(store, *dest);
  const bool direct = Trim(Extents(*dest)) == Trim(nest_.Shape(Cls::kFull)) &&
                      !ReadsElsewhere(store.value, b, store.indices);
  std::optional<Value> v = LowerExpr(store.value, direct ? &*dest : nullptr);
  return v && Finish(store, *dest, *v);
}

bool StoreLowerer::LowerToGm(const ir::StoreNode& store, const ir::Region& dest) {
  std::optional<Value> v = LowerExpr(store.value, nullptr);
  if (!v) return false;
  const ir::DType dt = store.buffer->dtype;
  if (v->is_scalar || v->cls != Cls::kFull || v->dtype != dt) {
    Value tile = Slot(Cls::kFull, dt, nullptr, nullptr, nullptr);
    if (!Finish(store, tile.region, *v)) return false;
    v = tile;
  }
  Emit(TileOpCode::kCopy, {dest, v->region});
  return true;
}

std::optional<ir::Region> StoreLowerer::Access(const ir::Buffer& b,
                                               const std::vector<ir::Expr>& indices, SourceLoc loc,
                                               Cls* cls) {
  ir::Region r{b, {}, loc};
  std::vector<bool> used(nest_.vars.size(), false);
  int last = -1;
  for (size_t d = 0; d < indices.size(); ++d) {
    std::optional<Affine> a = AffineOf(indices[d], nest_);
    if (!a || (a->var >= 0 && used[a->var])) {
      ctx_.diag->Error(loc) << "T.Parallel index " << d << " of " << Quoted(b)
                            << " is not a loop var plus a loop-invariant offset; it cannot "
                               "become a vector region";
      return std::nullopt;
    }
    if (a->var < 0) {
      r.ranges.push_back({indices[d], 1});
      continue;
    }
    if (a->var < last) {
      ctx_.diag->Error(loc) << "T.Parallel access to " << Quoted(b)
                            << " uses the loop vars in another order than the nest (a "
                               "transpose); it cannot become a vector region";
      return std::nullopt;
    }
    used[a->var] = true;
    last = a->var;
    ir::Expr mn = ir::IntImm(nest_.mins[a->var], ir::DType::kInt32, loc);
    r.ranges.push_back({AddFolded(mn, a->offset), nest_.extents[a->var]});
  }
  const bool all = std::find(used.begin(), used.end(), false) == used.end();
  *cls = all ? Cls::kFull : (used[0] ? Cls::kRow : Cls::kCol);
  return r;
}

std::optional<Value> StoreLowerer::LowerExpr(const ir::Expr& e, const ir::Region* into) {
  if (!nest_.UsesVar(e)) return LowerScalar(e);
  switch (e->kind) {
    case ir::ExprKind::kLoad:
      return LowerLoad(ir::As<ir::LoadNode>(e));
    case ir::ExprKind::kBinary:
      return LowerBinary(ir::As<ir::BinaryNode>(e), into);
    case ir::ExprKind::kUnary:
      return LowerUnary(ir::As<ir::UnaryNode>(e), into);
    case ir::ExprKind::kCall:
      return LowerCall(ir::As<ir::CallNode>(e), into);
    case ir::ExprKind::kSelect:
      return LowerSelect(ir::As<ir::SelectNode>(e), into);
    default:
      break;
  }
  ctx_.diag->Error(e->loc.known() ? e->loc : loc_)
      << "T.Parallel uses loop var '" << ir::As<ir::VarRefNode>(e).var->name
      << "' as a value; only indices may use it";
  return std::nullopt;
}

std::optional<Value> StoreLowerer::LowerScalar(const ir::Expr& e) {
  class OnChipLoads : public ir::Visitor {
   public:
    const ir::LoadNode* first = nullptr;

   protected:
    void VisitLoad(const ir::LoadNode& op) override {
      ir::MemScope s = op.buffer->scope;
      if (first == nullptr && s != ir::MemScope::kGM && s != ir::MemScope::kLocalVar) first = &op;
      ir::Visitor::VisitLoad(op);
    }
  } loads;
  loads.Visit(e);
  const auto* load = ir::TryAs<ir::LoadNode>(e);
  bool single_ub = load != nullptr && load->buffer->scope == ir::MemScope::kUB;
  if (loads.first != nullptr && !single_ub) {
    ctx_.diag->Error(loc_) << "T.Parallel scalar operand reads "
                           << ir::MemScopeName(loads.first->buffer->scope) << " buffer "
                           << Quoted(loads.first->buffer)
                           << " inside an expression; only a single UB element can be a vector "
                              "scalar operand (compute the value into a var first)";
    return std::nullopt;
  }
  Value v;
  v.is_scalar = true;
  v.scalar = e;
  v.dtype = e->dtype;
  return v;
}

std::optional<Value> StoreLowerer::LowerLoad(const ir::LoadNode& load) {
  const ir::Buffer& b = load.buffer;
  const bool gm = b->scope == ir::MemScope::kGM;
  if (b->scope != ir::MemScope::kUB && !gm) {
    ctx_.diag->Error(loc_) << "T.Parallel reads " << ir::MemScopeName(b->scope) << " buffer "
                           << Quoted(b) << " element-wise; copy it into a UB tile first";
    return std::nullopt;
  }
  Cls cls = Cls::kFull;
  std::optional<ir::Region> r = Access(b, load.indices, loc_, &cls);
  if (!r) return std::nullopt;
  if (gm) {  // staged into a UB tile (upstream's automatic copy)
    if (cls == Cls::kFull) return Staged(*r, cls, b->dtype);
    ctx_.diag->Error(loc_) << "T.Parallel reads gm buffer " << Quoted(b) << " by "
                           << (cls == Cls::kRow ? "row" : "column")
                           << " only; copy it into a UB vector first";
    return std::nullopt;
  }
  std::vector<int64_t> ext = Extents(*r);
  bool canonical = false;
  switch (cls) {
    case Cls::kFull:
      canonical = Trim(ext) == Trim(nest_.Shape(Cls::kFull));
      break;
    case Cls::kRow:
      canonical = Trim(ext) == std::vector<int64_t>{nest_.extents[0]} ||
                  Trim(ext) == std::vector<int64_t>{nest_.extents[0], 1};
      break;
    case Cls::kCol:
      canonical = LastTwo(ext) == nest_.Shape(Cls::kCol);
      break;
  }
  if (!canonical) return Staged(*r, cls, b->dtype);
  Value v;
  v.region = *r;
  v.cls = cls;
  v.dtype = b->dtype;
  return v;
}

std::optional<Value> StoreLowerer::LowerBinary(const ir::BinaryNode& b, const ir::Region* into) {
  if (!BinaryTileOp(b.op)) {
    ctx_.diag->Error(b.loc.known() ? b.loc : loc_)
        << "T.Parallel operator '" << ir::BinaryOpName(b.op)
        << "' on loop-dependent values has no vector op"
        << (CompareMode(b.op) ? " (comparisons only inside T.if_then_else)" : "");
    return std::nullopt;
  }
  std::optional<Value> x = LowerExpr(b.a, nullptr);
  if (!x) return std::nullopt;
  std::optional<Value> y = LowerExpr(b.b, nullptr);
  if (!y) return std::nullopt;
  return Combine(b.op, std::move(*x), std::move(*y), into);
}

std::optional<Value> StoreLowerer::LowerUnary(const ir::UnaryNode& u, const ir::Region* into) {
  if (u.op == ir::UnaryOp::kNot) {
    ctx_.diag->Error(u.loc.known() ? u.loc : loc_)
        << "T.Parallel operator 'not' on loop-dependent values has no vector op";
    return std::nullopt;
  }
  std::optional<Value> a = LowerExpr(u.a, nullptr);
  if (!a) return std::nullopt;
  if (u.op == ir::UnaryOp::kBitNot) {
    Value dst = Slot(a->cls, a->dtype, into, &*a, nullptr);
    Emit(TileOpCode::kBitwiseNot, {dst.region, a->region});
    return dst;
  }
  Value dst = Slot(a->cls, a->dtype, into, &*a, nullptr);
  Emit(TileOpCode::kMul, {dst.region, a->region, MinusOne(a->dtype)});
  return dst;
}

std::optional<Value> StoreLowerer::LowerCall(const ir::CallNode& c, const ir::Region* into) {
  static const std::pair<std::string_view, TileOpCode> kUnary[] = {{"exp", TileOpCode::kExp},
                                                                   {"log", TileOpCode::kLn},
                                                                   {"sqrt", TileOpCode::kSqrt},
                                                                   {"rsqrt", TileOpCode::kRsqrt},
                                                                   {"abs", TileOpCode::kAbs}};
  if (c.args.size() != 1) {
    ctx_.diag->Error(loc_) << "T.Parallel call '" << c.op << "' has no vector op";
    return std::nullopt;
  }
  std::optional<Value> a = LowerExpr(c.args[0], nullptr);
  if (!a) return std::nullopt;
  if (c.op == "cast") {
    if (a->dtype == c.dtype) return a;
    Value dst = Slot(a->cls, c.dtype, into, nullptr, nullptr);
    std::string mode = ir::IsFloat(a->dtype) && !ir::IsFloat(c.dtype) ? "CAST_TRUNC" : "CAST_RINT";
    Emit(TileOpCode::kCast, {dst.region, a->region}, {{"mode", mode}});
    return dst;
  }
  for (const auto& [name, code] : kUnary) {
    if (c.op != name) continue;
    Value dst = Slot(a->cls, a->dtype, into, &*a, nullptr);
    Emit(code, {dst.region, a->region});
    return dst;
  }
  ctx_.diag->Error(loc_) << "T.Parallel call '" << c.op << "' has no vector op";
  return std::nullopt;
}

}  // namespace tilejit::passes::parallel
