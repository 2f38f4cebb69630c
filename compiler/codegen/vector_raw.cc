// SPDX-License-Identifier: Apache-2.0
// block_reduce_*, wholereduce* and gatherb: one instruction each, with the author's repeats,
// mask and strides (docs/isa.md, "Raw repeat form"). The ISA checks the fields' ranges; here
// the whole access pattern is checked against the operand tiles, since the strides are the
// author's and the simulator would only catch an overrun at run time.
#include <algorithm>
#include <string>

#include "compiler/codegen/vector_internal.h"
#include "compiler/target/raw_reduce.h"

namespace tilejit::codegen::vec {
namespace {

using target::Opcode;

int64_t Bytes(const Tile& t) { return Elements(t) * t.es; }

Status NeedBytes(VecOp& v, const Tile& t, std::string_view role, int64_t reach) {
  TILEJIT_RETURN_IF_ERROR(CheckContiguous(v, t, role));
  if (reach <= Bytes(t)) return Status::Ok();
  return v.Error(std::string(v.name()) + ": the repeats and strides reach " +
                 std::to_string(reach) + " bytes into the " + std::string(role) + ", which has " +
                 std::to_string(Bytes(t)));
}

std::optional<Opcode> ReduceOpcode(ir::TileOpCode op) {
  switch (op) {
    case ir::TileOpCode::kBlockReduceSum:
      return Opcode::kVbreduceSum;
    case ir::TileOpCode::kBlockReduceMax:
      return Opcode::kVbreduceMax;
    case ir::TileOpCode::kBlockReduceMin:
      return Opcode::kVbreduceMin;
    case ir::TileOpCode::kWholeReduceSum:
      return Opcode::kVwreduceSum;
    case ir::TileOpCode::kWholeReduceMax:
      return Opcode::kVwreduceMax;
    case ir::TileOpCode::kWholeReduceMin:
      return Opcode::kVwreduceMin;
    default:
      return std::nullopt;
  }
}

// The code of a ReduceOrder name; absent, ORDER_VALUE_INDEX (0).
int64_t OrderCode(const std::string& order) {
  for (int64_t i = 0; i < static_cast<int64_t>(std::size(target::kReduceOrders)); ++i) {
    if (target::kReduceOrders[i] == order) return i;
  }
  return 0;
}

}  // namespace

Status EmitRawReduce(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  const auto op = ReduceOpcode(v.op().op);
  TILEJIT_CHECK(op.has_value()) << "not a raw reduction: " << v.name();
  target::Instr in{.op = *op};
  in.dtype = src.dtype;
  const int64_t repeat = v.IntAttr("repeat", 0), mask = v.IntAttr("mask", 0);
  in.repeat = target::OpImm(repeat);
  in.mask = target::OpImm(mask);
  in.src_blk = static_cast<uint8_t>(v.IntAttr("src_blk", 1));
  in.src_rep = static_cast<uint8_t>(v.IntAttr("src_rep", 8));
  in.dst_rep = static_cast<uint8_t>(v.IntAttr("dst_rep", 1));
  in.scalar = target::OpImm(target::IsIndexedReduce(*op) ? OrderCode(v.StringAttr("order")) : 0);
  if (repeat == 0 || mask == 0) return Status::Ok();
  const int64_t epb = target::kBlockBytes / src.es, last = mask - 1;
  const int64_t src_reach = (repeat - 1) * in.src_rep * target::kBlockBytes +
                            (last / epb) * in.src_blk * target::kBlockBytes +
                            (last % epb + 1) * src.es;
  const int64_t results = target::ReduceResultsPerRepeat(*op, in.scalar.imm);
  const int64_t written = target::ReduceResultsWritten(*op, in.scalar.imm, mask, src.es);
  const int64_t dst_reach = ((repeat - 1) * in.dst_rep * results + written) * dst.es;
  TILEJIT_RETURN_IF_ERROR(NeedBytes(v, src, "source", src_reach));
  TILEJIT_RETURN_IF_ERROR(NeedBytes(v, dst, "destination", dst_reach));
  in.src = src.addr;
  in.dst = dst.addr;
  return v.Emit(in);
}

Status EmitGatherB(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_ASSIGN_OR_RETURN(Tile offsets, v.TileArg(2, "offsets"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  if (offsets.es != 4) return v.Error("gatherb: the offsets must be uint32 byte offsets");
  target::Instr in{.op = Opcode::kVgatherb};
  in.dtype = dst.dtype;
  const int64_t repeat = v.IntAttr("repeat", 0);
  in.repeat = target::OpImm(repeat);
  in.dst_blk = static_cast<uint8_t>(v.IntAttr("dst_blk", 1));
  in.dst_rep = static_cast<uint8_t>(v.IntAttr("dst_rep", 8));
  if (repeat == 0) return Status::Ok();
  TILEJIT_RETURN_IF_ERROR(NeedBytes(v, src, "source", 0));
  TILEJIT_RETURN_IF_ERROR(NeedBytes(v, offsets, "offsets", repeat * 8 * 4));
  const int64_t dst_reach = ((repeat - 1) * in.dst_rep + 7 * in.dst_blk + 1) * target::kBlockBytes;
  TILEJIT_RETURN_IF_ERROR(NeedBytes(v, dst, "destination", dst_reach));
  in.dst = dst.addr;
  in.src = src.addr;
  in.src1 = offsets.addr;
  in.len = target::OpImm(Bytes(src));
  return v.Emit(in);
}

}  // namespace tilejit::codegen::vec
