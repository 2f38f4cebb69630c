// SPDX-License-Identifier: Apache-2.0
// Statement walking. A block is traced as a work list of AST statements so that two things
// that "take the rest of the block" stay simple: a let binding (the rest becomes the let's
// body) and a folded static `if` (its taken branch is spliced in front of the rest, since a
// Python `if` opens no scope).
#include "compiler/frontend/tracer.h"

#include <algorithm>

#include "compiler/frontend/builtin_registry.h"
#include "compiler/frontend/parser.h"
#include "compiler/ir/visitor.h"

namespace tilejit::frontend {

size_t Tracer::NumParams(const FunctionValue& prim_func) { return prim_func.def->params.size(); }

ir::Expr Tracer::BoundValue(const ir::VarNode& var) const {
  auto it = bound_values_.find(&var);
  return it == bound_values_.end() ? nullptr : it->second;
}

std::optional<ir::Kernel> Tracer::TracePrimFunc(const FunctionValue& fn,
                                                const std::vector<ir::BufferRole>& roles) {
  const Stmt& def = *fn.def;
  auto scope = std::make_shared<Scope>(fn.closure.lock());
  ir::Kernel kernel;
  kernel.name = def.name;
  kernel.loc = def.loc;
  for (size_t n = 0; n < def.params.size(); ++n) {
    const Param& p = def.params[n];
    if (p.kind != Param::Kind::kPositional) {
      diag().Error(p.loc) << "prim_func parameters must be plain positional parameters";
      return std::nullopt;
    }
    auto b = TraceParam(p, n < roles.size() ? roles[n] : ir::BufferRole::kInput, scope);
    if (!b) return std::nullopt;
    kernel.params.push_back(*b);
    scope->Set(p.name, Value::OfBuffer(*b));
  }
  if (!CollectSymbols(&kernel)) return std::nullopt;
  auto body = TraceBlock(def.body, scope);
  if (!body) return std::nullopt;
  if (!CheckSymbolUses(kernel, *body)) return std::nullopt;
  if (kernels_ == 0) {
    diag().Error(DefKeywordLoc(def))
        << "prim_func '" << def.name << "' has no 'with T.Kernel(...)' launch";
    return std::nullopt;
  }
  // Names were bound in buffers that annotate_address may have changed: nothing to redo,
  // since the mutable nodes are the ones the IR holds.
  const auto* seq = ir::TryAs<ir::SeqNode>(*body);
  kernel.body = seq != nullptr && seq->stmts.size() == 1 ? seq->stmts[0] : PrintsIntoLaunch(*body);
  mutable_buffers_.clear();
  return kernel;
}

// The symbol a shape entry names, or null: exactly a T.symbolic value, not arithmetic on one
// (a tensor's extent is what the launch binds the symbol from).
ir::Var Tracer::SymbolOf(const Value& v) {
  if (v.kind != ValueKind::kExpr) return nullptr;
  const auto* ref = ir::TryAs<ir::VarRefNode>(v.expr);
  if (ref == nullptr || !env().IsSymbol(*ref->var)) return nullptr;
  return ref->var;
}

// The kernel's symbols in order of first appearance in the params (their ABI order); each
// must be some input's extent, since the launch binds it from what the caller passes.
bool Tracer::CollectSymbols(ir::Kernel* kernel) {
  for (const ir::Buffer& p : kernel->params) {
    for (const ir::Var& v : p->dim_symbols) {
      if (v != nullptr &&
          std::find(kernel->symbols.begin(), kernel->symbols.end(), v) == kernel->symbols.end()) {
        kernel->symbols.push_back(v);
      }
    }
  }
  for (const ir::Var& v : kernel->symbols) {
    const bool bound = std::any_of(kernel->params.begin(), kernel->params.end(), [&](auto& p) {
      return p->role == ir::BufferRole::kInput &&
             std::find(p->dim_symbols.begin(), p->dim_symbols.end(), v) != p->dim_symbols.end();
    });
    if (!bound) {
      diag().Error(v->loc.known() ? v->loc : kernel->loc)
          << "T.symbolic('" << v->name << "') is the extent of no input tensor, so a launch "
          << "cannot bind it (outputs are allocated from the inputs' shapes)";
      return false;
    }
  }
  return true;
}

// A symbol the body reads must be one of the params' dims: otherwise nothing gives it a value.
bool Tracer::CheckSymbolUses(const ir::Kernel& kernel, const ir::Stmt& body) {
  struct Finder : ir::Visitor {
    const ir::Kernel* k;
    ModuleEnv* env;
    const ir::VarNode* stray = nullptr;
    SourceLoc at;
    void VisitVarRef(const ir::VarRefNode& op) override {
      if (stray != nullptr || !env->IsSymbol(*op.var)) return;
      if (std::find(k->symbols.begin(), k->symbols.end(), op.var) != k->symbols.end()) return;
      stray = op.var.get();
      at = op.loc;
    }
  } finder;
  finder.k = &kernel;
  finder.env = &env();
  finder.Visit(body);
  if (finder.stray == nullptr) return true;
  diag().Error(finder.at.known() ? finder.at : finder.stray->loc)
      << "T.symbolic('" << finder.stray->name << "') is used in the kernel but is no dimension "
      << "of its tensors, so it has no value at launch";
  return false;
}

std::optional<ir::Buffer> Tracer::TraceParam(const Param& p, ir::BufferRole role,
                                             const ScopePtr& scope) {
  const Expr* ann = p.annotation.get();
  // T.Tensor(shape, dtype), or the subscript spelling T.Tensor[shape, dtype].
  if (ann == nullptr || (ann->kind != ExprKind::kCall && ann->kind != ExprKind::kSubscript)) {
    diag().Error(p.loc) << "prim_func parameter '" << p.name
                        << "' needs an annotation T.Tensor(shape, dtype)";
    return std::nullopt;
  }
  auto callee = Eval(*ann->left, scope);
  if (!callee) return std::nullopt;
  const BuiltinRow* row = callee->kind == ValueKind::kBuiltin ? FindBuiltin(callee->text) : nullptr;
  if (!row || row->handler != BuiltinHandler::kAnnotation) {
    diag().Error(ann->loc) << "prim_func parameter '" << p.name
                           << "' must be annotated T.Tensor(shape, dtype)";
    return std::nullopt;
  }
  std::vector<Value> args;
  KwArgs kwargs;
  if (ann->kind == ExprKind::kCall) {
    if (!EvalArgs(*ann, scope, &args, &kwargs)) return std::nullopt;
  } else {
    const Expr& index = *ann->right;
    std::vector<const Expr*> items{&index};
    if (index.kind == ExprKind::kTuple) {
      items.clear();
      for (const ExprPtr& e : index.elts) items.push_back(e.get());
    }
    for (const Expr* e : items) {
      auto v = Eval(*e, scope);
      if (!v) return std::nullopt;
      args.push_back(*v);
    }
  }
  auto bound = Bind(SignatureOf(*row), args, kwargs, ann->loc);
  if (!bound) return std::nullopt;
  ir::BufferNode node;
  node.name = p.name;
  node.scope = ir::MemScope::kGM;
  node.role = role;
  node.loc = p.loc;
  std::vector<Value> dims;
  const Value& shape = *(*bound)[0];
  if (shape.is_sequence()) {
    dims = *shape.items;
  } else {
    dims.push_back(shape);
  }
  if (dims.empty()) {
    diag().Error(shape.loc) << "tensor '" << p.name << "' has an empty shape";
    return std::nullopt;
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    if (ir::Var sym = SymbolOf(dims[d])) {
      node.dim_symbols.resize(d);
      node.dim_symbols.push_back(std::move(sym));
      node.shape.push_back(ir::kSymbolicDim);
      continue;
    }
    if (dims[d].IsRuntime()) {
      diag().Error(shape.loc) << "dimension " << d << " of '" << p.name
                              << "' is arithmetic on T.symbolic dims or another runtime value; "
                                 "shapes must be positive ints or T.symbolic dims themselves "
                                 "(a dim computed from symbols is not supported yet)";
      return std::nullopt;
    }
    if (dims[d].kind != ValueKind::kInt || dims[d].i <= 0) {
      diag().Error(shape.loc) << "non-constant or non-positive shape: dimension " << d << " of '"
                              << p.name << "' is " << Repr(dims[d]) << " (" << TypeName(dims[d])
                              << "); shapes must be positive ints or T.symbolic dims";
      return std::nullopt;
    }
    node.shape.push_back(dims[d].i);
  }
  if (!node.dim_symbols.empty()) node.dim_symbols.resize(node.shape.size());
  Value dt = (*bound)[1] ? *(*bound)[1] : Value::Str("float32");
  auto dtype = DTypeOfValue(dt, ann->loc, &diag());
  if (!dtype) return std::nullopt;
  node.dtype = *dtype;
  return ir::MakeBuffer(std::move(node));
}

std::optional<ir::Stmt> Tracer::TraceBlock(const StmtList& body, const ScopePtr& scope) {
  Work work;
  for (const StmtPtr& s : body) work.push_back(s.get());
  return TraceWork(work, 0, scope);
}

std::optional<ir::Stmt> Tracer::TraceWork(const Work& work, size_t start, const ScopePtr& scope) {
  std::vector<ir::Stmt> out;
  SourceLoc loc = start < work.size() ? work[start]->loc : SourceLoc{};
  for (size_t i = start; i < work.size(); ++i) {
    bool rest_done = false;
    if (!TraceStmt(work, i, scope, &out, &rest_done)) return std::nullopt;
    if (rest_done) break;
  }
  return ir::Seq(std::move(out), loc);
}

bool Tracer::TraceStmt(const Work& work, size_t i, const ScopePtr& scope,
                       std::vector<ir::Stmt>* out, bool* rest_done) {
  const Stmt& s = *work[i];
  if (!budget().Step(s.loc, &diag())) return false;
  switch (s.kind) {
    case StmtKind::kExpr:
      return TraceExprStmt(s, *s.value, scope, out);
    case StmtKind::kAssign:
    case StmtKind::kAnnAssign:
      return TraceAssign(work, i, scope, out, rest_done);
    case StmtKind::kAugAssign:
      return TraceAugAssign(s, scope, out, rest_done, work, i);
    case StmtKind::kIf: {
      auto test = Eval(*s.value, scope);
      if (!test) return false;
      if (!test->IsRuntime()) {
        // Static if: splice the taken branch in front of the rest of the block.
        Work spliced;
        for (const StmtPtr& b : Truthy(*test) ? s.body : s.orelse) spliced.push_back(b.get());
        for (size_t j = i + 1; j < work.size(); ++j) spliced.push_back(work[j]);
        NestGuard guard(&lets_);
        if (lets_ > kMaxLets) {
          diag().Error(s.loc) << "too many nested bindings in one block (limit " << kMaxLets << ")";
          return false;
        }
        auto rest = TraceWork(spliced, 0, scope);
        if (!rest) return false;
        out->push_back(*rest);
        *rest_done = true;
        return true;
      }
      auto traced = TraceIf(*test, s.value->loc, s.body, s.orelse.empty() ? nullptr : &s.orelse,
                            s.loc, scope);
      if (!traced) return false;
      out->push_back(*traced);
      return true;
    }
    case StmtKind::kFor: {
      auto f = TraceFor(s, scope);
      if (!f) return false;
      out->push_back(*f);
      return true;
    }
    case StmtKind::kWith: {
      auto w = TraceWith(s, scope);
      if (!w) return false;
      out->push_back(*w);
      return true;
    }
    case StmtKind::kFunctionDef: {
      auto fn = MakeFunction(s, scope);
      if (!fn) return false;
      scope->Set(s.name, *fn);
      return true;
    }
    case StmtKind::kReturn:
      if (!frame_.in_inline) {
        diag().Error(s.loc) << "'return' is not allowed in a prim_func body";
        return false;
      }
      *rest_done = true;
      return s.value == nullptr || TraceExprStmt(s, *s.value, scope, out);
    case StmtKind::kPass:
      return true;
    case StmtKind::kWhile:
      diag().Error(s.loc) << "'while' loops are not supported in kernels; use T.serial";
      return false;
    case StmtKind::kBreak:
    case StmtKind::kContinue:
      diag().Error(s.loc) << "'break' and 'continue' are not supported in kernels";
      return false;
    case StmtKind::kUnsupported:
      ReportUnsupported(s, &diag());
      return false;
    default: {
      // Imports, asserts and the like behave as in host code.
      Value ret;
      Flow flow = Flow::kNormal;
      return ExecStmt(s, scope, &ret, &flow);
    }
  }
}

}  // namespace tilejit::frontend
