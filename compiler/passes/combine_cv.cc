// SPDX-License-Identifier: Apache-2.0
// Allocations are hoisted out of the scopes because an allocation is a declaration for the
// whole launch (memory_planning places every buffer once, for the core that owns its memory),
// and load-free lets at the head of the body are hoisted so the block indices both programs
// derive from cid are computed once in the text, as the author wrote them. Everything else is
// projected (combine_cv_project.cc).
#include "compiler/passes/combine_cv.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "compiler/analysis/cv_handoff.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/combine_cv_internal.h"

namespace tilejit::passes {
namespace {

std::vector<ir::Stmt> CollectAllocs(const ir::Stmt& body) {
  class Collector : public ir::Visitor {
   public:
    std::vector<const ir::AllocateNode*> found;

   protected:
    void VisitAllocate(const ir::AllocateNode& op) override { found.push_back(&op); }
    // Author T.Scope bodies are inlined as they are, allocations included.
    void VisitCoreScope(const ir::CoreScopeNode&) override {}
  } collector;
  collector.Visit(body);
  std::vector<ir::Stmt> out;
  for (const ir::AllocateNode* a : collector.found) {
    out.push_back(std::make_shared<ir::AllocateNode>(a->buffer, a->loc));
  }
  return out;
}

// Peels the load-free lets that bind over the rest of the body (a let is always the last
// statement of its sequence). Moving such a let before earlier statements is safe: its value
// reads no memory and its var is not visible to them.
ir::Stmt PeelLets(const ir::Stmt& s, std::vector<const ir::LetNode*>* lets) {
  if (const auto* let = ir::TryAs<ir::LetNode>(s); let != nullptr && !ir::HasLoad(let->value)) {
    lets->push_back(let);
    return PeelLets(let->body, lets);
  }
  const auto* seq = ir::TryAs<ir::SeqNode>(s);
  if (seq == nullptr || seq->stmts.empty()) return s;
  std::vector<ir::Stmt> stmts = seq->stmts;
  stmts.back() = PeelLets(stmts.back(), lets);
  if (stmts.back() == seq->stmts.back()) return s;
  return ir::Seq(std::move(stmts), seq->loc);
}

ir::Stmt SplitBody(const ir::Stmt& body, PassContext& ctx, bool* split) {
  std::vector<const ir::LetNode*> lets;
  ir::Stmt rest = PeelLets(body, &lets);
  cv::Projector cube(ir::CoreKind::kCube, ctx.diag);
  cv::Projector vector(ir::CoreKind::kVector, ctx.diag);
  ir::Stmt cube_body = cube.Project(rest);
  ir::Stmt vector_body = vector.Project(rest);
  *split = cube.has_work() || vector.has_work();
  if (!*split) return body;
  std::vector<ir::Stmt> scopes;
  if (cube.has_work()) {
    scopes.push_back(
        std::make_shared<ir::CoreScopeNode>(ir::CoreKind::kCube, cube_body, body->loc));
  }
  if (vector.has_work()) {
    scopes.push_back(
        std::make_shared<ir::CoreScopeNode>(ir::CoreKind::kVector, vector_body, body->loc));
  }
  ir::Stmt inner = scopes.size() == 1 ? scopes.front() : ir::Seq(std::move(scopes), body->loc);
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
    inner = std::make_shared<ir::LetNode>((*it)->var, (*it)->value, std::move(inner), (*it)->loc);
  }
  std::vector<ir::Stmt> out = CollectAllocs(body);
  out.push_back(std::move(inner));
  return ir::Seq(std::move(out), body->loc);
}

class Splitter : public ir::Mutator {
 public:
  explicit Splitter(PassContext& ctx) : ctx_(ctx) {}

 protected:
  ir::Stmt MutateKernelStmt(const ir::Stmt& s, const ir::KernelNode& op) override {
    bool split = false;
    ir::Stmt body = SplitBody(op.body, ctx_, &split);
    if (!split) return s;
    return std::make_shared<ir::KernelNode>(op.grid, op.threads, op.cid, op.vid, std::move(body),
                                            op.loc);
  }

 private:
  PassContext& ctx_;
};

// Where each compiler workspace is written and read, per core type.
class HandOffFinder : public ir::Visitor {
 public:
  struct Uses {
    const ir::TileOpNode* write[2] = {nullptr, nullptr};  // [cube, vector]: the first write
    bool read[2] = {false, false};
  };
  std::map<const ir::BufferNode*, Uses> uses;
  std::vector<const ir::BufferNode*> order;  // first-seen order (deterministic)

 protected:
  void VisitCoreScope(const ir::CoreScopeNode& op) override {
    const int saved = side_;
    side_ = op.core == ir::CoreKind::kCube ? 0 : 1;
    ir::Visitor::VisitCoreScope(op);
    side_ = saved;
  }
  void VisitTileOp(const ir::TileOpNode& op) override {
    if (op.op != ir::TileOpCode::kCopy || side_ < 0 || op.args.size() != 2) return;
    for (size_t i = 0; i < 2; ++i) {
      const auto* r = std::get_if<ir::Region>(&op.args[i]);
      if (r == nullptr || !analysis::IsCompilerWorkspace(*r->buffer)) continue;
      auto [it, fresh] = uses.try_emplace(r->buffer.get());
      if (fresh) order.push_back(r->buffer.get());
      if (i == 0 && it->second.write[side_] == nullptr) it->second.write[side_] = &op;
      if (i == 1) it->second.read[side_] = true;
    }
  }

 private:
  int side_ = -1;
};

void CheckHandOffs(const ir::Kernel& kernel, PassContext& ctx) {
  HandOffFinder finder;
  finder.Visit(kernel.body);
  for (const ir::BufferNode* ws : finder.order) {
    const HandOffFinder::Uses& u = finder.uses.at(ws);
    for (int side = 0; side < 2; ++side) {
      if (u.write[side] == nullptr || !u.read[1 - side]) continue;
      ctx.Count("hand_offs");
      if (ctx.configs.auto_cv_sync) continue;
      ctx.diag->Error(u.write[side]->loc)
          << "this copy hands data from the " << (side == 0 ? "cube" : "vector") << " core to the "
          << (side == 0 ? "vector" : "cube")
          << " core through a compiler workspace, and nothing orders the two sides: set "
             "TL_ASCEND_AUTO_CV_SYNC in pass_configs so the compiler adds the cross-core flags "
             "(or write the T.Scope blocks, the workspace and the flags yourself)";
    }
  }
}

}  // namespace

Result<ir::Kernel> CombineCv(const ir::Kernel& kernel, PassContext& ctx) {
  TILEJIT_CHECK(ctx.diag != nullptr) << "PassContext incomplete";
  ir::Kernel out = Splitter(ctx).MutateKernel(kernel);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  CheckHandOffs(out, ctx);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  return out;
}

}  // namespace tilejit::passes
