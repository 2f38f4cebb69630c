// SPDX-License-Identifier: Apache-2.0
// Loads from GM: gm->ub (copy_gm_ub bursts, one per row) and gm->l1 (copy_gm_l1_nz, ND -> zN).
//
// Tails. When the GM region may cross its tensor's bounds (decided statically from the
// bounds of its mins), the lowering branches at run time on whether this instance is whole:
//   whole:   the plain copy;
//   partial: fill the destination region with pad_value, then (after a barrier on MTE2, since
//            the fill and the copy are on the same pipe and overlap) copy the valid rows x
//            cols; an instance with nothing valid is only filled.
// Filling first and copying second keeps every fill a rectangle of whole 32-byte rows, which
// is the granule of fill_ub/fill_l1, instead of the L-shaped remainder around the valid part.
// For L1 the ND -> zN conversion writes zeros into its own fractal padding (rows up to 16,
// columns up to C0); with a nonzero pad_value those padding rows are refilled after a second
// barrier, and a column tail cannot be (the padding columns share 32-byte rows with valid
// data), which is a diagnostic.
#include "compiler/codegen/copy_util.h"

namespace tilejit::codegen::internal {
namespace {

using target::Instr;
using target::Opcode;
using target::OpImm;
using target::Opnd;

void BarrierMte2(Emitter& e) {
  Instr in{.op = Opcode::kBarrier};
  in.pipe = target::Pipe::kMte2;
  e.Emit(in);
}

bool EndsAtLastColumn(const RegionRef& r) {
  const auto& ranges = r.region->ranges;
  if (ranges.empty()) return true;
  const auto min = ir::AsConstInt(ranges.back().min);
  return min.has_value() && *min + r.cols == r.layout.cols;
}

// copy_gm_ub of rows x cols (runtime allowed) elements.
Status GmUbRows(Emitter& e, const CopyArgs& a, Opnd dst, Opnd src, Opnd rows, Opnd cols) {
  const RegionRef& g = a.src;
  const RegionRef& u = a.dst;
  const int64_t es = u.layout.elem_bytes;
  Instr in{.op = Opcode::kCopyGmUb};
  in.dst = dst;
  in.src = src;
  in.len = e.Scaled(cols, es);
  in.src_stride = g.row_stride;
  in.dst_stride = OpImm(u.layout.pitch);
  in.dtype = IsaDType(u.region->buffer->dtype);
  // A row that ends inside a 32-byte block leaves the rest of the block unwritten; when that
  // rest is the buffer's own row padding, write it (as zero) so that vector ops reading whole
  // blocks never see poisoned bytes.
  const int64_t row_bytes = u.cols * es;
  if (rows.is_static() && cols.is_static() && row_bytes % target::kBlockBytes != 0 &&
      EndsAtLastColumn(u) && es <= 4) {
    in.pad = 1;
  }
  // One burst when the rows x cols (a tail may have clipped them) are one run on both sides.
  const bool contiguous =
      rows.is_static() && cols.is_static() && in.pad == 0 &&
      (rows.imm == 1 ||
       (cols.imm == u.cols && IsStatic(g.row_stride, row_bytes) && u.layout.pitch == row_bytes));
  if (contiguous && rows.imm * cols.imm * es <= kMaxBurstLen) {
    in.len = OpImm(rows.imm * cols.imm * es);
    in.nburst = OpImm(1);
    e.Emit(in);
    return Status::Ok();
  }
  return EmitRowBursts(e, in, rows, u.rows, a.op->loc);
}

void GmL1Nz(Emitter& e, const CopyArgs& a, Opnd dst, Opnd src, Opnd rows, Opnd cols) {
  Instr in{.op = Opcode::kCopyGmL1Nz};
  in.dst = dst;
  in.src = src;
  in.rows = rows;
  in.cols = cols;
  in.src_stride = a.src.row_stride;
  in.dst_pitch = OpImm(a.dst.layout.pitch);
  in.dtype = IsaDType(a.dst.region->buffer->dtype);
  e.Emit(in);
}

}  // namespace

Status EmitGmToUb(Emitter& e, const CopyArgs& a) {
  const RegionRef& g = a.src;
  const RegionRef& u = a.dst;
  bool pad_zero = true;
  TILEJIT_ASSIGN_OR_RETURN(Opnd pad, PadScalar(e, *a.op, u.region->buffer->dtype, &pad_zero));
  const Clip c = ClipGm(e, g);
  if (c.may_clip() && u.layout.elem_bytes > 4) {
    return Reject(e, a.op->loc,
                  "a GM region of 64-bit elements that may cross the tensor's "
                  "bounds cannot be padded on chip");
  }
  for (int64_t b = 0; b < g.batch; ++b) {
    const Opnd src = BatchAddress(e, g, b);
    const Opnd dst = BatchAddress(e, u, b);
    if (!c.may_clip()) {
      TILEJIT_RETURN_IF_ERROR(GmUbRows(e, a, dst, src, OpImm(u.rows), OpImm(u.cols)));
      continue;
    }
    const size_t to_whole = EmitBranchIfNonZero(e, ClipIsFull(e, c, g));
    RegionRef one = u;
    one.address = dst;
    one.batch = 1;
    TILEJIT_RETURN_IF_ERROR(FillUbRegion(e, one, pad, a.op->loc));
    const size_t to_end_empty = EmitBranchIfZero(e, ClipIsEmpty(e, c));
    BarrierMte2(e);
    TILEJIT_RETURN_IF_ERROR(GmUbRows(e, a, dst, src, c.rows, c.cols));
    const size_t to_end = EmitJump(e);
    Land(e, to_whole);
    TILEJIT_RETURN_IF_ERROR(GmUbRows(e, a, dst, src, OpImm(u.rows), OpImm(u.cols)));
    Land(e, to_end_empty);
    Land(e, to_end);
  }
  return Status::Ok();
}

Status EmitGmToL1(Emitter& e, const CopyArgs& a) {
  const RegionRef& g = a.src;
  const RegionRef& l1 = a.dst;
  if (l1.layout.elem_bytes > 4) {
    return Reject(e, a.op->loc, "64-bit elements cannot be converted to the L1 fractal layout");
  }
  if (l1.rows > kMaxMatrixDim || l1.cols > kMaxMatrixDim) {
    return Reject(e, a.op->loc, "a ", l1.rows, " x ", l1.cols, " copy into L1 exceeds the ",
                  kMaxMatrixDim, "-row/column limit of the ND -> NZ DMA");
  }
  // The DMA writes whole 32-byte column blocks (the C0 padding of a partial last block) but
  // only the region's rows: rows may start and end anywhere (splices), columns may not.
  TILEJIT_RETURN_IF_ERROR(CheckPaddingStaysInside(e, l1, 1, l1.layout.c0, a.op->loc));
  bool pad_zero = true;
  TILEJIT_ASSIGN_OR_RETURN(Opnd pad, PadScalar(e, *a.op, l1.region->buffer->dtype, &pad_zero));
  const Clip c = ClipGm(e, g);
  if (!pad_zero && c.cols_may_clip) {
    return Reject(e, a.op->loc,
                  "a nonzero pad_value for an L1 tile whose columns may cross the "
                  "GM tensor's bounds is not supported (the ND -> NZ DMA zero-fills "
                  "the columns up to the next multiple of ",
                  l1.layout.c0, ")");
  }
  for (int64_t b = 0; b < g.batch; ++b) {
    const Opnd src = BatchAddress(e, g, b);
    const Opnd dst = BatchAddress(e, l1, b);
    if (!c.may_clip()) {
      GmL1Nz(e, a, dst, src, OpImm(l1.rows), OpImm(l1.cols));
      continue;
    }
    const size_t to_whole = EmitBranchIfNonZero(e, ClipIsFull(e, c, g));
    FillL1Rows(e, l1, dst, OpImm(l1.rows), pad);
    const size_t to_end_empty = EmitBranchIfZero(e, ClipIsEmpty(e, c));
    BarrierMte2(e);
    GmL1Nz(e, a, dst, src, c.rows, c.cols);
    const size_t to_end = EmitJump(e);
    Land(e, to_whole);
    GmL1Nz(e, a, dst, src, OpImm(l1.rows), OpImm(l1.cols));
    Land(e, to_end_empty);
    Land(e, to_end);
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen::internal
