// SPDX-License-Identifier: Apache-2.0
// Copies between on-chip buffers: ub->ub, l1->l0a / l1->l0b (load_l0a/load_l0b, optionally
// transposed) and l0c->l1 (fix_l0c_l1 with cast and ReLU).
//
// ub->ub uses copy_ub_ub when each row is a whole number of 32-byte blocks. Otherwise a burst
// would have to read the source row's padding (possibly never written) and write the
// destination's, so the copy becomes vmov repeats masked to the row's elements instead.
//
// The L0 layouts are addressed per region: load_l0a writes A (rows x cols) as zZ with
// ceil(cols / C0) fractals per fractal row, and mmad reads it the same way, so a region of
// L0A must span the buffer's columns (or be a single fractal row) to agree with the buffer's
// layout; likewise L0B (nZ) regions span its columns or are one C0-row band.
#include <algorithm>

#include "compiler/codegen/copy_util.h"

namespace tilejit::codegen::internal {
namespace {

using target::Instr;
using target::Opcode;
using target::OpImm;
using target::Opnd;

void UbUbBursts(Emitter& e, const RegionRef& d, const RegionRef& s, Opnd dst, Opnd src) {
  const int64_t row_bytes = d.cols * d.layout.elem_bytes;
  Instr in{.op = Opcode::kCopyUbUb};
  in.dst = dst;
  in.src = src;
  if (d.rows == 1 || (d.layout.pitch == row_bytes && s.layout.pitch == row_bytes)) {
    const int64_t total = d.rows * row_bytes;
    for (int64_t done = 0; done < total; done += kMaxBurstLen) {
      Instr part = in;
      part.dst = e.Add(dst, OpImm(done));
      part.src = e.Add(src, OpImm(done));
      part.nburst = OpImm(1);
      part.len = OpImm(std::min(kMaxBurstLen, total - done));
      e.Emit(part);
    }
    return;
  }
  in.len = OpImm(row_bytes);
  in.src_stride = OpImm(s.layout.pitch);
  in.dst_stride = OpImm(d.layout.pitch);
  EmitBurstGroups(e, in, d.rows);
}

// vmov over rows x cols: column chunks of one repeat's elements, row groups of at most 255
// repeats (one row per repeat when a pitch exceeds the 8-bit repeat stride).
void UbUbVmov(Emitter& e, const RegionRef& d, const RegionRef& s, Opnd dst, Opnd src) {
  const int64_t es = d.layout.elem_bytes;
  const int64_t epr = target::kRepeatBytes / es;
  const int64_t dst_rep = d.rows == 1 ? 0 : d.layout.pitch / target::kBlockBytes;
  const int64_t src_rep = s.rows == 1 ? 0 : s.layout.pitch / target::kBlockBytes;
  const int64_t group = (dst_rep > 255 || src_rep > 255) ? 1 : 255;
  for (int64_t c0 = 0; c0 < d.cols; c0 += epr) {
    for (int64_t r0 = 0; r0 < d.rows; r0 += group) {
      Instr in{.op = Opcode::kVmov};
      in.dst = e.Add(dst, OpImm(r0 * d.layout.pitch + c0 * es));
      in.src = e.Add(src, OpImm(r0 * s.layout.pitch + c0 * es));
      in.repeat = OpImm(std::min(group, d.rows - r0));
      in.mask = OpImm(std::min(epr, d.cols - c0));
      in.dst_blk = 1;
      in.src_blk = 1;
      in.dst_rep = group == 1 ? 0 : dst_rep;
      in.src_rep = group == 1 ? 0 : src_rep;
      in.dtype = IsaDType(d.region->buffer->dtype);
      e.Emit(in);
    }
  }
}

}  // namespace

Status EmitUbToUb(Emitter& e, const CopyArgs& a) {
  const RegionRef& d = a.dst;
  const RegionRef& s = a.src;
  const int64_t es = d.layout.elem_bytes;
  const bool whole_blocks = (d.cols * es) % target::kBlockBytes == 0;
  if (!whole_blocks && es != 2 && es != 4) {
    return Reject(e, a.op->loc, "a UB -> UB copy of ", ir::DTypeName(d.region->buffer->dtype),
                  " rows of ", d.cols * es,
                  " bytes is not supported (rows must be a multiple of "
                  "32 bytes, or the elements 16- or 32-bit)");
  }
  for (int64_t b = 0; b < d.batch; ++b) {
    const Opnd dst = BatchAddress(e, d, b);
    const Opnd src = BatchAddress(e, s, b);
    if (whole_blocks) {
      UbUbBursts(e, d, s, dst, src);
    } else {
      UbUbVmov(e, d, s, dst, src);
    }
  }
  return Status::Ok();
}

Status EmitL1ToL0(Emitter& e, const CopyArgs& a) {
  const RegionRef& d = a.dst;
  const RegionRef& s = a.src;
  const bool to_a = d.region->buffer->scope == ir::MemScope::kL0A;
  const target::DType dtype = IsaDType(d.region->buffer->dtype);
  if (dtype != target::DType::kF16 && dtype != target::DType::kBF16 &&
      dtype != target::DType::kF32 && dtype != target::DType::kS8) {
    return Reject(e, a.op->loc, "the cube does not take ", ir::DTypeName(d.region->buffer->dtype),
                  " operands (float16, bfloat16, float32, int8)");
  }
  if (a.transpose && d.layout.elem_bytes != 2) {
    return Reject(e, a.op->loc, "a transposed load into ", to_a ? "L0A" : "L0B",
                  " needs 16-bit elements, not ", ir::DTypeName(d.region->buffer->dtype));
  }
  const int64_t band = to_a ? 16 : d.layout.c0;  // rows of one fractal row
  if (d.cols != d.layout.cols && d.rows > band) {
    return Reject(e, a.op->loc, "the destination ", Describe(d), " region has ", d.cols,
                  " of the buffer's ", d.layout.cols, " columns; an ", to_a ? "L0A" : "L0B",
                  " region must span every column or at most ", band, " rows");
  }
  TILEJIT_RETURN_IF_ERROR(
      CheckPaddingStaysInside(e, d, to_a ? 16 : d.layout.c0, to_a ? d.layout.c0 : 16, a.op->loc));
  if (d.rows > kMaxMatrixDim || d.cols > kMaxMatrixDim) {
    return Reject(e, a.op->loc, "a ", d.rows, " x ", d.cols, " load exceeds the ", kMaxMatrixDim,
                  "-row/column limit of load_l0a/load_l0b");
  }
  for (int64_t b = 0; b < d.batch; ++b) {
    Instr in{.op = to_a ? Opcode::kLoadL0a : Opcode::kLoadL0b};
    in.dst = BatchAddress(e, d, b);
    in.src = BatchAddress(e, s, b);
    in.rows = OpImm(d.rows);
    in.cols = OpImm(d.cols);
    in.src_pitch = OpImm(s.layout.pitch);
    in.transpose = a.transpose ? 1 : 0;
    in.dtype = dtype;
    e.Emit(in);
  }
  return Status::Ok();
}

Status EmitL0cToL1(Emitter& e, const CopyArgs& a) {
  const RegionRef& d = a.dst;
  const RegionRef& s = a.src;
  TILEJIT_RETURN_IF_ERROR(CheckL1Destination(e, d, a.op->loc));
  if (d.rows > kMaxMatrixDim || d.cols > kMaxMatrixDim) {
    return Reject(e, a.op->loc, "a ", d.rows, " x ", d.cols, " copy out of L0C exceeds the ",
                  kMaxMatrixDim, "-row/column limit of the fixpipe");
  }
  for (int64_t b = 0; b < d.batch; ++b) {
    Instr in{.op = Opcode::kFixL0cL1};
    in.dst = BatchAddress(e, d, b);
    in.src = BatchAddress(e, s, b);
    in.rows = OpImm(d.rows);
    in.cols = OpImm(d.cols);
    in.src_pitch = OpImm(s.layout.pitch);
    in.dst_pitch = OpImm(d.layout.pitch);
    in.dtype = IsaDType(s.region->buffer->dtype);
    in.odtype = IsaDType(d.region->buffer->dtype);
    in.relu = a.relu ? 1 : 0;
    e.Emit(in);
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen::internal
