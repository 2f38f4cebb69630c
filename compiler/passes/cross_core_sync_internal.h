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

// Largest number of slot-free tokens pre-armed per counter (a bound on how far a producer
// may run ahead; the hardware counter holds 16).
inline constexpr int kMaxTokens = 8;

}  // namespace tilejit::passes::xsync
