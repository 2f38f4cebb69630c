// SPDX-License-Identifier: Apache-2.0
// EmitVectorOp: dispatch of the vector tile ops to their families (vector_*.cc). Each family
// resolves its UB operands, checks shapes and types (diagnostics at the op), and drives the
// repeat-form or 2-D engine, which split everything past the ISA limits.
#include "compiler/codegen/ops.h"
#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen {

Status EmitVectorOp(Emitter& e, const ir::TileOpNode& op) {
  vec::VecOp v(e, op);
  switch (ir::TileOpFamilyOf(op.op)) {
    case ir::TileOpFamily::kFill:
      return vec::EmitFill(v);
    case ir::TileOpFamily::kBinary:
      return vec::EmitBinary(v);
    case ir::TileOpFamily::kUnary:
      return vec::EmitUnary(v);
    case ir::TileOpFamily::kCast:
      return vec::EmitCast(v);
    case ir::TileOpFamily::kBroadcast:
      return vec::EmitBroadcast(v);
    case ir::TileOpFamily::kCompare:
      return vec::EmitCompare(v);
    case ir::TileOpFamily::kSelect:
      return vec::EmitSelect(v);
    case ir::TileOpFamily::kAxpy:
      return vec::EmitAxpy(v);
    case ir::TileOpFamily::kReduce:
      return vec::EmitReduce(v);
    case ir::TileOpFamily::kTranspose:
      return vec::EmitTranspose(v);
    case ir::TileOpFamily::kGather:
      return vec::EmitGather(v);
    case ir::TileOpFamily::kIndex:
      return vec::EmitIndex(v);
    case ir::TileOpFamily::kGatherMask:
      return vec::EmitGatherMask(v);
    case ir::TileOpFamily::kSort:
      return vec::EmitSort(v);
    case ir::TileOpFamily::kRawReduce:
      return vec::EmitRawReduce(v);
    case ir::TileOpFamily::kGatherB:
      return vec::EmitGatherB(v);
    case ir::TileOpFamily::kDeqScale:
      return vec::EmitDeqScale(v);
    case ir::TileOpFamily::kCopy:
    case ir::TileOpFamily::kCube:
    case ir::TileOpFamily::kDebug:
      break;
  }
  TILEJIT_CHECK(false) << "EmitVectorOp called with " << ir::TileOpName(op.op);
  return Status::Ok();
}

}  // namespace tilejit::codegen
