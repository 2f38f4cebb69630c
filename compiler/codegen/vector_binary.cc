// SPDX-License-Identifier: Apache-2.0
// The binary family in every operand form its instructions have, and broadcast (axis).
//  - tile op tile (same shape): vadd ... on the repeat engine;
//  - tile op scalar: vadds ...; when the scalar is a UB element of the same type the vector
//    instruction reads it itself (vadds_ub, `saddr`), so no scalar-unit load or flag is
//    needed (DESIGN.md section 2);
//  - tile op [R] / [R, 1] (per row) and tile op [1, C] (per column): vbrow_* / vbcol_*.
// Not every op has every form (AscendC has no tile-tile shift, no scalar xor or pow, no
// broadcast form of the bitwise ops): a missing form is kNop below and a diagnostic naming the
// forms the op has.
// broadcast: per row is vbrcb; per column is vmov with the source's repeat stride 0, which
// re-reads the one source row for every destination row.
#include <string>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

using target::Opcode;

constexpr Opcode kNone = Opcode::kNop;

struct BinaryOpcodes {
  Opcode vv, vs, vs_ub, per_row, per_col;
};

BinaryOpcodes OpcodesOf(ir::TileOpCode op) {
  switch (op) {
    case ir::TileOpCode::kAdd:
      return {Opcode::kVadd, Opcode::kVadds, Opcode::kVaddsUb, Opcode::kVbrowAdd,
              Opcode::kVbcolAdd};
    case ir::TileOpCode::kSub:
      return {Opcode::kVsub, Opcode::kVsubs, Opcode::kVsubsUb, Opcode::kVbrowSub,
              Opcode::kVbcolSub};
    case ir::TileOpCode::kMul:
      return {Opcode::kVmul, Opcode::kVmuls, Opcode::kVmulsUb, Opcode::kVbrowMul,
              Opcode::kVbcolMul};
    case ir::TileOpCode::kDiv:
      return {Opcode::kVdiv, Opcode::kVdivs, Opcode::kVdivsUb, Opcode::kVbrowDiv,
              Opcode::kVbcolDiv};
    case ir::TileOpCode::kMax:
      return {Opcode::kVmax, Opcode::kVmaxs, Opcode::kVmaxsUb, Opcode::kVbrowMax,
              Opcode::kVbcolMax};
    case ir::TileOpCode::kMin:
      return {Opcode::kVmin, Opcode::kVmins, Opcode::kVminsUb, Opcode::kVbrowMin,
              Opcode::kVbcolMin};
    case ir::TileOpCode::kBitwiseAnd:
      return {Opcode::kVand, Opcode::kVands, Opcode::kVandsUb, kNone, kNone};
    case ir::TileOpCode::kBitwiseOr:
      return {Opcode::kVor, Opcode::kVors, Opcode::kVorsUb, kNone, kNone};
    case ir::TileOpCode::kBitwiseXor:
      return {Opcode::kVxor, kNone, kNone, kNone, kNone};
    case ir::TileOpCode::kPow:
      return {Opcode::kVpow, kNone, kNone, kNone, kNone};
    case ir::TileOpCode::kMulAddDst:
      return {Opcode::kVmla, kNone, kNone, kNone, kNone};
    case ir::TileOpCode::kShiftLeft:
      return {kNone, Opcode::kVshls, Opcode::kVshlsUb, kNone, kNone};
    case ir::TileOpCode::kShiftRight:
      return {kNone, Opcode::kVshrs, Opcode::kVshrsUb, kNone, kNone};
    case ir::TileOpCode::kLeakyRelu:
      return {kNone, Opcode::kVlrelus, Opcode::kVlrelusUb, kNone, kNone};
    default:
      TILEJIT_CHECK(false) << "not a binary vector op: " << ir::TileOpName(op);
      return {};
  }
}

// "a scalar second operand" etc.: the forms `ops` has, for the diagnostic of a missing one.
std::string FormsOf(const BinaryOpcodes& ops) {
  std::string out;
  auto add = [&](bool has, const char* what) {
    if (!has) return;
    out += out.empty() ? "" : " or ";
    out += what;
  };
  add(ops.vv != kNone, "a tile of the destination's shape");
  add(ops.vs != kNone, "a scalar");
  add(ops.per_row != kNone, "a per-row or per-column vector");
  return out;
}

