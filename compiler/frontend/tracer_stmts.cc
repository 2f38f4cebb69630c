// SPDX-License-Identifier: Apache-2.0
// Assignments, loops, `with` frames, expression statements and inlining.
#include "compiler/frontend/builtin_registry.h"
#include "compiler/frontend/subscript.h"
#include "compiler/frontend/tracer.h"
#include "compiler/ir/visitor.h"

namespace tilejit::frontend {
namespace {

using Lets = std::vector<std::pair<ir::Var, ir::Expr>>;

bool IsLocalVar(const Value* v) { return v != nullptr && IsScalarVar(*v); }

}  // namespace

bool Tracer::TraceAssign(const Work& work, size_t i, const ScopePtr& scope,
                         std::vector<ir::Stmt>* out, bool* rest_done) {
  const Stmt& s = *work[i];
  if (!s.value) return true;  // a bare annotation binds nothing
  const Expr& value = *s.value;
  if (value.kind == ExprKind::kCall &&
      (value.left->kind == ExprKind::kAttribute || value.left->kind == ExprKind::kName)) {
    auto callee = Eval(*value.left, scope);
    if (!callee) return false;
    const BuiltinRow* row =
        callee->kind == ValueKind::kBuiltin ? FindBuiltin(callee->text) : nullptr;
    if (row && row->handler == BuiltinHandler::kAlloc) {
      if (s.targets.size() != 1 || s.targets[0]->kind != ExprKind::kName) {
        diag().Error(s.loc) << "the result of " << callee->text
                            << "(...) must be assigned to a single name";
        return false;
      }
      auto b = TraceAlloc(s.targets[0]->name, callee->text, value, scope, out);
      if (!b) return false;
      scope->Set(s.targets[0]->name, Value::OfBuffer(*b));
      return true;
    }
  }
  auto v = Eval(value, scope);
  if (!v) return false;
  Lets lets;
  for (const ExprPtr& t : s.targets) {
    if (!BindTarget(*t, *v, scope, out, &lets)) return false;
  }
  if (lets.empty()) return true;
  // The rest of the block is the body of the new let bindings.
  ++lets_;
  if (lets_ > kMaxLets) {
    --lets_;
    diag().Error(s.loc) << "too many nested bindings in one block (limit " << kMaxLets << ")";
    return false;
  }
  auto rest = TraceWork(work, i + 1, scope);
  --lets_;
  if (!rest) return false;
  ir::Stmt body = *rest;
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
    body = std::make_shared<ir::LetNode>(it->first, it->second, body, s.loc);
  }
  out->push_back(body);
  *rest_done = true;
  return true;
}

bool Tracer::BindTarget(const Expr& target, const Value& v, const ScopePtr& scope,
                        std::vector<ir::Stmt>* out, Lets* lets) {
  switch (target.kind) {
    case ExprKind::kName: {
      if (IsLocalVar(scope->Lookup(target.name))) {
        const ir::Buffer& var = scope->Lookup(target.name)->buffer;
        auto e = ToExpr(v, target.loc);
        if (!e) return false;
        out->push_back(std::make_shared<ir::StoreNode>(
            var, std::vector<ir::Expr>{ir::IntImm(0, ir::DType::kInt32, target.loc)}, *e,
            target.loc));
        return true;
      }
      if (v.IsRuntime()) {
        auto e = ToExpr(v, target.loc);
        if (!e) return false;
        ir::Var var = ir::MakeVar(target.name, (*e)->dtype, target.loc);
        if (!ir::HasLoad(*e)) bound_values_[var.get()] = *e;
        lets->emplace_back(var, *e);
        scope->Set(target.name, Value::OfExpr(ir::Ref(var, target.loc)));
        return true;
      }
      scope->Set(target.name, v);
      return true;
    }
    case ExprKind::kTuple:
    case ExprKind::kList: {
      auto values = UnpackValues(target, v, &diag());
      if (!values) return false;
      for (size_t n = 0; n < values->size(); ++n) {
        if (!BindTarget(UnstarredTarget(target.elts[n]), (*values)[n], scope, out, lets)) {
          return false;
        }
      }
      return true;
    }
    case ExprKind::kSubscript: {
      auto dst = Eval(target, scope);
      if (!dst) return false;
      if (dst->kind != ValueKind::kElement) {
        diag().Error(target.loc) << "assignment to a " << TypeName(*dst)
                                 << " is not supported (use T.tile.fill or T.copy for regions)";
        return false;
      }
      auto e = ToExpr(v, target.loc);
      if (!e) return false;
      out->push_back(std::make_shared<ir::StoreNode>(dst->buffer, dst->indices, *e, target.loc));
      return true;
    }
    default:
      diag().Error(target.loc) << "this assignment target is not supported in a kernel";
      return false;
  }
}

