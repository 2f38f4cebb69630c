// SPDX-License-Identifier: Apache-2.0
// The host evaluator: runs the Python a kernel factory is made of (module-level constants,
// the factory body, nested helpers) on frontend Values, with Python semantics for ints,
// floats, bools, strings, lists, tuples and dicts. The tracer reuses it for every expression
// in a prim_func body, where names may also be bound to runtime values (IR variables, buffers):
// an operation on a runtime value builds an IR expression instead of computing a constant.
//
// Errors are diagnostics with the location of the offending expression; an evaluation that
// failed returns std::nullopt (the diagnostic has been emitted).
//
// Ownership: an Evaluator borrows the Module (AST), the SourceManager and the
// DiagnosticEngine, which must outlive it. Scopes are shared; the scopes that functions close
// over live as long as the Evaluator (function values must not be used after it is gone).
// Not thread-safe: one Evaluator per compile.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "common/source_loc.h"
#include "compiler/frontend/ast.h"
#include "compiler/frontend/builtin_registry.h"
#include "compiler/frontend/host_budget.h"
#include "compiler/frontend/value.h"

namespace tilejit::frontend {

// One level of Python name binding (a function body or a block of the tracer). Lookups walk
// the parent chain; the root's parent is null and module-level names are resolved by the
// ModuleEnv behind it.
class Scope {
 public:
  explicit Scope(std::shared_ptr<Scope> parent = nullptr) : parent_(std::move(parent)) {}

  void Set(const std::string& name, Value v) { vars_[name] = std::move(v); }
  const Value* Lookup(const std::string& name) const;
  const Value* LookupLocal(const std::string& name) const;
  const std::shared_ptr<Scope>& parent() const { return parent_; }

 private:
  std::shared_ptr<Scope> parent_;
  std::unordered_map<std::string, Value> vars_;
};
using ScopePtr = std::shared_ptr<Scope>;

// Keyword arguments of a call, in source order.
using KwArgs = std::vector<std::pair<std::string, Value>>;

// Bound arguments, one slot per parameter (nullopt: not given). Each value's loc is the
// location of its argument expression.
using BoundArgs = std::vector<std::optional<Value>>;

// The decorator of the entry factory after evaluation.
struct JitDecorator {
  bool present = false;
  std::optional<Value> out_idx, workspace_idx, pass_configs, target;
  SourceLoc out_idx_loc, workspace_idx_loc, pass_configs_loc, target_loc;
};

// Module-level names, evaluated lazily: only what the entry needs. A name's value is its last
// binding in the file before the statement that asks (the whole file for the entry);
// request globals override module-level assignments.
class ModuleEnv {
 public:
  ModuleEnv(const Module* module, const SourceManager* sources)
      : module_(module), sources_(sources) {}

  void SetGlobal(const std::string& name, Value v) { globals_[name] = std::move(v); }
  // Appended to "name 'x' is not defined" (a PRIM_FUNC request has no module level: every
  // name comes from the client).
  void set_unbound_hint(std::string hint) { unbound_hint_ = std::move(hint); }
  const Module& module() const { return *module_; }
  // The bounds of this run (borrowed; must outlive the env). Without one, the defaults.
  void set_budget(HostBudget* budget) { budget_ = budget; }
  HostBudget& budget() { return *budget_; }

  // The kernel symbol (T.symbolic) called `name`: one int32 var per name and compile, made at
  // the first request.
  const ir::Var& Symbol(const std::string& name, SourceLoc loc);
  bool IsSymbol(const ir::VarNode& v) const {
    auto it = symbols_.find(v.name);
    return it != symbols_.end() && it->second.get() == &v;
  }
  // The statement index of the top-level def `name`, or -1 if none.
  int FindDef(const std::string& name) const;
  // The top-level statement that binds `name` last before `before` (-1 = end of file).
  const Stmt* FindBinding(const std::string& name, int before) const;

 private:
  friend class Evaluator;
  const Module* module_;
  const SourceManager* sources_;
  std::map<std::string, Value> globals_;
  std::map<std::string, ir::Var> symbols_;
  std::string unbound_hint_;
  // Per top-level statement index: the values it bound, once evaluated.
  std::map<int, std::map<std::string, Value>> done_;
  std::map<int, bool> in_progress_;
  HostBudget default_budget_{HostLimits{}};
  HostBudget* budget_ = &default_budget_;
};

// Counts one level of a depth counter (expression nesting, calls, the tracer's statement
// nesting and lets) while it lives.
class NestGuard {
 public:
  explicit NestGuard(int* n) : n_(n) { ++*n_; }
  ~NestGuard() { --*n_; }
  NestGuard(const NestGuard&) = delete;
  NestGuard& operator=(const NestGuard&) = delete;

