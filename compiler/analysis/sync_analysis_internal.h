// SPDX-License-Identifier: Apache-2.0
// The abstract machine behind sync::Analyze and sync::AnalyzeCores (sync_analysis.h), shared by
// sync_analysis.cc (one core's statements, control flow), sync_analysis_joint.cc (the schedule
// of two core programs and their cross-core counters), sync_state.cc (the dense state) and
// sync_conflicts.cc (which statement parts touch common bytes). Not part of the pass API.
//
// Records are dense: every (core, statement node, part) has a slot, numbered in (core, node id,
// part) order, so scanning slots in order is scanning records in the order findings are
// reported. A set of slots is a row of 64-bit words; a State keeps all of its per-slot facts as
// rows of one vector, so copying, merging and comparing states (which the loop fixpoints do
// constantly) are a few word loops.
//
// Thread safety: a Walker is used by one thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "compiler/analysis/sync_analysis.h"

namespace tilejit::analysis::sync::internal {

using target::kNumPipes;
using Word = uint64_t;
using Row = std::vector<Word>;  // a set of slots, Geometry::words words

inline bool TestBit(const Word* row, int slot) { return (row[slot >> 6] >> (slot & 63)) & 1u; }
inline void SetBit(Word* row, int slot) { row[slot >> 6] |= Word{1} << (slot & 63); }
inline void ResetBit(Word* row, int slot) { row[slot >> 6] &= ~(Word{1} << (slot & 63)); }

// A statement part whose accesses touch a byte another part of the same program touches (one
// of them writing): `other` is that part's node id * kPartsPerNode + part. The flags are those
// of the access pair a finding names (a read after a write when there is one).
struct Conflict {
  int other = 0;
  bool first_write = false;   // the earlier (recorded) access writes
  bool second_write = false;  // the later (checked) access writes
};

// Per node id and part of one Program: its conflicts, sorted by the other part (sync_conflicts.cc).
// Only memory accesses conflict, and syncs touch no memory, so inserting, replacing or removing
// syncs never changes the table.
struct ConflictTable {
  std::vector<std::vector<Conflict>> by_part;  // index node id * kPartsPerNode + part
};
inline constexpr int kPartsPerNode = 2;  // DescribeStmt gives at most a scalar and a work part

ConflictTable BuildConflicts(const Program& program);

// Where the rows of a State are: presence, the pipes of the record's own core ordered after it
// (one row per pipe), the pipes of the other core ordered after it (through cross-core flags),
// and the loops whose back edge the record crossed (one row per loop). A slot without a record
// has every "known" bit set and no "carried" bit, so merging two paths is a bitwise AND of the
// known rows and an OR of the carried rows, and a missing record never looks unordered.
struct Geometry {
  int words = 0;  // per row
  int loops = 0;  // loop rows
  static constexpr int kPresent = 0;
  static constexpr int kKnown = 1;                      // + pipe
  static constexpr int kXKnown = kKnown + kNumPipes;    // + pipe
  static constexpr int kCarried = kXKnown + kNumPipes;  // + loop index
  int rows() const { return kCarried + loops; }
};

// An intra-core event (set_flag/wait_flag) of one core; `snap`: what the setting pipe had
// ordered (a row).
struct Ev {
  bool maybe = false;
  bool surely = false;
  Row snap;
  const Node* setter = nullptr;
  bool operator==(const Ev& o) const {
    return maybe == o.maybe && surely == o.surely && snap == o.snap;
  }
};

// The tokens of one cross-core counter on its receiving core, oldest first. Each token is what
// the setting pipe had ordered before it when it fired. `deficit` counts waits that found no
// token here (their set comes later in this analysis' schedule; it will be dropped on arrival,
// so later waits still pair with the right set). `lost`: the paths disagree on the count, so
// waits on it give nothing.
struct Queue {
  std::vector<Row> tokens;  // few at a time: a vector copies far cheaper than a deque
  int deficit = 0;
  bool lost = false;
  bool operator==(const Queue& o) const = default;
};

// A small map kept as a vector sorted by key: a State has a handful of live events and
// counters, and copying, merging and scanning them (every record scans them) is what the
// analysis does most, which a node-based map makes slow.
template <typename K, typename V>
class FlatMap {
 public:
  using Entry = std::pair<K, V>;
  V* Find(K k) {
    auto it = LowerBound(k);
    return it != items_.end() && it->first == k ? &it->second : nullptr;
  }
  const V* Find(K k) const { return const_cast<FlatMap*>(this)->Find(k); }
  V& operator[](K k) {
    auto it = LowerBound(k);
    if (it == items_.end() || it->first != k) it = items_.insert(it, Entry{k, V{}});
    return it->second;
  }
  void Erase(K k) {
    auto it = LowerBound(k);
    if (it != items_.end() && it->first == k) items_.erase(it);
  }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  bool operator==(const FlatMap& o) const = default;

 private:
  typename std::vector<Entry>::iterator LowerBound(K k) {
    return std::lower_bound(items_.begin(), items_.end(), k,
                            [](const Entry& e, K key) { return e.first < key; });
  }
  std::vector<Entry> items_;
};

struct State {
  std::vector<Word> bits;      // Geometry::rows() rows
  FlatMap<int64_t, Ev> evs;    // core << 56 | (src * 8 + dst) << 32 | id
  FlatMap<int, Queue> queues;  // receiving core * 64 + flag id
  bool operator==(const State& o) const = default;
};

// The value of an `if` node's condition when its bounds decide it (ir::IntBoundsOf): the
// analysis then walks only the arm that runs.
std::optional<bool> KnownCondition(const Node* if_node);

// One item of a flattened statement list: sequences, scopes and lets are transparent (a scope
// or let contributes its header, then its body's items).
struct Item {
  const Node* node = nullptr;
  bool header = false;  // only the header's scalar reads (kScope, kLet)
};

// The slots of one run: which slot each record has, and the static facts about slots.
class Slots {
 public:
  explicit Slots(const std::vector<const Program*>& programs);

