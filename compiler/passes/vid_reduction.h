// SPDX-License-Identifier: Apache-2.0
// vid_reduction: in a `T.Kernel(n, threads=2)` launch, splits the vector work of each block
// between its two AIVs by data flow. In the (cid, vid) form, a body with UB buffers that never
// reads vid has its vector work done by one AIV (the launch becomes threads=1), unless it adds
// into GM atomically or sets a cross-core flag of mode 1 (AIV to AIV): both AIVs would compute
// the same values and write the same GM bytes. threads=1 launches and kernels without UB
// buffers are returned unchanged.
//
// A UB buffer is SPLIT when its rows are the block's row tile: it is copied to or from GM at
// a block-derived row offset (the GM row dim is not the tensor's last dim, and its min
// depends on cid; along the tensor's last dim, a row-vector output `M[cid * 64:+64]` or a
// bias slice, only when nothing needs the buffer whole), or copied whole to or from a cube buffer
// (L0C, L1) of the same rows, or its rows line up with a split buffer's: element-wise operands and
// copies UB<->UB (casts included), a row broadcast ([R] or [R, 1] against [R, C]), a reduction
// along dim -1, or a loop var picking rows of both (`x[i, :]`, `m[i]`). The decision spreads to a
// fixpoint over these links. A buffer that only moves data between GM regions (every use a
// whole copy to or from GM) is split too, whatever the GM offsets: each AIV moves half of it
// (upstream's gather of KV rows `KV[b, idx[i], g, :D]` into a workspace row). Every other UB
// buffer is REPLICATED (unchanged on both AIVs): loaded whole (`gamma[N]`) or used by columns.
//
// Rewrite of a split buffer with R rows (half = R / 2), using the launch's vid var:
//   alloc [R, ...] -> [half, ...];  a whole-row access -> rows [0:+half];
//   the GM or cube side of a copy with it: row min + vid * half, extent half
//     (e.g. copy(%ub, %l0c[%vid * 32:+32, :]), copy(%p2[%v0 * 64 + %vid * 32:+32, :], %ub));
//   a loop `for i in serial(0, R)` picking its rows -> serial(0, half); `x[i, :]` keeps the
//     local row i, every other use of i becomes i + vid * half;
//   a cast `count` of all the destination's elements -> the half tile's count.
//
// Diagnostics (at the buffer's alloc, with notes, each naming threads=1 and the (cid, vid)
// form as ways out): an odd leading dim of a split buffer; a buffer that would have to be
// split and replicated; a replicated buffer written to GM or to a cube buffer (both AIVs
// would write the same bytes); a replicated buffer computed from a split one; a loop picking
// rows of a split buffer that does not run over all of them; an access of a split buffer
// that is neither all its rows nor row i of such a loop, or a cast of only a prefix of it.
//
// Statistics: "split_buffers"; "one_aiv" (1 when the (cid, vid) launch became threads=1).
// Thread safety: a pure function of its input.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> VidReduction(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
