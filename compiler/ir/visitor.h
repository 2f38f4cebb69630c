// SPDX-License-Identifier: Apache-2.0
// Visitor: a read-only recursive walk over Tile IR.
//
// Override the Visit* method of the node kinds you care about; the defaults recurse into
// every child in a fixed order (the printing order: for a For, var, min, extent, body). Call
// the base method from an override to keep recursing. Null children are skipped, so a
// visitor never crashes on partially built IR (the verifier reports nulls).
//
// VisitBuffer is called at every buffer reference (params, allocations, regions, loads,
// stores); VisitVarDef at every definition (kernel cid/vid, for vars, let vars). Neither
// recurses further.
//
// A Visitor holds no state of its own; subclasses are used by one thread at a time.
#pragma once

#include <functional>

#include "compiler/ir/ir.h"

namespace tilejit::ir {

class Visitor {
 public:
  virtual ~Visitor() = default;

  // Visits the params (as buffer references) and then the body.
  virtual void VisitKernel(const Kernel& kernel);

  // Dispatch on the node kind.
  void Visit(const Stmt& s);
  void Visit(const Expr& e);

  virtual void VisitRegion(const Region& region);
  virtual void VisitOperand(const Operand& operand);
  virtual void VisitAttr(const Attr& attr);
  virtual void VisitBuffer(const Buffer& /*buffer*/) {}
  virtual void VisitVarDef(const Var& /*var*/) {}

 protected:
  virtual void VisitSeq(const SeqNode& op);
  virtual void VisitKernelStmt(const KernelNode& op);
  virtual void VisitAllocate(const AllocateNode& op);
  virtual void VisitFor(const ForNode& op);
  virtual void VisitIf(const IfNode& op);
  virtual void VisitLet(const LetNode& op);
  virtual void VisitStore(const StoreNode& op);
  virtual void VisitTileOp(const TileOpNode& op);
  virtual void VisitBarrier(const BarrierNode& /*op*/) {}
  virtual void VisitFlag(const FlagNode& op);
  virtual void VisitCrossFlag(const CrossFlagNode& op);
  virtual void VisitCoreScope(const CoreScopeNode& op);

  virtual void VisitIntImm(const IntImmNode& /*op*/) {}
  virtual void VisitFloatImm(const FloatImmNode& /*op*/) {}
  virtual void VisitVarRef(const VarRefNode& /*op*/) {}
  virtual void VisitBinary(const BinaryNode& op);
  virtual void VisitUnary(const UnaryNode& op);
  virtual void VisitSelect(const SelectNode& op);
  virtual void VisitLoad(const LoadNode& op);
  virtual void VisitCall(const CallNode& op);
};

// Whether `e` reads a variable for which `in_set` is true (e.g. membership in a set of vars
// derived from vid or cid).
bool UsesVar(const Expr& e, const std::function<bool(const VarNode*)>& in_set);
// Whether `e` reads any buffer element (alloc_var registers included): a value that may
// differ between two places of the program.
bool HasLoad(const Expr& e);

}  // namespace tilejit::ir
