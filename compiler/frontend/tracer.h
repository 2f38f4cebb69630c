// SPDX-License-Identifier: Apache-2.0
// The tracer: walks a @T.prim_func body into Tile IR (DESIGN.md section 2). It is an
// Evaluator whose scopes also hold runtime values (launch and loop vars, let vars, buffers),
// so every expression in the body is evaluated by the same code as host code; statements are
// handled here:
//   - `x = expr` binds a host value as is, and a runtime scalar as an immutable LetNode over
//     the rest of the block (re-assignment shadows); `x = T.alloc_*(...)` allocates;
//     `a[i, j] = v`, augmented assignment and assignment to an alloc_var are stores;
//   - `if` on a host constant folds; on a runtime value it becomes an IfNode;
//   - `for` over T.serial / range / T.Pipelined / T.Parallel becomes ForNodes;
//   - `with T.Kernel(...)` and `with T.Scope("C"|"V")`;
//   - T.* statement calls become tile ops and sync statements (trace_ops.cc, trace_copy.cc),
//     with the operand shape rules of shape_rules.h; @T.macro calls and plain helpers called
//     as statements are inlined.
//
// Tile-op operand order (the IR contract for every later pass): the destination first.
//   copy [dst, src]; gemm_v0 / mma [C, A, B]; fill [dst, value]; add..min [dst, src0, src1];
//   unary ops and cast, broadcast [dst, src]; compare [mask, src0, src1];
//   select [dst, mask, src0, src1]; axpy [dst, src, scalar]; reduce_* [dst, src].
// Attributes are always emitted with normalised values: copy{enable_relu, transpose[,
// pad_value]}, gemm_v0{init, transpose_A, transpose_B}, mma{init}, reduce{clear, dim} with dim
// non-negative, cast{count, mode}, compare/select{mode}, broadcast{axis} (0: per column,
// 1: per row). Binary ops whose second operand broadcasts carry no attribute: the rule of
// shape_rules.h, applied to the operand shapes, decides.
//
// Not thread-safe; one Tracer per compile.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/frontend/host_eval.h"
#include "compiler/ir/ir.h"

namespace tilejit::frontend {

// Whether `s` is one of a fixed list of choices (a mode name), and the list as "a, b, c" for
// the diagnostic that names them.
template <size_t N>
bool OneOf(const std::string& s, const std::string_view (&list)[N]) {
  for (std::string_view x : list) {
    if (x == s) return true;
  }
  return false;
}
template <size_t N>
std::string Join(const std::string_view (&list)[N]) {
  std::string out;
  for (std::string_view x : list) out += (out.empty() ? "" : ", ") + std::string(x);
  return out;
}

class Tracer : public Evaluator {
 public:
  // Statement nesting (with/for/if/macro) deeper than this is a diagnostic.
  static constexpr int kMaxNesting = 64;
  // Let bindings chained in one block (each nests the rest of the block).
  static constexpr int kMaxLets = 512;

  Tracer(ModuleEnv* env, DiagnosticEngine* diag) : Evaluator(env, diag) {}

  // Traces `prim_func` into a kernel. `roles[i]` is the role of parameter i (the caller
  // normalised out_idx/workspace_idx); params beyond roles are inputs.
  std::optional<ir::Kernel> TracePrimFunc(const FunctionValue& prim_func,
                                          const std::vector<ir::BufferRole>& roles);

  // The number of parameters of a prim_func (for normalising indices before tracing).
  static size_t NumParams(const FunctionValue& prim_func);

  ir::Expr BoundValue(const ir::VarNode& var) const override;

 private:
  using Work = std::vector<const Stmt*>;
  struct Frame {  // tracing state that nests
    bool in_kernel = false;
    bool in_scope = false;
    bool in_inline = false;  // inlining a helper: `return` ends the block
  };

