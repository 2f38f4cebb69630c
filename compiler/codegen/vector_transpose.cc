// SPDX-License-Identifier: Apache-2.0
// transpose: dst [C, R] = src [R, C]^T with one vtrans per piece of at most 240 source rows and
// 65280 source columns. Why those sizes: a piece's first destination element is (c0, r0), at
// r0 * elem_bytes into its row, and every vector operand starts on a 32-byte block; 240 and
// 65280 are multiples of 16 (so of 32 bytes for 2-byte elements too) below the ISA's 255-row
// and 65535-count limits.
#include <algorithm>
#include <string>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

constexpr int64_t kMaxRows = 240;
constexpr int64_t kMaxCols = 65280;

}  // namespace

Status EmitTranspose(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  if (dst.rows != src.cols || dst.cols != src.rows || dst.batch() != src.batch()) {
    return v.Error("transpose shape mismatch: the source is " + ShapeText(*src.region) +
                   ", so the destination must be its transpose, not " + ShapeText(*dst.region));
  }
  for (const Tile* t : {&dst, &src}) {
    if (t->rows > 1 && t->pitch % target::kBlockBytes != 0) {
      return v.Error("transpose: rows of " + ShapeText(*t->region) +
                     " do not start on 32-byte blocks (row pitch " + std::to_string(t->pitch) +
                     " bytes)");
    }
  }
  target::Instr in{.op = target::Opcode::kVtrans};
  in.dtype = dst.dtype;
  in.src_rstride = src.pitch / target::kBlockBytes;
  in.dst_rstride = dst.pitch / target::kBlockBytes;
  for (int64_t m = 0; m < dst.batch(); ++m) {
    for (int64_t r0 = 0; r0 < src.rows; r0 += kMaxRows) {
      for (int64_t c0 = 0; c0 < src.cols; c0 += kMaxCols) {
        in.src = Off(src.addr, src.mats[m] + r0 * src.pitch + c0 * src.es);
        in.dst = Off(dst.addr, dst.mats[m] + c0 * dst.pitch + r0 * dst.es);
        in.repeat = target::OpImm(std::min(kMaxRows, src.rows - r0));
        in.count = target::OpImm(std::min(kMaxCols, src.cols - c0));
        TILEJIT_RETURN_IF_ERROR(v.Emit(in));
      }
    }
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen::vec
