// SPDX-License-Identifier: Apache-2.0
// The abstract execution of sync_analysis.h. Records are keyed by statement part, and a new
// instance of a part replaces the previous one: knowledge is monotone in age along one pipe
// (every ordering primitive orders *all* earlier work of its pipe), so the older instance is
// ordered wherever the newer one is, and both have the same conservative byte ranges.
#include "compiler/passes/sync_analysis.h"

#include <algorithm>
#include <utility>

#include "common/check.h"

namespace tilejit::passes::sync {
namespace {

using Key = int64_t;
constexpr uint8_t kAllPipes = 0x7f;
uint8_t Bit(ir::Pipe p) { return static_cast<uint8_t>(1u << static_cast<int>(p)); }

struct Rec {
  const Node* node = nullptr;
  int part = 0;
  ir::Pipe pipe = ir::Pipe::kS;
  uint8_t known = 0;
  std::set<int> carried;  // ids of the loops whose back edge this instance crossed
  bool operator==(const Rec& o) const {
    return node == o.node && part == o.part && known == o.known && carried == o.carried;
  }
};

struct Ev {
  bool maybe = false;
  bool surely = false;
  std::set<Key> snap;
  const Node* setter = nullptr;
  bool operator==(const Ev& o) const {
    return maybe == o.maybe && surely == o.surely && snap == o.snap;
  }
};

struct State {
  std::map<Key, Rec> recs;
  std::map<int64_t, Ev> evs;  // (src * 8 + dst) << 32 | id
  bool operator==(const State& o) const { return recs == o.recs && evs == o.evs; }
};

Key KeyOf(const Node* n, int part) { return static_cast<Key>(n->id) * 16 + part; }

State Merge(const State& a, const State& b) {
  State out = a;
  for (const auto& [k, rb] : b.recs) {
    auto it = out.recs.find(k);
    if (it == out.recs.end()) {
      out.recs.emplace(k, rb);
      continue;
    }
    it->second.known &= rb.known;
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
    std::set<Key> snap;
    auto in = [](const State& s, const Ev& e, Key r) {
      return e.snap.count(r) != 0 || s.recs.count(r) == 0;
    };
    for (Key r : ea.snap)
      if (in(b, eb, r)) snap.insert(r);
    for (Key r : eb.snap)
      if (in(a, ea, r)) snap.insert(r);
    ea.snap = std::move(snap);
    ea.maybe = ea.maybe || eb.maybe;
    ea.surely = ea.surely && eb.surely;
    if (ea.setter == nullptr) ea.setter = eb.setter;
  }
  for (auto& [k, ea] : out.evs)
    if (b.evs.count(k) == 0) ea.surely = false;
  return out;
}

bool Encloses(const Node* outer, const Node* n) {
  for (; n != nullptr; n = n->parent)
    if (n == outer) return true;
  return false;
}

class Walker {
 public:
  explicit Walker(const AnalyzeOptions& options) : options_(options) {}

  Analysis Run(const Program& p) {
    State st;
    Walk(p.root(), st);
    for (const auto& [k, e] : st.evs)
      if (e.maybe) Flag(FlagIssue::kArmedAtExit, e.setter);
    return std::move(out_);
  }

 private:
  void Walk(const Node* n, State& st) {
    switch (n->kind) {
      case NodeKind::kSeq:
        for (const auto& k : n->kids) Walk(k.get(), st);
        return;
      case NodeKind::kLeaf:
        Leaf(n, st);
        return;
      case NodeKind::kSync:
        if (!n->disabled) Sync(n, st);
        return;
      case NodeKind::kScope:
      case NodeKind::kLet:
        Leaf(n, st);
        Walk(n->kids[0].get(), st);
        return;
      case NodeKind::kIf: {
        Leaf(n, st);
        State t = st;
        Walk(n->kids[0].get(), t);
        if (n->kids.size() > 1) Walk(n->kids[1].get(), st);
        st = Merge(t, st);
        return;
      }
      case NodeKind::kFor:
        Leaf(n, st);
        Loop(n, st);
        return;
    }
  }

