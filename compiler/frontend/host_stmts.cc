// SPDX-License-Identifier: Apache-2.0
// Host statement execution (factory bodies, helpers, module-level statements) and the
// @tilelang.jit decorator.
#include <functional>

#include "compiler/frontend/builtin_registry.h"
#include "compiler/frontend/host_eval.h"
#include "compiler/frontend/parser.h"

namespace tilejit::frontend {
namespace {

// range(...)'s start, stop and step for a host `for`, which iterates lazily (range(2**40) is a
// step budget matter, not a list of 2^40 values).
bool RangeBounds(DiagnosticEngine* diag, const std::vector<Value>& args, SourceLoc loc,
                 int64_t v[3]) {
  v[0] = 0;
  v[2] = 1;
  if (args.empty() || args.size() > 3) {
    diag->Error(loc) << "range() takes 1 to 3 arguments";
    return false;
  }
  for (size_t n = 0; n < args.size(); ++n) {
    if (args[n].kind != ValueKind::kInt && args[n].kind != ValueKind::kBool) {
      diag->Error(args[n].loc.known() ? args[n].loc : loc)
          << "range() arguments must be ints, not " << TypeName(args[n]);
      return false;
    }
  }
  if (args.size() == 1) {
    v[1] = IntOf(args[0]);
  } else {
    v[0] = IntOf(args[0]);
    v[1] = IntOf(args[1]);
    if (args.size() == 3) v[2] = IntOf(args[2]);
  }
  if (v[2] == 0) {
    diag->Error(loc) << "range() step must not be zero";
    return false;
  }
  return true;
}

}  // namespace

std::optional<Value> Evaluator::RangeList(const std::vector<Value>& args, SourceLoc loc) {
  int64_t r[3];
  if (!RangeBounds(diag_, args, loc, r)) return std::nullopt;
  const __int128 span =
      r[2] > 0 ? static_cast<__int128>(r[1]) - r[0] : static_cast<__int128>(r[0]) - r[1];
  const __int128 step = r[2] > 0 ? r[2] : -static_cast<__int128>(r[2]);
  const __int128 count = span <= 0 ? 0 : (span - 1) / step + 1;
  if (!budget().Reserve(
          static_cast<uint64_t>(std::min<__int128>(count, UINT64_MAX / 64)) * sizeof(Value), loc,
          diag_)) {
    return std::nullopt;
  }
  std::vector<Value> items;
  items.reserve(static_cast<size_t>(count));
  for (__int128 n = 0; n < count; ++n) items.push_back(Value::Int(r[0] + n * r[2]));
  return Value::List(std::move(items));
}

Flow Evaluator::ForEach(const Expr& iter, const ScopePtr& scope,
                        const std::function<Flow(const Value&)>& each) {
  std::optional<Value> callee;
  if (iter.kind == ExprKind::kCall) callee = Eval(*iter.left, scope);
  if (callee && callee->kind == ValueKind::kBuiltin && callee->text == "range") {
    std::vector<Value> args;
    KwArgs kwargs;
    int64_t r[3];
    if (!EvalArgs(iter, scope, &args, &kwargs) || !RangeBounds(diag_, args, iter.loc, r)) {
      return Flow::kError;
    }
    for (int64_t x = r[0]; r[2] > 0 ? x < r[1] : x > r[1];) {
      if (const Flow f = each(Value::Int(x)); f != Flow::kNormal) return f;
      if (__builtin_add_overflow(x, r[2], &x)) break;
    }
    return Flow::kNormal;
  }
  auto v = Eval(iter, scope);
  if (!v) return Flow::kError;
  if (!v->is_sequence() && v->kind != ValueKind::kDict) {
    diag_->Error(iter.loc) << "cannot iterate over a " << TypeName(*v) << " in host code";
    return Flow::kError;
  }
  for (const Value& item : *v->items) {  // a dict's items are its keys
    if (const Flow f = each(item); f != Flow::kNormal) return f;
  }
  return Flow::kNormal;
}

std::optional<bool> Evaluator::HostCondition(const Expr& test, const ScopePtr& scope) {
  auto v = Eval(test, scope);
  if (!v) return std::nullopt;
  if (v->IsRuntime()) {
    diag_->Error(test.loc) << "a runtime condition is not allowed in host code";
    return std::nullopt;
  }
  return Truthy(*v);
}

// `loop` (a for or a while) ended with `ended`: kNormal when it ran out, so its else runs.
bool Evaluator::FinishLoop(const Stmt& loop, Flow ended, const ScopePtr& scope, Value* ret,
                           Flow* flow) {
  switch (ended) {
    case Flow::kError:
      return false;
    case Flow::kReturn:
      *flow = Flow::kReturn;
      return true;
    case Flow::kNormal:
      *flow = ExecBlock(loop.orelse, scope, ret);  // a break in it ends an enclosing loop
      return *flow != Flow::kError;
    case Flow::kBreak:
    case Flow::kContinue:
      return true;
  }
  return true;
}

// One pass of a loop body: a continue ends the pass, not the loop.
Flow Evaluator::ExecLoopBody(const Stmt& loop, const ScopePtr& scope, Value* ret) {
  if (!budget().Step(loop.loc, diag_)) return Flow::kError;
  const Flow f = ExecBlock(loop.body, scope, ret);
  return f == Flow::kContinue ? Flow::kNormal : f;
}

bool Evaluator::ExecStmt(const Stmt& s, const ScopePtr& scope, Value* ret, Flow* flow) {
  switch (s.kind) {
    case StmtKind::kExpr:
      return Eval(*s.value, scope).has_value();
    case StmtKind::kAssign: {
      auto v = Eval(*s.value, scope);
      if (!v) return false;
      for (const ExprPtr& t : s.targets) {
        if (!Assign(*t, *v, scope)) return false;
      }
      return true;
    }
    case StmtKind::kAugAssign: {
      const Expr& t = *s.targets[0];
      if (t.kind != ExprKind::kName) {
        diag_->Error(t.loc) << "augmented assignment to this target is not supported in host code";
        return false;
      }
      auto cur = Eval(t, scope);
      auto rhs = cur ? Eval(*s.value, scope) : std::nullopt;
      auto v = rhs ? BinOp(s.aug_op, *cur, *rhs, s.loc) : std::nullopt;
      return v && Assign(t, *v, scope);
    }
    case StmtKind::kAnnAssign: {
      if (!s.value) return true;
      auto v = Eval(*s.value, scope);
      return v && Assign(*s.targets[0], *v, scope);
    }
    case StmtKind::kIf: {
      std::optional<bool> test = HostCondition(*s.value, scope);
      if (!test) return false;
      *flow = ExecBlock(*test ? s.body : s.orelse, scope, ret);
      return *flow != Flow::kError;
    }
    case StmtKind::kFor: {
      const Flow ended = ForEach(*s.value, scope, [&](const Value& item) {
        return Assign(*s.targets[0], item, scope) ? ExecLoopBody(s, scope, ret) : Flow::kError;
      });
      return FinishLoop(s, ended, scope, ret, flow);
    }
    case StmtKind::kWhile: {
      Flow ended = Flow::kNormal;
      for (std::optional<bool> go; ended == Flow::kNormal;) {
        if (!(go = HostCondition(*s.value, scope))) return false;  // the body counts the steps
        if (!*go) break;
        ended = ExecLoopBody(s, scope, ret);
      }
      return FinishLoop(s, ended, scope, ret, flow);
    }
    case StmtKind::kFunctionDef: {
      auto fn = MakeFunction(s, scope);
      if (!fn) return false;
      scope->Set(s.name, *fn);
      return true;
    }
    case StmtKind::kReturn: {
      if (s.value) {
        auto v = Eval(*s.value, scope);
        if (!v) return false;
        *ret = *v;
      } else {
        *ret = Value::None();
      }
      *flow = Flow::kReturn;
      return true;
    }
    case StmtKind::kPass:
      return true;
    case StmtKind::kBreak:
      *flow = Flow::kBreak;
      return true;
    case StmtKind::kContinue:
      *flow = Flow::kContinue;
      return true;
    case StmtKind::kAssert: {
      auto test = Eval(*s.value, scope);
      if (!test) return false;
      if (test->IsRuntime()) {
        diag_->Error(s.value->loc) << "assert on a runtime value is not supported";
        return false;
      }
      if (!Truthy(*test)) {
        diag_->Error(s.loc) << "assertion failed";
        return false;
      }
      return true;
    }
    case StmtKind::kImport: {
      std::vector<std::pair<std::string, std::string>> binds;
      if (!ImportBindings(s, &binds)) {
        diag_->Error(s.loc) << "unsupported import form";
        return false;
      }
      for (const auto& [local, path] : binds) {
        size_t dot = path.rfind('.');
        const BuiltinRow* row =
            dot == std::string::npos
                ? nullptr
                : ResolveModuleMember(path.substr(0, dot), path.substr(dot + 1));
        scope->Set(local, row ? Value::Builtin(std::string(row->name)) : Value::Module(path));
      }
      return true;
    }
    case StmtKind::kUnsupported:
      ReportUnsupported(s, diag_);
      return false;
    case StmtKind::kWith:
      diag_->Error(s.loc) << "'with' is only allowed inside a @T.prim_func body";
      return false;
    case StmtKind::kGlobal:
      diag_->Error(s.loc) << "'global' and 'nonlocal' are not supported";
      return false;
  }
  diag_->Error(s.loc) << "unsupported statement";
  return false;
}

JitDecorator Evaluator::EvalJitDecorator(const Stmt& def) {
  JitDecorator out;
  int saved = current_top_level_;
  for (size_t n = 0; n < env_->module_->body.size(); ++n) {
    if (env_->module_->body[n].get() == &def) current_top_level_ = static_cast<int>(n);
  }
  auto scope = std::make_shared<Scope>();
  for (const ExprPtr& d : def.decorators) {
    bool is_call = d->kind == ExprKind::kCall;
    auto callee = Eval(is_call ? *d->left : *d, scope);
    if (!callee) break;
    if (callee->kind != ValueKind::kBuiltin || callee->text != "tilelang.jit") continue;
    out.present = true;
    if (!is_call) continue;
    if (!d->elts.empty()) {
      diag_->Error(d->elts[0]->loc) << "tilelang.jit takes keyword arguments only";
      break;
    }
    for (const Keyword& kw : d->keywords) {
      auto v = Eval(*kw.value, scope);
      if (!v) break;
      if (kw.arg == "out_idx") {
        out.out_idx = *v;
        out.out_idx_loc = kw.loc;
      } else if (kw.arg == "workspace_idx") {
        out.workspace_idx = *v;
        out.workspace_idx_loc = kw.loc;
      } else if (kw.arg == "pass_configs") {
        out.pass_configs = *v;
        out.pass_configs_loc = kw.loc;
      } else if (kw.arg == "target") {
        out.target = *v;
        out.target_loc = kw.loc;
      } else if (kw.arg == "target_host" || kw.arg == "platform" || kw.arg == "execution_backend" ||
                 kw.arg == "verbose" || kw.arg == "debug_root_path") {
        diag_->Warning(kw.loc) << "tilelang.jit argument '" << kw.arg << "' has no effect here";
      } else {
        diag_->Error(kw.loc) << "tilelang.jit() got an unexpected keyword argument '" << kw.arg
                             << "' (known: out_idx, workspace_idx, pass_configs, target)";
      }
    }
  }
  current_top_level_ = saved;
  return out;
}

}  // namespace tilejit::frontend
