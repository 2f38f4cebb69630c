// SPDX-License-Identifier: Apache-2.0
// sync_insert (DESIGN.md section 4, step 10; TL_ASCEND_AUTO_SYNC): orders every intra-core
// dependence of the kernel with set_flag/wait_flag pairs and pipe barriers, after
// memory_planning (so dependences are over planned ADDRESS ranges and aliasing from buffer
// reuse is seen).
//
// Per core program (each `scope cube` / `scope vector` body; a kernel's one cube and one
// vector scope together, with sync::AnalyzeCores, so an order through the other core's
// cross-core flags counts), using the happens-before analysis of sync_analysis.h, the pass
// analyses the program, orders every unordered conflicting pair of accesses (RAW, WAR or WAW;
// see sync_access.h for which pipe does what) that no sync placed in the same round already
// orders, and repeats until an analysis finds none; each is ordered so:
//  - same pipe: `barrier(P)` right before the consumer (mmads accumulating into one static
//    L0C region need none: the cube orders them);
//  - different pipes: `set_flag(P, Q, id)` right after the producer (the latest producer on P
//    the consumer depends on, so one pair covers them all) and `wait_flag(P, Q, id)` right
//    before the consumer: set as early and wait as late as the structure allows. When the two
//    statements are in different loop/if bodies, the pair goes into their innermost common
//    body, after the loop/if that holds the producer and before the one that holds the
//    consumer (so every set has exactly one wait on every path; no blanket barriers around
//    an `if`).
//  - loop-carried (the producer of the previous iteration comes after the consumer in the
//    body): the set after the producer, the wait before the consumer, a pre-armed set before
//    the loop and a draining wait after it, so the event is clear at exit even for zero trips.
//  - an event pair the core lacks (e.g. fix -> mte1) goes through the scalar unit (P -> s)
//    when that pair exists, otherwise `barrier(all)`.
// Existing syncs (the author's, other passes') are part of the analysis: a dependence they
// already order gets nothing; and once everything is ordered, every pair or barrier made here
// whose removal leaves no hazard (and adds no flag finding) in either program is dropped again
// (newest first). Event ids are assigned last, per pipe pair, 0..7, by greedy colouring: two
// pairs share an id only when their live ranges (a pre-armed pair lives through its whole
// loop) do not overlap and the analysis proves each one's sets ordered after the other's
// waits (otherwise a set could find the event still set); ids the program already uses on
// that pair are avoided. A pair that finds no id becomes a `barrier(all)` at its wait
// ("sync_fallbacks"). A pipe pair on which the program uses a runtime event id gets
// barrier(all) instead of pairs (its ids cannot be avoided).
// A scope that may be followed by another scope of its kind (a later scope, or itself in a
// loop) ends with `barrier(all)`, so programs never depend on each other's pending work.
// Every sync made here is SyncOrigin::kCompiler.
// Statistics: "set_wait_pairs", "barriers", "sync_fallbacks", and "analyses" (whole-program
// analyses run: a few rounds, one per redundancy check that a local look cannot settle, and
// the final one).
// Pure function of its inputs; see pass.h for the pass contract and thread safety.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> SyncInsert(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