Status MissingForm(VecOp& v, const BinaryOpcodes& ops, std::string_view given) {
  return v.Error(std::string(v.name()) + " has no form with " + std::string(given) +
                 " as its second operand; it takes " + FormsOf(ops));
}

Status EmitWithScalar(VecOp& v, const BinaryOpcodes& ops, const Tile& dst, const Tile& src,
                      const ir::Expr& scalar) {
  target::Instr in{.op = ops.vs};
  in.dtype = dst.dtype;
  TILEJIT_ASSIGN_OR_RETURN(auto saddr, v.UbElementAddress(scalar, dst.dtype));
  if (saddr) {
    in.op = ops.vs_ub;
    in.saddr = *saddr;
  } else {
    TILEJIT_ASSIGN_OR_RETURN(in.scalar, v.ScalarBits(scalar, dst.dtype));
  }
  return EmitTiles(v, in, dst, &src, nullptr);
}

Status ShapeMismatch(VecOp& v, const Tile& dst, const Tile& src, std::string_view role) {
  return v.Error(std::string(v.name()) + " shape mismatch: the destination is " +
                 ShapeText(*dst.region) + " but the " + std::string(role) + " is " +
                 ShapeText(*src.region) +
                 " (expected the same shape, [R] or [R, 1] per row, or [1, C] per column)");
}

}  // namespace

Status EmitBinary(VecOp& v) {
  const BinaryOpcodes ops = OpcodesOf(v.op().op);
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "first source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameShape(v, dst, "destination", src, "first source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "first source"));
  if (const ir::Expr* scalar = v.ScalarArg(2)) {
    if (ops.vs == kNone) return MissingForm(v, ops, "a scalar");
    return EmitWithScalar(v, ops, dst, src, *scalar);
  }
  TILEJIT_ASSIGN_OR_RETURN(Tile src1, v.TileArg(2, "second source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src1, "second source"));
  const auto kind = ClassifyBroadcast(dst, src1);
  if (!kind) return ShapeMismatch(v, dst, src1, "second source");
  if (*kind == Bcast::kElementwise) {
    if (ops.vv == kNone) return MissingForm(v, ops, "a tile");
    TILEJIT_RETURN_IF_ERROR(CheckSameShape(v, dst, "destination", src1, "second source"));
    target::Instr in{.op = ops.vv};
    in.dtype = dst.dtype;
    return EmitTiles(v, in, dst, &src, &src1);
  }
  if (ops.per_row == kNone) return MissingForm(v, ops, "a broadcast vector");
  TwoDArgs a;
  a.proto.op = *kind == Bcast::kPerRow ? ops.per_row : ops.per_col;
  a.proto.dtype = dst.dtype;
  a.dst = StreamOf(dst);
  a.src = StreamOf(src);
  a.vec = VecOf(src1);
  a.per_row = *kind == Bcast::kPerRow;
  a.rows = dst.rows;
  a.cols = dst.cols;
  return Emit2d(v, a);
}

Status EmitBroadcast(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  const auto kind = ClassifyBroadcast(dst, src);
  if (!kind || *kind == Bcast::kElementwise || dst.batch() != 1) {
    return ShapeMismatch(v, dst, src, "source");
  }
  const int64_t axis = *kind == Bcast::kPerRow ? 1 : 0;
  const int64_t want = v.IntAttr("axis", axis);
  if (want != axis && want != axis - 2) {
    return v.Error("broadcast axis " + std::to_string(want) + " does not match the shapes " +
                   ShapeText(*src.region) + " -> " + ShapeText(*dst.region) + " (axis " +
                   std::to_string(axis) + ")");
  }
  if (*kind == Bcast::kPerRow) {
    TwoDArgs a;
    a.proto.op = Opcode::kVbrcb;
    a.proto.dtype = dst.dtype;
    a.dst = StreamOf(dst);
    a.vec = VecOf(src);
    a.rows = dst.rows;
    a.cols = dst.cols;
    return Emit2d(v, a);
  }
  RepeatArgs a{target::Instr{.op = Opcode::kVmov}, {}, dst.rows, dst.cols};
  a.proto.dtype = dst.dtype;
  a.ops[kDst] = StreamOf(dst);
  a.ops[kSrc] = Stream{src.addr, 0, src.es};
  return EmitRepeat(v, a);
}

}  // namespace tilejit::codegen::vec
