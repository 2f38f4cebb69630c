// SPDX-License-Identifier: Apache-2.0
// The projection keeps the control structure of the body on both sides because both programs
// must run every loop and branch around their own work the same number of times: that is what
// lets cross_core_sync pair the n-th write of a workspace on one core with the n-th read on
// the other. A control expression that reads one core's memory cannot be evaluated on the
// other core, so it is refused rather than replicated with a wrong value.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/analysis/core_kind.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/combine_cv_internal.h"

namespace tilejit::passes::cv {
namespace {

const char* CoreText(ir::CoreKind k) { return k == ir::CoreKind::kCube ? "cube" : "vector"; }

bool UsesVar(const ir::Stmt& s, const ir::Var& v) {
  class Finder : public ir::Visitor {
   public:
    explicit Finder(const ir::VarNode* v) : v_(v) {}
    bool found = false;

   protected:
    void VisitVarRef(const ir::VarRefNode& op) override { found = found || op.var.get() == v_; }

   private:
    const ir::VarNode* v_;
  } finder(v.get());
  finder.Visit(s);
  return finder.found;
}

}  // namespace

std::optional<ir::CoreKind> HomeOf(const ir::BufferNode& b) {
  if (b.scope == ir::MemScope::kUB) return ir::CoreKind::kVector;
  if (analysis::IsCubeScope(b.scope)) return ir::CoreKind::kCube;
  return std::nullopt;
}

std::optional<ir::CoreKind> Projector::HomeOfExpr(const ir::Expr& e, std::string* name) const {
  class Finder : public ir::Visitor {
   public:
    explicit Finder(const Projector& p) : p_(p) {}
    std::optional<ir::CoreKind> home;
    std::string name;

   protected:
    void VisitLoad(const ir::LoadNode& op) override {
      std::optional<ir::CoreKind> h = HomeOf(*op.buffer);
      auto it = p_.scalar_home_.find(op.buffer.get());
      if (!h.has_value() && it != p_.scalar_home_.end()) h = it->second;
      Found(h, op.buffer->name);
      ir::Visitor::VisitLoad(op);
    }
    void VisitVarRef(const ir::VarRefNode& op) override {
      auto it = p_.var_home_.find(op.var.get());
      if (it != p_.var_home_.end()) Found(it->second, op.var->name);
    }

   private:
    void Found(std::optional<ir::CoreKind> h, const std::string& n) {
      if (home.has_value() || !h.has_value()) return;
      home = h;
      name = n;
    }
    const Projector& p_;
  } finder(*this);
  finder.Visit(e);
  if (name != nullptr) *name = finder.name;
  return finder.home;
}

ir::Stmt Projector::Project(const ir::Stmt& s) {
  if (s == nullptr) return nullptr;
  switch (s->kind) {
    case ir::StmtKind::kSeq:
      return ProjectSeq(ir::As<ir::SeqNode>(s));
    case ir::StmtKind::kAllocate:
    case ir::StmtKind::kKernel:  // a nested launch is rejected earlier (verifier)
      return nullptr;
    case ir::StmtKind::kFor:
      return ProjectFor(s, ir::As<ir::ForNode>(s));
    case ir::StmtKind::kIf:
      return ProjectIf(s, ir::As<ir::IfNode>(s));
    case ir::StmtKind::kLet:
      return ProjectLet(s, ir::As<ir::LetNode>(s));
    case ir::StmtKind::kStore:
      return ProjectStore(s, ir::As<ir::StoreNode>(s));
    case ir::StmtKind::kCoreScope: {
      const auto& scope = ir::As<ir::CoreScopeNode>(s);
      if (scope.core != core_) return nullptr;
      has_work_ = true;
      return scope.body;
    }
    default:
      return ProjectLeaf(s);
  }
}

ir::Stmt Projector::ProjectSeq(const ir::SeqNode& op) {
  std::vector<ir::Stmt> kept;
  for (const ir::Stmt& c : op.stmts) {
    ir::Stmt p = Project(c);
    if (p == nullptr) continue;
    if (const auto* inner = ir::TryAs<ir::SeqNode>(p)) {
      kept.insert(kept.end(), inner->stmts.begin(), inner->stmts.end());
    } else {
      kept.push_back(std::move(p));
    }
  }
  if (kept.empty()) return nullptr;
  if (kept.size() == 1) return kept.front();
  return ir::Seq(std::move(kept), op.loc);
}

void Projector::CheckReplicable(const ir::Expr& e, SourceLoc loc, const std::string& what) {
  std::string name;
  const std::optional<ir::CoreKind> home = HomeOfExpr(e, &name);
  // Only the projection that needs the value but cannot compute it reports: once per statement.
  if (!home.has_value() || *home == core_) return;
  diag_->Error(loc) << "the " << what << " depends on '" << name << "', which only the "
                    << CoreText(*home) << " core has, but the " << CoreText(core_)
                    << " core's work needs it too; automatic cube/vector separation cannot "
                       "share on-chip values between the cores: compute it from scalars or GM, "
                       "or split the kernel with T.Scope";
}

ir::Stmt Projector::ProjectFor(const ir::Stmt& s, const ir::ForNode& op) {
  ir::Stmt body = Project(op.body);
  if (body == nullptr) return nullptr;
  CheckReplicable(op.min, op.loc, "loop start");
  CheckReplicable(op.extent, op.loc, "loop extent");
  if (body == op.body) return s;
  return std::make_shared<ir::ForNode>(op.var, op.min, op.extent, op.for_kind, op.num_stages,
                                       std::move(body), op.loc);
}

ir::Stmt Projector::ProjectIf(const ir::Stmt& s, const ir::IfNode& op) {
  ir::Stmt then_body = Project(op.then_body);
  ir::Stmt else_body = Project(op.else_body);
  if (then_body == nullptr && else_body == nullptr) return nullptr;
  CheckReplicable(op.cond, op.loc, "condition");
  if (then_body == op.then_body && else_body == op.else_body) return s;
  if (then_body == nullptr) then_body = ir::Seq({}, op.loc);
  return std::make_shared<ir::IfNode>(op.cond, std::move(then_body), std::move(else_body), op.loc);
}

ir::Stmt Projector::ProjectLet(const ir::Stmt& s, const ir::LetNode& op) {
  std::optional<ir::CoreKind> home = HomeOfExpr(op.value, nullptr);
  if (home.has_value()) var_home_[op.var.get()] = *home;
  ir::Stmt body = Project(op.body);
  if (body == nullptr) return nullptr;
  // A let only the other core's work uses is dropped here (its value may read that core's
  // memory); a used one must be computable on this core.
  if (!UsesVar(body, op.var)) return body;
  CheckReplicable(op.value, op.loc, "value of this let");
  if (body == op.body) return s;
  return std::make_shared<ir::LetNode>(op.var, op.value, std::move(body), op.loc);
}

ir::Stmt Projector::ProjectStore(const ir::Stmt& s, const ir::StoreNode& op) {
  std::optional<ir::CoreKind> home = HomeOf(*op.buffer);
  if (!home.has_value()) {
    // A scalar store to a var or GM element: replicated, unless its value or indices derive
    // from one core's memory; then only that core can compute it, and the element is that
    // core's from now on.
    home = HomeOfExpr(op.value, nullptr);
    for (const ir::Expr& i : op.indices) {
      if (!home.has_value()) home = HomeOfExpr(i, nullptr);
    }
    if (home.has_value()) scalar_home_[op.buffer.get()] = *home;
  }
  if (home.has_value() && *home != core_) return nullptr;
  if (home.has_value()) has_work_ = true;
  return s;
}

ir::Stmt Projector::ProjectLeaf(const ir::Stmt& s) {
  switch (analysis::LeafWork(*s)) {
    case analysis::Work::kCube:
    case analysis::Work::kVector: {
      const bool cube = analysis::LeafWork(*s) == analysis::Work::kCube;
      if (cube != (core_ == ir::CoreKind::kCube)) return nullptr;
      has_work_ = true;
      return s;
    }
    case analysis::Work::kNone:
      return s;
    case analysis::Work::kShared:
      break;
  }
  if (s->kind == ir::StmtKind::kSetCrossFlag || s->kind == ir::StmtKind::kWaitCrossFlag) {
    if (core_ == ir::CoreKind::kCube) {
      diag_->Error(s->loc) << "cannot tell which core runs this cross-core flag: its pipe ("
                           << target::PipeName(ir::As<ir::CrossFlagNode>(s).pipe)
                           << ") exists on both the cube and the vector cores; put it in a "
                              "T.Scope(\"C\") or T.Scope(\"V\") block";
    }
    return nullptr;
  }
  return s;  // barrier all and syncs on MTE2/MTE3/S pairs: each core orders its own pipes
}

}  // namespace tilejit::passes::cv
