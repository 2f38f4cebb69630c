// SPDX-License-Identifier: Apache-2.0
// Stores to GM: ub->gm (copy_ub_gm bursts), l0c->gm (fix_l0c_gm: NZ -> ND with the cast to
// the GM dtype and optional ReLU) and l1->gm (copy_l1_gm).
//
// Tails: a GM region that may cross its tensor's bounds is clipped at run time; only the
// valid rows x cols are written and an instance with nothing valid skips the store.
//
// L1 -> GM writes the logical row-major (ND) matrix, like every other store: GM tensors are
// always ND (tile_layout.h). copy_l1_gm only moves bursts, so the zN source is converted by
// issuing one burst list per C0-column group: group g sends, for each row, the 32 bytes of
// that row in column block g to GM row r at column g*C0. The bursts are 32 bytes, which is
// the instruction's granule, so the region's columns (and a clipped column count) must be
// multiples of C0.
#include "compiler/codegen/copy_util.h"

namespace tilejit::codegen::internal {
namespace {

using target::Instr;
using target::Opcode;
using target::OpImm;
using target::Opnd;

// Runs `body` once per batch matrix with the clip applied; instances with nothing valid skip.
template <typename Body>
Status ForEachClipped(Emitter& e, const RegionRef& gm, const RegionRef& chip, Body body) {
  const Clip c = ClipGm(e, gm);
  for (int64_t b = 0; b < gm.batch; ++b) {
    const Opnd dst = BatchAddress(e, gm, b);
    const Opnd src = BatchAddress(e, chip, b);
    size_t skip = 0;
    if (c.may_clip()) skip = EmitBranchIfZero(e, ClipIsEmpty(e, c));
    TILEJIT_RETURN_IF_ERROR(body(dst, src, c));
    if (c.may_clip()) Land(e, skip);
  }
  return Status::Ok();
}

}  // namespace

Status EmitUbToGm(Emitter& e, const CopyArgs& a) {
  const RegionRef& g = a.dst;
  const RegionRef& u = a.src;
  const int64_t es = u.layout.elem_bytes;
  const int64_t row_bytes = u.cols * es;
  return ForEachClipped(e, g, u, [&](Opnd dst, Opnd src, const Clip& c) {
    Instr in{.op = Opcode::kCopyUbGm};
    in.dst = dst;
    in.src = src;
    in.src_stride = OpImm(u.layout.pitch);
    in.dst_stride = g.row_stride;
    in.dtype = IsaDType(u.region->buffer->dtype);
    if (a.atomic_add) in.atomic = target::AtomicOp::kAdd;
    const bool contiguous =
        !c.may_clip() &&
        (u.rows == 1 || (IsStatic(g.row_stride, row_bytes) && u.layout.pitch == row_bytes));
    if (contiguous && u.rows * row_bytes <= kMaxBurstLen) {
      in.nburst = OpImm(1);
      in.len = OpImm(u.rows * row_bytes);
      e.Emit(in);
      return Status::Ok();
    }
    in.len = e.Scaled(c.cols, es);
    return EmitRowBursts(e, in, c.rows, u.rows, a.op->loc);
  });
}

Status EmitL0cToGm(Emitter& e, const CopyArgs& a) {
  const RegionRef& g = a.dst;
  const RegionRef& l0c = a.src;
  if (l0c.rows > kMaxMatrixDim || l0c.cols > kMaxMatrixDim) {
    return Reject(e, a.op->loc, "a ", l0c.rows, " x ", l0c.cols, " copy out of L0C exceeds the ",
                  kMaxMatrixDim, "-row/column limit of the fixpipe");
  }
  return ForEachClipped(e, g, l0c, [&](Opnd dst, Opnd src, const Clip& c) {
    Instr in{.op = Opcode::kFixL0cGm};
    in.dst = dst;
    in.src = src;
    in.rows = c.rows;
    in.cols = c.cols;
    in.src_pitch = OpImm(l0c.layout.pitch);
    in.dst_stride = g.row_stride;
    in.dtype = IsaDType(l0c.region->buffer->dtype);
    in.odtype = IsaDType(g.region->buffer->dtype);
    in.relu = a.relu ? 1 : 0;
    if (a.atomic_add) in.atomic = target::AtomicOp::kAdd;
    e.Emit(in);
    return Status::Ok();
  });
}

Status EmitL1ToGm(Emitter& e, const CopyArgs& a) {
  const RegionRef& g = a.dst;
  const RegionRef& l1 = a.src;
  const int64_t c0 = l1.layout.c0;
  const int64_t es = l1.layout.elem_bytes;
  if (l1.cols % c0 != 0) {
    return Reject(e, a.op->loc, "copy from L1 to GM moves whole groups of ", c0,
                  " columns (32 bytes); the region has ", l1.cols, " columns");
  }
  return ForEachClipped(e, g, l1, [&](Opnd dst, Opnd src, const Clip& c) {
    for (int64_t group = 0; group * c0 < l1.cols; ++group) {
      // Valid columns of this group: min(C0, cols - group*C0), skipped when none.
      Opnd n = OpImm(c0);
      size_t skip = 0;
      if (c.cols_may_clip) {
        n = e.Min(OpImm(c0), e.Max(e.Sub(c.cols, OpImm(group * c0)), OpImm(0)));
        skip = EmitBranchIfZero(e, n);
      }
      Instr in{.op = Opcode::kCopyL1Gm};
      in.dst = e.Add(dst, OpImm(group * c0 * es));
      in.src = e.Add(src, OpImm(group * l1.layout.pitch * target::kBlockBytes));
      in.len = e.Scaled(n, es);
      in.src_stride = OpImm(target::kBlockBytes);
      in.dst_stride = g.row_stride;
      TILEJIT_RETURN_IF_ERROR(EmitRowBursts(e, in, c.rows, l1.rows, a.op->loc));
      if (c.cols_may_clip) Land(e, skip);
    }
    return Status::Ok();
  });
}

}  // namespace tilejit::codegen::internal
