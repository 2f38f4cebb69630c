// SPDX-License-Identifier: Apache-2.0
// The abstract execution of sync_analysis.h, one core's statements and control flow (the
// two-core schedule is in sync_analysis_joint.cc). Records are keyed by core and statement
// part, and a new instance of a part replaces the previous one: knowledge is monotone in age
// along one pipe (every ordering primitive orders *all* earlier work of its pipe), so the older
// instance is ordered wherever the newer one is, and both have the same conservative byte
// ranges. Replacing a record also forgets what the other core knew of it and what any event or
// cross-core token in flight carried: those facts were about the older instance.
#include <algorithm>
#include <functional>
#include <utility>

#include "common/check.h"
#include "compiler/analysis/sync_analysis_internal.h"

namespace tilejit::analysis::sync {
namespace internal {
namespace {

constexpr uint8_t kAllPipes = 0x7f;
uint8_t Bit(ir::Pipe p) { return static_cast<uint8_t>(1u << static_cast<int>(p)); }

// A key in `mine` that `theirs` does not hold is kept when `other` has no such record (on that
// path the record does not exist, so there is nothing to be unordered with).
std::set<Key> MergeSnap(const std::set<Key>& mine, const State& mine_state,
                        const std::set<Key>& theirs, const State& their_state) {
  std::set<Key> out;
  for (Key r : mine)
    if (theirs.count(r) != 0 || their_state.recs.count(r) == 0) out.insert(r);
  for (Key r : theirs)
    if (mine_state.recs.count(r) == 0) out.insert(r);
  return out;
}

void MergeQueue(Queue& qa, const Queue& qb, const State& a, const State& b) {
  if (qa.lost || qb.lost || qa.tokens.size() != qb.tokens.size() || qa.deficit != qb.deficit) {
    qa = Queue{};
    qa.lost = true;
    return;
  }
  for (size_t i = 0; i < qa.tokens.size(); ++i)
    qa.tokens[i] = MergeSnap(qa.tokens[i], a, qb.tokens[i], b);
}

bool Encloses(const Node* outer, const Node* n) {
  for (; n != nullptr; n = n->parent)
    if (n == outer) return true;
  return false;
}

}  // namespace

std::optional<bool> KnownCondition(const Node* if_node) {
  const ir::IntBounds b = ir::IntBoundsOf(ir::As<ir::IfNode>(if_node->stmt).cond);
  if (b.lo && *b.lo >= 1) return true;
  if (b.hi && *b.hi <= 0 && b.lo && *b.lo >= 0) return false;
  return std::nullopt;
}

State Merge(const State& a, const State& b) {
  State out = a;
  for (const auto& [k, rb] : b.recs) {
    auto it = out.recs.find(k);
    if (it == out.recs.end()) {
      out.recs.emplace(k, rb);
      continue;
    }
    it->second.known &= rb.known;
    it->second.xknown &= rb.xknown;
    it->second.carried.insert(rb.carried.begin(), rb.carried.end());
  }
  for (const auto& [k, eb] : b.evs) {
    auto it = out.evs.find(k);
    if (it == out.evs.end()) {
      Ev e = eb;
      e.surely = false;
      out.evs.emplace(k, std::move(e));
      continue;
    }
    Ev& ea = it->second;
    ea.snap = MergeSnap(a.evs.at(k).snap, a, eb.snap, b);
    ea.maybe = ea.maybe || eb.maybe;
    ea.surely = ea.surely && eb.surely;
    if (ea.setter == nullptr) ea.setter = eb.setter;
  }
  for (auto& [k, ea] : out.evs)
    if (b.evs.count(k) == 0) ea.surely = false;
  for (const auto& [k, qb] : b.queues) MergeQueue(out.queues[k], qb, a, b);
  for (auto& [k, qa] : out.queues)
    if (b.queues.count(k) == 0) MergeQueue(qa, Queue{}, a, b);
  return out;
}

Walker::Walker(const AnalyzeOptions& options, std::vector<const Program*> programs)
    : options_(options), programs_(std::move(programs)), out_(programs_.size()) {}

void Walker::Walk(const Node* n, int core, State& st) {
  switch (n->kind) {
    case NodeKind::kSeq:
      for (const auto& k : n->kids) Walk(k.get(), core, st);
      return;
    case NodeKind::kLeaf:
      Leaf(n, core, st);
      return;
    case NodeKind::kSync:
      if (!n->disabled) Sync(n, core, st);
      return;
    case NodeKind::kScope:
    case NodeKind::kLet:
      Leaf(n, core, st);
      Walk(n->kids[0].get(), core, st);
      return;
    case NodeKind::kIf:
      Leaf(n, core, st);
      Branch(
          n, [&](int arm, State& s) { Walk(n->kids[arm].get(), core, s); }, st);
      return;
    case NodeKind::kFor:
      Leaf(n, core, st);
      Loop(
          {{n, core}}, [&](State& s) { Walk(n->kids[0].get(), core, s); }, st);
      return;
  }
}

// Both arms walked and merged (a missing else arm runs nothing), or only the arm that runs
// when the condition's bounds decide it.
void Walker::Branch(const Node* n, const ArmFn& arm, State& st) {
  const bool has_else = n->kids.size() > 1;
  if (const std::optional<bool> known = KnownCondition(n)) {
    if (*known) arm(0, st);
    if (!*known && has_else) arm(1, st);
    return;
  }
  State t = st;
  arm(0, t);
  if (has_else) arm(1, st);
  st = Merge(t, st);
}

void Walker::Loop(const Loops& loops, const BodyFn& body, State& st) {
  const auto& f = ir::As<ir::ForNode>(loops[0].first->stmt);
  const std::optional<int64_t> trips = ir::AsConstInt(f.extent);
  const int64_t min_trips = ir::IntBoundsOf(f.extent).lo.value_or(0);
  if (trips && *trips <= 0) return;
  if (trips && *trips == 1) {
    // One trip: the back edge is never taken, so nothing is carried; the body is straight
    // line code (sync_insert must not place loop-carried pairs here).
    body(st);
    return;
  }
  auto [head, out] = Fixpoint(loops, body, st);
  if (min_trips >= 2) out = LastTrip(loops, body, st);
  st = min_trips >= 1 ? std::move(out) : std::move(head);
  for (auto& [k, r] : st.recs)
    for (const auto& [loop, core] : loops) r.carried.erase(LoopTag(core, loop));
}

// Walks trips from `entry`, merging each trip's end into the head, until the head is stable.
// Returns the head (the entry merged with every trip's end) and the last trip's end; records
// that went around remember the loops.
std::pair<State, State> Walker::Fixpoint(const Loops& loops, const BodyFn& body,
                                         const State& entry) {
  State head = entry;
  State out;
  for (int round = 0; round < 64; ++round) {
    out = head;
    body(out);
    Carry(loops, out);
    State next = Merge(entry, out);
    if (next == head) break;
    head = std::move(next);
  }
  return {std::move(head), std::move(out)};
}

void Walker::Carry(const Loops& loops, State& st) {
  for (auto& [k, r] : st.recs)
    for (const auto& [loop, core] : loops) r.carried.insert(LoopTag(core, loop));
}

// The state after a loop that surely runs at least twice: its last trip starts from a state
// reached after one or more trips, never from the entry state, so orderings the first trip
// establishes late (e.g. a flag chain that reaches a pipe only in the next trip) hold after
// the loop. Every hazard of these walks was already found from the weaker entry-merged
// head, so they report nothing.
State Walker::LastTrip(const Loops& loops, const BodyFn& body, const State& entry) {
  ++quiet_;
  State after_first = entry;
  body(after_first);
  Carry(loops, after_first);
  State out = Fixpoint(loops, body, after_first).second;
  --quiet_;
  return out;
}

// Checks every part of `n` against the state, then records them (the parts of one
// statement are issued in dispatch order and are not checked against each other).
void Walker::Leaf(const Node* n, int core, State& st) {
  for (size_t i = 0; i < n->parts.size(); ++i) Check(n, static_cast<int>(i), core, st);
  for (size_t i = 0; i < n->parts.size(); ++i) {
    const bool scalar = n->parts[i].pipe == ir::Pipe::kS;
    Record(n, static_cast<int>(i), core, scalar ? Bit(ir::Pipe::kS) : 0, st);
  }
}

void Walker::Record(const Node* n, int part, int core, uint8_t known, State& st) {
  const Key key = KeyOf(core, n, part);
  Rec r;
  r.node = n;
  r.part = part;
  r.core = core;
  r.pipe = n->parts[part].pipe;
  r.known = known;
  st.recs[key] = std::move(r);
  for (auto& [k, e] : st.evs) e.snap.erase(key);
  for (auto& [k, q] : st.queues)
    for (auto& token : q.tokens) token.erase(key);
}

void Walker::Check(const Node* n, int part, int core, const State& st) {
  const Part& p = n->parts[part];
  for (const auto& [k, r] : st.recs) {
    if (r.core != core || (r.known & Bit(p.pipe)) != 0) continue;
    const Part& q = r.node->parts[r.part];
    const Access* x = nullptr;
    const Access* y = nullptr;
    // Any conflicting pair; a read after a write is the one worth naming.
    for (const Access& a : q.accesses) {
      for (const Access& b : p.accesses) {
        if (!Conflicts(a, b)) continue;
        const bool raw = a.write && !b.write;
        if (x == nullptr || (raw && !(x->write && !y->write))) {
          x = &a;
          y = &b;
        }
      }
    }
    if (x == nullptr) continue;
    AddHazard(r, n, part, core, *x, *y);
  }
}

void Walker::AddHazard(const Rec& r, const Node* n, int part, int core, const Access& x,
                       const Access& y, bool event) {
  if (quiet_ > 0) return;
  if (!seen_.insert({r.node, r.part, n, part}).second) return;
  Hazard h;
  h.first = r.node;
  h.first_part = r.part;
  h.second = n;
  h.second_part = part;
  h.first_write = x.write;
  h.second_write = y.write;
  h.event = event;
  for (const Node* a = n->parent; a != nullptr; a = a->parent) {
    if (a->kind == NodeKind::kFor && r.carried.count(LoopTag(core, a)) != 0 &&
        Encloses(a, r.node)) {
      h.carried = a;
      break;
    }
  }
  out_[core].hazards.push_back(h);
}

void Walker::Flag(FlagIssue issue, int core, const Node* n) {
  if (quiet_ > 0) return;
  for (const FlagFinding& f : out_[core].flags)
    if (f.issue == issue && f.sync == n) return;
  out_[core].flags.push_back({issue, n});
}

void Walker::Sync(const Node* n, int core, State& st) {
  if (const auto* b = ir::TryAs<ir::BarrierNode>(n->stmt)) {
    for (auto& [k, r] : st.recs) {
      if (b->pipe == ir::Pipe::kAll) {
        (r.core == core ? r.known : r.xknown) = kAllPipes;
      } else if (r.core == core && r.pipe == b->pipe) {
        r.known |= Bit(b->pipe);
      }
    }
    return;
  }
  if (const auto* x = ir::TryAs<ir::CrossFlagNode>(n->stmt)) {
    if (!joint_ || !Modelled(*x)) return;  // no order (see the header)
    if (n->stmt->kind == ir::StmtKind::kSetCrossFlag) {
      CrossSet(*x, core, st);
    } else {
      CrossWait(*x, core, st);
    }
    return;
  }
  const auto* f = ir::TryAs<ir::FlagNode>(n->stmt);
  if (f == nullptr) return;
  const std::optional<int64_t> id = ir::AsConstInt(f->event);
  if (!id) {
    out_[core].runtime_ids = true;
    return;
  }
  if (*id < 0 || (*id > 7 && !options_.virtual_ids)) {
    Flag(FlagIssue::kUnknownEvent, core, n);
    return;
  }
  const int64_t key = static_cast<int64_t>(core) << 56 |
                      (static_cast<int64_t>(f->src) * 8 + static_cast<int64_t>(f->dst)) << 32 | *id;
  if (n->stmt->kind == ir::StmtKind::kSetFlag) {
    EventStep(n, core, st);
    Ev& e = st.evs[key];
    if (e.maybe) Flag(FlagIssue::kDoubleSet, core, n);
    e.maybe = e.surely = true;
    e.setter = n;
    e.snap = Ordered(f->src, core, st);
    return;
  }
  auto it = st.evs.find(key);
  if (it == st.evs.end() || !it->second.maybe) {
    Flag(FlagIssue::kNeverSet, core, n);
    return;
  }
  if (!it->second.surely) Flag(FlagIssue::kMaybeUnset, core, n);
  Gain(it->second.snap, f->dst, core, st);
  st.evs.erase(it);
  EventStep(n, core, st);
}

// What pipe `p` of `core` has ordered before its next instruction: its own core's work on p
// or known to p, and the other core's work p knows of.
std::set<Key> Walker::Ordered(ir::Pipe p, int core, const State& st) const {
  std::set<Key> out;
  for (const auto& [k, r] : st.recs) {
    const bool ordered =
        r.core == core ? r.pipe == p || (r.known & Bit(p)) != 0 : (r.xknown & Bit(p)) != 0;
    if (ordered) out.insert(k);
  }
  return out;
}

// A wait on pipe `p` of `core` (s: the scalar unit stalls dispatch, so every pipe) passed the
// point where `snap` was taken.
void Walker::Gain(const std::set<Key>& snap, ir::Pipe p, int core, State& st) {
  const uint8_t gain = p == ir::Pipe::kS ? kAllPipes : Bit(p);
  for (Key k : snap) {
    auto r = st.recs.find(k);
    if (r == st.recs.end()) continue;
    (r->second.core == core ? r->second.known : r->second.xknown) |= gain;
  }
}

// The event side of a set/wait (see sync_access.h): a set that an earlier wait of its event
// may not have passed yet is a hazard; with virtual ids, two events of one pipe pair whose
// sets and waits are unordered interfere. Then the set/wait is recorded like any work on its
// pipe (a wait is passed before anything later on its pipe starts).
void Walker::EventStep(const Node* n, int core, State& st) {
  if (n->parts.empty()) return;
  const Part& p = n->parts[0];
  const Access& ev = p.accesses[0];
  for (const auto& [k, r] : st.recs) {
    if (r.core != core) continue;
    const Part& q = r.node->parts[r.part];
    if (q.accesses.empty()) continue;
    const Access& other = q.accesses[0];
    if (other.event_group != ev.event_group || other.event_set == ev.event_set) continue;
    if ((r.known & Bit(p.pipe)) != 0) continue;
    if (other.event_id == ev.event_id) {
      if (ev.event_set) AddHazard(r, n, 0, core, other, ev, /*event=*/true);
    } else if (quiet_ == 0 && options_.virtual_ids && other.event_id >= 8 && ev.event_id >= 8) {
      out_[core].interference.insert(std::minmax(other.event_id, ev.event_id));
    }
  }
  Record(n, 0, core, ev.event_set ? 0 : Bit(p.pipe), st);
}

}  // namespace internal

Analysis Analyze(const Program& program, const AnalyzeOptions& options) {
  return internal::Walker(options, {&program}).Run(/*joint=*/false)[0];
}

std::array<Analysis, 2> AnalyzeCores(const Program& cube, const Program& vector,
                                     const AnalyzeOptions& options) {
  std::vector<Analysis> out = internal::Walker(options, {&cube, &vector}).Run(/*joint=*/true);
  return {std::move(out[0]), std::move(out[1])};
}

std::string HazardKindName(const Hazard& h) {
  if (h.event) return "event reuse";
  if (h.first_write && h.second_write) return "WAW";
  return h.first_write ? "RAW" : "WAR";
}

}  // namespace tilejit::analysis::sync
