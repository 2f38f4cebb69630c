// SPDX-License-Identifier: Apache-2.0
// Internal to combine_cv: the projection of a statement onto one core type.
//
// Not thread-safe per object; each compile builds its own Projector.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "common/diagnostic.h"
#include "compiler/ir/ir.h"

namespace tilejit::passes::cv {

// The core type whose on-chip memory `b` lives in, if any (UB: vector; L1/L0x: cube).
std::optional<ir::CoreKind> HomeOf(const ir::BufferNode& b);

// Projects statements onto one core type: leaves of the other type are dropped, leaves both
// cores own (syncs on MTE2/MTE3/S, barrier all) and scalar stores to non-UB buffers are kept,
// control flow and lets are kept around what remains (empty loops and ifs dropped), author
// T.Scope blocks of this type are inlined and those of the other type dropped, allocations are
// dropped (the caller hoists them). Statements are shared with the input, never copied.
// Errors (a loop bound, condition or used let reading the other core's memory; a cross-core
// flag on a pipe both cores have, outside T.Scope) go to `diag` once per statement.
class Projector {
 public:
  Projector(ir::CoreKind core, DiagnosticEngine* diag) : core_(core), diag_(diag) {}

  // The projection, or nullptr when nothing of `s` runs on this core type.
  ir::Stmt Project(const ir::Stmt& s);

  // True once a leaf that only this core type can run (or an author scope's body) was kept.
  bool has_work() const { return has_work_; }

 private:
  ir::Stmt ProjectSeq(const ir::SeqNode& op);
  ir::Stmt ProjectFor(const ir::Stmt& s, const ir::ForNode& op);
  ir::Stmt ProjectIf(const ir::Stmt& s, const ir::IfNode& op);
  ir::Stmt ProjectLet(const ir::Stmt& s, const ir::LetNode& op);
  ir::Stmt ProjectStore(const ir::Stmt& s, const ir::StoreNode& op);
  ir::Stmt ProjectLeaf(const ir::Stmt& s);
  // The core whose data `e` depends on (a load of UB or L1/L0, or of a var/GM element, or a
  // let var, that was computed from such data), if any; *name gets that value's name.
  std::optional<ir::CoreKind> HomeOfExpr(const ir::Expr& e, std::string* name) const;
  // Reports that `what` of a statement this projection needs depends on data only the other
  // core has (each statement is reported by at most one of the two projections).
  void CheckReplicable(const ir::Expr& e, SourceLoc loc, const std::string& what);

  ir::CoreKind core_;
  DiagnosticEngine* diag_;
  bool has_work_ = false;
  // Let vars and scalar (var/GM) buffers whose values derive from one core's memory. Keyed by
  // node for lookup only (never iterated).
  std::unordered_map<const ir::VarNode*, ir::CoreKind> var_home_;
  std::unordered_map<const ir::BufferNode*, ir::CoreKind> scalar_home_;
};

}  // namespace tilejit::passes::cv
