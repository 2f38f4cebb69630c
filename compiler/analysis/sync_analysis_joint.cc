// SPDX-License-Identifier: Apache-2.0
// The two-core half of the analysis: cube and vector programs walked together so that an order
// through the other core (cube fix -> xset -> vector xwait ... vector xset -> cube xwait) is
// seen. A cross-core counter is a FIFO of tokens: the n-th wait on a core consumes the n-th
// set aimed at it, whatever the timing, so pairing by count is exact. The walk interleaves the
// two programs, each in program order, running one until it waits on an empty counter; where
// neither can go on (the set it needs comes from a part of the other program that does not line
// up with it), the wait is passed with nothing gained and a deficit drops the set it consumed
// when that set is reached. Interleaving only decides how much is proven, never what: a token
// carries only records issued before its set in its own program, and a record issued again
// is erased from every token in flight.
// Loops and ifs that hold cross-core flags must line up between the programs (same kind, same
// bounds or condition, bodies lining up in turn), which is what combine_cv's projections of
// one source program give; they are walked together (a joint fixpoint for loops, a joint merge
// for ifs). Anything else around a cross-core flag makes the analysis fall back to one core at
// a time.
#include <map>
#include <utility>

#include "common/check.h"
#include "compiler/analysis/sync_analysis_internal.h"
#include "compiler/ir/printer.h"

namespace tilejit::analysis::sync::internal {

// Walks two flattened statement lists together; holds the per-node caches of one run.
class JointSchedule {
 public:
  explicit JointSchedule(Walker& w) : w_(w) {}

  const std::vector<Item>& Items(const Node* seq) {
    auto it = items_.find(seq);
    if (it != items_.end()) return it->second;
    std::vector<Item> out;
    Flatten(seq, out);
    return items_.emplace(seq, std::move(out)).first->second;
  }

  // True when a loop or if holds a modelled cross-core flag (and must line up).
  bool Pinned(const Item& it) {
    if (it.header) return false;
    const Node* n = it.node;
    if (n->kind != NodeKind::kFor && n->kind != NodeKind::kIf) return false;
    auto c = pinned_.find(n);
    if (c != pinned_.end()) return c->second;
    const bool v = HoldsCross(n);
    pinned_.emplace(n, v);
    return v;
  }

  bool ListsLineUp(const Node* a, const Node* b) {
    std::vector<const Node*> pa, pb;
    for (const Item& it : Items(a))
      if (Pinned(it)) pa.push_back(it.node);
    for (const Item& it : Items(b))
      if (Pinned(it)) pb.push_back(it.node);
    if (pa.size() != pb.size()) return false;
    for (size_t i = 0; i < pa.size(); ++i)
      if (!LineUp(pa[i], pb[i])) return false;
    return true;
  }

  void Seq(const Node* a, const Node* b, State& st);

 private:
  void Flatten(const Node* seq, std::vector<Item>& out) {
    for (const auto& k : seq->kids) {
      switch (k->kind) {
        case NodeKind::kSeq:
          Flatten(k.get(), out);
          break;
        case NodeKind::kScope:
        case NodeKind::kLet:
          out.push_back({k.get(), true});
          Flatten(k->kids[0].get(), out);
          break;
        default:
          out.push_back({k.get(), false});
      }
    }
  }

  bool HoldsCross(const Node* n) const {
    if (n->kind == NodeKind::kSync && !n->disabled) {
      const auto* x = ir::TryAs<ir::CrossFlagNode>(n->stmt);
      return x != nullptr && w_.Modelled(*x);
    }
    for (const auto& k : n->kids)
      if (HoldsCross(k.get())) return true;
    return false;
  }

  bool LineUp(const Node* a, const Node* b) {
    if (a->kind != b->kind || a->kids.size() != b->kids.size()) return false;
    if (a->kind == NodeKind::kFor) {
      const auto& fa = ir::As<ir::ForNode>(a->stmt);
      const auto& fb = ir::As<ir::ForNode>(b->stmt);
      if (ir::PrintExpr(fa.min) != ir::PrintExpr(fb.min) ||
          ir::PrintExpr(fa.extent) != ir::PrintExpr(fb.extent)) {
        return false;
      }
    } else if (ir::PrintExpr(ir::As<ir::IfNode>(a->stmt).cond) !=
               ir::PrintExpr(ir::As<ir::IfNode>(b->stmt).cond)) {
      return false;
    }
    for (size_t i = 0; i < a->kids.size(); ++i)
      if (!ListsLineUp(a->kids[i].get(), b->kids[i].get())) return false;
    return true;
  }

  void Step(const Item& it, int core, State& st) {
    if (it.header) {
      w_.Leaf(it.node, core, st);
    } else {
      w_.Walk(it.node, core, st);
    }
  }

  void Together(const Node* a, const Node* b, State& st);

