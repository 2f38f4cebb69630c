// SPDX-License-Identifier: Apache-2.0
// Internal to cross_core_sync: the analysis (cross_core_sync_plan.cc) that decides which
// counters exist, which hand-offs each orders, their ids and how many slot-free tokens each
// may pre-arm; the pass (cross_core_sync.cc) then places the flags.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes::xsync {

// Direction of a hand-off: by the core that writes the workspace.
enum Dir : int { kCubeToVector = 0, kVectorToCube = 1 };

// One compiler workspace crossing cores.
struct HandOff {
  Dir dir = kCubeToVector;
  target::Pipe write_pipe = target::Pipe::kFix;  // FIX for L0C->GM, MTE3 for UB/L1->GM
  bool rewritten = false;  // may be written more than once (in a loop, or by several copies)
  int counter = 0;         // index in Plan::counters
  // Ready sets per write: 1, or the read count of a workspace the kernel declared that is
  // written once and read that many times (a constant up to kMaxTokens; its own counter).
  int sets_per_write = 1;
  // Written only by the loops of Plan::units (a declared workspace filled piece by piece and
  // read whole): the flags go around those loops, not around each write.
  bool in_units = false;
};

// One pair of counters: all hand-offs of one direction, or of one workspace family of it.
struct Counter {
  Dir dir = kCubeToVector;
  std::optional<int> ready;      // producer -> consumer, one set per write
  std::optional<int> slot_free;  // consumer -> producer, for rewritten workspaces only
  int tokens = 0;                // slot-free tokens pre-armed by the consumer (and drained)
  target::Pipe write_pipe = target::Pipe::kFix;  // the producer's pipe for the drain waits
};

struct Plan {
  std::map<const ir::BufferNode*, HandOff> hand_offs;
  // Fill loops (FindFillLoops) -> the in_units hand-offs each fills, in first-write order.
  // One run of the loop is one write of each.
  std::map<const ir::ForNode*, std::vector<const ir::BufferNode*>> units;
  std::vector<Counter> counters;  // cube->vector ones first, then vector->cube
};

// Finds the hand-offs of a split kernel (after combine_cv), their directions, groups them
// into counters (one per direction when the producer writes them in read order, else one per
// workspace family), the token counts, and allocates flag ids avoiding the author's. User
// errors (ids exhausted, an author cross flag with a runtime id, a hand-off under control
// flow that depends on vid) go to ctx.diag; the caller returns ctx.diag->ToStatus() when
// there are any. A producer whose writes of one family are not in the order of the
// consumer's reads (by loop and `if` structure) is a compiler bug upstream: InternalError
// (TILEJIT_CHECK).
Plan MakePlan(const ir::Kernel& kernel, PassContext& ctx);

// The workspace (a compiler's or the kernel's own) a copy writes (i = 0) or reads (i = 1),
// nullptr if it touches none there.
const ir::BufferNode* WorkspaceArg(const ir::TileOpNode& op, size_t i);

// A declared workspace written only on `side` (0 cube, 1 vector), `writes` copy statements
// there, read `reads` times (executions) on the other side.
struct FillCandidate {
  const ir::BufferNode* ws = nullptr;
  int side = 0;
  int writes = 0;
  int64_t reads = 0;
};

// Fill loops (cross_core_sync_fill.cc): for each candidate filled piece by piece inside loops
// that touch workspaces only by writing declared ones, the loops one run of which is one
// write: the outermost whose runs add up to its reads. Returns loop -> the workspaces it
// fills (first-write order) and adds those workspaces to `filled`; the others are not fills.
std::map<const ir::ForNode*, std::vector<const ir::BufferNode*>> FindFillLoops(
    const ir::Kernel& kernel, const std::vector<FillCandidate>& candidates,
    std::set<const ir::BufferNode*>* filled);

// Largest number of slot-free tokens pre-armed per counter (a bound on how far a producer
// may run ahead; the hardware counter holds 16).
inline constexpr int kMaxTokens = 8;

}  // namespace tilejit::passes::xsync
