// SPDX-License-Identifier: Apache-2.0
// The default Mutate* methods share one rule: rebuild a node only when some child pointer
// differs, so unchanged subtrees are shared and passes can detect "no change" by identity.
#include "compiler/ir/mutator.h"

#include <memory>

namespace tilejit::ir {

Kernel Mutator::MutateKernel(const Kernel& kernel) {
  Kernel out = kernel;
  for (Buffer& b : out.params) b = MutateBuffer(b);
  out.body = Mutate(kernel.body);
  return out;
}

Stmt Mutator::Mutate(const Stmt& s) {
  if (s == nullptr) return s;
  switch (s->kind) {
    case StmtKind::kSeq:
      return MutateSeq(s, As<SeqNode>(s));
    case StmtKind::kKernel:
      return MutateKernelStmt(s, As<KernelNode>(s));
    case StmtKind::kAllocate:
      return MutateAllocate(s, As<AllocateNode>(s));
    case StmtKind::kFor:
      return MutateFor(s, As<ForNode>(s));
    case StmtKind::kIf:
      return MutateIf(s, As<IfNode>(s));
    case StmtKind::kLet:
      return MutateLet(s, As<LetNode>(s));
    case StmtKind::kStore:
      return MutateStore(s, As<StoreNode>(s));
    case StmtKind::kTileOp:
      return MutateTileOp(s, As<TileOpNode>(s));
    case StmtKind::kBarrier:
      return MutateBarrier(s, As<BarrierNode>(s));
    case StmtKind::kSetFlag:
    case StmtKind::kWaitFlag:
      return MutateFlag(s, As<FlagNode>(s));
    case StmtKind::kSetCrossFlag:
    case StmtKind::kWaitCrossFlag:
      return MutateCrossFlag(s, As<CrossFlagNode>(s));
    case StmtKind::kCoreScope:
      return MutateCoreScope(s, As<CoreScopeNode>(s));
  }
  return s;
}

Expr Mutator::Mutate(const Expr& e) {
  if (e == nullptr) return e;
  switch (e->kind) {
    case ExprKind::kIntImm:
      return MutateIntImm(e, As<IntImmNode>(e));
    case ExprKind::kFloatImm:
      return MutateFloatImm(e, As<FloatImmNode>(e));
    case ExprKind::kVarRef:
      return MutateVarRef(e, As<VarRefNode>(e));
    case ExprKind::kBinary:
      return MutateBinary(e, As<BinaryNode>(e));
    case ExprKind::kUnary:
      return MutateUnary(e, As<UnaryNode>(e));
    case ExprKind::kSelect:
      return MutateSelect(e, As<SelectNode>(e));
    case ExprKind::kLoad:
      return MutateLoad(e, As<LoadNode>(e));
    case ExprKind::kCall:
      return MutateCall(e, As<CallNode>(e));
  }
  return e;
}

std::vector<Expr> Mutator::MutateExprs(const std::vector<Expr>& exprs, bool* changed) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  for (const Expr& e : exprs) {
    out.push_back(Mutate(e));
    if (out.back() != e) *changed = true;
  }
  return out;
}

Region Mutator::MutateRegion(const Region& region) {
  Region out = region;
  out.buffer = MutateBuffer(region.buffer);
  for (Range& r : out.ranges) r.min = Mutate(r.min);
  return out;
}

Operand Mutator::MutateOperand(const Operand& operand) {
  if (const auto* region = std::get_if<Region>(&operand)) return MutateRegion(*region);
  return Mutate(std::get<Expr>(operand));
}

namespace {

bool SameRegion(const Region& a, const Region& b) {
  if (a.buffer != b.buffer || a.ranges.size() != b.ranges.size()) return false;
  for (size_t i = 0; i < a.ranges.size(); ++i) {
    if (a.ranges[i].min != b.ranges[i].min || a.ranges[i].extent != b.ranges[i].extent) {
      return false;
    }
  }
  return true;
}

bool SameOperand(const Operand& a, const Operand& b) {
  if (a.index() != b.index()) return false;
  if (const auto* ra = std::get_if<Region>(&a)) return SameRegion(*ra, std::get<Region>(b));
  return std::get<Expr>(a) == std::get<Expr>(b);
}

}  // namespace

Stmt Mutator::MutateSeq(const Stmt& s, const SeqNode& op) {
  bool changed = false;
  std::vector<Stmt> stmts;
  stmts.reserve(op.stmts.size());
  for (const Stmt& child : op.stmts) {
    stmts.push_back(Mutate(child));
    if (stmts.back() != child) changed = true;
  }
  if (!changed) return s;
  return std::make_shared<SeqNode>(std::move(stmts), op.loc);
}

Stmt Mutator::MutateKernelStmt(const Stmt& s, const KernelNode& op) {
  Expr grid = Mutate(op.grid);
  Stmt body = Mutate(op.body);
  if (grid == op.grid && body == op.body) return s;
  return std::make_shared<KernelNode>(grid, op.threads, op.cid, op.vid, body, op.loc);
}

Stmt Mutator::MutateAllocate(const Stmt& s, const AllocateNode& op) {
  Buffer b = MutateBuffer(op.buffer);
  if (b == op.buffer) return s;
  return std::make_shared<AllocateNode>(b, op.loc);
}

Stmt Mutator::MutateFor(const Stmt& s, const ForNode& op) {
  Expr min = Mutate(op.min);
  Expr extent = Mutate(op.extent);
  Stmt body = Mutate(op.body);
  if (min == op.min && extent == op.extent && body == op.body) return s;
  return std::make_shared<ForNode>(op.var, min, extent, op.for_kind, op.num_stages, body, op.loc);
}

