// SPDX-License-Identifier: Apache-2.0
// The tilejit NPU ISA in decoded form, generated from isa.def: opcodes, operand fields, the
// flat decoded instruction `Instr`, static per-opcode metadata, validation, and the binary
// encoding (a variable-length sequence of 64-bit words per instruction). Semantics of every
// instruction: docs/isa.md.
//
// Register model: 32 scalar registers of int64 per core (r0 reads as 0; writes to it are
// discarded). Every operand that may be a runtime value is an `Opnd` = register + signed
// immediate; an Opnd with reg 0 is a compile-time constant.
//
// All functions are pure and thread-safe; tables are immutable statics.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "compiler/target/pipe.h"

namespace tilejit::target {

inline constexpr int kNumRegs = 32;
// Vector repeat width and UB block (the ISA's fixed geometry, docs/isa.md).
inline constexpr int kRepeatBytes = 256;
inline constexpr int kBlockBytes = 32;

// Element types of the ISA (the target library does not depend on the IR's DType).
// The order is part of the encoding: append only.
enum class DType : uint8_t {
  kF16 = 0,
  kBF16 = 1,
  kF32 = 2,
  kS8 = 3,
  kU8 = 4,
  kS16 = 5,
  kU16 = 6,
  kS32 = 7,
  kU32 = 8,
  kS64 = 9,
};
inline constexpr int kNumDTypes = 10;
std::string_view DTypeName(DType t);  // "f16", "bf16", "f32", "s8", ..., "s64"
std::optional<DType> ParseDType(std::string_view name);
int DTypeBytes(DType t);
bool IsFloatDType(DType t);

// Scalar compare / vector compare modes.
enum class CmpMode : uint8_t { kEq = 0, kNe = 1, kLt = 2, kLe = 3, kGt = 4, kGe = 5 };
// Cast rounding: rint = round half to even, round = half away from zero, odd = round to odd.
enum class RoundMode : uint8_t {
  kRint = 0,
  kRound = 1,
  kFloor = 2,
  kCeil = 3,
  kTrunc = 4,
  kOdd = 5
};
// GM write mode of DMA stores: plain, or atomic accumulate in the element type.
enum class AtomicOp : uint8_t { kNone = 0, kAdd = 1, kMax = 2, kMin = 3 };

// A runtime-or-constant operand: value = R[reg] + imm (R[0] == 0).
struct Opnd {
  uint8_t reg = 0;
  int64_t imm = 0;
  bool is_static() const { return reg == 0; }
  bool operator==(const Opnd&) const = default;
};
inline Opnd OpImm(int64_t v) { return Opnd{0, v}; }
inline Opnd OpReg(uint8_t reg, int64_t imm = 0) { return Opnd{reg, imm}; }

enum class FieldKind : uint8_t { kReg, kOpnd, kImm, kPipe, kDType, kCmp, kRound, kAtomic };

template <FieldKind K>
struct FieldStorage;
template <>
struct FieldStorage<FieldKind::kReg> {
  using type = uint8_t;
};
template <>
struct FieldStorage<FieldKind::kOpnd> {
  using type = Opnd;
};
template <>
struct FieldStorage<FieldKind::kImm> {
  using type = int64_t;
};
template <>
struct FieldStorage<FieldKind::kPipe> {
  using type = Pipe;
};
template <>
struct FieldStorage<FieldKind::kDType> {
  using type = DType;
};
template <>
struct FieldStorage<FieldKind::kCmp> {
  using type = CmpMode;
};
template <>
struct FieldStorage<FieldKind::kRound> {
  using type = RoundMode;
};
template <>
struct FieldStorage<FieldKind::kAtomic> {
  using type = AtomicOp;
};

// Field identifiers; enumerators mirror the Instr member names (generated).
enum class FieldId : uint8_t {
#define TILEJIT_ISA_FIELD(name, kind, bits, lo, hi, doc) name,
#include "compiler/target/isa.def"
};
inline constexpr int kNumFields = 0
#define TILEJIT_ISA_FIELD(name, kind, bits, lo, hi, doc) +1
#include "compiler/target/isa.def"
    ;

enum class Opcode : uint8_t {
#define TILEJIT_ISA_INSTR(op, mn, unit, cores, timing, fields, doc) op,
#include "compiler/target/isa.def"
};
inline constexpr int kNumOpcodes = 0
#define TILEJIT_ISA_INSTR(op, mn, unit, cores, timing, fields, doc) +1
#include "compiler/target/isa.def"
    ;

// Where an instruction executes.
enum class Unit : uint8_t { kScalar, kV, kM, kMte1, kMte2, kMte3, kFix, kOperand };
// Which core types may run it.
enum class Cores : uint8_t { kAic = 1, kAiv = 2, kBoth = 3 };
// The timing formula class (timing.cc).
enum class TimingClass : uint8_t {
  kScalarAlu,
  kScalarLoad,
  kScalarStore,
  kEnd,
  kSync,
  kCrossSync,
  kDmaGmL1,
  kDmaGmL1Nz,
  kDmaGmUb,
  kDmaUbGm,
  kDmaUbUb,
  kDmaL1Gm,
  kLoadL0,
  kFixGm,
  kFixL1,
  kMmad,
  kVecSimple,
  kVecMul,
  kVecRec,
  kVecTrans,
  kVecCast,
  kVecCopy,
  kVecReduce,
  kDmaFill,  // fill_l1 / fill_ub (appended)
};

// The decoded instruction: a flat struct with one member per ISA field (generated from
// isa.def). An opcode uses the fields listed for it in isa.def; every other field must keep
// its default (zero) value, which Validate checks. `line` is the index into the kernel's line
// table (canonical IR statement ids); it is encoded with the instruction.
// A sort proposal (vsort32, vmrgsort; docs/isa.md): 8 bytes, the value at byte 0 (an f32, or
// an f16 followed by two zero bytes) and its 32-bit index at byte 4. vsort32 sorts groups of
// kSortGroup elements.
inline constexpr int64_t kProposalBytes = 8;
inline constexpr int64_t kSortGroup = 32;

struct Instr {
  Opcode op = Opcode::kNop;
#define TILEJIT_ISA_FIELD(name, kind, bits, lo, hi, doc) \
  FieldStorage<FieldKind::k##kind>::type name{};
#include "compiler/target/isa.def"
  uint32_t line = 0;