 private:
  int* n_;
};

// The values the elements of a tuple or list target take from `v`, by Python's unpacking:
// one per element, a starred element (at most one) taking a list of the rest; nullopt after
// a diagnostic at the target. UnstarredTarget is the target an element binds.
std::optional<std::vector<Value>> UnpackValues(const Expr& target, const Value& v,
                                               DiagnosticEngine* diag);
const Expr& UnstarredTarget(const ExprPtr& elt);

// What running a block of host statements ended with.
enum class Flow : uint8_t { kNormal, kReturn, kBreak, kContinue, kError };

class Evaluator {
 public:
  // Limits that keep hostile input from exhausting the stack (the clock, memory and the
  // recursion depth are the env's HostBudget).
  static constexpr int kMaxTopLevelDepth = 128;

  Evaluator(ModuleEnv* env, DiagnosticEngine* diag);
  virtual ~Evaluator() = default;

  // Evaluates one expression.
  std::optional<Value> Eval(const Expr& e, const ScopePtr& scope);
  // Evaluates call arguments (positional, keyword); false after a diagnostic.
  bool EvalArgs(const Expr& call, const ScopePtr& scope, std::vector<Value>* args, KwArgs* kwargs);
  // Resolves a name: scopes, then module level, then Python builtins.
  std::optional<Value> LookupName(const std::string& name, SourceLoc loc, const ScopePtr& scope);

  // Matches evaluated arguments to a builtin's parameters; a diagnostic at `call_loc` for
  // too many or missing arguments and at the keyword for unknown or repeated ones.
  std::optional<BoundArgs> Bind(const Signature& sig, const std::vector<Value>& args,
                                const KwArgs& kwargs, SourceLoc call_loc);

  // Calls a plain function (host execution of its body).
  std::optional<Value> CallFunction(const FunctionValue& fn, std::vector<Value> args,
                                    const KwArgs& kwargs, SourceLoc call_loc);
  // Binds call arguments to `fn`'s parameters in a new scope over its closure.
  bool BindParams(const FunctionValue& fn, std::vector<Value> args, const KwArgs& kwargs,
                  SourceLoc call_loc, const ScopePtr& scope);
  // Creates the function value of a def (evaluating its decorators and defaults).
  std::optional<Value> MakeFunction(const Stmt& def, const ScopePtr& scope);
  // The function value of a def a client described (client_values.h): no decorator or
  // default is evaluated; `closure` is kept alive like MakeFunction's, and the defaults (one
  // per parameter, all unset) are the caller's to fill before use. Null after a diagnostic.
  std::shared_ptr<FunctionValue> AdoptFunction(const Stmt& def, ScopePtr closure,
                                               FunctionKind kind);

  // Runs host statements (a factory or helper body).
  Flow ExecBlock(const StmtList& body, const ScopePtr& scope, Value* ret);

  // The location of the `def` keyword of a function definition (a def's own loc is that of
  // its first decorator); diagnostics about calling a function point there.
  SourceLoc DefKeywordLoc(const Stmt& def) const;

  // Evaluates the decorator of a top-level factory def.
  JitDecorator EvalJitDecorator(const Stmt& def);

  // Python operators on values (constants fold; runtime operands build IR).
  std::optional<Value> BinOp(BinOpKind op, const Value& a, const Value& b, SourceLoc loc);
  std::optional<Value> UnaryOp(UnaryOpKind op, const Value& a, SourceLoc loc);
  std::optional<Value> CompareOp(CmpOpKind op, const Value& a, const Value& b, SourceLoc loc);
  // A runtime scalar for `v` (constants become immediates, elements become loads).
  std::optional<ir::Expr> ToExpr(const Value& v, SourceLoc loc);
  // The value a kernel-body assignment bound `var` to, when it reads no buffer (so it means
  // the same wherever the var is used), for static reasoning such as a slice's extent;
  // nullptr when there is none. Host evaluation binds no runtime vars; the tracer does.
  virtual ir::Expr BoundValue(const ir::VarNode& var) const {
    (void)var;
    return nullptr;
  }

  DiagnosticEngine& diag() { return *diag_; }
  ModuleEnv& env() { return *env_; }
  HostBudget& budget() { return env_->budget(); }
  const SourceManager* sources() const { return env_->sources_; }

 protected:
  // Calls a builtin in expression context; the tracer overrides it to add statement ops.
  virtual std::optional<Value> CallBuiltin(const std::string& name, const Expr& call,
                                           std::vector<Value> args, const KwArgs& kwargs);
  // Calls a user function value in expression context.
  virtual std::optional<Value> CallUser(const FunctionValue& fn, const Expr& call,
                                        std::vector<Value> args, const KwArgs& kwargs);

  // Runs one host statement; false after a diagnostic.
  bool ExecStmt(const Stmt& s, const ScopePtr& scope, Value* ret, Flow* flow);
  // Calls `each` with every item of `iter`, evaluated in `scope`: range(...) lazily, the items
  // of a list or tuple, the keys of a dict. `each` returns kNormal to go on; anything else
  // stops the walk and is returned (kNormal: every item was seen; kError: a diagnostic).
  Flow ForEach(const Expr& iter, const ScopePtr& scope,
               const std::function<Flow(const Value&)>& each);
  // range(...) used as a value: its items as a list, reserved from the memory budget first
  // (a for loop or a comprehension iterates a range lazily instead).
  std::optional<Value> RangeList(const std::vector<Value>& args, SourceLoc loc);
  // A host `if`/`while`/comprehension condition: nullopt after a diagnostic (a runtime value).
  std::optional<bool> HostCondition(const Expr& test, const ScopePtr& scope);
  Flow ExecLoopBody(const Stmt& loop, const ScopePtr& scope, Value* ret);
  bool FinishLoop(const Stmt& loop, Flow ended, const ScopePtr& scope, Value* ret, Flow* flow);