bool Tracer::TraceAugAssign(const Stmt& s, const ScopePtr& scope, std::vector<ir::Stmt>* out,
                            bool* rest_done, const Work& work, size_t i) {
  const Expr& target = *s.targets[0];
  auto cur = Eval(target, scope);
  auto rhs = cur ? Eval(*s.value, scope) : std::nullopt;
  if (!rhs) return false;
  if (IsScalarVar(*cur)) {
    std::vector<ir::Expr> zero{ir::IntImm(0, ir::DType::kInt32, target.loc)};
    auto loaded = Value::OfElement(cur->buffer, zero, target.loc);
    auto v = BinOp(s.aug_op, loaded, *rhs, s.loc);
    auto e = v ? ToExpr(*v, s.loc) : std::nullopt;
    if (!e) return false;
    out->push_back(std::make_shared<ir::StoreNode>(cur->buffer, zero, *e, s.loc));
    return true;
  }
  auto v = BinOp(s.aug_op, *cur, *rhs, s.loc);
  if (!v) return false;
  if (target.kind == ExprKind::kSubscript) {
    if (cur->kind != ValueKind::kElement) {
      diag().Error(target.loc) << "augmented assignment to a " << TypeName(*cur)
                               << " is not supported";
      return false;
    }
    auto e = ToExpr(*v, s.loc);
    if (!e) return false;
    out->push_back(std::make_shared<ir::StoreNode>(cur->buffer, cur->indices, *e, s.loc));
    return true;
  }
  Lets lets;
  if (!BindTarget(target, *v, scope, out, &lets)) return false;
  if (lets.empty()) return true;
  ++lets_;
  auto rest = lets_ > kMaxLets ? std::nullopt : TraceWork(work, i + 1, scope);
  --lets_;
  if (!rest) {
    if (lets_ + 1 > kMaxLets) diag().Error(s.loc) << "too many nested bindings in one block";
    return false;
  }
  out->push_back(std::make_shared<ir::LetNode>(lets[0].first, lets[0].second, *rest, s.loc));
  *rest_done = true;
  return true;
}

