// SPDX-License-Identifier: Apache-2.0
// multi_buffer (DESIGN.md section 4, step 6): gives each iteration of a loop its own copy of
// the buffers the loop refills, so that iteration j + 1's loads (or the cube's next scores)
// can proceed while iteration j's consumers still read the previous copy.
//
// Loops: `for .. in pipelined(.., stages=S)` (T.Pipelined(num_stages=S), S >= 2) with S
// slots, always; plain serial loops with 2 slots when configs.auto_multi_buffer. A loop whose
// body allocates is left alone.
//
// A buffer is versioned in a loop when
//   - it is an on-chip tile (l1, l0a, l0b, l0c, ub) or a compiler workspace (a GM param with
//     compiler_made): the only GM buffers a pass may duplicate;
//   - its first access in the body is a tile op directly in the body (not under an if or an
//     inner loop) that writes the whole buffer and does not read it (copy, fill, mma or
//     gemm_v0 with init=true, reduce with clear...): so no value flows between iterations.
//     For a workspace "whole" is block cid's slice `[cid:+1, ...]`; with threads=2 a slice
//     `[vid * E:+E]` of a dim of 2E counts as whole (the two AIVs write the two halves);
//   - it is not accessed after the loop, nor before it when the loop is nested in another
//     loop (its last value would be in an unknown slot).
// A buffer whose every access in the kernel uses index 0 of a leading dim of at least S (the
// two-slot L0 scratch of a one-slice gemm) is versioned by using index i in copy i, at no cost.
//
// Capacity: candidates are taken in the order of their first access in the body; an on-chip
// candidate is versioned only if its S - 1 extra copies still fit in its memory next to every
// buffer allocated so far (padded sizes of ir::LayoutOf, summed as sequential placement
// would place them), otherwise it is skipped and later candidates are still tried; workspaces
// cost no on-chip memory and are always versioned. For an explicit T.Pipelined a skipped
// candidate is a warning naming the buffer, its memory and the bytes needed and free.
//
// Versioning unrolls the loop by S (see multi_buffer_internal.h): `for k in serial(m, n)`
// becomes `for k2 in serial(0, n // S) { body(m + S*k2) ... body(m + S*k2 + S-1) }` plus the
// remaining iterations (static n: only those needed, a single group inline; runtime n: each
// under `if (n % S > i)`; runtime n that is at least 1 by its bounds, e.g. `cid % 3 + 1`:
// (n - 1) // S groups, then a let of the last group's first iteration, its copy 0
// unconditionally and copy i under `if ((n - 1) % S >= i)`, so no path skips every copy). Copy i
// uses slot i; slot 0 is the original buffer, slot i > 0 a new Allocate next to the original's (or
// a new compiler_workspace param appended to params and workspace_idx). Loops with nothing to
// version are unchanged (a pipelined loop stays pipelined, which later passes treat as serial).
//
// Within a group the copies are reordered (multi_buffer_interleave.cc): each copy is cut into
// stages before every read of a compiler workspace (a hand-off from the other core, where a
// pipe will wait), and the group runs stage by stage, copy by copy within a stage, as far as
// the dependences allow (same buffer, one of them writing; syncs, inner loops, ifs and scopes
// are fences; a let that reads no buffer binds over the whole group). Pipes run their
// instructions in program order, so this is what lets the cube compute iteration k + 1's
// scores while the vectors do iteration k's softmax. A body without hand-offs keeps its order.
// A loop of two or more groups with a static extent is also software-pipelined, the next
// group half its stages ahead of the current one. Hand-offs keep the order cross_core_sync
// pairs them in: per direction, or only per workspace family when CrossFlagsPerFamily (two
// free flag ids per family) lets cross_core_sync give each family its own counters.
//
// Statistics: "multi_buffered" (buffers versioned, per loop), "loops_unrolled".
// Pure function of its inputs; see pass.h for the pass contract and thread safety.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> MultiBuffer(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
