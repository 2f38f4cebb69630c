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
// Pure function; thread-safe.
#pragma once

#include <unordered_map>

#include "compiler/ir/ir.h"

namespace tilejit::analysis {

struct Lifetime {
  int first = 0;
  int last = 0;
  bool Overlaps(const Lifetime& o) const { return first <= o.last && o.first <= last; }
};

// The lifetime of every buffer allocated in `root` (keyed by node identity).
std::unordered_map<const ir::BufferNode*, Lifetime> BufferLifetimes(const ir::Stmt& root);

}  // namespace tilejit::analysis
