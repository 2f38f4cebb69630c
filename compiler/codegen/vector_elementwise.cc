// SPDX-License-Identifier: Apache-2.0
// Element-wise families without broadcasting: fill, the unary functions, axpy and cast.
#include <string>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

using target::Opcode;

std::optional<Opcode> UnaryOpcode(ir::TileOpCode op) {
  switch (op) {
    case ir::TileOpCode::kExp:
      return Opcode::kVexp;
    case ir::TileOpCode::kLn:
      return Opcode::kVln;
    case ir::TileOpCode::kSqrt:
      return Opcode::kVsqrt;
    case ir::TileOpCode::kRsqrt:
      return Opcode::kVrsqrt;
    case ir::TileOpCode::kReciprocal:
      return Opcode::kVrec;
    case ir::TileOpCode::kAbs:
      return Opcode::kVabs;
    case ir::TileOpCode::kRelu:
      return Opcode::kVrelu;
    case ir::TileOpCode::kSigmoid:
      return Opcode::kVsigmoid;
    case ir::TileOpCode::kBitwiseNot:
      return Opcode::kVnot;
    case ir::TileOpCode::kSilu:
      return Opcode::kVsilu;
    case ir::TileOpCode::kSin:
      return Opcode::kVsin;
    case ir::TileOpCode::kCos:
      return Opcode::kVcos;
    case ir::TileOpCode::kRound:
      return Opcode::kVround;
    default:
      return std::nullopt;
  }
}

std::optional<target::RoundMode> RoundOf(const std::string& mode) {
  // CAST_NONE: TileLang uses it for exact widening casts; rounding to nearest even is the
  // natural reading for the narrowing ones.
  if (mode.empty() || mode == "CAST_NONE" || mode == "CAST_RINT") return target::RoundMode::kRint;
  if (mode == "CAST_ROUND") return target::RoundMode::kRound;
  if (mode == "CAST_FLOOR") return target::RoundMode::kFloor;
  if (mode == "CAST_CEIL") return target::RoundMode::kCeil;
  if (mode == "CAST_TRUNC") return target::RoundMode::kTrunc;
  if (mode == "CAST_ODD") return target::RoundMode::kOdd;
  return std::nullopt;
}

}  // namespace

Status EmitFill(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  const ir::Expr* value = v.ScalarArg(1);
  if (value == nullptr) return v.Error("fill needs a scalar value");
  target::Instr in{.op = Opcode::kVdup};
  in.dtype = dst.dtype;
  TILEJIT_ASSIGN_OR_RETURN(in.scalar, v.ScalarBits(*value, dst.dtype));
  return EmitTiles(v, in, dst, nullptr, nullptr);
}

// set_deq_scale(scale): vsetdeq takes the scale as fp32 bits, like every float scalar operand,
// and keeps it as an f16 (AscendC's SetDeqScale(half)).
Status EmitDeqScale(VecOp& v) {
  const ir::Expr* scale = v.ScalarArg(0);
  if (scale == nullptr) return v.Error("set_deq_scale needs a scalar scale");
  target::Instr in{.op = Opcode::kVsetdeq};
  TILEJIT_ASSIGN_OR_RETURN(in.scalar, v.ScalarBits(*scale, target::DType::kF32));
  return v.Emit(in);
}

Status EmitUnary(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameShape(v, dst, "destination", src, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  auto op = UnaryOpcode(v.op().op);
  TILEJIT_CHECK(op.has_value()) << "not a unary vector op: " << v.name();
  target::Instr in{.op = *op};
  in.dtype = dst.dtype;
  return EmitTiles(v, in, dst, &src, nullptr);
}

Status EmitAxpy(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameShape(v, dst, "destination", src, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  const ir::Expr* scalar = v.ScalarArg(2);
  if (scalar == nullptr) return v.Error("axpy needs a scalar third operand");
  target::Instr in{.op = Opcode::kVaxpy};
  in.dtype = dst.dtype;
  TILEJIT_ASSIGN_OR_RETURN(auto saddr, v.UbElementAddress(*scalar, dst.dtype));
  if (saddr) {
    in.op = Opcode::kVaxpyUb;
    in.saddr = *saddr;
  } else {
    TILEJIT_ASSIGN_OR_RETURN(in.scalar, v.ScalarBits(*scalar, dst.dtype));
  }
  return EmitTiles(v, in, dst, &src, nullptr);
}

Status EmitCast(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameShape(v, dst, "destination", src, "source"));
  const std::string mode = v.StringAttr("mode");
  auto round = RoundOf(mode);
  if (!round) return v.Error("cast: unknown mode \"" + mode + "\"");
  const int64_t total = dst.batch() * dst.rows * dst.cols;
  const int64_t count = v.IntAttr("count", total);
  if (count < 1 || count > total) {
    return v.Error("cast: count " + std::to_string(count) + " is outside 1.." +
                   std::to_string(total));
  }
  return EmitPrefix(v, ConvertProto(src.dtype, dst.dtype, *round), dst, src, count);
}

}  // namespace tilejit::codegen::vec