std::optional<ir::Buffer> Tracer::TraceAlloc(const std::string& name, const std::string& builtin,
                                             const Expr& call, const ScopePtr& scope,
                                             std::vector<ir::Stmt>* out) {
  std::vector<Value> args;
  KwArgs kwargs;
  if (!EvalArgs(call, scope, &args, &kwargs)) return std::nullopt;
  ir::BufferNode node;
  node.name = name;
  const BuiltinRow& row = *FindBuiltin(builtin);
  node.scope = *row.scope;
  node.role = ir::BufferRole::kLocal;
  node.loc = call.loc;
  std::optional<Value> init;
  Value dt;
  if (node.scope == ir::MemScope::kLocalVar) {
    auto b = Bind(SignatureOf(row), args, kwargs, call.loc);
    if (!b) return std::nullopt;
    node.shape = {1};
    dt = *(*b)[0];
    init = (*b)[1];
  } else {
    auto b = Bind(SignatureOf(row), args, kwargs, call.loc);
    if (!b) return std::nullopt;
    const Value& shape = *(*b)[0];
    std::vector<Value> dims = shape.is_sequence() ? *shape.items : std::vector<Value>{shape};
    if (dims.empty()) {
      diag().Error(shape.loc) << "buffer '" << name << "' has an empty shape";
      return std::nullopt;
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].kind != ValueKind::kInt || dims[d].i <= 0) {
        auto err = diag().Error(shape.loc);
        err << "non-constant or non-positive shape: dimension " << d << " of '" << name << "' is "
            << Repr(dims[d]) << " (" << TypeName(dims[d]) << "); shapes must be positive ints";
        if (const ir::Var sym = SymbolOf(dims[d])) {
          err << " (on-chip buffers have static shapes; T.symbolic('" << sym->name
              << "') is known only at launch: tile it with a static size)";
        }
        return std::nullopt;
      }
      node.shape.push_back(dims[d].i);
    }
    if (node.num_elements() > (int64_t{1} << 32)) {
      diag().Error(shape.loc) << "buffer '" << name << "' is too large";
      return std::nullopt;
    }
    dt = *(*b)[1];
  }
  auto dtype = DTypeOfValue(dt, call.loc, &diag());
  if (!dtype) return std::nullopt;
  node.dtype = *dtype;
  if (!frame_.in_kernel) {
    diag().Error(call.loc) << builtin << " must be called inside 'with T.Kernel(...)'";
    return std::nullopt;
  }
  auto mut = std::make_shared<ir::BufferNode>(std::move(node));
  ir::Buffer buffer = mut;
  mutable_buffers_[buffer.get()] = mut;
  out->push_back(std::make_shared<ir::AllocateNode>(buffer, call.loc));
  if (init) {
    auto e = ToExpr(*init, init->loc.known() ? init->loc : call.loc);
    if (!e) return std::nullopt;
    out->push_back(std::make_shared<ir::StoreNode>(
        buffer, std::vector<ir::Expr>{ir::IntImm(0, ir::DType::kInt32, call.loc)}, *e, call.loc));
  }
  return buffer;
}

bool Tracer::TraceExprStmt(const Stmt& s, const Expr& value, const ScopePtr& scope,
                           std::vector<ir::Stmt>* out) {
  (void)s;
  if (value.kind == ExprKind::kConstant) return true;  // docstrings
  if (value.kind == ExprKind::kCall) {
    auto callee = Eval(*value.left, scope);
    if (!callee) return false;
    if (callee->kind == ValueKind::kBuiltin &&
        ClassifyBuiltin(callee->text) == BuiltinClass::kStatement) {
      std::vector<Value> args;
      KwArgs kwargs;
      if (!EvalArgs(value, scope, &args, &kwargs)) return false;
      return TraceOpCall(callee->text, value, args, kwargs, out);
    }
    if (callee->kind == ValueKind::kFunction) {
      std::vector<Value> args;
      KwArgs kwargs;
      if (!EvalArgs(value, scope, &args, &kwargs)) return false;
      return TraceInline(*callee->func, value, std::move(args), kwargs, out);
    }
  }
  return Eval(value, scope).has_value();
}

bool Tracer::TraceInline(const FunctionValue& fn, const Expr& call, std::vector<Value> args,
                         const KwArgs& kwargs, std::vector<ir::Stmt>* out) {
  if (fn.kind == FunctionKind::kPrimFunc) {
    diag().Error(call.loc) << "a @T.prim_func cannot be called";
    return false;
  }
  if (nesting_ + 1 > kMaxNesting) {
    diag().Error(call.loc) << "macro and helper calls nested too deeply (limit " << kMaxNesting
                           << ")";
    return false;
  }
  if (!budget().Step(call.loc, &diag())) return false;
  ++nesting_;
  // Hygiene: the body sees its parameters and its definition site, never the caller's names.
  auto scope = std::make_shared<Scope>(fn.closure.lock());
  bool ok = BindParams(fn, std::move(args), kwargs, call.loc, scope);
  std::optional<ir::Stmt> body;
  if (ok) {
    bool saved = frame_.in_inline;
    frame_.in_inline = true;
    body = TraceBlock(fn.def->body, scope);
    frame_.in_inline = saved;
  }
  --nesting_;
  if (!body) return false;
  out->push_back(*body);
  return true;
}

}  // namespace tilejit::frontend