  int depth_ = 0;            // expression nesting depth
  int call_depth_ = 0;       // user function calls in progress
  int top_level_depth_ = 0;  // module-level statements being evaluated (lazily, nested)

 private:
  std::optional<Value> EvalName(const Expr& e, const ScopePtr& scope);
  std::optional<Value> EvalConstant(const Expr& e);
  std::optional<Value> EvalBoolOp(const Expr& e, const ScopePtr& scope);
  std::optional<Value> EvalCompare(const Expr& e, const ScopePtr& scope);
  std::optional<Value> EvalCall(const Expr& e, const ScopePtr& scope);
  std::optional<Value> EvalAttribute(const Expr& e, const ScopePtr& scope);
  // Subscripts and slices of host values (host_subscript.cc).
  std::optional<Value> EvalSubscript(const Expr& e, const ScopePtr& scope);
  std::optional<Value> SliceSequence(const Value& base, const Expr& slice, const ScopePtr& scope);
  // An f-string's value (host_format.cc).
  std::optional<Value> EvalJoinedStr(const Expr& e, const ScopePtr& scope);
  std::optional<Value> EvalContainer(const Expr& e, const ScopePtr& scope);
  // A dict of parallel `keys` and `vals`, later duplicates winning; nullopt when the budget
  // ran out comparing keys.
  std::optional<Value> MakeDict(const std::vector<Value>& keys, const std::vector<Value>& vals,
                                SourceLoc loc);
  // List and dict comprehensions, generator expressions (host_comprehension.cc).
  std::optional<Value> EvalComprehension(const Expr& e, const ScopePtr& scope);
  bool RunClauses(const Expr& e, size_t clause, const ScopePtr& outer, const ScopePtr& inner,
                  std::vector<Value>* keys, std::vector<Value>* values);
  std::optional<Value> EvalHostBuiltin(const BuiltinRow& row, const Expr& call,
                                       const std::vector<Value>& args, const KwArgs& kwargs);
  // Host handlers (host_builtins.cc).
  std::optional<Value> CeilDiv(const Value& x, const Value& y, SourceLoc loc);
  std::optional<Value> SymbolicDim(const Value& name, const Value* dtype, SourceLoc loc);
  // T.use_swizzle's bound arguments (host_swizzle.cc).
  std::optional<Value> UseSwizzle(const BoundArgs& b, SourceLoc loc);
  std::optional<Value> MinMax(const BuiltinRow& row, std::vector<Value> vals, SourceLoc loc);
  std::optional<Value> MathUnary(const std::string& op, const Value& x, SourceLoc loc);
  std::optional<Value> Logical(bool is_and, const Value& x, const Value& y, SourceLoc loc);
  std::optional<Value> Getattr(const Value& obj, const Value& name,
                               const std::optional<Value>& dflt, SourceLoc loc);
  std::optional<Value> PythonConversion(const BuiltinRow& row, const Value& x, SourceLoc loc);
  // sum, any, all, list, tuple, enumerate, zip and the math module (host_python.cc).
  std::optional<Value> SequenceBuiltin(const BuiltinRow& row, const BoundArgs& b,
                                       const std::vector<Value>& args, SourceLoc loc);
  std::optional<Value> PythonMath(const BuiltinRow& row, const BoundArgs& b, SourceLoc loc);
  // The items a sequence builtin walks (a dict's keys); null after a diagnostic.
  const std::vector<Value>* IterableItems(const Value& v, std::string_view fn, SourceLoc loc);
  // `value.attr` (also getattr(value, "attr")); `base_loc` locates `value` in the source.
  std::optional<Value> AttributeOf(const Value& value, const std::string& attr, SourceLoc loc,
                                   SourceLoc base_loc);
  std::optional<Value> ModuleLookup(const std::string& name, int before, SourceLoc loc);
  bool EvalTopLevel(int index);
  bool Assign(const Expr& target, const Value& v, const ScopePtr& scope);

  ModuleEnv* env_;
  DiagnosticEngine* diag_;
  std::vector<ScopePtr> closures_;  // keeps closure scopes alive (see FunctionValue::closure)
  int current_top_level_ = -1;      // the top-level statement being evaluated (-1: the entry)
};

// The (bound name, module path) pairs of an import statement: `import a.b as c` binds c -> a.b;
// `import a.b` binds a -> a; `from a import b as c` binds c -> a.b. Returns false for a form
// it does not support (`from a import *`).
bool ImportBindings(const Stmt& s, std::vector<std::pair<std::string, std::string>>* out);

// True for a name whose value is a runtime scalar in IR (used by the tracer's let rule).
inline bool IsIrScalar(const Value& v) { return v.kind == ValueKind::kExpr; }

}  // namespace tilejit::frontend
