// SPDX-License-Identifier: Apache-2.0
// The happens-before analysis shared by sync_insert and verify_sync: one core program as an
// editable tree, and an abstract execution of it that finds unordered conflicting accesses
// (hazards) and misused event flags.
//
// The abstract state follows the simulator's ordering rules (docs/isa.md sections 1 and 8):
// per pipe-work record (the latest instance of each statement part), the set of pipes already
// ordered after it ("known"). A part on pipe Q conflicting with a record that Q does not know
// is a hazard. barrier(P) makes P know its own earlier work, barrier(all) makes every pipe know
// everything; set_flag(P, Q, id) snapshots what P knows (its own work included) and
// wait_flag(P, Q, id) hands that snapshot to Q (to every pipe when Q is s, which stalls
// dispatch). The scalar unit is synchronous: it always knows its own work.
// Cross-core flags: analysed alone, a core program gets no order from them. AnalyzeCores walks
// the cube and the vector program together and follows the mode-2 counters (sync_analysis_
// joint.cc): an xset(P) snapshots what P knows, of both cores, as a token on the other core's
// counter, and the n-th xwait(Q) of that counter hands the n-th token to Q. So a round trip
// (cube work -> xset -> vector xwait ... vector xset -> cube xwait) orders the cube work before
// what follows the cube's wait, as on the device. Records of the other core are never checked
// for conflicts here (cross-core data is ordered by cross_core_sync's protocol); a record
// remembers which pipes of the other core it is ordered before.
// Control flow: both arms of an `if` are walked and merged (a pipe knows a record after the
// `if` only if it knows it on both paths), unless the condition's bounds decide it; a loop is
// iterated to a fixpoint with its entry state merged in (zero trips, unless the trip count is at
// least 1: a positive constant, or an expression whose bounds say so, such as `cid % 2 + 1`; a
// constant trip count of 1 is walked once, straight line, with nothing carried; after a loop of at
// least 2 trips, the state is that of a last trip started after one or more trips, not from the
// entry state), and records that crossed a loop's back edge remember that loop ("carried"), which
// is how sync_insert places loop-carried pairs. Event flags with a runtime id are not modelled (see
// `runtime_ids`).
//
// Thread safety: a Program is used by one thread.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compiler/analysis/sync_access.h"
#include "compiler/ir/ir.h"
#include "compiler/target/npu_target.h"

namespace tilejit::analysis::sync {

namespace internal {
struct ConflictTable;
}

enum class NodeKind : uint8_t { kSeq, kLeaf, kSync, kFor, kIf, kLet, kScope };

// A node of the editable tree. Every non-seq node's parent is a kSeq node; kFor, kLet and
// kScope have one kSeq child (the body), kIf one or two (then, else).
struct Node {
  NodeKind kind = NodeKind::kSeq;
  ir::Stmt stmt;  // the statement (header fields for kFor/kIf/kLet/kScope); null for kSeq
  Node* parent = nullptr;
  std::vector<std::unique_ptr<Node>> kids;
  std::vector<Part> parts;  // kLeaf and headers: the access model
  int id = 0;               // unique within the program (record keys)
  int pair = -1;            // kSync made by sync_insert: its pair (event id assigned later)
  int order = 0;            // pre-order position, refreshed by Program::Renumber
  int last = 0;             // pre-order position of the last node of its subtree (Renumber)
  bool disabled = false;    // a sync left out of the analysis and of Rebuild
};

// One core program (or one scope body) as a tree. Statements of the other core kind (their
// scopes) are left out when built with a core filter.
class Program {
 public:
  // `root` is the statement list to analyse; with `only` set, `scope` statements of the other
  // kind are dropped and those of this kind are entered.
  Program(const ir::Stmt& root, const target::NpuTarget& target);
  Program(const ir::Stmt& root, const target::NpuTarget& target, ir::CoreKind only);

  Node* root() { return root_.get(); }
  const Node* root() const { return root_.get(); }

  // Inserts `stmt` as a sync node before / after `anchor` in its parent sequence.
  Node* InsertBefore(Node* anchor, ir::Stmt stmt, int pair) {
    return Insert(anchor, std::move(stmt), pair, false);
  }
  Node* InsertAfter(Node* anchor, ir::Stmt stmt, int pair) {
    return Insert(anchor, std::move(stmt), pair, true);
  }
  // Replaces a sync node's statement (event id assignment, fallbacks).
  void Replace(Node* sync, ir::Stmt stmt);
  // Removes a sync node.
  static void Remove(Node* sync);

