// SPDX-License-Identifier: Apache-2.0
// The parts of sync_insert (sync_insert.cc: the pass and its rounds; sync_insert_inserter.cc:
// placing, dropping and numbering the syncs of one core program). Not part of the pass API.
//
// Thread safety: an Inserter belongs to one compile on one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "compiler/analysis/sync_analysis.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes::sync_insert_internal {

namespace sync = analysis::sync;
using PipePair = std::pair<ir::Pipe, ir::Pipe>;

// Until ids are assigned, each pair made here has its own virtual event id (8 + its index).
inline constexpr int kEventIds = 8;

// The dependence a sync was placed for: what must stay ordered if the sync is removed.
struct Reason {
  const sync::Node* first = nullptr;
  const sync::Node* second = nullptr;
  const sync::Node* carried = nullptr;  // the loop, for a loop-carried dependence
  ir::Pipe src = ir::Pipe::kS;          // the producer's pipe
  ir::Pipe dst = ir::Pipe::kS;          // the consumer's pipe
};

// A set/wait pair made here; ids are assigned once every pair exists.
struct PairInfo {
  ir::Pipe src = ir::Pipe::kS;
  ir::Pipe dst = ir::Pipe::kS;
  std::vector<sync::Node*> sets;
  std::vector<sync::Node*> waits;
  sync::Node* in_loop_wait = nullptr;  // the wait a fallback barrier replaces
  bool carried = false;
  bool dropped = false;  // redundant (DropRedundant): its nodes are disabled
  Reason reason;
};

// A same-pipe barrier made here (pipe barriers are dropped like pairs when redundant).
struct BarrierInfo {
  sync::Node* node = nullptr;
  Reason reason;
  bool dropped = false;
};

// What a sync placed in this round orders, for telling which later hazards of the same round
// it already covers (placing one sync per hazard would repeat the ones a single sync orders).
struct Placed {
  const sync::Node* block = nullptr;  // the body both anchors are statements of
  int set_after = -1;                 // pre-order position of the producer's anchor
  int wait_before = -1;               // pre-order position of the consumer's anchor
  ir::Pipe src = ir::Pipe::kS;
  ir::Pipe dst = ir::Pipe::kS;  // kS: the scalar unit, which orders every pipe
  bool all = false;             // barrier(all)
  const sync::Node* carried = nullptr;
};

using PlacedByBlock = std::map<const sync::Node*, std::vector<Placed>>;

// One hazard with what FixAll asks of it repeatedly, computed once.
struct View {
  const sync::Hazard* h = nullptr;
  const sync::Node* block = nullptr;  // BlockFor: where its sync goes
  int a = 0;                          // pre-order positions of the anchors in `block`
  int b = 0;
  const sync::Node* carried = nullptr;  // the loop, when its sync is a loop-carried pair
  ir::Pipe src = ir::Pipe::kS;
  ir::Pipe dst = ir::Pipe::kS;
};

// Places, drops and numbers the syncs of one core program (see sync_insert.h for the rules).
class Inserter {
 public:
  Inserter(sync::Program& p, ir::CoreKind core, PassContext& ctx);

  // The syncs already in the program (their ids are avoided); call once, before FixAll.
  void Start();
  sync::Program& program() { return p_; }

  // Orders the hazards of one analysis (non-empty, in detection order): one sync for the first
  // hazard of each consumer that no sync placed earlier in this call already orders.
  void FixAll(const std::vector<sync::Hazard>& hs);

  // Each pair or barrier made here whose removal leaves `clean()` true goes, newest first, so
  // every sync the pass keeps is needed. One whose dependence nothing else in the program could
  // order (no other wait, barrier or cross-core wait on its pipe between the two statements) is
  // kept without asking.
  void DropRedundant(const std::function<bool()>& clean);

  // Greedy colouring per pipe pair (see sync_insert.h); then counts the statistics of what the
  // program keeps ("set_wait_pairs", "barriers", "sync_fallbacks").
  void AssignIds(const std::set<std::pair<int64_t, int64_t>>& interference);

 private:
  const View& Pick(const std::vector<View>& views, const std::vector<int>& same, const View& start,
                   const PlacedByBlock& placed) const;
  bool Covered(const View& v, const PlacedByBlock& placed) const;
  Placed Fix(const sync::Hazard& h);
  bool MayBeOrderedWithout(const Reason& r, const std::vector<const sync::Node*>& own) const;
  void ScanExisting(const sync::Node* n);
  void SetDisabled(PairInfo& p, bool disabled);
  void SetId(sync::Node* n, int id);
  void FallBack(PairInfo& p);
  void Count(const char* stat, int64_t n = 1) { ctx_.Count(stat, n); }

  sync::Program& p_;
  target::CoreType core_;
  PassContext& ctx_;
  std::map<PipePair, std::set<int64_t>> used_;
  std::set<PipePair> runtime_pairs_;
  std::vector<PairInfo> pairs_;
  std::vector<BarrierInfo> barriers_;  // same-pipe barriers placed by Fix
  int64_t fallbacks_ = 0;              // barrier(all) where no pair could order a dependence
  // Hazards (producer, consumer, carried loop) already fixed once, and fixed coarsely.
  std::set<std::tuple<int, int, int, int, int>> tried_;
  std::set<std::tuple<int, int, int, int, int>> fallen_back_;
};

}  // namespace tilejit::passes::sync_insert_internal
