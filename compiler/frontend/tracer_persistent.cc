// SPDX-License-Identifier: Apache-2.0
// T.Persistent(domain, wave_size, index, group_size=8): a persistent loop, each core taking
// every wave_size-th tile of a grid. The tile order follows upstream's PersistentFor
// (tile-ai/tilelang-ascend src/ir.cc): with g = min(group_size, D[n-1]) the flat tile number
// t = w * wave_size + index is read in the mixed radix [D[n-1] // g, D[0], ..., D[n-2], g],
// so consecutive numbers walk g columns of one row group before the next row. Where upstream
// guards only loops of two waves or more, tilejit guards every wave: a core whose t is past
// the grid skips the body instead of running it with coordinates outside the domain.
#include <algorithm>

#include "compiler/frontend/builtin_registry.h"
#include "compiler/frontend/tracer.h"

namespace tilejit::frontend {

std::optional<ir::Stmt> Tracer::TracePersistent(const Stmt& s, const BuiltinRow& row,
                                                const std::vector<Value>& args,
                                                const KwArgs& kwargs, const ScopePtr& scope) {
  const Expr& iter = *s.value;
  auto b = Bind(SignatureOf(row), args, kwargs, iter.loc);
  if (!b) return std::nullopt;
  const Value& domain = *(*b)[0];
  std::vector<int64_t> dims;
  if (domain.is_sequence()) {
    for (size_t i = 0; i < domain.size(); ++i) {
      const Value& d = domain.item(i);
      if (d.kind != ValueKind::kInt || d.i <= 0 || d.i > (int64_t{1} << 31)) break;
      dims.push_back(d.i);
    }
  }
  if (dims.empty() || dims.size() != domain.size()) {
    diag().Error(LocOr(domain, iter.loc))
        << "T.Persistent domain must be a list of positive compile-time ints, not " << Repr(domain);
    return std::nullopt;
  }
  const Value& wave = *(*b)[1];
  const Value& group = (*b)[3] ? *(*b)[3] : Value::Int(8);
  for (const Value* v : {&wave, &group}) {
    if (v->kind != ValueKind::kInt || v->i <= 0 || v->i > (int64_t{1} << 31)) {
      diag().Error(LocOr(*v, iter.loc))
          << "T.Persistent " << (v == &wave ? "wave_size" : "group_size")
          << " must be a positive compile-time int, not " << Repr(*v);
      return std::nullopt;
    }
  }
  std::vector<const Expr*> names;
  const Expr& target = *s.targets[0];
  if (target.kind == ExprKind::kName) names.push_back(&target);
  if (target.kind == ExprKind::kTuple || target.kind == ExprKind::kList) {
    for (const ExprPtr& e : target.elts)
      names.push_back(e->kind == ExprKind::kName ? e.get() : nullptr);
  }
  if (names.size() != dims.size() || std::count(names.begin(), names.end(), nullptr) > 0) {
    diag().Error(target.loc) << "T.Persistent over " << dims.size()
                             << " dimensions needs as many loop variable names";
    return std::nullopt;
  }
  int64_t total = 1;
  for (int64_t d : dims) {
    total *= d;
    if (total > (int64_t{1} << 31)) {
      diag().Error(LocOr(domain, iter.loc)) << "T.Persistent domain has more than 2^31 tiles";
      return std::nullopt;
    }
  }
  const int64_t g = std::min(group.i, dims.back());
  // Radix digits, least significant first: g, then D[n-2] .. D[0]; the rest is the column group.
  std::vector<int64_t> radix{g};
  for (size_t i = dims.size() - 1; i-- > 0;) radix.push_back(dims[i]);

  ir::Var w = ir::MakeVar("w", ir::DType::kInt32, iter.loc);
  auto body_scope = std::make_shared<Scope>(scope);
  auto op = [&](BinOpKind k, const Value& x, const Value& y) { return BinOp(k, x, y, iter.loc); };
  auto t = op(BinOpKind::kMult, Value::OfExpr(ir::Ref(w, iter.loc)), wave);
  if (t) t = op(BinOpKind::kAdd, *t, *(*b)[2]);
  if (!t) return std::nullopt;
  std::vector<Value> digits;
  Value rest = *t;
  for (int64_t r : radix) {
    auto digit = op(BinOpKind::kMod, rest, Value::Int(r));
    auto next = digit ? op(BinOpKind::kFloorDiv, rest, Value::Int(r)) : std::nullopt;
    if (!next) return std::nullopt;
    digits.push_back(*digit);
    rest = *next;
  }
  // digits[0] is the column within the group; digits[k] the coordinate of dim n-1-k.
  for (size_t i = 0; i + 1 < dims.size(); ++i)
    body_scope->Set(names[i]->name, digits[dims.size() - 1 - i]);
  auto col = op(BinOpKind::kMult, rest, Value::Int(g));
  if (col) col = op(BinOpKind::kAdd, *col, digits[0]);
  auto inside = CompareOp(CmpOpKind::kLt, *t, Value::Int(total), iter.loc);
  if (!col || !inside) return std::nullopt;
  body_scope->Set(names.back()->name, *col);
  auto cond = ToExpr(*inside, iter.loc);
  if (!cond) return std::nullopt;
  ++nesting_;
  auto body = TraceBlock(s.body, body_scope);
  --nesting_;
  if (!body) return std::nullopt;
  const int64_t waves = (total + wave.i - 1) / wave.i;
  ir::Stmt guarded = std::make_shared<ir::IfNode>(*cond, *body, nullptr, s.loc);
  return std::make_shared<ir::ForNode>(w, ir::IntImm(0, ir::DType::kInt32, iter.loc),
                                       ir::IntImm(waves, ir::DType::kInt32, iter.loc),
                                       ir::ForKind::kSerial, 0, guarded, s.loc);
}

}  // namespace tilejit::frontend