Stmt Mutator::MutateIf(const Stmt& s, const IfNode& op) {
  Expr cond = Mutate(op.cond);
  Stmt then_body = Mutate(op.then_body);
  Stmt else_body = Mutate(op.else_body);
  if (cond == op.cond && then_body == op.then_body && else_body == op.else_body) return s;
  return std::make_shared<IfNode>(cond, then_body, else_body, op.loc);
}

Stmt Mutator::MutateLet(const Stmt& s, const LetNode& op) {
  Expr value = Mutate(op.value);
  Stmt body = Mutate(op.body);
  if (value == op.value && body == op.body) return s;
  return std::make_shared<LetNode>(op.var, value, body, op.loc);
}

Stmt Mutator::MutateStore(const Stmt& s, const StoreNode& op) {
  bool changed = false;
  Buffer b = MutateBuffer(op.buffer);
  std::vector<Expr> indices = MutateExprs(op.indices, &changed);
  Expr value = Mutate(op.value);
  if (!changed && b == op.buffer && value == op.value) return s;
  return std::make_shared<StoreNode>(b, std::move(indices), value, op.loc);
}

Stmt Mutator::MutateTileOp(const Stmt& s, const TileOpNode& op) {
  bool changed = false;
  std::vector<Operand> args;
  args.reserve(op.args.size());
  for (const Operand& a : op.args) {
    args.push_back(MutateOperand(a));
    if (!SameOperand(args.back(), a)) changed = true;
  }
  std::vector<Attr> attrs = op.attrs;
  for (Attr& a : attrs) {
    if (auto* e = std::get_if<Expr>(&a.value)) {
      Expr m = Mutate(*e);
      if (m != *e) changed = true;
      *e = m;
    }
  }
  if (!changed) return s;
  return std::make_shared<TileOpNode>(op.op, std::move(args), std::move(attrs), op.loc);
}

Stmt Mutator::MutateFlag(const Stmt& s, const FlagNode& op) {
  Expr event = Mutate(op.event);
  if (event == op.event) return s;
  return std::make_shared<FlagNode>(op.kind, op.src, op.dst, event, op.loc, op.origin);
}

Stmt Mutator::MutateCrossFlag(const Stmt& s, const CrossFlagNode& op) {
  Expr flag = Mutate(op.flag);
  if (flag == op.flag) return s;
  return std::make_shared<CrossFlagNode>(op.kind, op.pipe, flag, op.mode, op.loc, op.origin);
}

Stmt Mutator::MutateCoreScope(const Stmt& s, const CoreScopeNode& op) {
  Stmt body = Mutate(op.body);
  if (body == op.body) return s;
  return std::make_shared<CoreScopeNode>(op.core, body, op.loc);
}

Expr Mutator::MutateBinary(const Expr& e, const BinaryNode& op) {
  Expr a = Mutate(op.a);
  Expr b = Mutate(op.b);
  if (a == op.a && b == op.b) return e;
  // Keep the node's dtype rather than re-deriving it: a substitution must not retype.
  return std::make_shared<BinaryNode>(op.op, a, b, op.dtype, op.loc);
}

Expr Mutator::MutateUnary(const Expr& e, const UnaryNode& op) {
  Expr a = Mutate(op.a);
  if (a == op.a) return e;
  return std::make_shared<UnaryNode>(op.op, a, op.dtype, op.loc);
}

Expr Mutator::MutateSelect(const Expr& e, const SelectNode& op) {
  Expr c = Mutate(op.cond);
  Expr t = Mutate(op.t);
  Expr f = Mutate(op.f);
  if (c == op.cond && t == op.t && f == op.f) return e;
  return std::make_shared<SelectNode>(c, t, f, op.dtype, op.loc);
}

Expr Mutator::MutateLoad(const Expr& e, const LoadNode& op) {
  bool changed = false;
  Buffer b = MutateBuffer(op.buffer);
  std::vector<Expr> indices = MutateExprs(op.indices, &changed);
  if (!changed && b == op.buffer) return e;
  return std::make_shared<LoadNode>(b, std::move(indices), op.loc);
}

Expr Mutator::MutateCall(const Expr& e, const CallNode& op) {
  bool changed = false;
  std::vector<Expr> args = MutateExprs(op.args, &changed);
  if (!changed) return e;
  return std::make_shared<CallNode>(op.op, std::move(args), op.dtype, op.loc);
}

// ---------------------------------------------------------------------------------------------
// Substitution helpers

namespace {

class VarSubstituter : public Mutator {
 public:
  explicit VarSubstituter(const VarMap& vars) : vars_(vars) {}

 protected:
  Expr MutateVarRef(const Expr& e, const VarRefNode& op) override {
    auto it = vars_.find(op.var.get());
    return it == vars_.end() ? e : it->second;
  }

 private:
  const VarMap& vars_;
};

class BufferSubstituter : public Mutator {
 public:
  explicit BufferSubstituter(const BufferMap& buffers) : buffers_(buffers) {}

  Buffer MutateBuffer(const Buffer& b) override {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }

 private:
  const BufferMap& buffers_;
};

}  // namespace

Expr SubstituteVars(const Expr& e, const VarMap& vars) { return VarSubstituter(vars).Mutate(e); }

Stmt SubstituteVars(const Stmt& s, const VarMap& vars) { return VarSubstituter(vars).Mutate(s); }

Stmt SubstituteBuffers(const Stmt& s, const BufferMap& buffers) {
  return BufferSubstituter(buffers).Mutate(s);
}

Kernel SubstituteBuffers(const Kernel& k, const BufferMap& buffers) {
  return BufferSubstituter(buffers).MutateKernel(k);
}

}  // namespace tilejit::ir