  std::optional<ir::Stmt> TraceBlock(const StmtList& body, const ScopePtr& scope);
  std::optional<ir::Stmt> TraceWork(const Work& work, size_t start, const ScopePtr& scope);
  // One statement; appends to `out`. Sets *rest_done when it consumed the rest of the block
  // (a let, a folded if, a return).
  bool TraceStmt(const Work& work, size_t i, const ScopePtr& scope, std::vector<ir::Stmt>* out,
                 bool* rest_done);
  bool TraceAssign(const Work& work, size_t i, const ScopePtr& scope, std::vector<ir::Stmt>* out,
                   bool* rest_done);
  bool TraceAugAssign(const Stmt& s, const ScopePtr& scope, std::vector<ir::Stmt>* out,
                      bool* rest_done, const Work& work, size_t i);
  bool BindTarget(const Expr& target, const Value& v, const ScopePtr& scope,
                  std::vector<ir::Stmt>* out, std::vector<std::pair<ir::Var, ir::Expr>>* lets);
  std::optional<ir::Stmt> TraceFor(const Stmt& s, const ScopePtr& scope);
  // `for v0, v1 in T.Persistent(domain, wave_size, index, group_size)` (tracer_persistent.cc).
  std::optional<ir::Stmt> TracePersistent(const Stmt& s, const BuiltinRow& row,
                                          const std::vector<Value>& args, const KwArgs& kwargs,
                                          const ScopePtr& scope);
  std::optional<ir::Stmt> TraceWith(const Stmt& s, const ScopePtr& scope);
  // The builtin row a `with` context calls; nullptr when it calls none, or (`*failed`) after a
  // diagnostic.
  const BuiltinRow* FrameRow(const Expr& context, const ScopePtr& scope, bool* failed);
  // `with T.If(c):` over `with T.Then():` / `with T.Else():` (trace_if_frame.cc).
  std::optional<ir::Stmt> TraceIfFrame(const Stmt& s, const BuiltinRow& row, const ScopePtr& scope);
  // An if over a runtime `test` (an If node) or a host one (the taken branch, traced in a scope
  // of its own); `else_body` may be null.
  std::optional<ir::Stmt> TraceIf(const Value& test, SourceLoc test_loc, const StmtList& then_body,
                                  const StmtList* else_body, SourceLoc loc, const ScopePtr& scope);
  std::optional<ir::Stmt> TraceKernel(const Stmt& s, const Expr& call, const ScopePtr& scope);
  bool TraceExprStmt(const Stmt& s, const Expr& value, const ScopePtr& scope,
                     std::vector<ir::Stmt>* out);
  bool TraceInline(const FunctionValue& fn, const Expr& call, std::vector<Value> args,
                   const KwArgs& kwargs, std::vector<ir::Stmt>* out);
  std::optional<ir::Buffer> TraceAlloc(const std::string& name, const std::string& builtin,
                                       const Expr& call, const ScopePtr& scope,
                                       std::vector<ir::Stmt>* out);
  std::optional<ir::Buffer> TraceParam(const Param& p, ir::BufferRole role, const ScopePtr& scope);
  // T.symbolic dims (tracer.cc).
  ir::Var SymbolOf(const Value& v);  // null unless v is exactly a T.symbolic value
  bool CollectSymbols(ir::Kernel* kernel);
  bool CheckSymbolUses(const ir::Kernel& kernel, const ir::Stmt& body);

