// SPDX-License-Identifier: Apache-2.0
// Mutator: a rebuilding walk over Tile IR, the base of every pass.
//
// Each Mutate* method returns the (possibly new) node for its input. The defaults mutate the
// children and return the SAME pointer when no child changed, otherwise a new node with the
// same kind, fields and SourceLoc and the new children. Passes therefore share unchanged
// subtrees with their input, and `result == input` tells that nothing changed.
//
// Override the per-kind methods (they receive both the shared pointer, to return unchanged,
// and the downcast node). Call the base method to keep the default recursion.
//
// MutateBuffer is applied at every buffer reference (params, allocations, regions, loads,
// stores) and MutateVarRef at every variable use; both default to the identity. Definitions
// (for/let/kernel vars) are not substituted.
//
// A Mutator is used by one thread at a time; the IR it reads is immutable and shareable.
#pragma once

#include <unordered_map>

#include "compiler/ir/ir.h"

namespace tilejit::ir {

class Mutator {
 public:
  virtual ~Mutator() = default;

  // Mutates params (through MutateBuffer) and body; other fields are copied.
  virtual Kernel MutateKernel(const Kernel& kernel);

  // Dispatch on the node kind; null stays null.
  Stmt Mutate(const Stmt& s);
  Expr Mutate(const Expr& e);

  virtual Region MutateRegion(const Region& region);
  virtual Operand MutateOperand(const Operand& operand);
  virtual Buffer MutateBuffer(const Buffer& buffer) { return buffer; }

 protected:
  virtual Stmt MutateSeq(const Stmt& s, const SeqNode& op);
  virtual Stmt MutateKernelStmt(const Stmt& s, const KernelNode& op);
  virtual Stmt MutateAllocate(const Stmt& s, const AllocateNode& op);
  virtual Stmt MutateFor(const Stmt& s, const ForNode& op);
  virtual Stmt MutateIf(const Stmt& s, const IfNode& op);
  virtual Stmt MutateLet(const Stmt& s, const LetNode& op);
  virtual Stmt MutateStore(const Stmt& s, const StoreNode& op);
  virtual Stmt MutateTileOp(const Stmt& s, const TileOpNode& op);
  virtual Stmt MutateBarrier(const Stmt& s, const BarrierNode& /*op*/) { return s; }
  virtual Stmt MutateFlag(const Stmt& s, const FlagNode& op);
  virtual Stmt MutateCrossFlag(const Stmt& s, const CrossFlagNode& op);
  virtual Stmt MutateCoreScope(const Stmt& s, const CoreScopeNode& op);

  virtual Expr MutateIntImm(const Expr& e, const IntImmNode& /*op*/) { return e; }
  virtual Expr MutateFloatImm(const Expr& e, const FloatImmNode& /*op*/) { return e; }
  virtual Expr MutateVarRef(const Expr& e, const VarRefNode& /*op*/) { return e; }
  virtual Expr MutateBinary(const Expr& e, const BinaryNode& op);
  virtual Expr MutateUnary(const Expr& e, const UnaryNode& op);
  virtual Expr MutateSelect(const Expr& e, const SelectNode& op);
  virtual Expr MutateLoad(const Expr& e, const LoadNode& op);
  virtual Expr MutateCall(const Expr& e, const CallNode& op);

  // Mutates each element; sets *changed when any element is a different pointer.
  std::vector<Expr> MutateExprs(const std::vector<Expr>& exprs, bool* changed);
};

// Identity-keyed substitution maps (keys are the node pointers).
using VarMap = std::unordered_map<const VarNode*, Expr>;
using BufferMap = std::unordered_map<const BufferNode*, Buffer>;

// Replaces every use of a var in `vars` by its expression (definitions are untouched).
Expr SubstituteVars(const Expr& e, const VarMap& vars);
Stmt SubstituteVars(const Stmt& s, const VarMap& vars);

// Replaces every reference to a buffer in `buffers` (allocations, regions, loads, stores).
Stmt SubstituteBuffers(const Stmt& s, const BufferMap& buffers);
Kernel SubstituteBuffers(const Kernel& k, const BufferMap& buffers);

}  // namespace tilejit::ir
