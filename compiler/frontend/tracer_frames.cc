// SPDX-License-Identifier: Apache-2.0
// Loops (T.serial, range, T.Pipelined, T.Parallel) and `with` frames (T.Kernel, T.Scope).
#include "compiler/frontend/builtin_registry.h"
#include "compiler/frontend/tracer.h"

namespace tilejit::frontend {
namespace {

bool IsIntValue(const Value& v) { return v.kind == ValueKind::kInt || v.kind == ValueKind::kBool; }

}  // namespace

std::optional<ir::Stmt> Tracer::TraceFor(const Stmt& s, const ScopePtr& scope) {
  if (nesting_ + 1 > kMaxNesting) {
    diag().Error(s.loc) << "statements nested too deeply (limit " << kMaxNesting << ")";
    return std::nullopt;
  }
  if (!s.orelse.empty()) {
    diag().Error(s.loc) << "'for ... else' is not supported in kernels";
    return std::nullopt;
  }
  const Expr& iter = *s.value;
  std::optional<Value> callee;
  if (iter.kind == ExprKind::kCall) {
    callee = Eval(*iter.left, scope);
    if (!callee) return std::nullopt;
  }
  const BuiltinRow* row =
      callee && callee->kind == ValueKind::kBuiltin ? FindBuiltin(callee->text) : nullptr;
  const BuiltinHandler kind = row ? row->handler : BuiltinHandler::kNone;
  if (kind != BuiltinHandler::kSerialLoop && kind != BuiltinHandler::kPipelinedLoop &&
      kind != BuiltinHandler::kParallelLoop && kind != BuiltinHandler::kPersistentLoop) {
    if (row && (row->cls == BuiltinClass::kUnsupported || row->cls == BuiltinClass::kOutOfScope)) {
      diag().Error(iter.loc) << NotSupportedText(*row);
    } else {
      diag().Error(iter.loc)
          << "a kernel loop must iterate over T.serial, T.Pipelined, T.Parallel, T.Persistent "
             "or range";
    }
    return std::nullopt;
  }
  std::vector<Value> args;
  KwArgs kwargs;
  if (!EvalArgs(iter, scope, &args, &kwargs)) return std::nullopt;
  if (kind == BuiltinHandler::kPersistentLoop) return TracePersistent(s, *row, args, kwargs, scope);
  const Expr& target = *s.targets[0];
  auto body_scope = std::make_shared<Scope>(scope);
  if (kind == BuiltinHandler::kParallelLoop) {
    if (!kwargs.empty()) {
      diag().Error(kwargs[0].second.loc)
          << "T.Parallel keyword '" << kwargs[0].first << "' is not supported";
      return std::nullopt;
    }
    std::vector<const Expr*> names;
    if (target.kind == ExprKind::kName) {
      names.push_back(&target);
    } else if (target.kind == ExprKind::kTuple || target.kind == ExprKind::kList) {
      for (const ExprPtr& e : target.elts) names.push_back(e.get());
    }
    if (args.empty() || names.size() != args.size()) {
      diag().Error(target.loc) << "T.Parallel with " << args.size()
                               << " extents needs as many loop variables";
      return std::nullopt;
    }
    std::vector<ir::Var> vars;
    for (size_t n = 0; n < args.size(); ++n) {
      if (args[n].kind != ValueKind::kInt || args[n].i <= 0) {
        diag().Error(args[n].loc) << "T.Parallel extents must be positive compile-time ints, not "
                                  << Repr(args[n]);
        return std::nullopt;
      }
      if (names[n]->kind != ExprKind::kName) {
        diag().Error(names[n]->loc) << "a loop variable must be a name";
        return std::nullopt;
      }
      vars.push_back(ir::MakeVar(names[n]->name, ir::DType::kInt32, names[n]->loc));
      body_scope->Set(names[n]->name, Value::OfExpr(ir::Ref(vars.back(), names[n]->loc)));
    }
    ++nesting_;
    auto body = TraceBlock(s.body, body_scope);
    --nesting_;
    if (!body) return std::nullopt;
    ir::Stmt loop = *body;
    for (size_t n = vars.size(); n-- > 0;) {
      loop = std::make_shared<ir::ForNode>(vars[n], ir::IntImm(0, ir::DType::kInt32, s.loc),
                                           ir::IntImm(args[n].i, ir::DType::kInt32, s.loc),
                                           ir::ForKind::kParallel, 0, loop, s.loc);
    }
    return loop;
  }
  const Signature& sig = SignatureOf(*row);
  auto b = Bind(sig, args, kwargs, iter.loc);
  if (!b) return std::nullopt;
  if (sig.params.size() > 2 && sig.params[2] == "step" && (*b)[2] &&
      !(IsIntValue(*(*b)[2]) && (*b)[2]->i == 1)) {
    diag().Error((*b)[2]->loc) << "range() with a step other than 1 is not supported in kernels";
    return std::nullopt;
  }
  for (const auto& a : {(*b)[0], (*b)[1]}) {
    if (a && !IsIntValue(*a) && !a->IsRuntime()) {
      diag().Error(a->loc) << "loop bounds must be integers, not " << TypeName(*a);
      return std::nullopt;
    }
  }
  Value lo = (*b)[1] ? *(*b)[0] : Value::Int(0);
  Value hi = (*b)[1] ? *(*b)[1] : *(*b)[0];
  auto extent = BinOp(BinOpKind::kSub, hi, lo, iter.loc);
  if (!extent) return std::nullopt;
  if (extent->kind == ValueKind::kInt && extent->i < 0) {
    diag().Error(iter.loc) << "loop extent " << extent->i << " is negative";
    return std::nullopt;
  }
  int stages = 0;
  ir::ForKind for_kind = ir::ForKind::kSerial;
  if (kind == BuiltinHandler::kPipelinedLoop) {
    for_kind = ir::ForKind::kPipelined;
    if (extent->kind != ValueKind::kInt) {
      diag().Error(iter.loc) << "T.Pipelined needs a compile-time loop extent";
      return std::nullopt;
    }
    if ((*b)[2]) {
      if ((*b)[2]->kind != ValueKind::kInt || (*b)[2]->i < 0 || (*b)[2]->i > 16) {
        diag().Error((*b)[2]->loc) << "num_stages must be an int in 0..16, not " << Repr(*(*b)[2]);
        return std::nullopt;
      }
      stages = static_cast<int>((*b)[2]->i);
    }
    // Upstream's cross-core pipeline spaces its cube/vector hand-offs by it; multi_buffer and
    // cross_core_sync place tilejit's from the data flow, so only the result is the same.
    if (const auto& ci = (*b)[3]; ci && !(IsIntValue(*ci) && ci->i == 1)) {
      diag().Warning(ci->loc) << "T.Pipelined(cross_interval=" << Repr(*ci)
                              << ") is ignored: tilejit orders the cube/vector hand-offs of a "
                                 "pipelined loop from its data flow";
    }
  }
  if (target.kind != ExprKind::kName) {
    diag().Error(target.loc) << "the loop variable of " << row->name << " must be a single name";
    return std::nullopt;
  }
  auto min_e = ToExpr(lo, iter.loc);
  auto ext_e = min_e ? ToExpr(*extent, iter.loc) : std::nullopt;
  if (!ext_e) return std::nullopt;
  if (ir::IsFloat((*ext_e)->dtype) || ir::IsFloat((*min_e)->dtype)) {
    diag().Error(iter.loc) << "loop bounds must be integers";
    return std::nullopt;
  }
  ir::Var var = ir::MakeVar(target.name, ir::DType::kInt32, target.loc);
  body_scope->Set(target.name, Value::OfExpr(ir::Ref(var, target.loc)));
  ++nesting_;
  auto body = TraceBlock(s.body, body_scope);
  --nesting_;
  if (!body) return std::nullopt;
  return std::make_shared<ir::ForNode>(var, *min_e, *ext_e, for_kind, stages, *body, s.loc);
}

const BuiltinRow* Tracer::FrameRow(const Expr& context, const ScopePtr& scope, bool* failed) {
  *failed = false;
  if (context.kind != ExprKind::kCall) return nullptr;
  std::optional<Value> callee = Eval(*context.left, scope);
  if (!callee) {
    *failed = true;
    return nullptr;
  }
  return callee->kind == ValueKind::kBuiltin ? FindBuiltin(callee->text) : nullptr;
}

std::optional<ir::Stmt> Tracer::TraceWith(const Stmt& s, const ScopePtr& scope) {
  const Expr& ctx = *s.items[0].context;
  bool failed = false;
  const BuiltinRow* row = FrameRow(ctx, scope, &failed);
  if (failed) return std::nullopt;
  const BuiltinHandler frame = row ? row->handler : BuiltinHandler::kNone;
  if (frame == BuiltinHandler::kIfFrame || frame == BuiltinHandler::kThenFrame ||
      frame == BuiltinHandler::kElseFrame) {
    return TraceIfFrame(s, *row, scope);
  }
  if (s.items.size() != 1) {
    diag().Error(s.loc) << "a kernel 'with' statement takes exactly one context";
    return std::nullopt;
  }
  if (row && row->handler == BuiltinHandler::kKernel) return TraceKernel(s, ctx, scope);
  if (!row || row->handler != BuiltinHandler::kScope) {
    diag().Error(ctx.loc) << "unsupported 'with' context: expected T.Kernel(...) or T.Scope(...)";
    return std::nullopt;
  }
  std::vector<Value> args;
  KwArgs kwargs;
  if (!EvalArgs(ctx, scope, &args, &kwargs)) return std::nullopt;
  auto b = Bind(SignatureOf(*row), args, kwargs, ctx.loc);
  if (!b) return std::nullopt;
  const Value& which = *(*b)[0];
  if (which.kind != ValueKind::kString || (which.text != "C" && which.text != "V")) {
    diag().Error(which.loc) << "T.Scope takes \"C\" (cube) or \"V\" (vector), not " << Repr(which);
    return std::nullopt;
  }
  if (!frame_.in_kernel) {
    diag().Error(s.loc) << "T.Scope must be inside 'with T.Kernel(...)'";
    return std::nullopt;
  }
  if (frame_.in_scope) {
    diag().Error(s.loc) << "T.Scope cannot be nested in another T.Scope";
    return std::nullopt;
  }
  if (s.items[0].target) {
    diag().Error(s.items[0].target->loc) << "T.Scope binds no name (remove 'as ...')";
    return std::nullopt;
  }
  if (nesting_ + 1 > kMaxNesting) {
    diag().Error(s.loc) << "statements nested too deeply (limit " << kMaxNesting << ")";
    return std::nullopt;
  }
  frame_.in_scope = true;
  ++nesting_;
  auto body = TraceBlock(s.body, std::make_shared<Scope>(scope));
  --nesting_;
  frame_.in_scope = false;
  if (!body) return std::nullopt;
  return std::make_shared<ir::CoreScopeNode>(
      which.text == "C" ? ir::CoreKind::kCube : ir::CoreKind::kVector, *body, s.loc);
}

std::optional<ir::Stmt> Tracer::TraceKernel(const Stmt& s, const Expr& call,
                                            const ScopePtr& scope) {
  if (frame_.in_kernel || kernels_ > 0) {
    diag().Error(s.loc) << "a prim_func may contain only one T.Kernel launch, not nested";
    return std::nullopt;
  }
  std::vector<Value> args;
  KwArgs kwargs;
  if (!EvalArgs(call, scope, &args, &kwargs)) return std::nullopt;
  if (args.size() != 1) {
    diag().Error(call.loc) << "T.Kernel on the NPU takes exactly one grid extent, got "
                           << args.size();
    return std::nullopt;
  }
  int threads = 0;
  bool is_npu = false;
  for (const auto& [key, v] : kwargs) {
    if (key == "threads") {
      if (v.kind != ValueKind::kInt || (v.i != 1 && v.i != 2)) {
        diag().Error(v.loc) << "T.Kernel threads must be 1 or 2, not " << Repr(v);
        return std::nullopt;
      }
      threads = static_cast<int>(v.i);
    } else if (key == "is_npu") {
      if (v.kind != ValueKind::kBool) {
        diag().Error(v.loc) << "is_npu must be True or False";
        return std::nullopt;
      }
      is_npu = v.b;
    } else {
      diag().Error(v.loc) << "T.Kernel argument '" << key
                          << "' is not supported (use threads=1|2 and is_npu=True)";
      return std::nullopt;
    }
  }
  if (!is_npu) {
    diag().Error(call.loc) << "T.Kernel needs is_npu=True on this target";
    return std::nullopt;
  }
  const Value& grid = args[0];
  if ((grid.kind == ValueKind::kInt && grid.i <= 0) ||
      (grid.kind != ValueKind::kInt && !grid.IsRuntime())) {
    diag().Error(grid.loc) << "the T.Kernel grid extent must be a positive int, not " << Repr(grid);
    return std::nullopt;
  }
  const Expr* t = s.items[0].target.get();
  std::vector<const Expr*> names;
  if (t != nullptr && t->kind == ExprKind::kName) names.push_back(t);
  if (t != nullptr && (t->kind == ExprKind::kTuple || t->kind == ExprKind::kList)) {
    for (const ExprPtr& e : t->elts) names.push_back(e.get());
  }
  bool names_ok = true;
  for (const Expr* n : names) names_ok = names_ok && n->kind == ExprKind::kName;
  if (threads != 0 && (names.size() != 1 || !names_ok)) {
    diag().Error(t ? t->loc : s.loc)
        << "with threads=" << threads << ", T.Kernel binds only the block index: use 'as (cid)'";
    return std::nullopt;
  }
  if (threads == 0 && (names.size() != 2 || !names_ok)) {
    diag().Error(t ? t->loc : s.loc)
        << "T.Kernel(n, is_npu=True) binds (cid, vid): use 'as (cid, vid)' or 'as (cid, _)', "
           "or pass threads=1|2 for 'as (cid)'";
    return std::nullopt;
  }
  auto grid_e = ToExpr(grid, grid.loc);
  if (!grid_e) return std::nullopt;
  ir::Var cid = ir::MakeVar(names[0]->name, ir::DType::kInt32, names[0]->loc);
  std::string vid_name = names.size() == 2 ? names[1]->name : "vid";
  ir::Var vid = ir::MakeVar(vid_name, ir::DType::kInt32, names.size() == 2 ? names[1]->loc : s.loc);
  auto body_scope = std::make_shared<Scope>(scope);
  body_scope->Set(names[0]->name, Value::OfExpr(ir::Ref(cid, names[0]->loc)));
  if (names.size() == 2 && vid_name != "_") {
    body_scope->Set(vid_name, Value::OfExpr(ir::Ref(vid, names[1]->loc)));
  }
  ++kernels_;
  frame_.in_kernel = true;
  ++nesting_;
  auto body = TraceBlock(s.body, body_scope);
  --nesting_;
  frame_.in_kernel = false;
  if (!body) return std::nullopt;
  return std::make_shared<ir::KernelNode>(*grid_e, threads, cid, vid, *body, s.loc);
}

}  // namespace tilejit::frontend
