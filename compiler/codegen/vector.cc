// SPDX-License-Identifier: Apache-2.0
// EmitVectorOp: dispatch of the vector tile ops to their families (vector_*.cc). Each family
// resolves its UB operands, checks shapes and types (diagnostics at the op), and drives the
// repeat-form or 2-D engine, which split everything past the ISA limits.
#include "compiler/codegen/ops.h"
#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen {

Status EmitVectorOp(Emitter& e, const ir::TileOpNode& op) {
  vec::VecOp v(e, op);
  switch (op.op) {
    case ir::TileOpCode::kFill:
      return vec::EmitFill(v);
    case ir::TileOpCode::kAdd:
    case ir::TileOpCode::kSub:
    case ir::TileOpCode::kMul:
    case ir::TileOpCode::kDiv:
    case ir::TileOpCode::kMax:
    case ir::TileOpCode::kMin:
      return vec::EmitBinary(v);
    case ir::TileOpCode::kExp:
    case ir::TileOpCode::kLn:
    case ir::TileOpCode::kSqrt:
    case ir::TileOpCode::kRsqrt:
    case ir::TileOpCode::kReciprocal:
    case ir::TileOpCode::kAbs:
    case ir::TileOpCode::kRelu:
    case ir::TileOpCode::kSigmoid:
      return vec::EmitUnary(v);
    case ir::TileOpCode::kCast:
      return vec::EmitCast(v);
    case ir::TileOpCode::kBroadcast:
      return vec::EmitBroadcast(v);
    case ir::TileOpCode::kCompare:
      return vec::EmitCompare(v);
    case ir::TileOpCode::kSelect:
      return vec::EmitSelect(v);
    case ir::TileOpCode::kAxpy:
      return vec::EmitAxpy(v);
    case ir::TileOpCode::kReduceSum:
    case ir::TileOpCode::kReduceMax:
    case ir::TileOpCode::kReduceMin:
      return vec::EmitReduce(v);
    default:
      TILEJIT_CHECK(false) << "EmitVectorOp called with " << ir::TileOpName(op.op);
      return Status::Ok();
  }
}

}  // namespace tilejit::codegen