  void Loop(const Node* n, State& st) {
    const auto& f = ir::As<ir::ForNode>(n->stmt);
    const std::optional<int64_t> trips = ir::AsConstInt(f.extent);
    if (trips && *trips <= 0) return;
    if (trips && *trips == 1) {
      // One trip: the back edge is never taken, so nothing is carried; the body is straight
      // line code (sync_insert must not place loop-carried pairs here).
      Walk(n->kids[0].get(), st);
      return;
    }
    State head = st;
    State body;
    for (int round = 0; round < 64; ++round) {
      body = head;
      Walk(n->kids[0].get(), body);
      for (auto& [k, r] : body.recs) r.carried.insert(n->id);
      State next = Merge(st, body);
      if (next == head) break;
      head = std::move(next);
    }
    if (trips && *trips >= 2) {
      body = LastTrip(n, st);
    }
    st = trips && *trips >= 1 ? std::move(body) : std::move(head);
    for (auto& [k, r] : st.recs) r.carried.erase(n->id);
  }

  // The state after a loop that surely runs at least twice: its last trip starts from a state
  // reached after one or more trips, never from the entry state, so orderings the first trip
  // establishes late (e.g. a flag chain that reaches a pipe only in the next trip) hold after
  // the loop. Every hazard of these walks was already found from the weaker entry-merged
  // head, so they report nothing.
  State LastTrip(const Node* n, const State& entry) {
    ++quiet_;
    State after_first = entry;
    Walk(n->kids[0].get(), after_first);
    for (auto& [k, r] : after_first.recs) r.carried.insert(n->id);
    State head = after_first;
    State body;
    for (int round = 0; round < 64; ++round) {
      body = head;
      Walk(n->kids[0].get(), body);
      for (auto& [k, r] : body.recs) r.carried.insert(n->id);
      State next = Merge(after_first, body);
      if (next == head) break;
      head = std::move(next);
    }
    --quiet_;
    return body;
  }

  // Checks every part of `n` against the state, then records them (the parts of one
  // statement are issued in dispatch order and are not checked against each other).
  void Leaf(const Node* n, State& st) {
    for (size_t i = 0; i < n->parts.size(); ++i) Check(n, static_cast<int>(i), st);
    for (size_t i = 0; i < n->parts.size(); ++i) {
      const Key key = KeyOf(n, static_cast<int>(i));
      Rec r;
      r.node = n;
      r.part = static_cast<int>(i);
      r.pipe = n->parts[i].pipe;
      r.known = r.pipe == ir::Pipe::kS ? Bit(ir::Pipe::kS) : 0;
      st.recs[key] = std::move(r);
      for (auto& [k, e] : st.evs) e.snap.erase(key);
    }
  }

  void Check(const Node* n, int part, const State& st) {
    const Part& p = n->parts[part];
    for (const auto& [k, r] : st.recs) {
      if ((r.known & Bit(p.pipe)) != 0) continue;
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
      AddHazard(r, n, part, *x, *y);
    }
  }

  void AddHazard(const Rec& r, const Node* n, int part, const Access& x, const Access& y,
                 bool event = false) {
    if (quiet_ > 0) return;
    const std::tuple<const Node*, int, const Node*, int> key{r.node, r.part, n, part};
    if (std::find(seen_.begin(), seen_.end(), key) != seen_.end()) return;
    seen_.push_back(key);
    Hazard h;
    h.first = r.node;
    h.first_part = r.part;
    h.second = n;
    h.second_part = part;
    h.first_write = x.write;
    h.second_write = y.write;
    h.event = event;
    for (const Node* a = n->parent; a != nullptr; a = a->parent) {
      if (a->kind == NodeKind::kFor && r.carried.count(a->id) != 0 && Encloses(a, r.node)) {
        h.carried = a;
        break;
      }
    }
    out_.hazards.push_back(h);
  }

  void Flag(FlagIssue issue, const Node* n) {
    if (quiet_ > 0) return;
    for (const FlagFinding& f : out_.flags)
      if (f.issue == issue && f.sync == n) return;
    out_.flags.push_back({issue, n});
  }

