// SPDX-License-Identifier: Apache-2.0
// gather(dst, src, offsets, base): dst[i] = the src element at byte offsets[i] + base from the
// first element of the src region (AscendC Gather: uint32 byte offsets). One vgather per row
// of dst and offsets, or per 65280 elements when both are dense; the table every instruction
// may read is the whole src region (from its first element to the end of its last), so the
// simulator faults an offset outside it instead of reading a neighbour's memory.
#include <algorithm>
#include <string>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
Status EmitGather(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_ASSIGN_OR_RETURN(Tile off, v.TileArg(2, "offsets"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameShape(v, dst, "destination", off, "offsets"));
  const ir::Expr* base = v.ScalarArg(3);
  if (base == nullptr) return v.Error("gather needs a scalar base offset");
  if (dst.batch() != 1 || src.batch() != 1) return v.Error("gather works on 1-D or 2-D tiles");
  target::Instr in{.op = target::Opcode::kVgather};
  in.dtype = dst.dtype;
  in.src = src.addr;
  in.len = target::OpImm((src.rows - 1) * src.pitch + src.cols * src.es);
  TILEJIT_ASSIGN_OR_RETURN(in.scalar, v.ScalarBits(*base, target::DType::kS32));
  const bool flat = dst.dense() && off.dense();
  const int64_t rows = flat ? 1 : dst.rows, cols = flat ? dst.rows * dst.cols : dst.cols;
  in.repeat = target::OpImm(1);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c0 = 0; c0 < cols; c0 += kMaxVectorCount) {
      in.dst = Off(dst.addr, r * dst.pitch + c0 * dst.es);
      in.src1 = Off(off.addr, r * off.pitch + c0 * off.es);
      in.count = target::OpImm(std::min(kMaxVectorCount, cols - c0));
      TILEJIT_RETURN_IF_ERROR(v.Emit(in));
    }
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen::vec
