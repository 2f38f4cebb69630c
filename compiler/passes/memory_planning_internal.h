// SPDX-License-Identifier: Apache-2.0
// Internal to memory_planning: the second step of placement with reuse.
//
// First fit (lowest free offset, largest first) decides how many bytes a memory needs, but
// among the offsets that fit it picks one with no regard to WHO held those bytes before. A
// buffer that lands on bytes whose previous occupant died just before it is born makes
// sync_insert order its first write behind that occupant's last access: a false dependence
// through the shared address, often between two pipes (or, through a cross-core flag, the
// other core), that stalls work the program would otherwise overlap.
//
// SpreadReuse moves buffers within the first-fit high-water mark so that the buffers sharing
// bytes are, in program order, as far apart as the space allows. It never raises the
// high-water mark and never makes two buffers live at the same time share bytes.
// Pure function of its input; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/analysis/buffer_lifetimes.h"

namespace tilejit::passes::memory_planning_internal {

// One buffer of one memory as the spreader sees it.
struct Slot {
  int64_t address = 0;  // in: the first-fit offset; out: the chosen one
  int64_t bytes = 0;
  int64_t align = 1;
  analysis::Lifetime life;
  bool fixed = false;  // an annotated buffer: never moves, reserved for the whole kernel
};

// Moves the non-fixed slots (in the given order, repeatedly, while some move strictly lowers
// the total closeness of the pairs that share bytes) to aligned offsets that keep every slot
// below `limit` and apart from every fixed slot and every slot whose lifetime overlaps its
// own. Closeness of a byte-sharing pair is 1 / (program positions between the first one's
// last access and the second one's first access). Deterministic: ties keep the current
// offset, then take the lowest. Bounded work: a memory with very many buffers (hundreds) gets
// fewer rounds or keeps its first-fit plan.
void SpreadReuse(std::vector<Slot>& slots, int64_t limit);

}  // namespace tilejit::passes::memory_planning_internal