  bool operator==(const Instr&) const = default;
};

// Static description of one field.
struct FieldInfo {
  FieldId id;
  std::string_view name;
  FieldKind kind;
  int imm_bits;  // immediate width in the encoding (Reg 5, Pipe 3, DType 4 regardless)
  int64_t lo;    // legal value range (inclusive)
  int64_t hi;
  std::string_view doc;
};
const FieldInfo& GetFieldInfo(FieldId f);

// Static description of one opcode.
struct OpcodeInfo {
  Opcode op;
  std::string_view mnemonic;
  Unit unit;
  Cores cores;
  TimingClass timing;
  std::span<const FieldId> fields;  // encoding order
  std::string_view doc;
};
const OpcodeInfo& GetOpcodeInfo(Opcode op);
std::string_view OpcodeName(Opcode op);  // the mnemonic
std::optional<Opcode> ParseOpcode(std::string_view mnemonic);
bool UsesField(Opcode op, FieldId f);

// Generic field access for table-driven code (encoder, assembler, tests). For kReg `reg` holds
// the register; for kOpnd both; for every other kind `imm` holds the (enum) value.
struct FieldValue {
  uint8_t reg = 0;
  int64_t imm = 0;
  bool operator==(const FieldValue&) const = default;
};
FieldValue GetField(const Instr& in, FieldId f);
void SetField(Instr& in, FieldId f, FieldValue v);

// The pipe an instruction is queued to. Scalar-unit instructions return Pipe::kS. For
// set_flag it is spipe, for wait_flag dpipe, for barrier/xset/xwait the `pipe` operand.
Pipe IssuePipe(const Instr& in);

// Checks every field of `in` against isa.def (ranges, immediate widths, unused fields zero)
// and the cross-field rules of docs/isa.md (mask <= elements per repeat, legal dtypes, legal
// casts, transpose only for 16-bit, ...). Opnd values with a register are checked for width
// only; their resolved range is checked by ResolveOperand.
Status Validate(const Instr& in);

// Resolves an Opnd field against a register file (kNumRegs values; regs[0] is ignored and
// treated as 0) and checks the result against the field's range. InvalidArgument on a
// violation (the simulator reports it as a device fault naming the instruction).
Result<int64_t> ResolveOperand(const Instr& in, FieldId f, std::span<const int64_t> regs);

// Binary encoding. One instruction = a header word followed by payload words:
//   header bits [0,8) opcode, [8,16) payload word count, [16,48) line, [48,64) zero;
//   payload: the opcode's fields in isa.def order, packed LSB-first (Reg 5 bits, Opnd 5-bit
//   register then imm_bits immediate, Pipe 3, DType 4, others imm_bits), zero padded.
// Encode validates first and appends to `out`.
Status Encode(const Instr& in, std::vector<uint64_t>& out);
// Decodes the instruction starting at words[*pos] and advances *pos. Corruption on unknown
// opcodes, wrong word counts, nonzero padding, truncated input or out-of-range fields.
Result<Instr> Decode(std::span<const uint64_t> words, size_t* pos);
// Whole instruction streams. DecodeProgram also checks that branch targets stay inside
// the stream.
Result<std::vector<uint64_t>> EncodeProgram(std::span<const Instr> program);
Result<std::vector<Instr>> DecodeProgram(std::span<const uint64_t> words);
// Number of payload words of an opcode (fixed per opcode).
int PayloadWords(Opcode op);

}  // namespace tilejit::target
