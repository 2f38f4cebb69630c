// SPDX-License-Identifier: Apache-2.0
// The editable tree of sync_analysis.h: built from Tile IR (every body becomes a sequence node,
// so a sync can be inserted before or after any statement), edited by sync_insert, and turned
// back into Tile IR with the original statements shared wherever nothing changed below them.
#include <algorithm>
#include <utility>

#include "common/check.h"
#include "compiler/analysis/sync_analysis.h"

namespace tilejit::analysis::sync {

Program::Program(const ir::Stmt& root, const target::NpuTarget& target) : target_(target) {
  root_ = BuildSeq(root, nullptr);
  Renumber();
}

Program::Program(const ir::Stmt& root, const target::NpuTarget& target, ir::CoreKind only)
    : target_(target), filter_(true), only_(only) {
  root_ = BuildSeq(root, nullptr);
  Renumber();
}

std::unique_ptr<Node> Program::NewNode(NodeKind kind, ir::Stmt s, Node* parent) {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  n->stmt = std::move(s);
  n->parent = parent;
  n->id = next_id_++;
  if (n->stmt != nullptr && kind != NodeKind::kSeq) n->parts = DescribeStmt(n->stmt, target_);
  return n;
}

std::unique_ptr<Node> Program::BuildSeq(const ir::Stmt& s, Node* parent) {
  if (s != nullptr && s->kind == ir::StmtKind::kSeq) return Build(s, parent);
  auto seq = NewNode(NodeKind::kSeq, nullptr, parent);
  if (s != nullptr) {
    std::unique_ptr<Node> k = Build(s, seq.get());
    if (k != nullptr) seq->kids.push_back(std::move(k));
  }
  return seq;
}

std::unique_ptr<Node> Program::Build(const ir::Stmt& s, Node* parent) {
  switch (s->kind) {
    case ir::StmtKind::kSeq: {
      auto n = NewNode(NodeKind::kSeq, s, parent);
      for (const ir::Stmt& c : ir::As<ir::SeqNode>(s).stmts) {
        if (c == nullptr) continue;
        if (c->kind == ir::StmtKind::kSeq) {
          n->kids.push_back(BuildSeq(c, n.get()));
          continue;
        }
        std::unique_ptr<Node> k = Build(c, n.get());
        if (k != nullptr) n->kids.push_back(std::move(k));
      }
      return n;
    }
    case ir::StmtKind::kKernel: {
      auto n = NewNode(NodeKind::kScope, s, parent);
      n->kids.push_back(BuildSeq(ir::As<ir::KernelNode>(s).body, n.get()));
      return n;
    }
    case ir::StmtKind::kCoreScope: {
      const auto& sc = ir::As<ir::CoreScopeNode>(s);
      if (filter_ && sc.core != only_) return nullptr;
      auto n = NewNode(NodeKind::kScope, s, parent);
      n->kids.push_back(BuildSeq(sc.body, n.get()));
      return n;
    }
    case ir::StmtKind::kFor: {
      auto n = NewNode(NodeKind::kFor, s, parent);
      n->kids.push_back(BuildSeq(ir::As<ir::ForNode>(s).body, n.get()));
      return n;
    }
    case ir::StmtKind::kIf: {
      const auto& i = ir::As<ir::IfNode>(s);
      auto n = NewNode(NodeKind::kIf, s, parent);
      n->kids.push_back(BuildSeq(i.then_body, n.get()));
      if (i.else_body != nullptr) n->kids.push_back(BuildSeq(i.else_body, n.get()));
      return n;
    }
    case ir::StmtKind::kLet: {
      auto n = NewNode(NodeKind::kLet, s, parent);
      n->kids.push_back(BuildSeq(ir::As<ir::LetNode>(s).body, n.get()));
      return n;
    }
    case ir::StmtKind::kBarrier:
    case ir::StmtKind::kSetFlag:
    case ir::StmtKind::kWaitFlag:
    case ir::StmtKind::kSetCrossFlag:
    case ir::StmtKind::kWaitCrossFlag:
      return NewNode(NodeKind::kSync, s, parent);
    case ir::StmtKind::kAllocate:
    case ir::StmtKind::kStore:
    case ir::StmtKind::kTileOp:
      return NewNode(NodeKind::kLeaf, s, parent);
  }
  TILEJIT_UNREACHABLE();
  return nullptr;
}

Node* Program::Insert(Node* anchor, ir::Stmt stmt, int pair, bool after) {
  Node* seq = anchor->parent;
  TILEJIT_CHECK(seq != nullptr && seq->kind == NodeKind::kSeq) << "sync anchor outside a sequence";
  auto it = std::find_if(seq->kids.begin(), seq->kids.end(),
                         [&](const std::unique_ptr<Node>& k) { return k.get() == anchor; });
  TILEJIT_CHECK(it != seq->kids.end()) << "sync anchor not in its parent";
  auto n = NewNode(NodeKind::kSync, std::move(stmt), seq);
  n->pair = pair;
  Node* raw = n.get();
  seq->kids.insert(after ? it + 1 : it, std::move(n));
  return raw;
}

void Program::Replace(Node* sync, ir::Stmt stmt) {
  sync->stmt = std::move(stmt);
  sync->parts = DescribeStmt(sync->stmt, target_);
}

void Program::Remove(Node* sync) {
  Node* seq = sync->parent;
  std::erase_if(seq->kids, [&](const std::unique_ptr<Node>& k) { return k.get() == sync; });
}

void Program::Renumber() {
  int order = 0;
  std::vector<std::pair<Node*, bool>> stack{{root_.get(), false}};  // (node, kids done)
  while (!stack.empty()) {
    auto [n, done] = stack.back();
    stack.pop_back();
    if (done) {
      n->last = order - 1;
      continue;
    }
    n->order = order++;
    stack.push_back({n, true});
    for (auto it = n->kids.rbegin(); it != n->kids.rend(); ++it)
      stack.push_back({it->get(), false});
  }
}

namespace {

ir::Stmt RebuildNode(const Node* n);

ir::Stmt RebuildBody(const Node* seq) {
  std::vector<ir::Stmt> stmts;
  for (const auto& k : seq->kids)
    if (!k->disabled) stmts.push_back(RebuildNode(k.get()));
  const SourceLoc loc = seq->stmt != nullptr ? seq->stmt->loc : SourceLoc{};
  if (seq->stmt == nullptr && stmts.size() == 1) return stmts[0];
  return ir::Seq(std::move(stmts), loc);
}

ir::Stmt RebuildNode(const Node* n) {
  switch (n->kind) {
    case NodeKind::kSeq:
      return RebuildBody(n);
    case NodeKind::kLeaf:
    case NodeKind::kSync:
      return n->stmt;
    case NodeKind::kFor: {
      const auto& f = ir::As<ir::ForNode>(n->stmt);
      return std::make_shared<ir::ForNode>(f.var, f.min, f.extent, f.for_kind, f.num_stages,
                                           RebuildBody(n->kids[0].get()), f.loc);
    }
    case NodeKind::kIf: {
      const auto& i = ir::As<ir::IfNode>(n->stmt);
      ir::Stmt e = n->kids.size() > 1 ? RebuildBody(n->kids[1].get()) : nullptr;
      return std::make_shared<ir::IfNode>(i.cond, RebuildBody(n->kids[0].get()), e, i.loc);
    }
    case NodeKind::kLet: {
      const auto& l = ir::As<ir::LetNode>(n->stmt);
      return std::make_shared<ir::LetNode>(l.var, l.value, RebuildBody(n->kids[0].get()), l.loc);
    }
    case NodeKind::kScope: {
      if (const auto* k = ir::TryAs<ir::KernelNode>(n->stmt)) {
        return std::make_shared<ir::KernelNode>(k->grid, k->threads, k->cid, k->vid,
                                                RebuildBody(n->kids[0].get()), k->loc);
      }
      const auto& sc = ir::As<ir::CoreScopeNode>(n->stmt);
      return std::make_shared<ir::CoreScopeNode>(sc.core, RebuildBody(n->kids[0].get()), sc.loc);
    }
  }
  TILEJIT_UNREACHABLE();
  return nullptr;
}

}  // namespace

ir::Stmt Program::Rebuild() const { return RebuildNode(root_.get()); }

}  // namespace tilejit::analysis::sync
