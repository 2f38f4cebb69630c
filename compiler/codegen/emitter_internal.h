// SPDX-License-Identifier: Apache-2.0
// The private state of an Emitter, shared by its implementation files (emitter.cc: registers,
// instructions, buffers; emitter_scalar.cc: integer expressions; emitter_float.cc: float
// expressions; emitter_bounds.cc: interval analysis). Not part of the codegen contract:
// only the emitter*.cc files include it.
//
// Register policy. r0 is the zero register. Registers are handed out lowest first for
// temporaries and let/loop variables. Parameter bases and alloc_var scalars live for the whole
// program and are *hoisted*: they take the highest register that no instruction emitted so
// far has touched, so their ld_arg can go into the prologue (run once, before any code) and
// an alloc_var register still holds its value when a loop body re-runs code emitted before
// the first reference.
//
// Thread safety: as Emitter.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/codegen/emitter.h"

namespace tilejit::codegen {

using Interval = std::pair<int64_t, int64_t>;

enum class RegUse : uint8_t { kFree, kLong, kTemp };

struct Emitter::State {
  explicit State(Emitter* emitter) : e(emitter) {}

  struct Binding {
    uint8_t reg = 0;  // 0 with a point range: a constant
    std::optional<Interval> range;
    // Non-null: no register; the value is recomputed from this expression at each use (a
    // load-free let rematerialised under register pressure, Emitter::BindRemat).
    ir::Expr remat;
    int remat_nodes = 0;  // its size with every rematerialised var in it expanded
  };

  Emitter* e;
  std::array<RegUse, target::kNumRegs> regs{};
  std::array<bool, target::kNumRegs> touched{};
  // Registers holding a 64-bit GM address (a parameter base or a sum with one). ALU `src2`
  // is an int32 operand, so Add keeps such a register in rs1.
  std::array<bool, target::kNumRegs> wide{};
  std::vector<uint8_t> temps;
  // Lookup-only maps keyed by node identity (never iterated, so output does not depend on
  // pointer values).
  std::map<const ir::VarNode*, Binding> vars;
  std::map<const ir::BufferNode*, target::TileLayout> layouts;
  std::map<const ir::BufferNode*, int> param_slot;
  std::map<const ir::BufferNode*, uint8_t> param_regs;
  std::map<const ir::BufferNode*, uint8_t> var_regs;
  std::vector<target::Instr> prologue;  // ld_arg of the hoisted parameter bases
  bool reported_out_of_regs = false;

  // ---- registers (emitter.cc)
  // A free register (lowest first), or 0 after reporting "too many live scalar values".
  uint8_t Take(RegUse use);
  // The highest never-touched free register, marked long-lived forever (or 0 + diagnostic).
  uint8_t TakeHoisted();
  // The same, or nothing (no diagnostic) when every register has been touched.
  std::optional<uint8_t> TryTakeHoisted();
  void ReportOutOfRegs();
  // rd = rs1 <op> src2 for the ALU ops; materialises src2 when its immediate exceeds int32.
  void Alu(target::Opcode op, uint8_t rd, uint8_t rs1, target::Opnd src2);
  // Moves `v` into register `rd` (li / mov / add).
  void MoveTo(uint8_t rd, target::Opnd v);
  uint8_t VarBufferReg(const ir::BufferNode& buffer);
  // Byte address of one element of a GM or UB buffer (ND layouts).
  Result<target::Opnd> ElementAddress(const ir::Buffer& buffer, const std::vector<ir::Expr>& idx,
                                      SourceLoc loc);

  // ---- integer expressions (emitter_scalar.cc)
  // The operand of a bound variable: its constant when its range is one value, else its
  // register.
  target::Opnd VarOperand(const ir::VarRefNode& v) const;
  // The expression a rematerialised variable stands for, or nullptr.
  const ir::Expr* RematOf(const ir::VarRefNode& v) const;
  // Nodes of `x` with rematerialised vars expanded, or nullopt when it reads memory or a
  // variable (a load, alloc_vars included: they may change before a later use).
  std::optional<int> RematNodes(const ir::Expr& x) const;
  Result<target::Opnd> IntExpr(const ir::Expr& e);
  Result<target::Opnd> IntBinary(const ir::BinaryNode& b);
  // The arithmetic (not comparison, and/or) of IntBinary on evaluated operands.
  Result<target::Opnd> IntArith(const ir::BinaryNode& b, target::Opnd x, target::Opnd y);
  Result<target::Opnd> IntCompare(target::CmpMode mode, const ir::Expr& a, const ir::Expr& b);
  Result<target::Opnd> IntLoad(const ir::LoadNode& load, bool as_float);
  Result<target::Opnd> IntCast(const ir::CallNode& call);
  Result<target::Opnd> SelectExpr(const ir::SelectNode& s, bool as_float);
  Result<target::Opnd> AsBool(const ir::Expr& e);
  Result<target::Opnd> FoldedDivMod(bool mod, target::Opnd a, target::Opnd b, SourceLoc loc);

  // ---- float expressions (emitter_float.cc)
  Result<target::Opnd> FloatExpr(const ir::Expr& e);
  Result<target::Opnd> FloatBinary(const ir::BinaryNode& b);
  Result<target::Opnd> FloatCompare(target::CmpMode mode, const ir::Expr& a, const ir::Expr& b);

  // ---- interval analysis (emitter_bounds.cc)
  std::optional<Interval> BoundsOf(const ir::Expr& e);
};

// The scalar compare mode of a comparison operator (nullopt for the others).
std::optional<target::CmpMode> CmpModeOf(ir::BinaryOp op);
// True for expressions that contain a Load (those must not be evaluated speculatively).
bool HasLoad(const ir::Expr& e);
// The largest factor `e` is statically known to be a multiple of (0 for the constant 0;
// 1 when nothing is known). Used for fractal-alignment checks of runtime region mins.
int64_t KnownMultiple(const ir::Expr& e);
// The ISA element type of an IR dtype (bool as u8, uint64 as s64).
target::DType IsaDType(ir::DType t);
// fp32 bit pattern of a double (rounded to float).
int64_t FloatBitsOf(double v);
// Two's-complement wrapping arithmetic (no UB on overflow).
inline int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
inline bool FitsInt32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

}  // namespace tilejit::codegen