  Walker& w_;
  std::map<const Node*, std::vector<Item>> items_;
  std::map<const Node*, bool> pinned_;
};

void JointSchedule::Seq(const Node* a, const Node* b, State& st) {
  const std::vector<Item>* lists[2] = {&Items(a), &Items(b)};
  size_t at[2] = {0, 0};
  auto done = [&](int c) { return at[c] == lists[c]->size(); };
  auto pinned = [&](int c) { return !done(c) && Pinned((*lists[c])[at[c]]); };
  while (!w_.stopped_) {
    bool moved = false;
    for (int c = 0; c < 2; ++c) {
      for (; !done(c) && !pinned(c); ++at[c], moved = true) {
        const Item& it = (*lists[c])[at[c]];
        if (w_.BlockedWait(it, c, st)) break;
        Step(it, c, st);
      }
    }
    if (done(0) && done(1)) return;
    if (pinned(0) && pinned(1)) {
      Together((*lists[0])[at[0]].node, (*lists[1])[at[1]].node, st);
      ++at[0];
      ++at[1];
      continue;
    }
    if (moved) continue;
    // Stuck: a wait whose set lies in a part that does not line up. Pass it empty-handed.
    const int c = !done(0) && !pinned(0) ? 0 : 1;
    TILEJIT_CHECK(!done(c) && !pinned(c)) << "sync analysis: pinned statements do not line up";
    Step((*lists[c])[at[c]], c, st);
    ++at[c];
  }
}

void JointSchedule::Together(const Node* a, const Node* b, State& st) {
  w_.Leaf(a, 0, st);
  w_.Leaf(b, 1, st);
  if (a->kind == NodeKind::kIf) {  // b's condition and arms line up with a's
    w_.Branch(
        a, [&](int arm, State& s) { Seq(a->kids[arm].get(), b->kids[arm].get(), s); }, st);
    return;
  }
  w_.Loop(
      {{a, 0}, {b, 1}}, [&](State& s) { Seq(a->kids[0].get(), b->kids[0].get(), s); }, st);
}

namespace {

// The modelled counters: ids every cross-core flag of both programs names as a constant and
// sets only in mode 2 (the AIC <-> AIVs counters); none when some flag's id is a runtime value
// (it could be any counter).
bool CollectIds(const Node* n, std::set<int64_t>& ids, std::set<int64_t>& excluded) {
  if (const auto* x = n->stmt != nullptr ? ir::TryAs<ir::CrossFlagNode>(n->stmt) : nullptr) {
    const std::optional<int64_t> id = ir::AsConstInt(x->flag);
    if (!id) return false;
    ids.insert(*id);
    if (n->stmt->kind == ir::StmtKind::kSetCrossFlag && x->mode != 2) excluded.insert(*id);
  }
  for (const auto& k : n->kids)
    if (!CollectIds(k.get(), ids, excluded)) return false;
  return true;
}

int QueueOf(int receiver, int64_t id) { return receiver * 64 + static_cast<int>(id); }

}  // namespace

std::vector<Analysis> Walker::Run(bool joint) {
  State st = slots_.Empty();
  if (joint && programs_.size() == 2) {
    std::set<int64_t> ids, excluded;
    bool constant = true;
    for (const Program* p : programs_) constant = constant && CollectIds(p->root(), ids, excluded);
    if (constant) {
      for (int64_t id : ids)
        if (excluded.count(id) == 0) modelled_ids_.insert(id);
    }
    JointSchedule schedule(*this);
    joint_ =
        !modelled_ids_.empty() && schedule.ListsLineUp(programs_[0]->root(), programs_[1]->root());
    if (joint_) schedule.Seq(programs_[0]->root(), programs_[1]->root(), st);
  }
  if (!joint_) {
    for (size_t c = 0; c < programs_.size(); ++c)
      Walk(programs_[c]->root(), static_cast<int>(c), st);
  }
  for (const auto& [k, e] : st.evs)
    if (e.maybe) Flag(FlagIssue::kArmedAtExit, static_cast<int>(k >> 56), e.setter);
  for (Analysis& a : out_) a.cross_core = joint_;
  return std::move(out_);
}

bool Walker::Modelled(const ir::CrossFlagNode& f) const {
  const std::optional<int64_t> id = ir::AsConstInt(f.flag);
  return id && modelled_ids_.count(*id) != 0;
}

bool Walker::BlockedWait(const Item& it, int core, const State& st) const {
  const Node* n = it.node;
  if (it.header || n->kind != NodeKind::kSync || n->disabled ||
      n->stmt->kind != ir::StmtKind::kWaitCrossFlag) {
    return false;
  }
  const auto& x = ir::As<ir::CrossFlagNode>(n->stmt);
  if (!Modelled(x)) return false;
  const Queue* q = st.queues.Find(QueueOf(core, *ir::AsConstInt(x.flag)));
  return q == nullptr || (!q->lost && q->tokens.empty());
}

// A mode-2 set fires once every earlier instruction of its pipe completed: the token is what
// that pipe has ordered. An AIC set reaches both AIVs and the AIVs' sets count once both have
// set, so one vector program stands for both.
void Walker::CrossSet(const ir::CrossFlagNode& f, int core, State& st) {
  Queue& q = st.queues[QueueOf(1 - core, *ir::AsConstInt(f.flag))];
  if (q.lost) return;
  if (q.deficit > 0) {
    --q.deficit;
    return;
  }
  q.tokens.emplace_back();
  Ordered(f.pipe, core, st, q.tokens.back());
}

void Walker::CrossWait(const ir::CrossFlagNode& f, int core, State& st) {
  Queue& q = st.queues[QueueOf(core, *ir::AsConstInt(f.flag))];
  if (q.lost) return;
  if (q.tokens.empty()) {
    ++q.deficit;
    return;
  }
  Row token = std::move(q.tokens.front());
  q.tokens.erase(q.tokens.begin());
  Gain(token, f.pipe, core, st);
}

}  // namespace tilejit::analysis::sync::internal
