// SPDX-License-Identifier: Apache-2.0
// Fill loops. A declared workspace that one side fills piece by piece (a row per copy) and the
// other reads whole is one hand-off per run of the loop that does the filling, not one per
// copy. Which loop that is follows the read count, as upstream's cross-core sync pairs loops
// by their cumulative trip counts: the outermost loops whose runs add up to the other side's
// reads. Three shapes occur (all tested): the row loop inside an iteration loop that also
// reads other workspaces (the sparse flash attentions), an iteration loop whose only
// workspace accesses are the fill (the outer loop is pure but runs once: descend a level),
// and the iteration loop unrolled by multi_buffer (several row loops, one run each, summed).
#include <algorithm>
#include <memory>
#include <utility>

#include "compiler/analysis/cv_handoff.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/cross_core_sync_internal.h"

namespace tilejit::passes::xsync {
namespace {

// A loop whose body touches workspaces only by writing declared ones, with no author cross
// flag: its directly written workspaces and its nested loops (themselves pure).
struct PureLoop {
  const ir::ForNode* loop = nullptr;
  int64_t runs = 0;  // executions of the loop statement, -1 when not a constant
  std::map<const ir::BufferNode*, int> direct;  // writes not inside a nested loop
  std::vector<const ir::BufferNode*> order;     // written workspaces, first-write order
  std::vector<std::unique_ptr<PureLoop>> children;
};

bool IsPure(const ir::Stmt& body) {
  struct Check : ir::Visitor {
    bool pure = true;
    void VisitCrossFlag(const ir::CrossFlagNode&) override { pure = false; }
    void VisitTileOp(const ir::TileOpNode& op) override {
      const ir::BufferNode* w = WorkspaceArg(op, 0);
      if (WorkspaceArg(op, 1) != nullptr || (w != nullptr && analysis::IsCompilerWorkspace(*w)))
        pure = false;
    }
  } check;
  check.Visit(body);
  return check.pure;
}

// Builds the tree of a pure loop: nested loops under an `if` or with a runtime extent get
// runs -1 (their run count is unknown, so they never match a read count).
class TreeBuilder : public ir::Visitor {
 public:
  static std::unique_ptr<PureLoop> Build(const ir::ForNode& op, int64_t runs) {
    auto node = std::make_unique<PureLoop>();
    node->loop = &op;
    node->runs = runs;
    TreeBuilder b(node.get());
    const std::optional<int64_t> ext = ir::AsConstInt(op.extent);
    if (!ext.has_value() || runs < 0 || __builtin_mul_overflow(runs, *ext, &b.inner_runs_))
      b.inner_runs_ = -1;
    b.Visit(op.body);
    return node;
  }

 protected:
  void VisitFor(const ir::ForNode& op) override {
    std::unique_ptr<PureLoop> child = Build(op, inner_runs_);
    for (const ir::BufferNode* ws : child->order) Note(ws);
    node_->children.push_back(std::move(child));
  }
  void VisitIf(const ir::IfNode& op) override {
    const int64_t saved = inner_runs_;
    inner_runs_ = -1;
    ir::Visitor::VisitIf(op);
    inner_runs_ = saved;
  }
  void VisitTileOp(const ir::TileOpNode& op) override {
    const ir::BufferNode* ws = WorkspaceArg(op, 0);
    if (ws == nullptr) return;
    node_->direct[ws]++;
    Note(ws);
  }

 private:
  explicit TreeBuilder(PureLoop* node) : node_(node) {}
  void Note(const ir::BufferNode* ws) {
    if (std::find(node_->order.begin(), node_->order.end(), ws) == node_->order.end())
      node_->order.push_back(ws);
  }
  PureLoop* node_;
  int64_t inner_runs_ = 0;
};

// The outermost pure loops of each side, with the run counts of the loops around them.
class Roots : public ir::Visitor {
 public:
  std::vector<std::unique_ptr<PureLoop>> side[2];

