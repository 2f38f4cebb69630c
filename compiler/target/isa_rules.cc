// SPDX-License-Identifier: Apache-2.0
// Cross-field ISA rules. Kept apart from the generated tables so that the rules read as a
// plain list; each one is mirrored by a sentence in docs/isa.md. Address alignment and
// bounds depend on the target's memory table and on runtime register values, so the
// simulator checks them, not this file.
#include "compiler/target/isa_rules.h"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace tilejit::target::internal {
namespace {

using DTypes = std::initializer_list<DType>;

constexpr DTypes kVecArith = {DType::kF16, DType::kF32, DType::kS16, DType::kS32};
constexpr DTypes kVecFloat = {DType::kF16, DType::kF32};
constexpr DTypes kVecBits16 = {DType::kS16, DType::kU16};
constexpr DTypes kVecShift = {DType::kS16, DType::kU16, DType::kS32, DType::kU32};
constexpr DTypes kVecPow = {DType::kF16, DType::kF32, DType::kS32};
constexpr DTypes kVecIndex = {DType::kF16, DType::kF32, DType::kS16,
                              DType::kU16, DType::kS32, DType::kU32};
constexpr DTypes kVecF32 = {DType::kF32};
constexpr DTypes kVecMove = {DType::kF16, DType::kBF16, DType::kF32, DType::kS16,
                             DType::kU16, DType::kS32,  DType::kU32};
constexpr DTypes kCastTypes = {DType::kF16, DType::kBF16, DType::kF32, DType::kS8,
                               DType::kU8,  DType::kS16,  DType::kS32};
constexpr DTypes kCubeIn = {DType::kF16, DType::kBF16, DType::kF32, DType::kS8};
constexpr DTypes kAtomicTypes = {DType::kS8,   DType::kS16, DType::kF16,
                                 DType::kBF16, DType::kS32, DType::kF32};

bool In(DType t, DTypes set) { return std::find(set.begin(), set.end(), t) != set.end(); }

Status Bad(const Instr& in, const std::string& what) {
  return InvalidArgument(std::string(OpcodeName(in.op)) + ": " + what);
}

Status RequireDType(const Instr& in, DType t, DTypes set, const char* role) {
  if (In(t, set)) return Status::Ok();
  return Bad(in, std::string(role) + " type " + std::string(DTypeName(t)) +
                     " is not supported by this instruction");
}

// The dtype set of a vector instruction.
DTypes VectorDTypes(Opcode op) {
  switch (op) {
    case Opcode::kVdiv:
    case Opcode::kVdivs:
    case Opcode::kVdivsUb:
    case Opcode::kVaxpy:
    case Opcode::kVaxpyUb:
    case Opcode::kVmla:
    case Opcode::kVexp:
    case Opcode::kVln:
    case Opcode::kVsqrt:
    case Opcode::kVrsqrt:
    case Opcode::kVrec:
    case Opcode::kVsigmoid:
    case Opcode::kVbrowDiv:
    case Opcode::kVbcolDiv:
    case Opcode::kVlrelus:
    case Opcode::kVlrelusUb:
    case Opcode::kVsilu:
    case Opcode::kVsin:
    case Opcode::kVcos:
    case Opcode::kVround:
    case Opcode::kVsort32:
    case Opcode::kVbreduceSum:
    case Opcode::kVbreduceMax:
    case Opcode::kVbreduceMin:
    case Opcode::kVwreduceSum:
    case Opcode::kVwreduceMax:
    case Opcode::kVwreduceMin:
      return kVecFloat;
    case Opcode::kVmrgsort:
      return kVecF32;
    case Opcode::kVmov:
    case Opcode::kVdup:
    case Opcode::kVbrcb:
    case Opcode::kVtrans:
    case Opcode::kVgather:
    case Opcode::kVgathermask:
    case Opcode::kVgatherb:
      return kVecMove;
    case Opcode::kVindex:
      return kVecIndex;
    case Opcode::kVand:
    case Opcode::kVor:
    case Opcode::kVxor:
    case Opcode::kVands:
    case Opcode::kVors:
    case Opcode::kVandsUb:
    case Opcode::kVorsUb:
    case Opcode::kVnot:
      return kVecBits16;
    case Opcode::kVshls:
    case Opcode::kVshrs:
    case Opcode::kVshlsUb:
    case Opcode::kVshrsUb:
      return kVecShift;
    case Opcode::kVpow:
      return kVecPow;
    default:
      return kVecArith;
  }
}

bool IsPitchOk(const Opnd& o) { return !o.is_static() || o.imm % 16 == 0; }

Status CheckVector(const Instr& in) {
  if (in.op == Opcode::kVcast) {
    TILEJIT_RETURN_IF_ERROR(RequireDType(in, in.dtype, kCastTypes, "source"));
    TILEJIT_RETURN_IF_ERROR(RequireDType(in, in.odtype, kCastTypes, "destination"));
    if (in.dtype == in.odtype) return Bad(in, "source and destination types are equal");
  } else {
    TILEJIT_RETURN_IF_ERROR(RequireDType(in, in.dtype, VectorDTypes(in.op), "element"));
  }
  const bool indexed = in.op == Opcode::kVwreduceMax || in.op == Opcode::kVwreduceMin;
  if (indexed && in.scalar.is_static() && (in.scalar.imm < 0 || in.scalar.imm > 3)) {
    return Bad(in, "result order " + std::to_string(in.scalar.imm) + " is not one of 0..3");
  }
  if (UsesField(in.op, FieldId::mask) && in.mask.is_static() && in.mask.imm > ElemsPerRepeat(in)) {
    return Bad(in, "mask " + std::to_string(in.mask.imm) + " exceeds " +
                       std::to_string(ElemsPerRepeat(in)) + " elements per repeat");
  }
  return Status::Ok();
}

Status CheckCube(const Instr& in) {
  switch (in.op) {
    case Opcode::kMmad:
      return RequireDType(in, in.dtype, kCubeIn, "input");
    case Opcode::kLoadL0a:
    case Opcode::kLoadL0b:
      TILEJIT_RETURN_IF_ERROR(RequireDType(in, in.dtype, kCubeIn, "element"));
      if (in.transpose != 0 && DTypeBytes(in.dtype) != 2) {
        return Bad(in, "transpose is only supported for 16-bit types");
      }
      if (!IsPitchOk(in.src_pitch)) return Bad(in, "src_pitch must be a multiple of 16");
      return Status::Ok();
    case Opcode::kFixL0cGm:
    case Opcode::kFixL0cL1: {
      const bool ok =
          (in.dtype == DType::kF32 && In(in.odtype, {DType::kF32, DType::kF16, DType::kBF16})) ||
          (in.dtype == DType::kS32 && in.odtype == DType::kS32);
      if (!ok) {
        return Bad(in, "no fixpipe conversion from " + std::string(DTypeName(in.dtype)) + " to " +
                           std::string(DTypeName(in.odtype)));
      }
      if (!IsPitchOk(in.src_pitch)) return Bad(in, "src_pitch must be a multiple of 16");
      if (in.op == Opcode::kFixL0cL1 && !IsPitchOk(in.dst_pitch)) {
        return Bad(in, "dst_pitch must be a multiple of 16");
      }
      return Status::Ok();
    }
    default:
      return Status::Ok();
  }
}

Status CheckDma(const Instr& in) {
  switch (in.op) {
    case Opcode::kCopyGmL1Nz:
      if (DTypeBytes(in.dtype) > 4) return Bad(in, "64-bit elements cannot be converted to NZ");
      if (!IsPitchOk(in.dst_pitch)) return Bad(in, "dst_pitch must be a multiple of 16");
      return Status::Ok();
    case Opcode::kCopyGmUb:
      if (in.pad != 0 && DTypeBytes(in.dtype) > 4) return Bad(in, "pad element wider than 32 bits");
      return Status::Ok();
    case Opcode::kCopyUbGm:
      if (in.atomic != AtomicOp::kNone) return RequireDType(in, in.dtype, kAtomicTypes, "atomic");
      return Status::Ok();
    case Opcode::kFillL1:
    case Opcode::kFillUb:
      if (DTypeBytes(in.dtype) > 4) return Bad(in, "fill element wider than 32 bits");
      return Status::Ok();
    default:
      return Status::Ok();
  }
}

Status CheckSync(const Instr& in) {
  switch (in.op) {
    case Opcode::kBarrier:
      if (in.pipe == Pipe::kS) return Bad(in, "a barrier on the scalar pipe is illegal");
      return Status::Ok();
    case Opcode::kXset:
      if (in.pipe == Pipe::kS || in.pipe == Pipe::kAll) {
        return Bad(in, "a cross-core set must name the pipe that wrote the data (not s/all)");
      }
      return Status::Ok();
    case Opcode::kXwait:
      if (in.pipe == Pipe::kAll) return Bad(in, "a cross-core wait cannot be on pipe all");
      return Status::Ok();
    default:
      return Status::Ok();
  }
}

}  // namespace

int64_t ElemsPerRepeat(const Instr& in) {
  if (!UsesField(in.op, FieldId::mask)) return 0;
  int bytes = DTypeBytes(in.dtype);
  if (in.op == Opcode::kVcast) bytes = std::max(bytes, DTypeBytes(in.odtype));
  return bytes == 0 ? 0 : kRepeatBytes / bytes;
}

Status CheckCrossFieldRules(const Instr& in) {
  const OpcodeInfo& info = GetOpcodeInfo(in.op);
  if (info.unit == Unit::kV && in.op != Opcode::kCopyUbUb) return CheckVector(in);
  if (info.unit == Unit::kM || info.unit == Unit::kMte1 || info.unit == Unit::kFix) {
    return CheckCube(in);
  }
  if (info.unit == Unit::kMte2 || info.unit == Unit::kMte3) return CheckDma(in);
  if (info.unit == Unit::kOperand) return CheckSync(in);
  return Status::Ok();
}

}  // namespace tilejit::target::internal
