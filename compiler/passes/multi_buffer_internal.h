// SPDX-License-Identifier: Apache-2.0
// multi_buffer's unroller, shared between multi_buffer.cc (which decides what to version)
// and multi_buffer_unroll.cc (which rewrites the loop). Not part of the passes' public API.
#pragma once

#include <optional>
#include <vector>

#include "compiler/ir/ir.h"

namespace tilejit::passes::multi_buffer_internal {

// How one buffer is versioned in a loop unrolled by S: slot 0 is the buffer itself; slot
// i > 0 is slots[i - 1] (a new buffer of the same type), or, when `remap_dim0` is set, the
// same buffer with index i of its leading dim in place of index 0 (the L0 scratch
// expand_composites makes already has two slots and a one-slice gemm uses only slot 0).
struct Version {
  ir::Buffer buffer;
  std::vector<ir::Buffer> slots;
  bool remap_dim0 = false;
};

// Unrolls `loop` by `stages` (>= 2): a serial loop over groups of `stages` iterations whose
// body holds one copy of the original body per slot, then the remaining iterations (static
// extent: only those needed; runtime extent: each guarded by `if (extent % stages > i)`).
// Copy i uses slot i of every version; every Let and For var of a copy is a fresh Var and
// every statement a new node. Sets *group_loop to the new loop (null when there is none).
// `per_family`: cross_core_sync gives each workspace family its own counters
// (CrossFlagsPerFamily), so hand-offs need to keep their order only within a family, not
// within a direction.
ir::Stmt UnrollLoop(const ir::ForNode& loop, int stages, const std::vector<Version>& versions,
                    bool per_family, const ir::ForNode** group_loop);

// The statements of `copies` (consecutive copies of one loop body, all with the same
// statements) in one order that keeps every dependence, stage by stage (a stage ends before
// each read of a compiler workspace) and within a stage copy by copy, under the copies' lets
// (see multi_buffer_interleave.cc). Null when a copy's let reads a buffer (nothing moves).
ir::Stmt Interleave(const std::vector<ir::Stmt>& copies, bool per_family, SourceLoc loc);

// A group loop software-pipelined by d stages (half the body's stages, rounded down, at least
// one; a stage ends before each workspace read): the prologue runs the first d stages of the
// first group, each trip of the body runs the later stages of group g with the first d
// stages of group g + 1 scheduled beside them where dependences allow, and the epilogue runs
// the later stages of the last group.
struct Rotation {
  ir::Stmt prologue;
  ir::Stmt body;
  ir::Stmt epilogue;
};

// `first`, `current`, `next` and `last` are four clones of one group's copies (group 0,
// group g, group g + 1, the last group). Nullopt when the body has a single stage, a fence
// (sync, loop, if, scope) or a let that reads a buffer: then nothing is rotated.
std::optional<Rotation> Rotate(const std::vector<ir::Stmt>& first,
                               const std::vector<ir::Stmt>& current,
                               const std::vector<ir::Stmt>& next, const std::vector<ir::Stmt>& last,
                               bool per_family, SourceLoc loc);

}  // namespace tilejit::passes::multi_buffer_internal