 protected:
  void VisitCoreScope(const ir::CoreScopeNode& op) override {
    side_ = op.core == ir::CoreKind::kCube ? 0 : 1;
    ir::Visitor::VisitCoreScope(op);
    side_ = -1;
  }
  void VisitFor(const ir::ForNode& op) override {
    if (side_ < 0) return;
    if (IsPure(op.body)) {
      side[side_].push_back(TreeBuilder::Build(op, runs_));
      return;
    }
    const int64_t saved = runs_;
    const std::optional<int64_t> ext = ir::AsConstInt(op.extent);
    if (!ext.has_value() || runs_ < 0 || __builtin_mul_overflow(runs_, *ext, &runs_)) runs_ = -1;
    Visit(op.body);
    runs_ = saved;
  }
  void VisitIf(const ir::IfNode& op) override {
    const int64_t saved = runs_;
    runs_ = -1;
    ir::Visitor::VisitIf(op);
    runs_ = saved;
  }

 private:
  int side_ = -1;
  int64_t runs_ = 1;
};

bool Writes(const PureLoop& n, const ir::BufferNode* ws) {
  return std::find(n.order.begin(), n.order.end(), ws) != n.order.end();
}

int CountWrites(const PureLoop& n, const ir::BufferNode* ws) {
  auto it = n.direct.find(ws);
  int total = it == n.direct.end() ? 0 : it->second;
  for (const auto& c : n.children) total += CountWrites(*c, ws);
  return total;
}

// Level by level from the outermost pure loops that write `ws`: the first level whose runs
// add up to `reads`. A level ends the search when one of its loops writes `ws` outside a
// nested loop (the writes could not all be covered one level down).
std::vector<const PureLoop*> UnitsOf(const std::vector<std::unique_ptr<PureLoop>>& roots,
                                     const FillCandidate& c) {
  std::vector<const PureLoop*> level;
  int writes = 0;
  for (const auto& r : roots) {
    if (!Writes(*r, c.ws)) continue;
    level.push_back(r.get());
    writes += CountWrites(*r, c.ws);
  }
  if (writes != c.writes) return {};  // some write lies outside every pure loop
  constexpr int kMaxDepth = 8;
  for (int depth = 0; depth < kMaxDepth && !level.empty(); ++depth) {
    int64_t runs = 0;
    for (const PureLoop* n : level)
      if (n->runs < 0 || __builtin_add_overflow(runs, n->runs, &runs)) runs = -1;
    if (runs == c.reads) return level;
    std::vector<const PureLoop*> next;
    for (const PureLoop* n : level) {
      if (n->direct.contains(c.ws)) return {};
      for (const auto& child : n->children)
        if (Writes(*child, c.ws)) next.push_back(child.get());
    }
    level = std::move(next);
  }
  return {};
}

}  // namespace

std::map<const ir::ForNode*, std::vector<const ir::BufferNode*>> FindFillLoops(
    const ir::Kernel& kernel, const std::vector<FillCandidate>& candidates,
    std::set<const ir::BufferNode*>* filled) {
  Roots roots;
  roots.VisitKernel(kernel);
  std::map<const PureLoop*, std::set<const ir::BufferNode*>> chosen;
  for (const FillCandidate& c : candidates) {
    if (c.reads < 1) continue;
    std::vector<const PureLoop*> units = UnitsOf(roots.side[c.side], c);
    if (units.empty()) continue;
    filled->insert(c.ws);
    for (const PureLoop* u : units) chosen[u].insert(c.ws);
  }
  std::map<const ir::ForNode*, std::vector<const ir::BufferNode*>> loops;
  for (const auto& [node, ws] : chosen)
    for (const ir::BufferNode* w : node->order)  // first-write order, as HandOffShape reads
      if (ws.contains(w)) loops[node->loop].push_back(w);
  return loops;
}

}  // namespace tilejit::passes::xsync
