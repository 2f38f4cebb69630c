// SPDX-License-Identifier: Apache-2.0
// Which core runs what. Codegen projects the body on each core type by scopes, so after this
// pass every leaf that does work or syncs must sit in a scope; control flow and lets stay
// outside (both programs run them). The classification is by operand memories and pipes:
// L1/L0 and the MTE1/M/FIX pipes exist only on the AIC, UB and the V pipe only on the AIV.
#include "compiler/passes/assign_cores.h"

#include <optional>
#include <string>

#include "compiler/analysis/core_kind.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"

namespace tilejit::passes {
namespace {

using ir::CoreKind;

// Finds the kinds of work in the kernel, and misplaced work inside author scopes.
class Survey : public ir::Visitor {
 public:
  explicit Survey(DiagnosticEngine* diag) : diag_(diag) {}

  bool has_scopes = false;
  bool has_cube = false;    // in a cube scope or cube work anywhere
  bool has_vector = false;  // likewise for vector
  // The first cube / vector leaf outside any scope (nodes owned by the kernel).
  const ir::StmtNode* first_cube = nullptr;
  const ir::StmtNode* first_vector = nullptr;

 protected:
  void VisitCoreScope(const ir::CoreScopeNode& op) override {
    has_scopes = true;
    (op.core == CoreKind::kCube ? has_cube : has_vector) = true;
    std::optional<CoreKind> saved = scope_;
    scope_ = op.core;
    ir::Visitor::VisitCoreScope(op);
    scope_ = saved;
  }
  void VisitTileOp(const ir::TileOpNode& op) override { Leaf(op); }
  void VisitStore(const ir::StoreNode& op) override { Leaf(op); }
  void VisitBarrier(const ir::BarrierNode& op) override { Leaf(op); }
  void VisitFlag(const ir::FlagNode& op) override { Leaf(op); }
  void VisitCrossFlag(const ir::CrossFlagNode& op) override { Leaf(op); }

 private:
  void Leaf(const ir::StmtNode& s) {
    analysis::Work w = analysis::LeafWork(s);
    if (w != analysis::Work::kCube && w != analysis::Work::kVector) return;
    const bool cube = w == analysis::Work::kCube;
    (cube ? has_cube : has_vector) = true;
    if (scope_.has_value()) {
      if ((*scope_ == CoreKind::kCube) != cube) {
        diag_->Error(s.loc) << analysis::LeafName(s) << " is " << (cube ? "cube" : "vector")
                            << " work inside T.Scope(\"" << (cube ? "V" : "C")
                            << "\"); move it into a T.Scope(\"" << (cube ? "C" : "V")
                            << "\") block";
      }
      return;
    }
    const ir::StmtNode*& first = cube ? first_cube : first_vector;
    if (first == nullptr) first = &s;
  }

  DiagnosticEngine* diag_;
  std::optional<CoreKind> scope_;
};

ir::Stmt InScope(CoreKind core, ir::Stmt s) {
  const SourceLoc loc = s->loc;
  return std::make_shared<ir::CoreScopeNode>(core, std::move(s), loc);
}

// Wraps the leaves the author left outside scopes (kernels that use T.Scope).
class WrapLeaves : public ir::Mutator {
 public:
  WrapLeaves(bool cube, bool vector) : cube_(cube), vector_(vector) {}

 protected:
  ir::Stmt MutateCoreScope(const ir::Stmt& s, const ir::CoreScopeNode&) override { return s; }
  ir::Stmt MutateTileOp(const ir::Stmt& s, const ir::TileOpNode&) override { return Wrap(s); }
  ir::Stmt MutateStore(const ir::Stmt& s, const ir::StoreNode&) override { return Wrap(s); }
  ir::Stmt MutateBarrier(const ir::Stmt& s, const ir::BarrierNode&) override { return Wrap(s); }
  ir::Stmt MutateFlag(const ir::Stmt& s, const ir::FlagNode&) override { return Wrap(s); }
  ir::Stmt MutateCrossFlag(const ir::Stmt& s, const ir::CrossFlagNode&) override { return Wrap(s); }

 private:
  ir::Stmt Wrap(const ir::Stmt& s) const {
    switch (analysis::LeafWork(*s)) {
      case analysis::Work::kCube:
        return InScope(CoreKind::kCube, s);
      case analysis::Work::kVector:
        return InScope(CoreKind::kVector, s);
      case analysis::Work::kNone:
        return s;
      case analysis::Work::kShared:
        break;
    }
    if (cube_ && vector_) {
      return ir::Seq({InScope(CoreKind::kCube, s), InScope(CoreKind::kVector, s)}, s->loc);
    }
    return InScope(cube_ ? CoreKind::kCube : CoreKind::kVector, s);
  }

  bool cube_, vector_;
};

// Wraps the whole launch body of a single-kind kernel without scopes.
class WrapBody : public ir::Mutator {
 public:
  explicit WrapBody(CoreKind core) : core_(core) {}

 protected:
  ir::Stmt MutateKernelStmt(const ir::Stmt&, const ir::KernelNode& op) override {
    return std::make_shared<ir::KernelNode>(op.grid, op.threads, op.cid, op.vid,
                                            InScope(core_, op.body), op.loc);
  }

 private:
  CoreKind core_;
};

void ReportMixedWithoutScopes(const Survey& survey, DiagnosticEngine* diag, bool cv_combine) {
  const ir::StmtNode& cube = *survey.first_cube;
  const ir::StmtNode& vec = *survey.first_vector;
  // With CV_COMBINE, combine_cv ran first and put every leaf in a scope.
  TILEJIT_CHECK(!cv_combine) << "combine_cv left mixed cube and vector work outside the scopes";
  diag->Error(cube.loc).Note(
      vec.loc, std::string("vector work (") + std::string(analysis::LeafName(vec)) + ") is here")
      << "this kernel mixes cube work (" << analysis::LeafName(cube) << ") and vector work ("
      << analysis::LeafName(vec)
      << ") without T.Scope; either wrap each part in `with T.Scope(\"C\"):` / "
         "`with T.Scope(\"V\"):`, or set TL_ASCEND_AUTO_CV_COMBINE in pass_configs to let the "
         "compiler split the kernel";
}

}  // namespace

Result<ir::Kernel> AssignCores(const ir::Kernel& kernel, PassContext& ctx) {
  Survey survey(ctx.diag);
  survey.VisitKernel(kernel);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  if (survey.has_scopes) {
    ctx.Count("author scopes kept");
    return WrapLeaves(survey.has_cube, survey.has_vector).MutateKernel(kernel);
  }
  if (survey.first_cube != nullptr && survey.first_vector != nullptr) {
    ReportMixedWithoutScopes(survey, ctx.diag, ctx.configs.auto_cv_combine);
    return ctx.diag->ToStatus();
  }
  const CoreKind core = survey.first_cube != nullptr ? CoreKind::kCube : CoreKind::kVector;
  ctx.Count(core == CoreKind::kCube ? "cube-only kernels" : "vector-only kernels");
  return WrapBody(core).MutateKernel(kernel);
}

}  // namespace tilejit::passes