  void Sync(const Node* n, State& st) {
    if (const auto* b = ir::TryAs<ir::BarrierNode>(n->stmt)) {
      for (auto& [k, r] : st.recs) {
        if (b->pipe == ir::Pipe::kAll) r.known = kAllPipes;
        if (r.pipe == b->pipe) r.known |= Bit(b->pipe);
      }
      return;
    }
    const auto* f = ir::TryAs<ir::FlagNode>(n->stmt);
    if (f == nullptr) return;  // cross-core flags give no intra-core order
    const std::optional<int64_t> id = ir::AsConstInt(f->event);
    if (!id) {
      out_.runtime_ids = true;
      return;
    }
    if (*id < 0 || (*id > 7 && !options_.virtual_ids)) {
      Flag(FlagIssue::kUnknownEvent, n);
      return;
    }
    const int64_t key =
        (static_cast<int64_t>(f->src) * 8 + static_cast<int64_t>(f->dst)) << 32 | *id;
    if (n->stmt->kind == ir::StmtKind::kSetFlag) {
      EventStep(n, st);
      Ev& e = st.evs[key];
      if (e.maybe) Flag(FlagIssue::kDoubleSet, n);
      e.maybe = e.surely = true;
      e.setter = n;
      e.snap.clear();
      for (const auto& [k, r] : st.recs)
        if (r.pipe == f->src || (r.known & Bit(f->src)) != 0) e.snap.insert(k);
      return;
    }
    auto it = st.evs.find(key);
    if (it == st.evs.end() || !it->second.maybe) {
      Flag(FlagIssue::kNeverSet, n);
      return;
    }
    if (!it->second.surely) Flag(FlagIssue::kMaybeUnset, n);
    const uint8_t gain = f->dst == ir::Pipe::kS ? kAllPipes : Bit(f->dst);
    for (Key k : it->second.snap) {
      auto r = st.recs.find(k);
      if (r != st.recs.end()) r->second.known |= gain;
    }
    st.evs.erase(it);
    EventStep(n, st);
  }

  // The event side of a set/wait (see sync_access.h): a set that an earlier wait of its event
  // may not have passed yet is a hazard; with virtual ids, two events of one pipe pair whose
  // sets and waits are unordered interfere. Then the set/wait is recorded like any work on its
  // pipe (a wait is passed before anything later on its pipe starts).
  void EventStep(const Node* n, State& st) {
    if (n->parts.empty()) return;
    const Part& p = n->parts[0];
    const Access& ev = p.accesses[0];
    for (const auto& [k, r] : st.recs) {
      const Part& q = r.node->parts[r.part];
      if (q.accesses.empty()) continue;
      const Access& other = q.accesses[0];
      if (other.event_group != ev.event_group || other.event_set == ev.event_set) continue;
      if ((r.known & Bit(p.pipe)) != 0) continue;
      if (other.event_id == ev.event_id) {
        if (ev.event_set) AddHazard(r, n, 0, other, ev, /*event=*/true);
      } else if (quiet_ == 0 && options_.virtual_ids && other.event_id >= 8 && ev.event_id >= 8) {
        out_.interference.insert(std::minmax(other.event_id, ev.event_id));
      }
    }
    const Key key = KeyOf(n, 0);
    Rec r;
    r.node = n;
    r.pipe = p.pipe;
    r.known = ev.event_set ? 0 : Bit(p.pipe);
    st.recs[key] = std::move(r);
    for (auto& [k, e] : st.evs) e.snap.erase(key);
  }

  const AnalyzeOptions& options_;
  int quiet_ = 0;  // > 0: a re-walk for a more precise state; findings are not reported
  Analysis out_;
  std::vector<std::tuple<const Node*, int, const Node*, int>> seen_;
};

}  // namespace

Analysis Analyze(const Program& program, const AnalyzeOptions& options) {
  return Walker(options).Run(program);
}

std::string HazardKindName(const Hazard& h) {
  if (h.event) return "event reuse";
  if (h.first_write && h.second_write) return "WAW";
  return h.first_write ? "RAW" : "WAR";
}

}  // namespace tilejit::passes::sync
