// SPDX-License-Identifier: Apache-2.0
// createvecindex(dst, first): dst[i] = first + i in row-major order over the region. A dense
// region is one vindex per 65280 elements; a region with padded rows is one per row, whose
// first value is first + r * cols (folded when first is a constant, an add otherwise).
#include <algorithm>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

// first + at: folded for a constant first, else an add in first's type.
ir::Expr StartOf(const ir::Expr& first, int64_t at) {
  if (at == 0) return first;
  const SourceLoc loc = first->loc;
  if (auto c = ir::AsConstInt(first)) return ir::IntImm(*c + at, first->dtype, loc);
  if (const auto* f = ir::TryAs<ir::FloatImmNode>(first)) {
    return ir::FloatImm(f->value + static_cast<double>(at), first->dtype, loc);
  }
  const ir::Expr step = ir::IsFloat(first->dtype)
                            ? ir::FloatImm(static_cast<double>(at), first->dtype, loc)
                            : ir::IntImm(at, first->dtype, loc);
  return ir::Binary(ir::BinaryOp::kAdd, first, step, loc);
}

}  // namespace

Status EmitIndex(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  const ir::Expr* first = v.ScalarArg(1);
  if (first == nullptr) return v.Error("createvecindex needs a scalar first value");
  const bool flat = dst.dense();
  const int64_t rows = flat ? 1 : dst.rows, cols = flat ? dst.rows * dst.cols : dst.cols;
  target::Instr in{.op = target::Opcode::kVindex};
  in.dtype = dst.dtype;
  in.repeat = target::OpImm(1);
  for (int64_t m = 0; m < dst.batch(); ++m) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c0 = 0; c0 < cols; c0 += kMaxVectorCount) {
        const int64_t at = (m * dst.rows * dst.cols) + r * cols + c0;
        TILEJIT_ASSIGN_OR_RETURN(in.scalar, v.ScalarBits(StartOf(*first, at), dst.dtype));
        in.dst = Off(dst.addr, dst.mats[m] + r * dst.pitch + c0 * dst.es);
        in.count = target::OpImm(std::min(kMaxVectorCount, cols - c0));
        TILEJIT_RETURN_IF_ERROR(v.Emit(in));
      }
    }
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen::vec
