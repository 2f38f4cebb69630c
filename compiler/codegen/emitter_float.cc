// SPDX-License-Identifier: Apache-2.0
// Float scalar expressions as fp32 bit patterns. The scalar unit has fp32 arithmetic but no
// float compare, so comparisons map each operand to a sign-magnitude integer key (monotonic
// in the float order, -0 == +0) and compare the keys; NaN operands make every comparison
// false except `!=`, as in IEEE.
#include <bit>
#include <cmath>

#include "common/check.h"
#include "compiler/codegen/emitter.h"
#include "compiler/codegen/emitter_internal.h"

namespace tilejit::codegen {
namespace {

using target::Instr;
using target::Opcode;
using target::OpImm;
using target::Opnd;
using target::OpReg;

constexpr int64_t kSignBit = 0x80000000;
constexpr int64_t kMagMask = 0x7fffffff;
constexpr int64_t kInfBits = 0x7f800000;

float ToFloat(int64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }

}  // namespace

int64_t FloatBitsOf(double v) {
  return static_cast<int64_t>(std::bit_cast<uint32_t>(static_cast<float>(v)));
}

Result<Opnd> Emitter::FloatBits(const ir::Expr& e) { return state_->FloatExpr(e); }

Result<Opnd> Emitter::State::FloatExpr(const ir::Expr& x) {
  TILEJIT_CHECK(x != nullptr) << "null expression";
  if (!ir::IsFloat(x->dtype)) {  // an integer (or bool) used as a float: convert
    TILEJIT_ASSIGN_OR_RETURN(Opnd v, IntExpr(x));
    if (v.is_static()) return OpImm(FloatBitsOf(static_cast<double>(v.imm)));
    Instr in{.op = Opcode::kItof};
    in.rs1 = e->InReg(v);
    in.rd = Take(RegUse::kTemp);
    e->Emit(in);
    return OpReg(in.rd);
  }
  const SourceLoc loc = x->loc.known() ? x->loc : e->loc();
  switch (x->kind) {
    case ir::ExprKind::kFloatImm:
      return OpImm(FloatBitsOf(ir::As<ir::FloatImmNode>(x).value));
    case ir::ExprKind::kIntImm:
      return OpImm(FloatBitsOf(static_cast<double>(ir::As<ir::IntImmNode>(x).value)));
    case ir::ExprKind::kVarRef:
      if (const ir::Expr* r = RematOf(ir::As<ir::VarRefNode>(x))) return FloatExpr(*r);
      return VarOperand(ir::As<ir::VarRefNode>(x));
    case ir::ExprKind::kBinary:
      return FloatBinary(ir::As<ir::BinaryNode>(x));
    case ir::ExprKind::kUnary: {
      const auto& u = ir::As<ir::UnaryNode>(x);
      TILEJIT_CHECK(u.op == ir::UnaryOp::kNeg) << "logical not of a float";
      TILEJIT_ASSIGN_OR_RETURN(Opnd a, FloatExpr(u.a));
      if (a.is_static()) return OpImm(a.imm ^ kSignBit);
      // -0.0 - x flips the sign exactly, zeros included (an xor with bit 31 would need a
      // src2 outside the int32 operand range).
      Instr in{.op = Opcode::kFsub};
      in.rs1 = e->InReg(OpImm(kSignBit));
      in.rs2 = e->InReg(a);
      in.rd = Take(RegUse::kTemp);
      e->Emit(in);
      return OpReg(in.rd);
    }
    case ir::ExprKind::kSelect:
      return SelectExpr(ir::As<ir::SelectNode>(x), true);
    case ir::ExprKind::kLoad:
      return IntLoad(ir::As<ir::LoadNode>(x), true);
    case ir::ExprKind::kCall: {
      const auto& c = ir::As<ir::CallNode>(x);
      if (c.op == "cast" && c.args.size() == 1) return FloatExpr(c.args[0]);  // fp32 in regs
      if (c.op == "abs" && c.args.size() == 1) {
        TILEJIT_ASSIGN_OR_RETURN(Opnd a, FloatExpr(c.args[0]));
        if (a.is_static()) return OpImm(a.imm & kMagMask);
        const uint8_t ra = e->InReg(a);
        const uint8_t t = Take(RegUse::kTemp);
        Alu(Opcode::kAnd, t, ra, OpImm(kMagMask));
        return OpReg(t);
      }
      e->diag().Error(loc) << "scalar intrinsic '" << c.op
                           << "' is not supported by the scalar unit (use a vector op on a "
                              "UB tile instead)";
      return e->diag().ToStatus();
    }
  }
  TILEJIT_UNREACHABLE();
  return OpImm(0);
}

Result<Opnd> Emitter::State::FloatBinary(const ir::BinaryNode& b) {
  TILEJIT_ASSIGN_OR_RETURN(Opnd x, FloatExpr(b.a));
  TILEJIT_ASSIGN_OR_RETURN(Opnd y, FloatExpr(b.b));
  Opcode op;
  switch (b.op) {
    case ir::BinaryOp::kAdd:
      op = Opcode::kFadd;
      break;
    case ir::BinaryOp::kSub:
      op = Opcode::kFsub;
      break;
    case ir::BinaryOp::kMul:
      op = Opcode::kFmul;
      break;
    case ir::BinaryOp::kDiv:
      op = Opcode::kFdiv;
      break;
    case ir::BinaryOp::kMin:
      op = Opcode::kFmin;
      break;
    case ir::BinaryOp::kMax:
      op = Opcode::kFmax;
      break;
    default:
      e->diag().Error(b.loc.known() ? b.loc : e->loc())
          << "operator '" << ir::BinaryOpName(b.op) << "' on float scalars is not supported";
      return e->diag().ToStatus();
  }
  if (x.is_static() && y.is_static()) {
    const float fa = ToFloat(x.imm), fb = ToFloat(y.imm);
    float r = 0;
    switch (op) {
      case Opcode::kFadd:
        r = fa + fb;
        break;
      case Opcode::kFsub:
        r = fa - fb;
        break;
      case Opcode::kFmul:
        r = fa * fb;
        break;
      case Opcode::kFdiv:
        r = fa / fb;
        break;
      case Opcode::kFmin:
        r = std::fmin(fa, fb);
        break;
      default:
        r = std::fmax(fa, fb);
        break;
    }
    return OpImm(static_cast<int64_t>(std::bit_cast<uint32_t>(r)));
  }
  Instr in{.op = op};
  in.rs1 = e->InReg(x);
  in.rs2 = e->InReg(y);
  in.rd = Take(RegUse::kTemp);
  e->Emit(in);
  return OpReg(in.rd);
}

namespace {

// key = sign ? -mag : mag; nan = mag > inf. Emitted for a runtime operand.
struct FloatKey {
  Opnd key;
  Opnd nan;
};

}  // namespace

Result<Opnd> Emitter::State::FloatCompare(target::CmpMode mode, const ir::Expr& a,
                                          const ir::Expr& b) {
  TILEJIT_ASSIGN_OR_RETURN(Opnd x, FloatExpr(a));
  TILEJIT_ASSIGN_OR_RETURN(Opnd y, FloatExpr(b));
  if (x.is_static() && y.is_static()) {
    const float fa = ToFloat(x.imm), fb = ToFloat(y.imm);
    bool r = false;
    switch (mode) {
      case target::CmpMode::kEq:
        r = fa == fb;
        break;
      case target::CmpMode::kNe:
        r = fa != fb;
        break;
      case target::CmpMode::kLt:
        r = fa < fb;
        break;
      case target::CmpMode::kLe:
        r = fa <= fb;
        break;
      case target::CmpMode::kGt:
        r = fa > fb;
        break;
      case target::CmpMode::kGe:
        r = fa >= fb;
        break;
    }
    return OpImm(r ? 1 : 0);
  }
  auto key_of = [&](Opnd bits) -> FloatKey {
    if (bits.is_static()) {
      const int64_t mag = bits.imm & kMagMask;
      return {OpImm((bits.imm & kSignBit) ? -mag : mag), OpImm(mag > kInfBits ? 1 : 0)};
    }
    const uint8_t rb = e->InReg(bits);
    const uint8_t mag = Take(RegUse::kTemp);
    Alu(Opcode::kAnd, mag, rb, OpImm(kMagMask));
    const uint8_t sign = Take(RegUse::kTemp);
    Alu(Opcode::kShr, sign, rb, OpImm(31));
    Alu(Opcode::kAnd, sign, sign, OpImm(1));
    const uint8_t neg = Take(RegUse::kTemp);
    Alu(Opcode::kSub, neg, 0, OpReg(mag));
    Instr sel{.op = Opcode::kSelect};
    sel.rd = Take(RegUse::kTemp);
    sel.rc = sign;
    sel.rs1 = neg;
    sel.rs2 = mag;
    e->Emit(sel);
    const uint8_t nan = Take(RegUse::kTemp);
    Instr cmp{.op = Opcode::kCmp};
    cmp.rd = nan;
    cmp.rs1 = mag;
    cmp.src2 = OpImm(kInfBits);
    cmp.cmp = target::CmpMode::kGt;
    e->Emit(cmp);
    return {OpReg(sel.rd), OpReg(nan)};
  };
  const FloatKey kx = key_of(x), ky = key_of(y);
  // Ordered comparison of the keys.
  const uint8_t r = Take(RegUse::kTemp);
  Instr cmp{.op = Opcode::kCmp};
  cmp.rd = r;
  cmp.rs1 = e->InReg(kx.key);
  cmp.src2 = ky.key;
  cmp.cmp = mode;
  e->Emit(cmp);
  // unordered = nan_x | nan_y.
  Opnd unordered;
  if (kx.nan.is_static() && ky.nan.is_static()) {
    unordered = OpImm(kx.nan.imm | ky.nan.imm);
  } else {
    const uint8_t u = Take(RegUse::kTemp);
    Alu(Opcode::kOr, u, e->InReg(kx.nan), ky.nan);
    unordered = OpReg(u);
  }
  if (unordered.is_static()) {
    if (unordered.imm == 0) return OpReg(r);
    return OpImm(mode == target::CmpMode::kNe ? 1 : 0);
  }
  if (mode == target::CmpMode::kNe) {
    Alu(Opcode::kOr, r, r, unordered);
  } else {
    Alu(Opcode::kXor, unordered.reg, unordered.reg, OpImm(1));  // ordered
    Alu(Opcode::kAnd, r, r, unordered);
  }
  return OpReg(r);
}

}  // namespace tilejit::codegen
