// SPDX-License-Identifier: Apache-2.0
// TVM's script frames for an if statement, which upstream kernels write beside Python's `if`:
//
//   with T.If(cond):                  with T.If(cond), T.Then():
//       with T.Then():                    ...
//           ...
//       with T.Else():
//           ...
//
// They mean `if cond: ... else: ...` and trace the same way (a runtime condition becomes an If
// node, a host one keeps the taken branch). The body of `with T.If(...)` holds a T.Then frame
// and an optional T.Else frame after it, nothing else, as TVM requires.
#include "compiler/frontend/tracer.h"

namespace tilejit::frontend {
namespace {

bool IsFrame(const BuiltinRow* row, BuiltinHandler h) { return row && row->handler == h; }

}  // namespace

std::optional<ir::Stmt> Tracer::TraceIf(const Value& test, SourceLoc test_loc,
                                        const StmtList& then_body, const StmtList* else_body,
                                        SourceLoc loc, const ScopePtr& scope) {
  NestGuard guard(&nesting_);
  if (nesting_ > kMaxNesting) {
    diag().Error(loc) << "statements nested too deeply (limit " << kMaxNesting << ")";
    return std::nullopt;
  }
  static const StmtList kEmpty;
  if (!test.IsRuntime()) {
    return TraceBlock(Truthy(test) ? then_body : (else_body ? *else_body : kEmpty),
                      std::make_shared<Scope>(scope));
  }
  auto cond = ToExpr(test, test_loc);
  if (!cond) return std::nullopt;
  auto then_ir = TraceBlock(then_body, std::make_shared<Scope>(scope));
  if (!then_ir) return std::nullopt;
  ir::Stmt else_ir;
  if (else_body) {
    auto e = TraceBlock(*else_body, std::make_shared<Scope>(scope));
    if (!e) return std::nullopt;
    else_ir = *e;
  }
  return std::make_shared<ir::IfNode>(*cond, *then_ir, else_ir, loc);
}

std::optional<ir::Stmt> Tracer::TraceIfFrame(const Stmt& s, const BuiltinRow& row,
                                             const ScopePtr& scope) {
  if (row.handler != BuiltinHandler::kIfFrame) {
    diag().Error(s.loc) << row.name << "() belongs directly inside 'with T.If(...)'";
    return std::nullopt;
  }
  for (const WithItem& item : s.items) {
    if (item.target) {
      diag().Error(item.target->loc) << "T.If, T.Then and T.Else bind no name (remove 'as ...')";
      return std::nullopt;
    }
  }
  const Expr& ctx = *s.items[0].context;
  std::vector<Value> args;
  KwArgs kwargs;
  if (!EvalArgs(ctx, scope, &args, &kwargs)) return std::nullopt;
  auto b = Bind(SignatureOf(row), args, kwargs, ctx.loc);
  if (!b) return std::nullopt;
  const Value& test = *(*b)[0];
  const SourceLoc test_loc = ctx.elts.empty() ? ctx.loc : ctx.elts[0]->loc;

  bool failed = false;
  if (s.items.size() > 1) {  // with T.If(c), T.Then(): the body is the then branch
    if (s.items.size() > 2 ||
        !IsFrame(FrameRow(*s.items[1].context, scope, &failed), BuiltinHandler::kThenFrame)) {
      if (!failed) diag().Error(s.items[1].context->loc) << "after T.If(...) comes T.Then()";
      return std::nullopt;
    }
    return TraceIf(test, test_loc, s.body, nullptr, s.loc, scope);
  }
  const StmtList* then_body = nullptr;
  const StmtList* else_body = nullptr;
  for (const StmtPtr& frame : s.body) {
    const BuiltinRow* inner = frame->kind == StmtKind::kWith && frame->items.size() == 1
                                  ? FrameRow(*frame->items[0].context, scope, &failed)
                                  : nullptr;
    if (failed) return std::nullopt;
    if (!then_body && IsFrame(inner, BuiltinHandler::kThenFrame)) {
      then_body = &frame->body;
    } else if (then_body && !else_body && IsFrame(inner, BuiltinHandler::kElseFrame)) {
      else_body = &frame->body;
    } else {
      diag().Error(frame->loc) << "the body of 'with T.If(...)' holds 'with T.Then():' and then "
                                  "an optional 'with T.Else():', nothing else";
      return std::nullopt;
    }
  }
  if (!then_body) {
    diag().Error(s.loc) << "'with T.If(...)' needs a 'with T.Then():' inside it";
    return std::nullopt;
  }
  return TraceIf(test, test_loc, *then_body, else_body, s.loc, scope);
}

}  // namespace tilejit::frontend