  // T.* statement calls (trace_ops.cc, trace_copy.cc, trace_sync.cc), dispatched on the
  // registry row's handler and, for tile operations, the IR op's family. Arguments arrive
  // bound to the row's signature. `out` receives zero or more stmts.
  bool TraceOpCall(const std::string& name, const Expr& call, const std::vector<Value>& args,
                   const KwArgs& kwargs, std::vector<ir::Stmt>* out);
  // T.copy's bound arguments (src, dst, enable_relu, transpose, pad_value); `atomic_add`:
  // T.tile.atomic_add, a copy to GM that adds to what is there.
  bool TraceCopy(const Expr& call, const BoundArgs& b, std::vector<ir::Stmt>* out,
                 bool atomic_add = false);
  bool TraceGemm(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                 std::vector<ir::Stmt>* out);
  bool TraceTileOp(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                   std::vector<ir::Stmt>* out);
  bool TraceVectorOp(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                     std::vector<ir::Stmt>* out);
  std::optional<ir::Operand> BinarySecondOperand(const std::string& name, const ir::Region& dst,
                                                 const Value& s1, SourceLoc loc);
  std::optional<int64_t> BroadcastAxis(const std::string& name, const ir::Region& dst,
                                       const ir::Region& src, const std::optional<Value>& axis_arg,
                                       SourceLoc loc);
  std::optional<std::vector<ir::Attr>> CastAttrs(const ir::Region& dst,
                                                 const std::optional<Value>& mode,
                                                 const std::optional<Value>& count_arg,
                                                 SourceLoc loc);
  bool TraceCompareSelect(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                          std::vector<ir::Stmt>* out);
  bool TraceReduce(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                   std::vector<ir::Stmt>* out);
  bool TraceSort(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                 std::vector<ir::Stmt>* out);  // trace_sort.cc
  bool TraceRawRepeat(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                      std::vector<ir::Stmt>* out);  // trace_raw.cc
  bool TraceRowExpand(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                      std::vector<ir::Stmt>* out);
  bool TraceBrcb(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                 std::vector<ir::Stmt>* out);
  bool TraceArithProgression(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                             std::vector<ir::Stmt>* out);
  bool TraceClamp(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                  std::vector<ir::Stmt>* out);
  bool TraceClampBound(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                       std::vector<ir::Stmt>* out);
  std::optional<std::pair<ir::Region, ir::Region>> ClampRegions(const BuiltinRow& row,
                                                                const Expr& call,
                                                                const BoundArgs& b);
  // False after a diagnostic when the row has a `count` parameter that is not the element
  // count of `dst` (trace_ops.cc says why).
  bool CheckWholeCount(const BuiltinRow& row, const BoundArgs& b, const ir::Region& dst,
                       SourceLoc loc);
  bool ApplyRealShape(const std::string& name, const Value& real, int64_t dim, ir::Region* src,
                      ir::Region* dst, SourceLoc loc);
  bool TraceSync(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                 std::vector<ir::Stmt>* out);
  bool TracePrintf(const Expr& call, const BoundArgs& b, std::vector<ir::Stmt>* out);
  // A prim_func body of prints, one launch and prints: the launch, with the prints before it
  // first in its body and those after it last (every core runs them). Others: unchanged.
  static ir::Stmt PrintsIntoLaunch(const ir::Stmt& body);
  bool TraceDumpTensor(const Expr& call, const BoundArgs& b, std::vector<ir::Stmt>* out);
  bool TraceAnnotateAddress(const Expr& call, const BoundArgs& b);
  bool TraceAnnotateLayout(const Expr& call, const BoundArgs& b);
  // The writable node of an on-chip buffer of this kernel named as an annotation's key, or
  // nullptr after a diagnostic (`what` names the annotation).
  ir::BufferNode* AnnotatedBuffer(const Value& key, std::string_view what, SourceLoc loc);
  std::optional<ir::Expr> SyncId(const Value& v, int64_t limit, const char* what, SourceLoc loc);

  // Operand helpers.
  std::optional<ir::Region> RegionOperand(const Value& v, std::string_view what, SourceLoc loc);
  std::optional<ir::Expr> ScalarOperand(const Value& v, ir::DType like, std::string_view what,
                                        SourceLoc loc);
  std::optional<bool> FlagArg(const std::optional<Value>& v, bool dflt, std::string_view what,
                              SourceLoc loc);

  Frame frame_;
  int nesting_ = 0;
  int lets_ = 0;
  int kernels_ = 0;
  // On-chip buffers this tracer created, writable until the kernel is returned (for
  // T.annotate_address).
  std::map<const ir::BufferNode*, std::shared_ptr<ir::BufferNode>> mutable_buffers_;
  // Let vars of this trace bound to load-free values (BoundValue).
  std::map<const ir::VarNode*, ir::Expr> bound_values_;
};

}  // namespace tilejit::frontend
