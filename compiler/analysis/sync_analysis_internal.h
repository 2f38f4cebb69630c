// SPDX-License-Identifier: Apache-2.0
// The abstract machine behind sync::Analyze and sync::AnalyzeCores (sync_analysis.h), shared by
// sync_analysis.cc (one core's statements, control flow) and sync_analysis_joint.cc (the
// schedule of two core programs and their cross-core counters). Not part of the pass API.
//
// Thread safety: a Walker is used by one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "compiler/analysis/sync_analysis.h"

namespace tilejit::analysis::sync::internal {

// A record key: the core (0 or 1) and the statement part.
using Key = int64_t;
inline Key KeyOf(int core, const Node* n, int part) {
  return (static_cast<Key>(core) << 40) | (static_cast<Key>(n->id) * 16 + part);
}
inline int CoreOfKey(Key k) { return static_cast<int>(k >> 40); }
// A loop id tagged with its core (records remember the loops whose back edge they crossed).
inline int LoopTag(int core, const Node* loop) { return (core << 24) | loop->id; }

// The latest instance of one statement part of one core.
struct Rec {
  const Node* node = nullptr;
  int part = 0;
  int core = 0;
  ir::Pipe pipe = ir::Pipe::kS;
  uint8_t known = 0;   // pipes of its own core ordered after it
  uint8_t xknown = 0;  // pipes of the other core ordered after it (through cross-core flags)
  std::set<int> carried;
  bool operator==(const Rec& o) const {
    return node == o.node && part == o.part && known == o.known && xknown == o.xknown &&
           carried == o.carried;
  }
};

// An intra-core event (set_flag/wait_flag) of one core.
struct Ev {
  bool maybe = false;
  bool surely = false;
  std::set<Key> snap;
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
  std::deque<std::set<Key>> tokens;
  int deficit = 0;
  bool lost = false;
  bool operator==(const Queue& o) const {
    return tokens == o.tokens && deficit == o.deficit && lost == o.lost;
  }
};

struct State {
  std::map<Key, Rec> recs;
  std::map<int64_t, Ev> evs;    // core << 56 | (src * 8 + dst) << 32 | id
  std::map<int, Queue> queues;  // receiving core * 64 + flag id
  bool operator==(const State& o) const {
    return recs == o.recs && evs == o.evs && queues == o.queues;
  }
};

State Merge(const State& a, const State& b);

// The value of an `if` node's condition when its bounds decide it (ir::IntBoundsOf): the
// analysis then walks only the arm that runs.
std::optional<bool> KnownCondition(const Node* if_node);

// One item of a flattened statement list: sequences, scopes and lets are transparent (a scope
// or let contributes its header, then its body's items).
struct Item {
  const Node* node = nullptr;
  bool header = false;  // only the header's scalar reads (kScope, kLet)
};

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
  void AddHazard(const Rec& r, const Node* n, int part, int core, const Access& x, const Access& y,
                 bool event = false);
  void Flag(FlagIssue issue, int core, const Node* n);
  void Sync(const Node* n, int core, State& st);
  void EventStep(const Node* n, int core, State& st);
  std::set<Key> Ordered(ir::Pipe p, int core, const State& st) const;
  void Gain(const std::set<Key>& snap, ir::Pipe p, int core, State& st);
  void CrossSet(const ir::CrossFlagNode& f, int core, State& st);
  void CrossWait(const ir::CrossFlagNode& f, int core, State& st);

  // A loop (one node per core walked together) iterated to its fixpoint; `body` walks one trip.
  using Loops = std::vector<std::pair<const Node*, int>>;  // (loop node, core)
  using BodyFn = std::function<void(State&)>;
  // An `if` (one node, or one per core walked together); `arm(i, st)` walks arm i.
  using ArmFn = std::function<void(int, State&)>;
  void Branch(const Node* n, const ArmFn& arm, State& st);
  void Loop(const Loops& loops, const BodyFn& body, State& st);
  State LastTrip(const Loops& loops, const BodyFn& body, const State& entry);
  std::pair<State, State> Fixpoint(const Loops& loops, const BodyFn& body, const State& entry);
  static void Carry(const Loops& loops, State& st);

  // Cross-core flags (sync_analysis_joint.cc).
  bool Modelled(const ir::CrossFlagNode& f) const;
  bool BlockedWait(const Item& it, int core, const State& st) const;

  const AnalyzeOptions& options_;
  std::vector<const Program*> programs_;
  bool joint_ = false;
  std::set<int64_t> modelled_ids_;  // cross-core flag ids paired FIFO between the two cores
  int quiet_ = 0;  // > 0: a re-walk for a more precise state; findings are not reported
  std::vector<Analysis> out_;
  std::set<std::tuple<const Node*, int, const Node*, int>> seen_;
};

}  // namespace tilejit::analysis::sync::internal
