// SPDX-License-Identifier: Apache-2.0
// Integer/bool scalar expressions -> operands. Constants fold to immediates as early as
// possible and a register + constant stays an Opnd (reg + imm) instead of an `add`, because
// most index arithmetic ends up in an address field that adds the immediate for free.
#include <bit>
#include <string>

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

int64_t FloorDivI(int64_t a, int64_t b) {
  if (b == -1) return WrapSub(0, a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t FloorModI(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

bool CmpFold(target::CmpMode m, int64_t a, int64_t b) {
  switch (m) {
    case target::CmpMode::kEq:
      return a == b;
    case target::CmpMode::kNe:
      return a != b;
    case target::CmpMode::kLt:
      return a < b;
    case target::CmpMode::kLe:
      return a <= b;
    case target::CmpMode::kGt:
      return a > b;
    case target::CmpMode::kGe:
      return a >= b;
  }
  return false;
}

target::CmpMode Mirror(target::CmpMode m) {
  switch (m) {
    case target::CmpMode::kLt:
      return target::CmpMode::kGt;
    case target::CmpMode::kLe:
      return target::CmpMode::kGe;
    case target::CmpMode::kGt:
      return target::CmpMode::kLt;
    case target::CmpMode::kGe:
      return target::CmpMode::kLe;
    default:
      return m;
  }
}

// Truncates a constant to an integer dtype (wrapping like a store would).
int64_t TruncConst(int64_t v, ir::DType t) {
  const int bits = ir::DTypeBits(t);
  if (t == ir::DType::kBool) return v != 0 ? 1 : 0;
  if (bits >= 64) return v;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const uint64_t u = static_cast<uint64_t>(v) & mask;
  const bool is_signed = t == ir::DType::kInt8 || t == ir::DType::kInt16 || t == ir::DType::kInt32;
  if (is_signed && (u >> (bits - 1)) != 0) return static_cast<int64_t>(u | ~mask);
  return static_cast<int64_t>(u);
}

bool IsSignedInt(ir::DType t) {
  return t == ir::DType::kInt8 || t == ir::DType::kInt16 || t == ir::DType::kInt32 ||
         t == ir::DType::kInt64;
}

}  // namespace

std::optional<target::CmpMode> CmpModeOf(ir::BinaryOp op) {
  switch (op) {
    case ir::BinaryOp::kEq:
      return target::CmpMode::kEq;
    case ir::BinaryOp::kNe:
      return target::CmpMode::kNe;
    case ir::BinaryOp::kLt:
      return target::CmpMode::kLt;
    case ir::BinaryOp::kLe:
      return target::CmpMode::kLe;
    case ir::BinaryOp::kGt:
      return target::CmpMode::kGt;
    case ir::BinaryOp::kGe:
      return target::CmpMode::kGe;
    default:
      return std::nullopt;
  }
}

Result<Opnd> Emitter::Int(const ir::Expr& e) { return state_->IntExpr(e); }

Opnd Emitter::State::VarOperand(const ir::VarRefNode& v) const {
  auto it = vars.find(v.var.get());
  TILEJIT_CHECK(it != vars.end()) << "variable '" << v.var->name << "' is not bound";
  const auto& range = it->second.range;
  if (range.has_value() && range->first == range->second) return OpImm(range->first);
  return OpReg(it->second.reg);
}

const ir::Expr* Emitter::State::RematOf(const ir::VarRefNode& v) const {
  auto it = vars.find(v.var.get());
  return it != vars.end() && it->second.remat != nullptr ? &it->second.remat : nullptr;
}

std::optional<int> Emitter::State::RematNodes(const ir::Expr& x) const {
  auto sum = [this](std::initializer_list<const ir::Expr*> kids) -> std::optional<int> {
    int n = 1;
    for (const ir::Expr* k : kids) {
      std::optional<int> m = RematNodes(*k);
      if (!m.has_value()) return std::nullopt;
      n += *m;
    }
    return n;
  };
  switch (x->kind) {
    case ir::ExprKind::kIntImm:
    case ir::ExprKind::kFloatImm:
      return 1;
    case ir::ExprKind::kVarRef: {
      auto it = vars.find(ir::As<ir::VarRefNode>(x).var.get());
      if (it == vars.end()) return std::nullopt;
      return it->second.remat != nullptr ? it->second.remat_nodes : 1;
    }
    case ir::ExprKind::kBinary: {
      const auto& b = ir::As<ir::BinaryNode>(x);
      return sum({&b.a, &b.b});
    }
    case ir::ExprKind::kUnary:
      return sum({&ir::As<ir::UnaryNode>(x).a});
    case ir::ExprKind::kSelect: {
      const auto& s = ir::As<ir::SelectNode>(x);
      return sum({&s.cond, &s.t, &s.f});
    }
    case ir::ExprKind::kCall: {
      int n = 1;
      for (const ir::Expr& a : ir::As<ir::CallNode>(x).args) {
        std::optional<int> m = RematNodes(a);
        if (!m.has_value()) return std::nullopt;
        n += *m;
      }
      return n;
    }
    default:  // loads
      return std::nullopt;
  }
}

Result<Opnd> Emitter::State::IntExpr(const ir::Expr& x) {
  TILEJIT_CHECK(x != nullptr) << "null expression";
  if (ir::IsFloat(x->dtype)) {
    e->diag().Error(x->loc.known() ? x->loc : e->loc())
        << "a float value is used where an integer is needed";
    return e->diag().ToStatus();
  }
  switch (x->kind) {
    case ir::ExprKind::kIntImm:
      return OpImm(ir::As<ir::IntImmNode>(x).value);
    case ir::ExprKind::kFloatImm:
      break;  // float dtype, rejected above
    case ir::ExprKind::kVarRef:
      if (const ir::Expr* r = RematOf(ir::As<ir::VarRefNode>(x))) return IntExpr(*r);
      return VarOperand(ir::As<ir::VarRefNode>(x));
    case ir::ExprKind::kBinary:
      return IntBinary(ir::As<ir::BinaryNode>(x));
    case ir::ExprKind::kUnary: {
      const auto& u = ir::As<ir::UnaryNode>(x);
      if (u.op == ir::UnaryOp::kNeg) {
        TILEJIT_ASSIGN_OR_RETURN(Opnd a, IntExpr(u.a));
        return e->Sub(OpImm(0), a);
      }
      if (u.op == ir::UnaryOp::kBitNot) {  // ~a == a ^ -1
        TILEJIT_ASSIGN_OR_RETURN(Opnd a, IntExpr(u.a));
        const uint8_t t = Take(RegUse::kTemp);
        Alu(Opcode::kXor, t, e->InReg(a), OpImm(-1));
        return OpReg(t);
      }
      TILEJIT_ASSIGN_OR_RETURN(Opnd a, AsBool(u.a));
      if (a.is_static()) return OpImm(a.imm == 0 ? 1 : 0);
      const uint8_t t = Take(RegUse::kTemp);
      Instr in{.op = Opcode::kCmp};
      in.rd = t;
      in.rs1 = e->InReg(a);
      in.src2 = OpImm(0);
      in.cmp = target::CmpMode::kEq;
      e->Emit(in);
      return OpReg(t);
    }
    case ir::ExprKind::kSelect:
      return SelectExpr(ir::As<ir::SelectNode>(x), false);
    case ir::ExprKind::kLoad:
      return IntLoad(ir::As<ir::LoadNode>(x), false);
    case ir::ExprKind::kCall: {
      const auto& c = ir::As<ir::CallNode>(x);
      if (c.op == "cast" && c.args.size() == 1) return IntCast(c);
      e->diag().Error(x->loc.known() ? x->loc : e->loc())
          << "scalar intrinsic '" << c.op << "' on integers is not supported by the scalar unit";
      return e->diag().ToStatus();
    }
  }
  TILEJIT_UNREACHABLE();
  return OpImm(0);
}

Result<Opnd> Emitter::State::IntBinary(const ir::BinaryNode& b) {
  if (auto mode = CmpModeOf(b.op)) {
    if (ir::IsFloat(b.a->dtype) || ir::IsFloat(b.b->dtype)) return FloatCompare(*mode, b.a, b.b);
    return IntCompare(*mode, b.a, b.b);
  }
  if (b.op == ir::BinaryOp::kAnd || b.op == ir::BinaryOp::kOr) {
    const bool is_and = b.op == ir::BinaryOp::kAnd;
    TILEJIT_ASSIGN_OR_RETURN(Opnd x, AsBool(b.a));
    if (x.is_static()) {
      if (is_and ? x.imm == 0 : x.imm != 0) return OpImm(is_and ? 0 : 1);
      return AsBool(b.b);
    }
    TILEJIT_ASSIGN_OR_RETURN(Opnd y, AsBool(b.b));
    if (y.is_static()) {
      if (is_and ? y.imm == 0 : y.imm != 0) return OpImm(is_and ? 0 : 1);
      return x;
    }
    const uint8_t t = Take(RegUse::kTemp);
    Alu(is_and ? Opcode::kAnd : Opcode::kOr, t, e->InReg(x), y);
    return OpReg(t);
  }
  TILEJIT_ASSIGN_OR_RETURN(Opnd x, IntExpr(b.a));
  TILEJIT_ASSIGN_OR_RETURN(Opnd y, IntExpr(b.b));
  TILEJIT_ASSIGN_OR_RETURN(Opnd r, IntArith(b, x, y));
  // The operands' temporaries die here (a subexpression's value is used once): free them, so
  // deep index arithmetic needs registers for its depth, not for its size.
  for (const Opnd& o : {x, y}) {
    if (o.reg != 0 && o.reg != r.reg && regs[o.reg] == RegUse::kTemp) regs[o.reg] = RegUse::kFree;
  }
  return r;
}

Result<Opnd> Emitter::State::IntArith(const ir::BinaryNode& b, Opnd x, Opnd y) {
  switch (b.op) {
    case ir::BinaryOp::kAdd:
      return e->Add(x, y);
    case ir::BinaryOp::kSub:
      return e->Sub(x, y);
    case ir::BinaryOp::kMul: {
      if (y.is_static()) return e->Scaled(x, y.imm);
      if (x.is_static()) return e->Scaled(y, x.imm);
      const uint8_t t = Take(RegUse::kTemp);
      Alu(Opcode::kMul, t, e->InReg(x), y);
      return OpReg(t);
    }
    case ir::BinaryOp::kDiv:  // integer true division: floor, as TileLang's index math
    case ir::BinaryOp::kFloorDiv:
      return FoldedDivMod(false, x, y, b.loc);
    case ir::BinaryOp::kFloorMod:
      return FoldedDivMod(true, x, y, b.loc);
    case ir::BinaryOp::kMin:
      return e->Min(x, y);
    case ir::BinaryOp::kMax:
      return e->Max(x, y);
    case ir::BinaryOp::kBitAnd:
    case ir::BinaryOp::kBitOr:
    case ir::BinaryOp::kBitXor:
    case ir::BinaryOp::kShl:
    case ir::BinaryOp::kShr: {
      static constexpr Opcode kAlu[] = {Opcode::kAnd, Opcode::kOr, Opcode::kXor, Opcode::kShl,
                                        Opcode::kShr};
      const uint8_t t = Take(RegUse::kTemp);
      Alu(kAlu[static_cast<int>(b.op) - static_cast<int>(ir::BinaryOp::kBitAnd)], t, e->InReg(x),
          y);
      return OpReg(t);
    }
    default:
      break;
  }
  TILEJIT_UNREACHABLE();
  return OpImm(0);
}

Result<Opnd> Emitter::State::FoldedDivMod(bool mod, Opnd a, Opnd b, SourceLoc loc) {
  if (b.is_static()) {
    if (b.imm == 0) {
      e->diag().Error(loc.known() ? loc : e->loc()) << "integer division by zero";
      return e->diag().ToStatus();
    }
    if (a.is_static()) return OpImm(mod ? FloorModI(a.imm, b.imm) : FloorDivI(a.imm, b.imm));
    const int64_t k = b.imm;
    if (k == 1) return mod ? OpImm(0) : a;
    // (R + q*k) // k == R // k + q and (R + q*k) % k == R % k (floor semantics).
    int64_t carry = 0;
    if (k > 0 && a.imm % k == 0) {
      carry = a.imm / k;
      a.imm = 0;
    }
    const uint8_t t = Take(RegUse::kTemp);
    const uint8_t ra = e->InReg(a);
    if (k > 0 && std::has_single_bit(static_cast<uint64_t>(k))) {
      // Arithmetic shift and mask give floor division and floor modulo for 2^n.
      if (mod) {
        Alu(Opcode::kAnd, t, ra, OpImm(k - 1));
      } else {
        Alu(Opcode::kShr, t, ra, OpImm(std::countr_zero(static_cast<uint64_t>(k))));
      }
    } else {
      Alu(mod ? Opcode::kMod : Opcode::kDiv, t, ra, b);
    }
    return Opnd{t, mod ? 0 : carry};
  }
  const uint8_t t = Take(RegUse::kTemp);
  Alu(mod ? Opcode::kMod : Opcode::kDiv, t, e->InReg(a), b);
  return OpReg(t);
}

Result<Opnd> Emitter::State::IntCompare(target::CmpMode mode, const ir::Expr& a,
                                        const ir::Expr& b) {
  TILEJIT_ASSIGN_OR_RETURN(Opnd x, IntExpr(a));
  TILEJIT_ASSIGN_OR_RETURN(Opnd y, IntExpr(b));
  if (x.is_static() && y.is_static()) return OpImm(CmpFold(mode, x.imm, y.imm) ? 1 : 0);
  if (x.is_static()) {
    std::swap(x, y);
    mode = Mirror(mode);
  }
  if (!FitsInt32(y.imm)) y = OpReg(e->InReg(y));
  const uint8_t rs1 = e->InReg(x);
  const uint8_t t = Take(RegUse::kTemp);
  Instr in{.op = Opcode::kCmp};
  in.rd = t;
  in.rs1 = rs1;
  in.src2 = y;
  in.cmp = mode;
  e->Emit(in);
  return OpReg(t);
}

Result<Opnd> Emitter::State::AsBool(const ir::Expr& x) {
  if (ir::IsFloat(x->dtype)) return FloatCompare(target::CmpMode::kNe, x, ir::FloatImm(0.0));
  TILEJIT_ASSIGN_OR_RETURN(Opnd v, IntExpr(x));
  if (v.is_static()) return OpImm(v.imm != 0 ? 1 : 0);
  if (x->dtype == ir::DType::kBool && v.imm == 0) return v;
  const uint8_t rs1 = e->InReg(v);
  const uint8_t t = Take(RegUse::kTemp);
  Instr in{.op = Opcode::kCmp};
  in.rd = t;
  in.rs1 = rs1;
  in.src2 = OpImm(0);
  in.cmp = target::CmpMode::kNe;
  e->Emit(in);
  return OpReg(t);
}

// Arms that load from memory are evaluated under a branch: a guarded out-of-bounds load
// (`select(i < n, A[i], 0)`) must not execute.
Result<Opnd> Emitter::State::SelectExpr(const ir::SelectNode& s, bool as_float) {
  auto value = [&](const ir::Expr& x) { return as_float ? FloatExpr(x) : IntExpr(x); };
  TILEJIT_ASSIGN_OR_RETURN(Opnd c, AsBool(s.cond));
  if (c.is_static()) return value(c.imm != 0 ? s.t : s.f);
  if (!HasLoad(s.t) && !HasLoad(s.f)) {
    TILEJIT_ASSIGN_OR_RETURN(Opnd tv, value(s.t));
    TILEJIT_ASSIGN_OR_RETURN(Opnd fv, value(s.f));
    Instr in{.op = Opcode::kSelect};
    in.rc = e->InReg(c);
    in.rs1 = e->InReg(tv);
    in.rs2 = e->InReg(fv);
    in.rd = Take(RegUse::kTemp);
    e->Emit(in);
    return OpReg(in.rd);
  }
  const uint8_t rd = Take(RegUse::kTemp);
  Instr bz{.op = Opcode::kBz};
  bz.rs1 = e->InReg(c);
  const size_t bz_at = e->size();
  e->Emit(bz);
  TILEJIT_ASSIGN_OR_RETURN(Opnd tv, value(s.t));
  MoveTo(rd, tv);
  const size_t jmp_at = e->size();
  e->Emit(Instr{.op = Opcode::kJmp});
  e->PatchBranch(bz_at, e->size());
  TILEJIT_ASSIGN_OR_RETURN(Opnd fv, value(s.f));
  MoveTo(rd, fv);
  e->PatchBranch(jmp_at, e->size());
  return OpReg(rd);
}

Result<Opnd> Emitter::State::IntLoad(const ir::LoadNode& load, bool /*as_float*/) {
  const ir::Buffer& buf = load.buffer;
  if (buf->scope == ir::MemScope::kLocalVar) return OpReg(VarBufferReg(*buf));
  const SourceLoc loc = load.loc.known() ? load.loc : e->loc();
  TILEJIT_ASSIGN_OR_RETURN(Opnd addr, ElementAddress(buf, load.indices, loc));
  Instr in{.op = buf->scope == ir::MemScope::kUB ? Opcode::kLdUb : Opcode::kLdGm};
  in.addr = addr;
  in.dtype = IsaDType(buf->dtype);
  in.rd = Take(RegUse::kTemp);
  e->Emit(in);
  return OpReg(in.rd);
}

Result<Opnd> Emitter::State::IntCast(const ir::CallNode& call) {
  const ir::Expr& arg = call.args[0];
  const ir::DType to = call.dtype;
  Opnd v;
  ir::DType from = arg->dtype;
  if (ir::IsFloat(from)) {
    TILEJIT_ASSIGN_OR_RETURN(Opnd bits, FloatExpr(arg));
    if (bits.is_static()) {
      const float f = std::bit_cast<float>(static_cast<uint32_t>(bits.imm));
      v = OpImm(f != f ? 0 : static_cast<int64_t>(f));  // trunc; NaN -> 0 like ftoi
    } else {
      v = OpReg(Take(RegUse::kTemp));
      Instr in{.op = Opcode::kFtoi};
      in.rd = v.reg;
      in.rs1 = e->InReg(bits);
      e->Emit(in);
    }
    from = ir::DType::kInt64;
  } else {
    TILEJIT_ASSIGN_OR_RETURN(v, IntExpr(arg));
  }
  if (to == ir::DType::kBool) {
    if (v.is_static()) return OpImm(v.imm != 0 ? 1 : 0);
    return AsBool(arg);
  }
  if (v.is_static()) return OpImm(TruncConst(v.imm, to));
  const int bt = ir::DTypeBits(to), bf = ir::DTypeBits(from);
  const bool widening = bt > bf && !(IsSignedInt(from) && !IsSignedInt(to));
  const bool same = bt == bf && IsSignedInt(from) == IsSignedInt(to);
  if (bt >= 64 || widening || same || from == ir::DType::kBool) return v;
  const uint8_t rs = e->InReg(v);
  const uint8_t t = Take(RegUse::kTemp);
  if (IsSignedInt(to)) {
    Alu(Opcode::kShl, t, rs, OpImm(64 - bt));
    Alu(Opcode::kShr, t, t, OpImm(64 - bt));
  } else {
    Alu(Opcode::kAnd, t, rs, OpImm(static_cast<int64_t>((uint64_t{1} << bt) - 1)));
  }
  return OpReg(t);
}

target::DType IsaDType(ir::DType t) {
  switch (t) {
    case ir::DType::kBool:
      return target::DType::kU8;
    case ir::DType::kInt8:
      return target::DType::kS8;
    case ir::DType::kInt16:
      return target::DType::kS16;
    case ir::DType::kInt32:
      return target::DType::kS32;
    case ir::DType::kInt64:
      return target::DType::kS64;
    case ir::DType::kUInt8:
      return target::DType::kU8;
    case ir::DType::kUInt16:
      return target::DType::kU16;
    case ir::DType::kUInt32:
      return target::DType::kU32;
    case ir::DType::kUInt64:
      return target::DType::kS64;
    case ir::DType::kFloat16:
      return target::DType::kF16;
    case ir::DType::kBFloat16:
      return target::DType::kBF16;
    case ir::DType::kFloat32:
      return target::DType::kF32;
  }
  return target::DType::kS32;
}

}  // namespace tilejit::codegen
