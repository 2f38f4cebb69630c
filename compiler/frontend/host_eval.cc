// SPDX-License-Identifier: Apache-2.0
// Expression evaluation. Names resolve through the scope chain, then the module (lazily),
// then Python builtins; attribute access on module aliases resolves through the builtin
// tables, so `T.copy`, `tl.language.copy` and `from tilelang import language as T` agree.
#include "compiler/frontend/host_eval.h"

#include <cmath>

#include "compiler/frontend/builtin_registry.h"
#include "compiler/frontend/subscript.h"

namespace tilejit::frontend {

const Value* Scope::Lookup(const std::string& name) const {
  for (const Scope* s = this; s != nullptr; s = s->parent_.get()) {
    if (const Value* v = s->LookupLocal(name)) return v;
  }
  return nullptr;
}

const Value* Scope::LookupLocal(const std::string& name) const {
  auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : &it->second;
}

Evaluator::Evaluator(ModuleEnv* env, DiagnosticEngine* diag) : env_(env), diag_(diag) {}

namespace {

constexpr int kMaxExprDepth = 200;

std::string DisplayModule(const std::string& path) {
  if (path == "tilelang.language") return "T";
  if (path == "tilelang.language.tile") return "T.tile";
  return path;
}

}  // namespace

std::optional<Value> Evaluator::Eval(const Expr& e, const ScopePtr& scope) {
  NestGuard guard(&depth_);
  if (depth_ > kMaxExprDepth) {
    diag_->Error(e.loc) << "expression nested too deeply (limit " << kMaxExprDepth << ")";
    return std::nullopt;
  }
  switch (e.kind) {
    case ExprKind::kName:
      return EvalName(e, scope);
    case ExprKind::kConstant:
      return EvalConstant(e);
    case ExprKind::kBinOp: {
      auto a = Eval(*e.left, scope);
      if (!a) return std::nullopt;
      auto b = Eval(*e.right, scope);
      if (!b) return std::nullopt;
      return BinOp(e.bin_op, *a, *b, e.loc);
    }
    case ExprKind::kUnaryOp: {
      auto a = Eval(*e.left, scope);
      if (!a) return std::nullopt;
      return UnaryOp(e.unary_op, *a, e.loc);
    }
    case ExprKind::kBoolOp:
      return EvalBoolOp(e, scope);
    case ExprKind::kCompare:
      return EvalCompare(e, scope);
    case ExprKind::kCall:
      return EvalCall(e, scope);
    case ExprKind::kAttribute:
      return EvalAttribute(e, scope);
    case ExprKind::kSubscript:
      return EvalSubscript(e, scope);
    case ExprKind::kTuple:
    case ExprKind::kList:
    case ExprKind::kDict:
      return EvalContainer(e, scope);
    case ExprKind::kIfExp: {
      auto test = Eval(*e.left, scope);
      if (!test) return std::nullopt;
      if (!test->IsRuntime()) return Eval(Truthy(*test) ? *e.right : *e.third, scope);
      auto t = Eval(*e.right, scope);
      auto f = t ? Eval(*e.third, scope) : std::nullopt;
      if (!f) return std::nullopt;
      auto c = ToExpr(*test, e.left->loc);
      auto te = c ? ToExpr(*t, e.right->loc) : std::nullopt;
      auto fe = te ? ToExpr(*f, e.third->loc) : std::nullopt;
      if (!fe) return std::nullopt;
      return Value::OfExpr(ir::Select(*c, *te, *fe, e.loc));
    }
    case ExprKind::kSlice:
      diag_->Error(e.loc) << "a slice is only allowed inside a buffer subscript";
      return std::nullopt;
    case ExprKind::kStarred:
      diag_->Error(e.loc) << "can't use starred expression here";
      return std::nullopt;
    case ExprKind::kJoinedStr:
      return EvalJoinedStr(e, scope);
    case ExprKind::kFormattedValue:  // only inside a kJoinedStr
      diag_->Error(e.loc) << "an f-string field outside an f-string";
      return std::nullopt;
    case ExprKind::kLambda:
      return MakeFunction(*e.lambda, scope);
    case ExprKind::kListComp:
    case ExprKind::kDictComp:
    case ExprKind::kGeneratorExp:
      return EvalComprehension(e, scope);
  }
  diag_->Error(e.loc) << "unsupported expression";
  return std::nullopt;
}

std::optional<Value> Evaluator::EvalName(const Expr& e, const ScopePtr& scope) {
  return LookupName(e.name, e.loc, scope);
}

std::optional<Value> Evaluator::LookupName(const std::string& name, SourceLoc loc,
                                           const ScopePtr& scope) {
  if (scope) {
    if (const Value* v = scope->Lookup(name)) return *v;
  }
  return ModuleLookup(name, current_top_level_, loc);
}

std::optional<Value> Evaluator::EvalConstant(const Expr& e) {
  switch (e.constant_kind) {
    case ConstantKind::kNone:
      return Value::None();
    case ConstantKind::kBool:
      return Value::Bool(e.bool_value);
    case ConstantKind::kInt:
      return Value::Int(e.int_value);
    case ConstantKind::kFloat:
      return Value::Float(e.float_value);
    case ConstantKind::kString:
      return Value::Str(e.string_value);
  }
  return Value::None();
}

std::optional<Value> Evaluator::EvalBoolOp(const Expr& e, const ScopePtr& scope) {
  // Python: `a and b` returns a if a is falsy, else b (and `or` the reverse). Once an operand
  // is a runtime value, the rest combine into an IR And/Or.
  std::optional<ir::Expr> runtime;
  std::optional<Value> result;
  bool is_and = e.bool_op == BoolOpKind::kAnd;
  for (const ExprPtr& operand : e.elts) {
    auto v = Eval(*operand, scope);
    if (!v) return std::nullopt;
    if (!runtime && !v->IsRuntime()) {
      result = *v;
      if (Truthy(*v) != is_and) return result;  // short-circuit on a host constant
      continue;
    }
    auto x = ToExpr(*v, operand->loc);
    if (!x) return std::nullopt;
    runtime = runtime
                  ? ir::Binary(is_and ? ir::BinaryOp::kAnd : ir::BinaryOp::kOr, *runtime, *x, e.loc)
                  : *x;
  }
  if (runtime) return Value::OfExpr(*runtime);
  return result ? *result : Value::None();
}

std::optional<Value> Evaluator::EvalCompare(const Expr& e, const ScopePtr& scope) {
  auto left = Eval(*e.left, scope);
  if (!left) return std::nullopt;
  std::optional<Value> acc;
  for (size_t n = 0; n < e.elts.size() && n < e.cmp_ops.size(); ++n) {
    auto right = Eval(*e.elts[n], scope);
    if (!right) return std::nullopt;
    auto r = CompareOp(e.cmp_ops[n], *left, *right, e.loc);
    if (!r) return std::nullopt;
    if (!acc) {
      acc = *r;
    } else {
      if (acc->IsRuntime() || r->IsRuntime()) {
        auto a = ToExpr(*acc, e.loc);
        auto b = a ? ToExpr(*r, e.loc) : std::nullopt;
        if (!b) return std::nullopt;
        acc = Value::OfExpr(ir::Binary(ir::BinaryOp::kAnd, *a, *b, e.loc));
      } else {
        acc = Value::Bool(Truthy(*acc) && Truthy(*r));
      }
    }
    if (!acc->IsRuntime() && !Truthy(*acc)) return Value::Bool(false);
    left = right;
  }
  return acc ? *acc : Value::Bool(true);
}

bool Evaluator::EvalArgs(const Expr& call, const ScopePtr& scope, std::vector<Value>* args,
                         KwArgs* kwargs) {
  for (const ExprPtr& a : call.elts) {
    if (a->kind == ExprKind::kStarred) {
      auto v = Eval(*a->left, scope);
      if (!v) return false;
      if (!v->is_sequence()) {
        diag_->Error(a->loc) << "argument after * must be a list or tuple, not " << TypeName(*v);
        return false;
      }
      for (const Value& item : *v->items) {
        args->push_back(item);
        args->back().loc = a->loc;
      }
      continue;
    }
    auto v = Eval(*a, scope);
    if (!v) return false;
    v->loc = a->loc;
    args->push_back(std::move(*v));
  }
  for (const Keyword& kw : call.keywords) {
    if (kw.arg.empty()) {
      diag_->Error(kw.loc) << "**kwargs in a call is not supported";
      return false;
    }
    auto v = Eval(*kw.value, scope);
    if (!v) return false;
    v->loc = kw.loc;
    kwargs->emplace_back(kw.arg, std::move(*v));
  }
  return true;
}

std::optional<BoundArgs> Evaluator::Bind(const Signature& sig, const std::vector<Value>& args,
                                         const KwArgs& kwargs, SourceLoc call_loc) {
  BoundArgs bound(sig.params.size());
  if (args.size() > sig.params.size()) {
    diag_->Error(args[sig.params.size()].loc.known() ? args[sig.params.size()].loc : call_loc)
        << sig.name << "() takes at most " << sig.params.size() << " arguments but " << args.size()
        << " were given";
    return std::nullopt;
  }
  for (size_t n = 0; n < args.size(); ++n) bound[n] = args[n];
  for (const auto& [key, value] : kwargs) {
    size_t slot = sig.params.size();
    for (size_t n = 0; n < sig.params.size(); ++n) {
      if (sig.params[n] == key) slot = n;
    }
    if (slot == sig.params.size()) {
      std::string known;
      for (std::string_view p : sig.params) known += (known.empty() ? "" : ", ") + std::string(p);
      diag_->Error(value.loc.known() ? value.loc : call_loc)
          << sig.name << "() got an unexpected keyword argument '" << key
          << "' (parameters: " << known << ")";
      return std::nullopt;
    }
    if (bound[slot]) {
      diag_->Error(value.loc.known() ? value.loc : call_loc)
          << sig.name << "() got multiple values for argument '" << key << "'";
      return std::nullopt;
    }
    bound[slot] = value;
  }
  for (size_t n = 0; n < sig.required; ++n) {
    if (!bound[n]) {
      diag_->Error(call_loc) << sig.name << "() missing required argument '" << sig.params[n]
                             << "'";
      return std::nullopt;
    }
  }
  for (size_t n = sig.required; n < sig.defaults.size(); ++n) {
    if (!bound[n]) {
      bound[n] = sig.defaults[n];
    } else if (!sig.defaults[n] && bound[n]->kind == ValueKind::kNone) {
      bound[n].reset();  // an explicit None where None is the default: not given
    }
  }
  return bound;
}

std::optional<Value> Evaluator::EvalCall(const Expr& e, const ScopePtr& scope) {
  auto callee = Eval(*e.left, scope);
  if (!callee) return std::nullopt;
  std::vector<Value> args;
  KwArgs kwargs;
  if (!EvalArgs(e, scope, &args, &kwargs)) return std::nullopt;
  switch (callee->kind) {
    case ValueKind::kBuiltin:
      return CallBuiltin(callee->text, e, std::move(args), kwargs);
    case ValueKind::kFunction:
      return CallUser(*callee->func, e, std::move(args), kwargs);
    case ValueKind::kModule:
      diag_->Error(e.loc) << "module '" << DisplayModule(callee->text) << "' is not callable";
      return std::nullopt;
    default:
      diag_->Error(e.loc) << "'" << TypeName(*callee) << "' object is not callable";
      return std::nullopt;
  }
}

std::optional<Value> Evaluator::CallUser(const FunctionValue& fn, const Expr& call,
                                         std::vector<Value> args, const KwArgs& kwargs) {
  if (fn.kind == FunctionKind::kMacro) {
    diag_->Error(call.loc) << "a @T.macro can only be called as a statement in a prim_func body";
    return std::nullopt;
  }
  if (fn.kind == FunctionKind::kPrimFunc) {
    diag_->Error(call.loc) << "a @T.prim_func cannot be called";
    return std::nullopt;
  }
  return CallFunction(fn, std::move(args), kwargs, call.loc);
}

std::optional<Value> Evaluator::CallBuiltin(const std::string& name, const Expr& call,
                                            std::vector<Value> args, const KwArgs& kwargs) {
  const BuiltinRow* row = FindBuiltin(name);
  if (row == nullptr) {
    diag_->Error(call.loc) << "unknown function '" << name << "'";
    return std::nullopt;
  }
  switch (row->cls) {
    case BuiltinClass::kHost:
      return EvalHostBuiltin(*row, call, args, kwargs);
    case BuiltinClass::kStatement:
      if (row->handler == BuiltinHandler::kSerialLoop && name == "range") {
        return RangeList(args, call.loc);  // a value: list(range(n)), len(range(n)), ...
      }
      diag_->Error(call.loc) << name << "(...) can only be used as a statement"
                             << " in a prim_func body";
      return std::nullopt;
    case BuiltinClass::kDecorator:
      diag_->Error(call.loc) << name << " can only be used as a decorator";
      return std::nullopt;
    case BuiltinClass::kUnsupported:
    case BuiltinClass::kOutOfScope:
      diag_->Error(call.loc) << NotSupportedText(*row);
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Value> Evaluator::EvalAttribute(const Expr& e, const ScopePtr& scope) {
  auto base = Eval(*e.left, scope);
  if (!base) return std::nullopt;
  return AttributeOf(*base, e.name, e.loc, e.left->loc);
}

std::optional<Value> Evaluator::AttributeOf(const Value& value, const std::string& attr,
                                            SourceLoc loc, SourceLoc base_loc) {
  const Value* base = &value;
  switch (base->kind) {
    case ValueKind::kModule: {
      if (auto sub = ResolveSubmodule(base->text, attr)) return Value::Module(*sub);
      if (const BuiltinRow* row = ResolveModuleMember(base->text, attr))
        return Value::Builtin(std::string(row->name));
      if (!IsKnownModule(base->text)) {
        diag_->Error(base_loc) << "module '" << base->text
                               << "' is not available to kernels (only tilelang is)";
      } else {
        diag_->Error(loc) << "unknown name '" << DisplayModule(base->text) << "." << attr << "'";
      }
      return std::nullopt;
    }
    case ValueKind::kBuiltin:
      if (base->text == "tilelang.PassConfigKey") {
        if (auto key = PassConfigKeyString(attr)) return Value::Str(*key);
        diag_->Error(loc) << "unknown pass config key 'tilelang.PassConfigKey." << attr << "'";
        return std::nullopt;
      }
      break;
    case ValueKind::kDataType:
      if (attr == "bits") {
        auto dt = ir::ParseDType(base->text);
        return Value::Int(dt ? ir::DTypeBits(*dt) : 0);
      }
      if (attr == "lanes") return Value::Int(1);
      break;
    case ValueKind::kInt:
      if (attr == "value") return *base;
      break;
    case ValueKind::kBuffer:
      if (attr == "shape") {
        std::vector<Value> dims;
        for (int64_t d : base->buffer->shape) dims.push_back(Value::Int(d));
        return Value::Tuple(std::move(dims));
      }
      if (attr == "dtype") return Value::Str(std::string(ir::DTypeName(base->buffer->dtype)));
      break;
    default:
      break;
  }
  diag_->Error(loc) << "'" << TypeName(*base) << "' has no supported attribute '" << attr << "'";
  return std::nullopt;
}

std::optional<Value> Evaluator::EvalContainer(const Expr& e, const ScopePtr& scope) {
  std::vector<Value> items;
  for (const ExprPtr& x : e.elts) {
    auto v = Eval(x->kind == ExprKind::kStarred ? *x->left : *x, scope);
    if (!v) return std::nullopt;
    if (x->kind != ExprKind::kStarred) {
      items.push_back(std::move(*v));
      continue;
    }
    if (!v->is_sequence()) {  // a dict unpacks its keys in Python; kept to lists and tuples
      diag_->Error(x->loc) << "can only unpack a list or tuple with *, not " << TypeName(*v);
      return std::nullopt;
    }
    if (!budget().Reserve(sizeof(Value) * (items.size() + v->size()), x->loc, diag_)) {
      return std::nullopt;
    }
    items.insert(items.end(), v->items->begin(), v->items->end());
  }
  if (e.kind == ExprKind::kTuple) return Value::Tuple(std::move(items));
  if (e.kind == ExprKind::kList) return Value::List(std::move(items));
  std::vector<Value> vals;
  for (const ExprPtr& x : e.values) {
    auto v = Eval(*x, scope);
    if (!v) return std::nullopt;
    vals.push_back(std::move(*v));
  }
  return MakeDict(items, vals, e.loc);
}

std::optional<Value> Evaluator::MakeDict(const std::vector<Value>& keys,
                                         const std::vector<Value>& vals, SourceLoc loc) {
  // Later duplicates win, as in Python. Each comparison is a step: n keys cost n^2 / 2.
  std::vector<Value> keys_out, vals_out;
  for (size_t n = 0; n < keys.size() && n < vals.size(); ++n) {
    bool replaced = false;
    for (size_t m = 0; m < keys_out.size(); ++m) {
      if (!budget().Tick()) {
        budget().Report(loc, diag_);
        return std::nullopt;
      }
      if (keys_out[m].IsConstant() && Equals(keys_out[m], keys[n])) {
        vals_out[m] = vals[n];
        replaced = true;
      }
    }
    if (!replaced) {
      keys_out.push_back(keys[n]);
      vals_out.push_back(vals[n]);
    }
  }
  return Value::Dict(std::move(keys_out), std::move(vals_out));
}

}  // namespace tilejit::frontend