  void Renumber();
  // The statement again, with the edits.
  ir::Stmt Rebuild() const;

  // Every node id is below this.
  int id_limit() const { return next_id_; }
  // Which statement parts touch common bytes (for the analysis), built on first use; edits
  // (which only add, replace and remove syncs) never change it.
  const internal::ConflictTable& conflicts() const;

 private:
  std::unique_ptr<Node> Build(const ir::Stmt& s, Node* parent);
  std::unique_ptr<Node> BuildSeq(const ir::Stmt& s, Node* parent);
  std::unique_ptr<Node> NewNode(NodeKind kind, ir::Stmt s, Node* parent);
  Node* Insert(Node* anchor, ir::Stmt stmt, int pair, bool after);

  const target::NpuTarget& target_;
  bool filter_ = false;
  ir::CoreKind only_ = ir::CoreKind::kCube;
  int next_id_ = 0;
  std::unique_ptr<Node> root_;
  mutable std::shared_ptr<const internal::ConflictTable> conflicts_;
};

struct Hazard {
  const Node* first = nullptr;  // the earlier access's statement
  int first_part = 0;
  const Node* second = nullptr;
  int second_part = 0;
  bool first_write = false;
  bool second_write = false;
  // Innermost loop whose back edge the first access crossed and that encloses both
  // statements, or null when the pair is within one iteration.
  const Node* carried = nullptr;
  // Not memory: `second` sets an event that `first` (a wait of the same event) may not have
  // consumed yet, so the set could find the event still set.
  bool event = false;
};

enum class FlagIssue : uint8_t {
  kDoubleSet,     // set_flag on an event that is (or may be) already set
  kNeverSet,      // wait_flag on an event no path has set: it would wait forever
  kMaybeUnset,    // wait_flag on an event only some paths set
  kArmedAtExit,   // an event still (or possibly) set at the end of the program
  kUnknownEvent,  // an event id that is not 0..7
};

struct FlagFinding {
  FlagIssue issue;
  const Node* sync;  // the set or wait involved
};

struct Analysis {
  std::vector<Hazard> hazards;  // in detection order, one per (first, second) statement pair
  std::vector<FlagFinding> flags;
  bool runtime_ids = false;  // some set/wait has a non-constant event id (not modelled)
  // With virtual ids: (id, id) of two events of one pipe pair whose sets and waits are not
  // ordered against each other, so they must not share a real id (smaller id first).
  std::set<std::pair<int64_t, int64_t>> interference;
  // AnalyzeCores only: the cross-core counters were followed (see AnalyzeCores).
  bool cross_core = false;
};

struct AnalyzeOptions {
  // Event ids of 8 and up are distinct virtual events rather than findings (sync_insert
  // gives each pair its own id until the real ids are assigned).
  bool virtual_ids = false;
  // Stop at the first hazard: the result then holds that one hazard and whatever flag findings
  // came before it (for callers that only ask whether a program is hazard-free).
  bool stop_at_first_hazard = false;
};

// Abstract execution of `program` from an empty state (no pending work, no set event).
Analysis Analyze(const Program& program, const AnalyzeOptions& options = {});

// The cube and the vector program of one kernel (filtered from one launch body, or the bodies
// of its one cube and one vector scope) from an empty state, together: orders through the
// other core count. The counters followed are the cross-core flag ids every set of which is
// mode 2 with a constant id; a loop or `if` holding one must have its counterpart in the other
// program at the same place (same bounds or condition), as combine_cv makes them. Otherwise
// (some id is a runtime value, or the control flow does not line up) both are analysed alone,
// as Analyze does, and `cross_core` is false in the results. [0] is the cube's analysis.
std::array<Analysis, 2> AnalyzeCores(const Program& cube, const Program& vector,
                                     const AnalyzeOptions& options = {});

// "RAW" / "WAR" / "WAW" of a hazard.
std::string HazardKindName(const Hazard& h);

}  // namespace tilejit::analysis::sync
