// SPDX-License-Identifier: Apache-2.0
// Host statements (factory and helper bodies), function values and calls, and the lazy
// module-level environment.
#include <algorithm>

#include "compiler/frontend/builtin_registry.h"
#include "compiler/frontend/host_eval.h"
#include "compiler/frontend/parser.h"

namespace tilejit::frontend {
namespace {

// Collects the names an assignment target binds.
void TargetNames(const Expr& t, std::vector<std::string>* out) {
  if (t.kind == ExprKind::kName) {
    out->push_back(t.name);
  } else if (t.kind == ExprKind::kTuple || t.kind == ExprKind::kList) {
    for (const ExprPtr& e : t.elts) TargetNames(*e, out);
  } else if (t.kind == ExprKind::kStarred && t.left) {
    TargetNames(*t.left, out);
  }
}

bool BindsName(const Stmt& s, const std::string& name) {
  std::vector<std::string> names;
  switch (s.kind) {
    case StmtKind::kAssign:
      for (const ExprPtr& t : s.targets) TargetNames(*t, &names);
      break;
    case StmtKind::kAugAssign:
    case StmtKind::kAnnAssign:
      if (!s.targets.empty()) TargetNames(*s.targets[0], &names);
      break;
    case StmtKind::kFunctionDef:
      names.push_back(s.name);
      break;
    case StmtKind::kImport:
    case StmtKind::kUnsupported:
      names = s.bound_names;
      break;
    default:
      break;
  }
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

const ir::Var& ModuleEnv::Symbol(const std::string& name, SourceLoc loc) {
  ir::Var& v = symbols_[name];
  if (v == nullptr) v = ir::MakeVar(name, ir::DType::kInt32, loc);
  return v;
}

int ModuleEnv::FindDef(const std::string& name) const {
  int found = -1;
  for (size_t n = 0; n < module_->body.size(); ++n) {
    const Stmt& s = *module_->body[n];
    if (BindsName(s, name)) {
      found = s.kind == StmtKind::kFunctionDef ? static_cast<int>(n) : -1;
      if (s.kind == StmtKind::kUnsupported) found = static_cast<int>(n);
    }
  }
  return found;
}

const Stmt* ModuleEnv::FindBinding(const std::string& name, int before) const {
  const Stmt* found = nullptr;
  size_t end = before < 0 ? module_->body.size()
                          : std::min(module_->body.size(), static_cast<size_t>(before));
  for (size_t n = 0; n < end; ++n) {
    if (BindsName(*module_->body[n], name)) found = module_->body[n].get();
  }
  return found;
}

std::optional<Value> Evaluator::ModuleLookup(const std::string& name, int before, SourceLoc loc) {
  if (auto it = env_->globals_.find(name); it != env_->globals_.end()) return it->second;
  if (const Stmt* s = env_->FindBinding(name, before)) {
    int index = 0;
    while (env_->module_->body[index].get() != s) ++index;
    if (!EvalTopLevel(index)) return std::nullopt;
    auto& bound = env_->done_[index];
    if (auto it = bound.find(name); it != bound.end()) return it->second;
  }
  if (auto b = PythonBuiltin(name)) return Value::Builtin(*b);
  diag_->Error(loc) << "name '" << name << "' is not defined" << env_->unbound_hint_;
  return std::nullopt;
}

bool Evaluator::EvalTopLevel(int index) {
  if (env_->done_.count(index)) return true;
  const Stmt& s = *env_->module_->body[index];
  if (env_->in_progress_[index]) {
    diag_->Error(s.loc) << "circular reference while evaluating this module-level statement";
    return false;
  }
  if (top_level_depth_ >= kMaxTopLevelDepth) {
    diag_->Error(s.loc) << "module-level definitions depend on each other too deeply (limit "
                        << kMaxTopLevelDepth << ")";
    return false;
  }
  ++top_level_depth_;
  env_->in_progress_[index] = true;
  int saved = current_top_level_;
  current_top_level_ = index;
  auto scope = std::make_shared<Scope>();
  bool ok = true;
  if (s.kind == StmtKind::kUnsupported) {
    ReportUnsupported(s, diag_);
    ok = false;
  } else if (s.kind == StmtKind::kImport) {
    std::vector<std::pair<std::string, std::string>> binds;
    if (!ImportBindings(s, &binds)) {
      diag_->Error(s.loc) << "unsupported import form";
      ok = false;
    }
    for (const auto& [local, path] : binds) {
      std::string parent =
          path.substr(0, path.rfind('.') == std::string::npos ? 0 : path.rfind('.'));
      std::string leaf =
          path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
      if (const BuiltinRow* row = parent.empty() ? nullptr : ResolveModuleMember(parent, leaf)) {
        scope->Set(local, Value::Builtin(std::string(row->name)));
      } else {
        scope->Set(local, Value::Module(path));
      }
    }
  } else {
    Value ret;
    Flow flow = Flow::kNormal;
    ok = ExecStmt(s, scope, &ret, &flow) && flow != Flow::kError;
  }
  current_top_level_ = saved;
  --top_level_depth_;
  env_->in_progress_[index] = false;
  if (!ok) return false;
  auto& bound = env_->done_[index];
  for (const std::string& name : s.bound_names) {
    if (const Value* v = scope->LookupLocal(name)) bound[name] = *v;
  }
  std::vector<std::string> names;
  if (s.kind == StmtKind::kAssign) {
    for (const ExprPtr& t : s.targets) TargetNames(*t, &names);
  } else if ((s.kind == StmtKind::kAugAssign || s.kind == StmtKind::kAnnAssign) &&
             !s.targets.empty()) {
    TargetNames(*s.targets[0], &names);
  } else if (s.kind == StmtKind::kFunctionDef) {
    names.push_back(s.name);
  } else if (s.kind == StmtKind::kImport) {
    std::vector<std::pair<std::string, std::string>> binds;
    ImportBindings(s, &binds);
    for (const auto& b : binds) names.push_back(b.first);
  }
  for (const std::string& name : names) {
    if (const Value* v = scope->LookupLocal(name)) bound[name] = *v;
  }
  return true;
}

bool ImportBindings(const Stmt& s, std::vector<std::pair<std::string, std::string>>* out) {
  for (const ImportAlias& alias : s.imports) {
    if (alias.name == "*") return false;
    if (!alias.name.empty()) {
      out->emplace_back(alias.bound, alias.module + "." + alias.name);
    } else {
      out->emplace_back(alias.bound, alias.aliased ? alias.module : alias.bound);
    }
  }
  return !out->empty();
}

SourceLoc Evaluator::DefKeywordLoc(const Stmt& def) const {
  return def.def_loc.known() ? def.def_loc : def.loc;
}

std::shared_ptr<FunctionValue> Evaluator::AdoptFunction(const Stmt& def, ScopePtr closure,
                                                        FunctionKind kind) {
  for (const Param& p : def.params) {
    if (p.kind == Param::Kind::kVarArgs || p.kind == Param::Kind::kVarKeywords) {
      diag_->Error(p.loc) << "variadic parameters (*args, **kwargs) are not supported";
      return nullptr;
    }
  }
  auto fn = std::make_shared<FunctionValue>();
  fn->def = &def;
  fn->closure = closure;
  fn->kind = kind;
  fn->defaults.resize(def.params.size());
  closures_.push_back(std::move(closure));
  return fn;
}

std::optional<Value> Evaluator::MakeFunction(const Stmt& def, const ScopePtr& scope) {
  auto fn = std::make_shared<FunctionValue>();
  fn->def = &def;
  fn->closure = scope;
  closures_.push_back(scope);
  for (const ExprPtr& d : def.decorators) {
    const Expr& callee = d->kind == ExprKind::kCall ? *d->left : *d;
    if (callee.kind == ExprKind::kName && scope->Lookup(callee.name) == nullptr &&
        env_->FindBinding(callee.name, -1) == nullptr && !env_->globals_.count(callee.name)) {
      diag_->Error(d->loc) << "unsupported decorator '@" << callee.name
                           << "' (only @tilelang.jit, @T.prim_func and @T.macro are supported)";
      return std::nullopt;
    }
    auto v = Eval(callee, scope);
    if (!v) return std::nullopt;
    const BuiltinRow* row = v->kind == ValueKind::kBuiltin ? FindBuiltin(v->text) : nullptr;
    const BuiltinHandler h = row ? row->handler : BuiltinHandler::kNone;
    if (h == BuiltinHandler::kPrimFunc) {
      fn->kind = FunctionKind::kPrimFunc;
    } else if (h == BuiltinHandler::kMacro) {
      fn->kind = FunctionKind::kMacro;
    } else if (h == BuiltinHandler::kJit) {
      // Read by EvalJitDecorator for the entry; a nested jit factory is a plain function.
    } else {
      diag_->Error(d->loc) << "unsupported decorator (only @tilelang.jit, @T.prim_func and "
                              "@T.macro are supported)";
      return std::nullopt;
    }
  }
  for (const Param& p : def.params) {
    if (p.kind == Param::Kind::kVarArgs || p.kind == Param::Kind::kVarKeywords) {
      diag_->Error(p.loc) << "variadic parameters (*args, **kwargs) are not supported";
      return std::nullopt;
    }
    if (p.default_value && fn->kind != FunctionKind::kPrimFunc) {
      auto v = Eval(*p.default_value, scope);
      if (!v) return std::nullopt;
      fn->defaults.emplace_back(std::move(*v));
    } else {
      fn->defaults.emplace_back(std::nullopt);
    }
  }
  return Value::Function(fn);
}

bool Evaluator::BindParams(const FunctionValue& fn, std::vector<Value> args, const KwArgs& kwargs,
                           SourceLoc call_loc, const ScopePtr& scope) {
  const Stmt& def = *fn.def;
  size_t positional = 0;
  for (const Param& p : def.params) positional += p.kind == Param::Kind::kPositional;
  if (args.size() > positional) {
    diag_->Error(call_loc) << def.name << "() takes " << positional << " positional argument"
                           << (positional == 1 ? "" : "s") << " but " << args.size()
                           << (args.size() == 1 ? " was" : " were") << " given";
    return false;
  }
  std::vector<bool> set(def.params.size(), false);
  for (size_t n = 0; n < args.size(); ++n) {
    scope->Set(def.params[n].name, std::move(args[n]));
    set[n] = true;
  }
  for (const auto& [key, value] : kwargs) {
    size_t slot = def.params.size();
    for (size_t n = 0; n < def.params.size(); ++n) {
      if (def.params[n].name == key) slot = n;
    }
    if (slot == def.params.size()) {
      diag_->Error(call_loc) << def.name << "() got an unexpected keyword argument '" << key << "'";
      return false;
    }
    if (set[slot]) {
      diag_->Error(call_loc) << def.name << "() got multiple values for argument '" << key << "'";
      return false;
    }
    scope->Set(key, value);
    set[slot] = true;
  }
  for (size_t n = 0; n < def.params.size(); ++n) {
    if (set[n]) continue;
    if (n < fn.defaults.size() && fn.defaults[n]) {
      scope->Set(def.params[n].name, *fn.defaults[n]);
      continue;
    }
    diag_->Error(call_loc) << def.name << "() missing required argument '" << def.params[n].name
                           << "'";
    return false;
  }
  return true;
}

std::optional<Value> Evaluator::CallFunction(const FunctionValue& fn, std::vector<Value> args,
                                             const KwArgs& kwargs, SourceLoc call_loc) {
  if (!budget().EnterCall(call_depth_, call_loc, diag_) || !budget().Step(call_loc, diag_)) {
    return std::nullopt;
  }
  ++call_depth_;
  auto scope = std::make_shared<Scope>(fn.closure.lock());
  std::optional<Value> result;
  if (BindParams(fn, std::move(args), kwargs, call_loc, scope)) {
    Value ret;
    Flow flow = ExecBlock(fn.def->body, scope, &ret);
    if (flow == Flow::kBreak || flow == Flow::kContinue) {
      diag_->Error(fn.def->loc) << "'break' or 'continue' outside a loop";
    } else if (flow != Flow::kError) {
      result = flow == Flow::kReturn ? ret : Value::None();
    }
  }
  --call_depth_;
  return result;
}

Flow Evaluator::ExecBlock(const StmtList& body, const ScopePtr& scope, Value* ret) {
  for (const StmtPtr& s : body) {
    Flow flow = Flow::kNormal;
    if (!budget().Step(s->loc, diag_) || !ExecStmt(*s, scope, ret, &flow)) return Flow::kError;
    if (flow != Flow::kNormal) return flow;
  }
  return Flow::kNormal;
}

std::optional<std::vector<Value>> UnpackValues(const Expr& target, const Value& v,
                                               DiagnosticEngine* diag) {
  if (!v.is_sequence()) {
    diag->Error(target.loc) << "cannot unpack a non-sequence " << TypeName(v);
    return std::nullopt;
  }
  const size_t n = target.elts.size(), size = v.size();
  size_t star = n;
  for (size_t i = 0; i < n; ++i) {
    if (target.elts[i]->kind == ExprKind::kStarred) star = i;
  }
  const bool starred = star < n;
  const size_t fixed = starred ? n - 1 : n;
  if (starred ? size < fixed : size != fixed) {
    diag->Error(target.loc) << (size > fixed ? "too many" : "not enough")
                            << " values to unpack (expected " << (starred ? "at least " : "")
                            << fixed << ", got " << size << ")";
    return std::nullopt;
  }
  if (!starred) return *v.items;
  std::vector<Value> out(v.items->begin(), v.items->begin() + star);
  const size_t rest = size - fixed;  // the starred target's share, as a list
  out.push_back(Value::List({v.items->begin() + star, v.items->begin() + star + rest}));
  out.insert(out.end(), v.items->begin() + star + rest, v.items->end());
  return out;
}

const Expr& UnstarredTarget(const ExprPtr& elt) {
  return elt->kind == ExprKind::kStarred ? *elt->left : *elt;
}

bool Evaluator::Assign(const Expr& target, const Value& v, const ScopePtr& scope) {
  if (target.kind == ExprKind::kName) {
    scope->Set(target.name, v);
    return true;
  }
  if (target.kind == ExprKind::kTuple || target.kind == ExprKind::kList) {
    auto values = UnpackValues(target, v, diag_);
    if (!values) return false;
    for (size_t n = 0; n < values->size(); ++n) {
      if (!Assign(UnstarredTarget(target.elts[n]), (*values)[n], scope)) return false;
    }
    return true;
  }
  diag_->Error(target.loc) << "this assignment target is not supported in host code";
  return false;
}

}  // namespace tilejit::frontend
