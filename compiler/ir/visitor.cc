// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/visitor.h"

namespace tilejit::ir {

void Visitor::VisitKernel(const Kernel& kernel) {
  for (const Buffer& b : kernel.params) VisitBuffer(b);
  Visit(kernel.body);
}

void Visitor::Visit(const Stmt& s) {
  if (s == nullptr) return;
  switch (s->kind) {
    case StmtKind::kSeq:
      return VisitSeq(As<SeqNode>(s));
    case StmtKind::kKernel:
      return VisitKernelStmt(As<KernelNode>(s));
    case StmtKind::kAllocate:
      return VisitAllocate(As<AllocateNode>(s));
    case StmtKind::kFor:
      return VisitFor(As<ForNode>(s));
    case StmtKind::kIf:
      return VisitIf(As<IfNode>(s));
    case StmtKind::kLet:
      return VisitLet(As<LetNode>(s));
    case StmtKind::kStore:
      return VisitStore(As<StoreNode>(s));
    case StmtKind::kTileOp:
      return VisitTileOp(As<TileOpNode>(s));
    case StmtKind::kBarrier:
      return VisitBarrier(As<BarrierNode>(s));
    case StmtKind::kSetFlag:
    case StmtKind::kWaitFlag:
      return VisitFlag(As<FlagNode>(s));
    case StmtKind::kSetCrossFlag:
    case StmtKind::kWaitCrossFlag:
      return VisitCrossFlag(As<CrossFlagNode>(s));
    case StmtKind::kCoreScope:
      return VisitCoreScope(As<CoreScopeNode>(s));
  }
}

void Visitor::Visit(const Expr& e) {
  if (e == nullptr) return;
  switch (e->kind) {
    case ExprKind::kIntImm:
      return VisitIntImm(As<IntImmNode>(e));
    case ExprKind::kFloatImm:
      return VisitFloatImm(As<FloatImmNode>(e));
    case ExprKind::kVarRef:
      return VisitVarRef(As<VarRefNode>(e));
    case ExprKind::kBinary:
      return VisitBinary(As<BinaryNode>(e));
    case ExprKind::kUnary:
      return VisitUnary(As<UnaryNode>(e));
    case ExprKind::kSelect:
      return VisitSelect(As<SelectNode>(e));
    case ExprKind::kLoad:
      return VisitLoad(As<LoadNode>(e));
    case ExprKind::kCall:
      return VisitCall(As<CallNode>(e));
  }
}

void Visitor::VisitRegion(const Region& region) {
  if (region.buffer != nullptr) VisitBuffer(region.buffer);
  for (const Range& r : region.ranges) Visit(r.min);
}

void Visitor::VisitOperand(const Operand& operand) {
  if (const auto* region = std::get_if<Region>(&operand)) {
    VisitRegion(*region);
  } else {
    Visit(std::get<Expr>(operand));
  }
}

void Visitor::VisitAttr(const Attr& attr) {
  if (const auto* e = std::get_if<Expr>(&attr.value)) Visit(*e);
}

void Visitor::VisitSeq(const SeqNode& op) {
  for (const Stmt& s : op.stmts) Visit(s);
}

void Visitor::VisitKernelStmt(const KernelNode& op) {
  Visit(op.grid);
  if (op.cid != nullptr) VisitVarDef(op.cid);
  if (op.vid != nullptr) VisitVarDef(op.vid);
  Visit(op.body);
}

void Visitor::VisitAllocate(const AllocateNode& op) {
  if (op.buffer != nullptr) VisitBuffer(op.buffer);
}

void Visitor::VisitFor(const ForNode& op) {
  if (op.var != nullptr) VisitVarDef(op.var);
  Visit(op.min);
  Visit(op.extent);
  Visit(op.body);
}

void Visitor::VisitIf(const IfNode& op) {
  Visit(op.cond);
  Visit(op.then_body);
  Visit(op.else_body);
}

void Visitor::VisitLet(const LetNode& op) {
  Visit(op.value);
  if (op.var != nullptr) VisitVarDef(op.var);
  Visit(op.body);
}

void Visitor::VisitStore(const StoreNode& op) {
  if (op.buffer != nullptr) VisitBuffer(op.buffer);
  for (const Expr& i : op.indices) Visit(i);
  Visit(op.value);
}

void Visitor::VisitTileOp(const TileOpNode& op) {
  for (const Operand& a : op.args) VisitOperand(a);
  for (const Attr& a : op.attrs) VisitAttr(a);
}

void Visitor::VisitFlag(const FlagNode& op) { Visit(op.event); }

void Visitor::VisitCrossFlag(const CrossFlagNode& op) { Visit(op.flag); }

void Visitor::VisitCoreScope(const CoreScopeNode& op) { Visit(op.body); }

void Visitor::VisitBinary(const BinaryNode& op) {
  Visit(op.a);
  Visit(op.b);
}

void Visitor::VisitUnary(const UnaryNode& op) { Visit(op.a); }

void Visitor::VisitSelect(const SelectNode& op) {
  Visit(op.cond);
  Visit(op.t);
  Visit(op.f);
}

void Visitor::VisitLoad(const LoadNode& op) {
  if (op.buffer != nullptr) VisitBuffer(op.buffer);
  for (const Expr& i : op.indices) Visit(i);
}

void Visitor::VisitCall(const CallNode& op) {
  for (const Expr& a : op.args) Visit(a);
}

bool UsesVar(const Expr& e, const std::function<bool(const VarNode*)>& in_set) {
  class Finder : public Visitor {
   public:
    explicit Finder(const std::function<bool(const VarNode*)>& f) : in_set_(f) {}
    bool found = false;

   protected:
    void VisitVarRef(const VarRefNode& op) override { found = found || in_set_(op.var.get()); }

   private:
    const std::function<bool(const VarNode*)>& in_set_;
  } finder(in_set);
  finder.Visit(e);
  return finder.found;
}

bool HasLoad(const Expr& e) {
  class Finder : public Visitor {
   public:
    bool found = false;

   protected:
    void VisitLoad(const LoadNode&) override { found = true; }
  } finder;
  finder.Visit(e);
  return finder.found;
}

}  // namespace tilejit::ir
