// SPDX-License-Identifier: Apache-2.0
// Buffer lifetimes for memory_planning's reuse: when, in program order, each buffer allocated
// in a statement tree holds a value that may still be read.
//
// Positions are those of TraceAccesses (buffer_access.h): a pre-order numbering of every
// statement but sequences. A buffer's lifetime is [first access, last access], extended to
// the whole of every loop that accesses it: such a buffer is live around the loop's back
// edge whenever its value crosses iterations or comes from before the loop, and even when it
// does not, sharing its bytes with another buffer of the same loop would order each
// iteration's refill behind the previous iteration's readers and undo multi_buffer's overlap.
// After combine_cv the body is `scope cube {..}` then `scope vector {..}`; each memory is used
// by one kind of core only, so one numbering serves both programs. A buffer that is allocated
// and never accessed lives at its Allocate only.
//
// Two buffers may share bytes exactly when their lifetimes are disjoint.
//
// LoopRule::kCrossingOnly is the data-flow refinement memory_planning falls back to when a
// memory does not fit otherwise. A "fresh write" is a tile op that writes all of the buffer,
// reads none of it and sits under no If that does not also hold every other access of the
// buffer (only loops between them): no later access can see a value from before it. The accesses
// split into segments, each from a fresh write (or the first access) to the last access before the
// next fresh write; the buffer is live only in its segments. For each loop that accesses the
// buffer, unless its first access inside the loop is a fresh write (so no value crosses the loop's
// back edge), the segments that meet the loop merge into one spanning the whole loop. A segment
// that leaves a loop (a read after it) needs no extension: every iteration rewrites the buffer
// before a co-tenant could read it, and after the last iteration no co-tenant of the loop body
// runs. Pure functions; thread-safe.
#pragma once

#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"

namespace tilejit::analysis {

struct Lifetime {
  int first = 0;
  int last = 0;
  // kCrossingOnly: the live segments, sorted and disjoint, within [first, last]; empty means
  // all of [first, last].
  std::vector<std::pair<int, int>> segments;
  bool Overlaps(const Lifetime& o) const;
};

enum class LoopRule : uint8_t { kWholeLoops, kCrossingOnly };

// The lifetime of every buffer allocated in `root` (keyed by node identity).
std::unordered_map<const ir::BufferNode*, Lifetime> BufferLifetimes(
    const ir::Stmt& root, LoopRule rule = LoopRule::kWholeLoops);

}  // namespace tilejit::analysis
