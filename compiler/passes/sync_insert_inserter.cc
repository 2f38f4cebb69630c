// SPDX-License-Identifier: Apache-2.0
// sync_insert's placement of syncs in one core program. Why hazards are fixed in batches: the
// analysis finds every unordered pair of one program in one walk, and most hazards of a round
// are independent (different consumers, or producers on other pipes), so fixing one per
// consumer per analysis converges in a few rounds where fixing one per analysis took one round
// per sync. A hazard that a sync placed earlier in the same round already orders (same body,
// same pipes, producer before its set, consumer after its wait) is skipped, as the next analysis
// would have found it ordered; one the check misses (an order through a chain of flags) only
// costs a sync that DropRedundant then removes.
#include <algorithm>
#include <memory>
#include <utility>

#include "common/check.h"
#include "compiler/passes/sync_insert_internal.h"

namespace tilejit::passes::sync_insert_internal {
namespace {

using sync::Hazard;
using sync::Node;
using sync::NodeKind;

bool IsBlock(const Node* n) {
  return n->kind == NodeKind::kSeq && (n->parent == nullptr || n->parent->kind == NodeKind::kFor ||
                                       n->parent->kind == NodeKind::kIf);
}

const Node* BlockOf(const Node* n) {
  for (const Node* p = n->parent; p != nullptr; p = p->parent)
    if (IsBlock(p)) return p;
  return nullptr;
}

// The innermost body (program root, loop body or if arm) that holds both statements.
const Node* CommonBlock(const Node* a, const Node* b) {
  std::set<const Node*> blocks;
  for (const Node* p = BlockOf(a); p != nullptr; p = BlockOf(p)) blocks.insert(p);
  for (const Node* p = BlockOf(b); p != nullptr; p = BlockOf(p))
    if (blocks.count(p) != 0) return p;
  return nullptr;
}

// The statement of `block` (through lets, scopes and nested sequences, which run once per run
// of the block) that holds `n`: the outermost loop or if below the block on the way to `n`,
// else `n` itself.
Node* AnchorIn(const Node* block, const Node* n) {
  const Node* anchor = n;
  for (const Node* p = n->parent; p != block; p = p->parent) {
    TILEJIT_CHECK(p != nullptr) << "sync_insert: statement outside its block";
    if (p->kind == NodeKind::kFor || p->kind == NodeKind::kIf) anchor = p;
  }
  return const_cast<Node*>(anchor);
}

const Node* BlockFor(const Hazard& h) {
  return h.carried != nullptr ? h.carried->kids[0].get() : CommonBlock(h.first, h.second);
}

ir::Pipe SrcPipe(const Hazard& h) { return h.first->parts[h.first_part].pipe; }
ir::Pipe DstPipe(const Hazard& h) { return h.second->parts[h.second_part].pipe; }

ir::Stmt Barrier(ir::Pipe pipe, SourceLoc loc) {
  return std::make_shared<ir::BarrierNode>(pipe, loc, ir::SyncOrigin::kCompiler);
}

// A flag of pair `pair`, with its virtual event id until ids are assigned (so the analysis never
// confuses two pairs).
ir::Stmt Flag(ir::StmtKind kind, PipePair pp, SourceLoc loc, int pair) {
  return std::make_shared<ir::FlagNode>(kind, pp.first, pp.second, ir::IntImm(kEventIds + pair),
                                        loc, ir::SyncOrigin::kCompiler);
}

// Live range of a pair in pre-order positions: from its first set to its last wait.
std::pair<int, int> LiveRange(const PairInfo& p) {
  int lo = 1 << 30, hi = -1;
  for (const Node* n : p.sets) lo = std::min(lo, n->order), hi = std::max(hi, n->order);
  for (const Node* n : p.waits) lo = std::min(lo, n->order), hi = std::max(hi, n->order);
  return {lo, hi};
}

View ViewOf(const Hazard& h) {
  View v{&h, BlockFor(h), 0, 0, nullptr, SrcPipe(h), DstPipe(h)};
  if (v.block == nullptr) return v;
  v.a = AnchorIn(v.block, h.first)->order;
  v.b = AnchorIn(v.block, h.second)->order;
  if (h.carried != nullptr && v.a >= v.b) v.carried = h.carried;
  return v;
}

}  // namespace

Inserter::Inserter(sync::Program& p, ir::CoreKind core, PassContext& ctx)
    : p_(p),
      core_(core == ir::CoreKind::kCube ? target::CoreType::kAic : target::CoreType::kAiv),
      ctx_(ctx) {}

void Inserter::Start() { ScanExisting(p_.root()); }

void Inserter::ScanExisting(const Node* n) {
  if (const auto* f = n->stmt != nullptr ? ir::TryAs<ir::FlagNode>(n->stmt) : nullptr) {
    const PipePair pp{f->src, f->dst};
    if (auto id = ir::AsConstInt(f->event)) {
      used_[pp].insert(*id);
    } else {
      runtime_pairs_.insert(pp);
    }
  }
  for (const auto& k : n->kids) ScanExisting(k.get());
}

void Inserter::FixAll(const std::vector<Hazard>& hs) {
  std::vector<View> views;
  std::map<std::pair<const Node*, int>, std::vector<int>> by_consumer;
  for (const Hazard& h : hs) {
    by_consumer[{h.second, h.second_part}].push_back(static_cast<int>(views.size()));
    views.push_back(ViewOf(h));
  }
  PlacedByBlock placed;
  for (const View& v : views) {
    if (Covered(v, placed)) continue;
    const Placed q =
        Fix(*Pick(views, by_consumer.at({v.h->second, v.h->second_part}), v, placed).h);
    placed[q.block].push_back(q);
  }
}

// For `start`'s consumer (`same`: the indices of its hazards), preferably a dependence across
// pipes not yet ordered (its pair often orders a same-pipe dependence transitively, never the
// reverse); among that consumer's hazards from the same pipe and block, the one with the latest
// producer: one set after it covers them all.
const View& Inserter::Pick(const std::vector<View>& views, const std::vector<int>& same,
                           const View& start, const PlacedByBlock& placed) const {
  const View* first = &start;
  if (start.src == start.dst) {
    for (int j : same) {
      if (views[j].src != views[j].dst && !Covered(views[j], placed)) {
        first = &views[j];
        break;
      }
    }
  }
  const View* best = first;
  for (int j : same) {
    const View& v = views[j];
    if (v.h->carried == first->h->carried && v.src == first->src && v.block == first->block &&
        v.a > best->a) {
      best = &v;
    }
  }
  return *best;
}

// Whether a sync placed earlier in this round orders `v` (see the file comment).
bool Inserter::Covered(const View& v, const PlacedByBlock& placed) const {
  auto in_block = placed.find(v.block);
  if (v.block == nullptr || in_block == placed.end()) return false;
  for (const Placed& q : in_block->second) {
    if (q.carried != v.carried || v.b < q.wait_before) continue;
    if (q.all || q.src == q.dst) {  // a barrier before the consumer's anchor
      const bool pipes = q.all || (v.src == q.src && v.dst == q.src);
      if (pipes && (v.carried != nullptr || v.a < q.wait_before)) return true;
      continue;
    }
    const bool dst = q.dst == ir::Pipe::kS || v.dst == q.dst;
    if (v.src == q.src && dst && v.a <= q.set_after) return true;
  }
  return false;
}

// Orders one hazard: a barrier on its pipe, a set/wait pair in the innermost body holding both
// statements (pre-armed and drained when loop-carried), or barrier(all) where no pair can.
Placed Inserter::Fix(const Hazard& h) {
  const Node* block = BlockFor(h);
  TILEJIT_CHECK(block != nullptr) << "sync_insert: no common body for a dependence";
  Node* a = AnchorIn(block, h.first);
  Node* b = AnchorIn(block, h.second);
  const auto key = std::make_tuple(h.first->id, h.first_part, h.second->id, h.second_part,
                                   h.carried != nullptr ? h.carried->id : -1);
  const ir::Pipe src = SrcPipe(h);
  const ir::Pipe dst = DstPipe(h);
  const SourceLoc loc = h.second->stmt->loc;
  const bool carried = h.carried != nullptr && a->order >= b->order;
  Placed placed{block, a->order, b->order, src, dst, false, carried ? h.carried : nullptr};
  const Reason reason{h.first, h.second, h.carried, src, dst};
  auto all = [&] {
    p_.InsertBefore(b, Barrier(ir::Pipe::kAll, loc), -1);
    ++fallbacks_;
    placed.all = true;
    return placed;
  };
  if (!tried_.insert(key).second) {
    // An order we placed did not take (it should not happen); the coarse order always does.
    TILEJIT_CHECK(fallen_back_.insert(key).second) << "sync_insert cannot order a dependence";
    return all();
  }
  if (src == dst) {
    barriers_.push_back({p_.InsertBefore(b, Barrier(src, loc), -1), reason});
    return placed;
  }
  PipePair pp{src, dst};
  if (!target::IsLegalEventPair(*ctx_.target, core_, src, dst)) pp.second = ir::Pipe::kS;
  const bool legal = target::IsLegalEventPair(*ctx_.target, core_, pp.first, pp.second);
  if (!legal || runtime_pairs_.count(pp) != 0 || (!carried && a->order >= b->order)) return all();
  const int idx = static_cast<int>(pairs_.size());
  PairInfo pair{pp.first, pp.second, {}, {}, nullptr, carried, false, reason};
  pair.sets.push_back(
      p_.InsertAfter(a, Flag(ir::StmtKind::kSetFlag, pp, h.first->stmt->loc, idx), idx));
  pair.in_loop_wait = p_.InsertBefore(b, Flag(ir::StmtKind::kWaitFlag, pp, loc, idx), idx);
  pair.waits.push_back(pair.in_loop_wait);
  if (carried) {
    Node* loop = const_cast<Node*>(h.carried);
    pair.sets.push_back(
        p_.InsertBefore(loop, Flag(ir::StmtKind::kSetFlag, pp, loop->stmt->loc, idx), idx));
    pair.waits.push_back(
        p_.InsertAfter(loop, Flag(ir::StmtKind::kWaitFlag, pp, loop->stmt->loc, idx), idx));
  }
  pairs_.push_back(std::move(pair));
  placed.dst = pp.second;
  return placed;
}

namespace {

// Which pipes could know one producer's work (sync_insert_internal.h, KnowledgeFlow): `knows` are
// the pipes ordered after it, `passes` those whose sets carry it (its own pipe, and any that
// knows it).
struct Knowledge {
  ir::Pipe producer = ir::Pipe::kS;
  uint8_t knows = 0;
  std::map<std::tuple<ir::Pipe, ir::Pipe, int64_t>, bool> events;  // set with the producer
  bool cross = false;  // a cross-core set carried it: a later cross-core wait may bring it back

