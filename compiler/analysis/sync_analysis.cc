// SPDX-License-Identifier: Apache-2.0
// The abstract execution of sync_analysis.h, one core's statements and control flow (the
// two-core schedule is in sync_analysis_joint.cc, the dense state in sync_state.cc). Records are
// keyed by core and statement part, and a new instance of a part replaces the previous one:
// knowledge is monotone in age along one pipe (every ordering primitive orders *all* earlier
// work of its pipe), so the older instance is ordered wherever the newer one is, and both have
// the same conservative byte ranges.
#include <algorithm>
#include <bit>
#include <functional>
#include <utility>

#include "common/check.h"
#include "compiler/analysis/sync_analysis_internal.h"

namespace tilejit::analysis::sync {
namespace internal {
namespace {

uint8_t Bit(ir::Pipe p) { return static_cast<uint8_t>(1u << static_cast<int>(p)); }

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

Walker::Walker(const AnalyzeOptions& options, std::vector<const Program*> programs)
    : options_(options),
      programs_(std::move(programs)),
      slots_(programs_),
      out_(programs_.size()) {}

void Walker::Walk(const Node* n, int core, State& st) {
  if (stopped_) return;
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
  st = Merge(t, st, slots_.geometry());
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
  Trips trips_from_entry = Fixpoint(loops, body, st);
  if (stopped_) return;  // the state no longer matters
  if (min_trips >= 2) {
    st = LastTrip(loops, body, trips_from_entry.first);
  } else {
    st = min_trips >= 1 ? std::move(trips_from_entry.last) : std::move(trips_from_entry.head);
  }
  const Geometry& g = slots_.geometry();
  for (const auto& [loop, core] : loops) {
    Word* row = RowOf(st, g, Geometry::kCarried + slots_.LoopIndex(core, loop));
    std::fill(row, row + g.words, Word{0});
  }
}

// Walks trips from `entry`, merging each trip's end into the head, until the head is stable.
// Returns the head (the entry merged with every trip's end), the last trip's end and the first
// trip's end; records that went around remember the loops.
Walker::Trips Walker::Fixpoint(const Loops& loops, const BodyFn& body, const State& entry) {
  Trips t{entry, entry, entry};
  for (int round = 0; round < 64 && !stopped_; ++round) {
    t.last = t.head;
    body(t.last);
    Carry(loops, t.last);
    if (round == 0) t.first = t.last;
    State next = Merge(entry, t.last, slots_.geometry());
    if (next == t.head) break;
    t.head = std::move(next);
  }
  return t;
}

void Walker::Carry(const Loops& loops, State& st) const {
  const Geometry& g = slots_.geometry();
  const Word* present = RowOf(st, g, Geometry::kPresent);
  for (const auto& [loop, core] : loops) {
    Word* row = RowOf(st, g, Geometry::kCarried + slots_.LoopIndex(core, loop));
    for (int w = 0; w < g.words; ++w) row[w] |= present[w];
  }
}

// The state after a loop that surely runs at least twice: its last trip starts from a state
// reached after one or more trips, never from the entry state, so orderings the first trip
// establishes late (e.g. a flag chain that reaches a pipe only in the next trip) hold after
// the loop. `after_first`: the end of the first trip (Fixpoint's). Every hazard of these walks
// was already found from the weaker entry-merged head, so they report nothing.
State Walker::LastTrip(const Loops& loops, const BodyFn& body, const State& after_first) {
  ++quiet_;
  State out = Fixpoint(loops, body, after_first).last;
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

// A new instance of a part replaces the previous one; it also forgets what the other core knew
// of it and what any event or cross-core token in flight carried: those facts were about the
// older instance.
void Walker::Record(const Node* n, int part, int core, uint8_t known, State& st) {
  const Geometry& g = slots_.geometry();
  const int slot = slots_.Of(core, n, part);
  SetBit(RowOf(st, g, Geometry::kPresent), slot);
  for (int p = 0; p < kNumPipes; ++p) {
    Word* k = RowOf(st, g, Geometry::kKnown + p);
    if ((known >> p) & 1) {
      SetBit(k, slot);
    } else {
      ResetBit(k, slot);
    }
    ResetBit(RowOf(st, g, Geometry::kXKnown + p), slot);
  }
  for (int l = 0; l < g.loops; ++l) ResetBit(RowOf(st, g, Geometry::kCarried + l), slot);
  for (auto& [k, e] : st.evs) ResetBit(e.snap.data(), slot);
  for (auto& [k, q] : st.queues)
    for (Row& token : q.tokens) ResetBit(token.data(), slot);
}

// A record the part's pipe does not know (a missing record is known to every pipe) and whose
// accesses conflict with the part's is a hazard.
void Walker::Check(const Node* n, int part, int core, const State& st) {
  const Word* known =
      RowOf(st, slots_.geometry(), Geometry::kKnown + static_cast<int>(n->parts[part].pipe));
  const int base = slots_.base(core);
  for (const Conflict& c : slots_.ConflictsOf(core, n, part)) {
    if (!TestBit(known, base + c.other)) {
      AddHazard(base + c.other, n, part, core, c.first_write, c.second_write, st);
    }
  }
}

void Walker::AddHazard(int slot, const Node* n, int part, int core, bool first_write,
                       bool second_write, const State& st, bool event) {
  if (quiet_ > 0) return;
  const Node* first = slots_.node(slot);
  const int first_part = slots_.part(slot);
  if (!seen_.insert({first, first_part, n, part}).second) return;
  Hazard h;
  h.first = first;
  h.first_part = first_part;
  h.second = n;
  h.second_part = part;
  h.first_write = first_write;
  h.second_write = second_write;
  h.event = event;
  const Geometry& g = slots_.geometry();
  for (const Node* a = n->parent; a != nullptr; a = a->parent) {
    if (a->kind != NodeKind::kFor) continue;
    const Word* carried = RowOf(st, g, Geometry::kCarried + slots_.LoopIndex(core, a));
    if (TestBit(carried, slot) && Encloses(a, first)) {
      h.carried = a;
      break;
    }
  }
  out_[core].hazards.push_back(h);
  stopped_ = options_.stop_at_first_hazard;
}

void Walker::Flag(FlagIssue issue, int core, const Node* n) {
  if (quiet_ > 0) return;
  for (const FlagFinding& f : out_[core].flags)
    if (f.issue == issue && f.sync == n) return;
  out_[core].flags.push_back({issue, n});
}

// barrier(all): every pipe of this core knows everything of this core, and of the other core
// that this core sees; barrier(P): P knows its own earlier work.
void Walker::Barrier(ir::Pipe pipe, int core, State& st) {
  const Geometry& g = slots_.geometry();
  if (pipe != ir::Pipe::kAll) {
    Word* k = RowOf(st, g, Geometry::kKnown + static_cast<int>(pipe));
    const Word* on = slots_.on_pipe(core, pipe).data();
    for (int w = 0; w < g.words; ++w) k[w] |= on[w];
    return;
  }
  const Word* own = slots_.own(core).data();
  const Word* other = slots_.own(1 - core).data();
  for (int p = 0; p < kNumPipes; ++p) {
    Word* k = RowOf(st, g, Geometry::kKnown + p);
    Word* x = RowOf(st, g, Geometry::kXKnown + p);
    for (int w = 0; w < g.words; ++w) {
      k[w] |= own[w];
      x[w] |= other[w];
    }
  }
}

void Walker::Sync(const Node* n, int core, State& st) {
  if (const auto* b = ir::TryAs<ir::BarrierNode>(n->stmt)) {
    Barrier(b->pipe, core, st);
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
    Ordered(f->src, core, st, e.snap);
    return;
  }
  Ev* e = st.evs.Find(key);
  if (e == nullptr || !e->maybe) {
    Flag(FlagIssue::kNeverSet, core, n);
    return;
  }
  if (!e->surely) Flag(FlagIssue::kMaybeUnset, core, n);
  Gain(e->snap, f->dst, core, st);
  st.evs.Erase(key);
  EventStep(n, core, st);
}

// What pipe `p` of `core` has ordered before its next instruction: its own core's work on p
// or known to p, and the other core's work p knows of.
void Walker::Ordered(ir::Pipe p, int core, const State& st, Row& out) const {
  const Geometry& g = slots_.geometry();
  const Word* present = RowOf(st, g, Geometry::kPresent);
  const Word* known = RowOf(st, g, Geometry::kKnown + static_cast<int>(p));
  const Word* xknown = RowOf(st, g, Geometry::kXKnown + static_cast<int>(p));
  const Word* own = slots_.own(core).data();
  const Word* other = slots_.own(1 - core).data();
  const Word* on = slots_.on_pipe(core, p).data();
  out.resize(static_cast<size_t>(g.words));
  for (int w = 0; w < g.words; ++w)
    out[w] = present[w] & ((own[w] & (on[w] | known[w])) | (other[w] & xknown[w]));
}

// A wait on pipe `p` of `core` (s: the scalar unit stalls dispatch, so every pipe) passed the
// point where `snap` was taken.
void Walker::Gain(const Row& snap, ir::Pipe p, int core, State& st) {
  const Geometry& g = slots_.geometry();
  const Word* own = slots_.own(core).data();
  const Word* other = slots_.own(1 - core).data();
  for (int q = 0; q < kNumPipes; ++q) {
    if (p != ir::Pipe::kS && q != static_cast<int>(p)) continue;
    Word* k = RowOf(st, g, Geometry::kKnown + q);
    Word* x = RowOf(st, g, Geometry::kXKnown + q);
    for (int w = 0; w < g.words; ++w) {
      k[w] |= snap[w] & own[w];
      x[w] |= snap[w] & other[w];
    }
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
  const Word* known = RowOf(st, slots_.geometry(), Geometry::kKnown + static_cast<int>(p.pipe));
  const Row& others = slots_.Events(core, ev.event_group, /*sets=*/!ev.event_set);
  for (size_t w = 0; w < others.size(); ++w) {
    for (Word bits = others[w] & ~known[w]; bits != 0; bits &= bits - 1) {
      const int slot = static_cast<int>(w * 64) + std::countr_zero(bits);
      const int64_t other_id = slots_.event_id(slot);
      if (other_id == ev.event_id) {
        if (ev.event_set) AddHazard(slot, n, 0, core, true, ev.write, st, /*event=*/true);
      } else if (quiet_ == 0 && options_.virtual_ids && other_id >= 8 && ev.event_id >= 8) {
        Interfere(core, other_id, ev.event_id);
      }
    }
  }
  Record(n, 0, core, ev.event_set ? 0 : Bit(p.pipe), st);
}

// Records that virtual events x and y interfere; a bit matrix over the program's event ids
// dedupes the many repeats (each walk of a loop body meets the same pairs again).
void Walker::Interfere(int core, int64_t x, int64_t y) {
  const auto [lo, hi] = std::minmax(x, y);
  const int64_t n = slots_.event_id_limit();
  if (lo < 0 || hi >= n) {
    out_[core].interference.insert({lo, hi});
    return;
  }
  const size_t bit = (static_cast<size_t>(core) * n + lo) * n + hi;
  if (interfering_.size() * 64 <= bit) interfering_.resize(bit / 64 + 1, 0);
  if (TestBit(interfering_.data(), static_cast<int>(bit))) return;
  SetBit(interfering_.data(), static_cast<int>(bit));
  out_[core].interference.insert({lo, hi});
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