  const Geometry& geometry() const { return g_; }
  int Of(int core, const Node* n, int part) const {
    return base_[core] + n->id * kPartsPerNode + part;
  }
  int core_of(int slot) const { return slot >= base_[1] ? 1 : 0; }
  const Node* node(int slot) const { return node_[slot]; }
  int part(int slot) const { return slot % kPartsPerNode; }
  int LoopIndex(int core, const Node* loop) const { return loop_[core][loop->id]; }
  // Slots of `core`, and those of its parts on pipe p.
  const Row& own(int core) const { return own_[core]; }
  const Row& on_pipe(int core, ir::Pipe p) const { return pipe_[core][static_cast<int>(p)]; }
  // Memory conflicts of (core, n, part), in slot order (slot = base(core) + Conflict::other).
  const std::vector<Conflict>& ConflictsOf(int core, const Node* n, int part) const;
  // The event parts (set_flag/wait_flag with a constant id) of `core` in pipe pair `group`: the
  // sets (`sets` true) or the waits, and the event id of an event part.
  const Row& Events(int core, int group, bool sets) const;
  int64_t event_id(int slot) const { return event_id_[slot]; }
  // Every event id of the programs is below this (bounded: a larger id is not indexed).
  int64_t event_id_limit() const { return event_id_limit_; }
  int base(int core) const { return base_[core]; }

  State Empty() const;

 private:
  void Index(int core, const Node* n);

  Geometry g_;
  int base_[3] = {0, 0, 0};
  std::vector<const Node*> node_;
  std::vector<int> loop_[2];
  Row own_[2];
  Row pipe_[2][kNumPipes];
  const ConflictTable* conflicts_[2] = {nullptr, nullptr};
  std::map<std::pair<int, int>, std::array<Row, 2>> events_;  // [waits, sets]
  std::vector<int64_t> event_id_;
  int64_t event_id_limit_ = 0;
};

inline Word* RowOf(State& st, const Geometry& g, int row) {
  return st.bits.data() + static_cast<size_t>(row) * g.words;
}
inline const Word* RowOf(const State& st, const Geometry& g, int row) {
  return st.bits.data() + static_cast<size_t>(row) * g.words;
}
// The state after an `if` or a loop head: what holds on both paths (sync_state.cc).
State Merge(const State& a, const State& b, const Geometry& g);

class Walker {
 public:
  Walker(const AnalyzeOptions& options, std::vector<const Program*> programs);

  // Every core program alone (cross-core flags give no order), or, with `joint`, both
  // together when their control flow around cross-core flags lines up.
  std::vector<Analysis> Run(bool joint);

 private:
  friend class JointSchedule;

  void Walk(const Node* n, int core, State& st);
  void Leaf(const Node* n, int core, State& st);
  void Record(const Node* n, int part, int core, uint8_t known, State& st);
  void Check(const Node* n, int part, int core, const State& st);
  void AddHazard(int slot, const Node* n, int part, int core, bool first_write, bool second_write,
                 const State& st, bool event = false);
  void Flag(FlagIssue issue, int core, const Node* n);
  void Sync(const Node* n, int core, State& st);
  void Barrier(ir::Pipe pipe, int core, State& st);
  void EventStep(const Node* n, int core, State& st);
  // What pipe `p` of `core` has ordered before its next instruction, into `out`.
  void Ordered(ir::Pipe p, int core, const State& st, Row& out) const;
  void Interfere(int core, int64_t x, int64_t y);
  void Gain(const Row& snap, ir::Pipe p, int core, State& st);
  void CrossSet(const ir::CrossFlagNode& f, int core, State& st);
  void CrossWait(const ir::CrossFlagNode& f, int core, State& st);

  // A loop (one node per core walked together) iterated to its fixpoint; `body` walks one trip.
  using Loops = std::vector<std::pair<const Node*, int>>;  // (loop node, core)
  using BodyFn = std::function<void(State&)>;
  // An `if` (one node, or one per core walked together); `arm(i, st)` walks arm i.
  using ArmFn = std::function<void(int, State&)>;
  void Branch(const Node* n, const ArmFn& arm, State& st);
  void Loop(const Loops& loops, const BodyFn& body, State& st);
  struct Trips {
    State head;   // the entry merged with every trip's end
    State last;   // the end of the last trip walked
    State first;  // the end of the first trip
  };
  State LastTrip(const Loops& loops, const BodyFn& body, const State& after_first);
  Trips Fixpoint(const Loops& loops, const BodyFn& body, const State& entry);
  void Carry(const Loops& loops, State& st) const;

  // Cross-core flags (sync_analysis_joint.cc).
  bool Modelled(const ir::CrossFlagNode& f) const;
  bool BlockedWait(const Item& it, int core, const State& st) const;

  const AnalyzeOptions& options_;
  std::vector<const Program*> programs_;
  Slots slots_;
  bool joint_ = false;
  std::set<int64_t> modelled_ids_;  // cross-core flag ids paired FIFO between the two cores
  int quiet_ = 0;         // > 0: a re-walk for a more precise state; findings are not reported
  bool stopped_ = false;  // stop_at_first_hazard and a hazard was found: walk no further
  std::vector<Analysis> out_;
  std::set<std::tuple<const Node*, int, const Node*, int>> seen_;
  std::vector<Word> interfering_;  // (core, lower id, higher id) reported, as bits
};

}  // namespace tilejit::analysis::sync::internal