  bool Passes(ir::Pipe p) const { return p == producer || (knows & PipeBit(p)) != 0; }
  static uint8_t PipeBit(ir::Pipe p) { return static_cast<uint8_t>(1u << static_cast<int>(p)); }
  void Gain(ir::Pipe p) { knows |= p == ir::Pipe::kS ? 0x7f : PipeBit(p); }
  // Applies one sync; true if anything changed.
  bool Apply(const Node* n) {
    const uint8_t knew = knows;
    const bool crossed = cross;
    bool event_changed = false;
    if (const auto* b = ir::TryAs<ir::BarrierNode>(n->stmt)) {
      if (b->pipe == ir::Pipe::kAll) knows = 0x7f;
      if (b->pipe == producer) knows |= PipeBit(producer);
    } else if (const auto* f = ir::TryAs<ir::FlagNode>(n->stmt)) {
      const std::optional<int64_t> id = ir::AsConstInt(f->event);
      if (!id) return false;  // a runtime id gives no order in the analysis either
      bool& carried = events[{f->src, f->dst, *id}];
      if (n->stmt->kind == ir::StmtKind::kSetFlag && !carried && Passes(f->src)) {
        carried = event_changed = true;
      }
      if (n->stmt->kind == ir::StmtKind::kWaitFlag && carried) Gain(f->dst);
    } else if (const auto* x = ir::TryAs<ir::CrossFlagNode>(n->stmt)) {
      if (n->stmt->kind == ir::StmtKind::kSetCrossFlag) cross = cross || Passes(x->pipe);
      if (n->stmt->kind == ir::StmtKind::kWaitCrossFlag && cross) Gain(x->pipe);
    }
    return knows != knew || cross != crossed || event_changed;
  }
};

bool Holds(const Node* n, int order) { return order >= n->order && order <= n->last; }

// The syncs of `n`'s subtree at positions in (lo, hi), in program order, applied to `k`; both
// arms of an `if` (a union, so more than any one path), and a loop that holds neither end of
// the dependence to its fixpoint (a chain may go around it). True if `k` changed.
bool Flow(const Node* n, int lo, int hi, const std::vector<const Node*>& own, Knowledge& k) {
  if (n->last <= lo || n->order >= hi) return false;
  if (n->kind == NodeKind::kSync) {
    if (n->disabled || n->order <= lo || std::find(own.begin(), own.end(), n) != own.end())
      return false;
    return k.Apply(n);
  }
  const bool repeat = n->kind == NodeKind::kFor && !Holds(n, lo) && !Holds(n, hi);
  bool changed = false;
  for (int round = 0; round < 16; ++round) {
    bool again = false;
    for (const auto& kid : n->kids) again = Flow(kid.get(), lo, hi, own, k) || again;
    changed = changed || again;
    if (!again || !repeat) break;
  }
  return changed;
}

}  // namespace

// False when, without `own`, nothing could order r.first before r.second on r.dst: knowledge of
// the producer starts on its own pipe and spreads only through sets on a pipe that has it, the
// waits that consume them, barriers and cross-core round trips executed between the producer
// and the consumer (for a loop-carried dependence: after the producer, around the back edge,
// before the consumer). Knowledge flows over-approximately (every path at once), so false means
// the dependence would surely be unordered again.
bool Inserter::MayBeOrderedWithout(const Reason& r, const std::vector<const Node*>& own) const {
  const int a = r.first->order;
  const int b = r.second->order;
  if (a >= b && r.carried == nullptr) return true;  // an unexpected shape: ask the analysis
  Knowledge k;
  k.producer = r.src;
  if (r.src == ir::Pipe::kS) k.knows = Knowledge::PipeBit(ir::Pipe::kS);
  if (a < b) {
    Flow(p_.root(), a, b, own, k);
  } else {
    const Node* body = r.carried->kids[0].get();
    Flow(body, a, r.carried->last + 1, own, k);
    Flow(body, r.carried->order, b, own, k);
  }
  return (k.knows & Knowledge::PipeBit(r.dst)) != 0;
}

void Inserter::DropRedundant(const std::function<bool()>& clean) {
  for (size_t i = pairs_.size(); i-- > 0;) {
    PairInfo& pair = pairs_[i];
    std::vector<const Node*> own(pair.sets.begin(), pair.sets.end());
    own.insert(own.end(), pair.waits.begin(), pair.waits.end());
    if (!MayBeOrderedWithout(pair.reason, own)) continue;
    SetDisabled(pair, true);
    if (clean()) {
      pair.dropped = true;
    } else {
      SetDisabled(pair, false);
    }
  }
  for (size_t i = barriers_.size(); i-- > 0;) {
    Node* node = barriers_[i].node;
    if (!MayBeOrderedWithout(barriers_[i].reason, {node})) continue;
    node->disabled = true;
    if (clean()) {
      barriers_[i].dropped = true;
    } else {
      node->disabled = false;
    }
  }
}

// Greedy colouring per pipe pair, in order of first set: two pairs may share an id only when
// the analysis proved each one's sets ordered after the other's waits (no interference) and
// their live ranges in program order do not overlap.
void Inserter::AssignIds(const std::set<std::pair<int64_t, int64_t>>& interference) {
  p_.Renumber();
  std::map<PipePair, std::vector<int>> by_pair;
  for (size_t i = 0; i < pairs_.size(); ++i)
    if (!pairs_[i].dropped) by_pair[{pairs_[i].src, pairs_[i].dst}].push_back(static_cast<int>(i));
  std::vector<int> ids(pairs_.size(), -1);
  int made = 0;
  for (auto& [pp, list] : by_pair) {
    std::sort(list.begin(), list.end(), [&](int x, int y) {
      return LiveRange(pairs_[x]).first < LiveRange(pairs_[y]).first;
    });
    for (size_t n = 0; n < list.size(); ++n) {
      const int i = list[n];
      const auto [lo, hi] = LiveRange(pairs_[i]);
      std::set<int> taken(used_[pp].begin(), used_[pp].end());
      for (size_t m = 0; m < n; ++m) {
        const int j = list[m];
        if (ids[j] < 0) continue;
        const auto [jlo, jhi] = LiveRange(pairs_[j]);
        const std::pair<int64_t, int64_t> key{kEventIds + std::min(i, j),
                                              kEventIds + std::max(i, j)};
        if ((jhi >= lo && hi >= jlo) || interference.count(key) != 0) taken.insert(ids[j]);
      }
      for (int e = 0; e < kEventIds && ids[i] < 0; ++e)
        if (taken.count(e) == 0) ids[i] = e;
      if (ids[i] < 0) {
        FallBack(pairs_[i]);
        continue;
      }
      for (Node* node : pairs_[i].sets) SetId(node, ids[i]);
      for (Node* node : pairs_[i].waits) SetId(node, ids[i]);
      ++made;
    }
  }
  Count("set_wait_pairs", made);
  // Statistics only for what the program keeps: a barrier placed and dropped again never was.
  int64_t barriers = fallbacks_;
  for (const BarrierInfo& b : barriers_) barriers += b.dropped ? 0 : 1;
  if (barriers > 0) Count("barriers", barriers);
  if (fallbacks_ > 0) Count("sync_fallbacks", fallbacks_);
}

void Inserter::SetDisabled(PairInfo& p, bool disabled) {
  for (Node* n : p.sets) n->disabled = disabled;
  for (Node* n : p.waits) n->disabled = disabled;
}

void Inserter::SetId(Node* n, int id) {
  const auto& f = ir::As<ir::FlagNode>(n->stmt);
  p_.Replace(n, std::make_shared<ir::FlagNode>(f.kind, f.src, f.dst, ir::IntImm(id), f.loc,
                                               ir::SyncOrigin::kCompiler));
}

void Inserter::FallBack(PairInfo& p) {
  p_.Replace(p.in_loop_wait, Barrier(ir::Pipe::kAll, p.in_loop_wait->stmt->loc));
  for (Node* n : p.sets) sync::Program::Remove(n);
  for (Node* n : p.waits)
    if (n != p.in_loop_wait) sync::Program::Remove(n);
  ++fallbacks_;
}

}  // namespace tilejit::passes::sync_insert_internal
