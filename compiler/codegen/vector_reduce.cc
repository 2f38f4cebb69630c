// SPDX-License-Identifier: Apache-2.0
// reduce_sum / reduce_max / reduce_min {dim, clear}. Reducing along the last dim is vrow_*
// (one result per row: a [R] or [R, 1] destination), along the second-to-last dim vcol_* (one
// result per column: [C] or [1, C]); a 1-D source is one row. clear=false maps to the ISA's
// `acc` bit, which combines with the destination's old values; pieces split past the ISA
// limits chain through `acc` as well (Emit2d).
#include <string>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

using target::Opcode;

std::pair<Opcode, Opcode> OpcodesOf(ir::TileOpCode op) {
  switch (op) {
    case ir::TileOpCode::kReduceSum:
      return {Opcode::kVrowSum, Opcode::kVcolSum};
    case ir::TileOpCode::kReduceMax:
      return {Opcode::kVrowMax, Opcode::kVcolMax};
    case ir::TileOpCode::kReduceMin:
      return {Opcode::kVrowMin, Opcode::kVcolMin};
    default:
      TILEJIT_CHECK(false) << "not a reduction: " << ir::TileOpName(op);
      return {};
  }
}

// True when `dst` holds exactly `n` results as a vector (n elements in one row, or one
// element in each of n rows).
bool HoldsVector(const Tile& dst, int64_t n) {
  return dst.batch() == 1 && ((dst.rows == 1 && dst.cols == n) || (dst.rows == n && dst.cols == 1));
}

}  // namespace

Status EmitReduce(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  const int64_t rank = static_cast<int64_t>(src.region->ranges.size());
  const int64_t dim = v.IntAttr("dim", -1);
  const int64_t axis = dim < 0 ? dim + rank : dim;
  const bool by_row = axis == rank - 1;
  if (src.batch() != 1 || (!by_row && axis != rank - 2)) {
    return v.Error(std::string(v.name()) + " reduces one of the last two dims of a 2-D tile; " +
                   "got dim " + std::to_string(dim) + " of " + ShapeText(*src.region));
  }
  const int64_t n = by_row ? src.rows : src.cols;
  if (!HoldsVector(dst, n) || (!by_row && dst.rows != 1)) {
    return v.Error(std::string(v.name()) + " shape mismatch: reducing " + ShapeText(*src.region) +
                   " along dim " + std::to_string(dim) + " cannot produce " +
                   ShapeText(*dst.region));
  }
  const auto [row_op, col_op] = OpcodesOf(v.op().op);
  TwoDArgs a;
  a.proto.op = by_row ? row_op : col_op;
  a.proto.dtype = src.dtype;
  a.proto.acc = v.BoolAttr("clear", true) ? 0 : 1;
  a.src = StreamOf(src);
  a.vec = VecOf(dst);
  a.per_row = by_row;
  a.reduce = true;
  a.rows = src.rows;
  a.cols = src.cols;
  return Emit2d(v, a);
}

}  // namespace tilejit::codegen::vec
