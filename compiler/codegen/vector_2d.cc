// SPDX-License-Identifier: Apache-2.0
// The 2-D engine (vector_internal.h). Why the row groups differ: a per-row vector ([R]) moves
// by group * element bytes between instructions and must stay 32-byte aligned, so its groups
// are 240 rows (a multiple of 16 below the 255-row limit); an [R, 1] operand (one element per
// padded UB row) is not a contiguous vector at all, so it goes one row per instruction; a
// per-column vector ([C]) does not move with the rows, so its groups use all 255 rows.
// Columns split at 65280 (a multiple of 256 below the 65535 count limit) for the same
// alignment reason.
#include <algorithm>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

constexpr int64_t kRowGroupVec = 240;
constexpr int64_t kRowGroupCol = 255;

struct Piece {
  int64_t r0, c0, rows, cols;
  bool chained;  // combines with an earlier piece's result (acc = 1, after a barrier)
};

Status EmitPiece(VecOp& v, const TwoDArgs& a, const Piece& p) {
  using F = target::FieldId;
  const int es = target::DTypeBytes(a.proto.dtype);
  target::Instr in = a.proto;
  const int64_t vec_off = (a.per_row ? p.r0 : p.c0) * a.vec.stride;
  const target::Opnd vec = Off(a.vec.addr, vec_off);
  auto at = [&](const Stream& s) { return Off(s.addr, p.r0 * s.pitch + p.c0 * es); };
  if (a.reduce) {
    in.dst = vec;
    if (p.chained) in.acc = 1;
  } else {
    in.dst = at(*a.dst);
    in.src1 = vec;
    in.dst_rstride = a.dst->pitch / target::kBlockBytes;
  }
  if (target::UsesField(in.op, F::src)) {
    in.src = at(*a.src);
    in.src_rstride = a.src->pitch / target::kBlockBytes;
  }
  in.repeat = target::OpImm(p.rows);
  in.count = target::OpImm(p.cols);
  if (p.chained) v.Barrier();
  return v.Emit(in);
}

}  // namespace

Status Emit2d(VecOp& v, const TwoDArgs& a) {
  if (a.rows <= 0 || a.cols <= 0) return Status::Ok();
  const int es = target::DTypeBytes(a.proto.dtype);
  int64_t group = kRowGroupCol;
  if (a.per_row) group = a.vec.stride == es ? kRowGroupVec : 1;
  for (int64_t r0 = 0; r0 < a.rows; r0 += group) {
    for (int64_t c0 = 0; c0 < a.cols; c0 += kMaxVectorCount) {
      const bool chained = a.reduce && (a.per_row ? c0 > 0 : r0 > 0);
      Piece p{r0, c0, std::min(group, a.rows - r0), std::min(kMaxVectorCount, a.cols - c0),
              chained};
      TILEJIT_RETURN_IF_ERROR(EmitPiece(v, a, p));
    }
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen::vec
