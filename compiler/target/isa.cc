// SPDX-License-Identifier: Apache-2.0
// Tables generated from isa.def plus the hand-written cross-field rules. The encoder and the
// decoder are driven by the same per-opcode field lists, so they cannot disagree on layout;
// the decoder re-runs Validate so a binary can never carry a value the encoder would refuse.
#include "compiler/target/isa.h"

#include <array>
#include <cctype>
#include <climits>
#include <cstdint>
#include <iterator>
#include <string>

#include "common/check.h"
#include "compiler/target/isa_rules.h"

namespace tilejit::target {
namespace {

// Per-opcode field lists. Each array starts with a dummy element so that empty lists are legal
// C++; the span skips it.
#define TILEJIT_F(f) FieldId::f,
#define TILEJIT_ISA_INSTR(op, mn, unit, cores, timing, fields, doc) \
  constexpr FieldId kFields_##op[] = {FieldId{}, fields};
#include "compiler/target/isa.def"
#undef TILEJIT_F

const OpcodeInfo kOpcodeInfos[] = {
#define TILEJIT_ISA_INSTR(op, mn, unit, cores, timing, fields, doc)         \
  {Opcode::op,                                                              \
   mn,                                                                      \
   Unit::unit,                                                              \
   Cores::cores,                                                            \
   TimingClass::timing,                                                     \
   std::span<const FieldId>(kFields_##op + 1, std::size(kFields_##op) - 1), \
   doc},
#include "compiler/target/isa.def"
};
static_assert(std::size(kOpcodeInfos) == kNumOpcodes);

const FieldInfo kFieldInfos[] = {
#define TILEJIT_ISA_FIELD(name, kind, bits, lo, hi, doc) \
  {FieldId::name, #name, FieldKind::k##kind, bits, lo, hi, doc},
#include "compiler/target/isa.def"
};
static_assert(std::size(kFieldInfos) == kNumFields);

constexpr std::string_view kDTypeNames[kNumDTypes] = {"f16", "bf16", "f32", "s8",  "u8",
                                                      "s16", "u16",  "s32", "u32", "s64"};
constexpr std::string_view kDTypeAliases[kNumDTypes] = {"float16", "bfloat16", "float32", "int8",
                                                        "uint8",   "int16",    "uint16",  "int32",
                                                        "uint32",  "int64"};
constexpr int kDTypeBytes[kNumDTypes] = {2, 2, 4, 1, 1, 2, 2, 4, 4, 8};

FieldValue ToValue(uint8_t reg) { return {reg, 0}; }
FieldValue ToValue(const Opnd& o) { return {o.reg, o.imm}; }
FieldValue ToValue(int64_t v) { return {0, v}; }
template <typename E>
FieldValue ToValue(E e) {
  return {0, static_cast<int64_t>(e)};
}
void FromValue(uint8_t& reg, FieldValue v) { reg = v.reg; }
void FromValue(Opnd& o, FieldValue v) { o = Opnd{v.reg, v.imm}; }
void FromValue(int64_t& x, FieldValue v) { x = v.imm; }
template <typename E>
void FromValue(E& e, FieldValue v) {
  e = static_cast<E>(v.imm);
}

bool FitsSigned(int64_t v, int bits) {
  if (bits >= 64) return true;
  const int64_t lim = int64_t{1} << (bits - 1);
  return v >= -lim && v < lim;
}
std::string FieldError(const Instr& in, const FieldInfo& fi, const std::string& what) {
  return std::string(OpcodeName(in.op)) + ": field '" + std::string(fi.name) + "' " + what;
}

std::string RangeText(const FieldInfo& fi) {
  return "[" + std::to_string(fi.lo) + ", " + std::to_string(fi.hi) + "]";
}

// Checks one used field's encodability and static range.
Status CheckUsedField(const Instr& in, const FieldInfo& fi) {
  const FieldValue v = GetField(in, fi.id);
  if (fi.kind == FieldKind::kReg) {
    if (v.reg >= kNumRegs) return InvalidArgument(FieldError(in, fi, "bad register number"));
    return Status::Ok();
  }
  if (fi.kind == FieldKind::kOpnd) {
    if (v.reg >= kNumRegs) return InvalidArgument(FieldError(in, fi, "bad register number"));
    if (!FitsSigned(v.imm, fi.imm_bits)) {
      return InvalidArgument(FieldError(in, fi,
                                        "immediate " + std::to_string(v.imm) + " does not fit in " +
                                            std::to_string(fi.imm_bits) + " bits"));
    }
    if (v.reg == 0 && (v.imm < fi.lo || v.imm > fi.hi)) {
      return InvalidArgument(FieldError(
          in, fi, "value " + std::to_string(v.imm) + " outside hardware range " + RangeText(fi)));
    }
    return Status::Ok();
  }
  if (v.imm < fi.lo || v.imm > fi.hi) {
    return InvalidArgument(FieldError(
        in, fi, "value " + std::to_string(v.imm) + " outside hardware range " + RangeText(fi)));
  }
  return Status::Ok();
}

}  // namespace

std::string_view DTypeName(DType t) {
  const int i = static_cast<int>(t);
  return i < kNumDTypes ? kDTypeNames[i] : "?";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (kDTypeNames[i] == name || kDTypeAliases[i] == name) return static_cast<DType>(i);
  }
  return std::nullopt;
}

int DTypeBytes(DType t) {
  const int i = static_cast<int>(t);
  return i < kNumDTypes ? kDTypeBytes[i] : 0;
}

bool IsFloatDType(DType t) { return t == DType::kF16 || t == DType::kBF16 || t == DType::kF32; }

const FieldInfo& GetFieldInfo(FieldId f) {
  TILEJIT_CHECK(static_cast<int>(f) < kNumFields) << "bad FieldId " << static_cast<int>(f);
  return kFieldInfos[static_cast<int>(f)];
}

const OpcodeInfo& GetOpcodeInfo(Opcode op) {
  TILEJIT_CHECK(static_cast<int>(op) < kNumOpcodes) << "bad Opcode " << static_cast<int>(op);
  return kOpcodeInfos[static_cast<int>(op)];
}

std::string_view OpcodeName(Opcode op) {
  const int i = static_cast<int>(op);
  return i < kNumOpcodes ? kOpcodeInfos[i].mnemonic : "?";
}

std::optional<Opcode> ParseOpcode(std::string_view mnemonic) {
  for (const OpcodeInfo& info : kOpcodeInfos) {
    if (info.mnemonic == mnemonic) return info.op;
  }
  return std::nullopt;
}

bool UsesField(Opcode op, FieldId f) {
  // A bit set per opcode, built once: UsesField is on the simulator's per-instruction path.
  static_assert(kNumFields <= 64);
  static const std::array<uint64_t, kNumOpcodes> kMasks = [] {
    std::array<uint64_t, kNumOpcodes> masks{};
    for (int i = 0; i < kNumOpcodes; ++i) {
      for (FieldId g : kOpcodeInfos[i].fields) masks[i] |= uint64_t{1} << static_cast<int>(g);
    }
    return masks;
  }();
  const int i = static_cast<int>(op);
  return i < kNumOpcodes && ((kMasks[i] >> static_cast<int>(f)) & 1) != 0;
}

FieldValue GetField(const Instr& in, FieldId f) {
  switch (f) {
#define TILEJIT_ISA_FIELD(name, kind, bits, lo, hi, doc) \
  case FieldId::name:                                    \
    return ToValue(in.name);
#include "compiler/target/isa.def"
  }
  return {};
}

void SetField(Instr& in, FieldId f, FieldValue v) {
  switch (f) {
#define TILEJIT_ISA_FIELD(name, kind, bits, lo, hi, doc) \
  case FieldId::name:                                    \
    FromValue(in.name, v);                               \
    return;
#include "compiler/target/isa.def"
  }
}

Pipe IssuePipe(const Instr& in) {
  switch (GetOpcodeInfo(in.op).unit) {
    case Unit::kScalar:
      return Pipe::kS;
    case Unit::kV:
      return Pipe::kV;
    case Unit::kM:
      return Pipe::kM;
    case Unit::kMte1:
      return Pipe::kMte1;
    case Unit::kMte2:
      return Pipe::kMte2;
    case Unit::kMte3:
      return Pipe::kMte3;
    case Unit::kFix:
      return Pipe::kFix;
    case Unit::kOperand:
      break;
  }
  if (in.op == Opcode::kSetFlag) return in.spipe;
  if (in.op == Opcode::kWaitFlag) return in.dpipe;
  return in.pipe;
}

Status Validate(const Instr& in) {
  if (static_cast<int>(in.op) >= kNumOpcodes) {
    return InvalidArgument("unknown opcode " + std::to_string(static_cast<int>(in.op)));
  }
  const Instr defaults;
  for (const FieldInfo& fi : kFieldInfos) {
    if (UsesField(in.op, fi.id)) {
      TILEJIT_RETURN_IF_ERROR(CheckUsedField(in, fi));
    } else if (GetField(in, fi.id) != GetField(defaults, fi.id)) {
      return InvalidArgument(FieldError(in, fi, "is not an operand of this instruction"));
    }
  }
  return internal::CheckCrossFieldRules(in);
}

Result<int64_t> ResolveOperand(const Instr& in, FieldId f, std::span<const int64_t> regs) {
  const FieldInfo& fi = GetFieldInfo(f);
  const FieldValue v = GetField(in, f);
  int64_t base = 0;
  if (fi.kind == FieldKind::kOpnd && v.reg != 0) {
    if (v.reg >= regs.size()) {
      return InvalidArgument(
          FieldError(in, fi, "register r" + std::to_string(v.reg) + " outside the register file"));
    }
    base = regs[v.reg];
  }
  int64_t value = 0;
  if (__builtin_add_overflow(base, v.imm, &value)) {
    return InvalidArgument(FieldError(in, fi, "overflows int64"));
  }
  if (fi.kind == FieldKind::kOpnd && (value < fi.lo || value > fi.hi)) {
    return InvalidArgument(FieldError(
        in, fi,
        "runtime value " + std::to_string(value) + " outside hardware range " + RangeText(fi)));
  }
  if (f == FieldId::mask) {
    const int64_t limit = internal::ElemsPerRepeat(in);
    if (value > limit) {
      return InvalidArgument(FieldError(in, fi,
                                        "runtime value " + std::to_string(value) + " exceeds " +
                                            std::to_string(limit) + " elements per repeat"));
    }
  }
  return value;
}

}  // namespace tilejit::target
