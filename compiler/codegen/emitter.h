// SPDX-License-Identifier: Apache-2.0
// Emitter: one core program (the AIC or the AIV stream) under construction. Statement-level
// codegen (codegen.cc) walks the lowered IR and drives it; the tile-op lowerings (copy.cc,
// cube.cc, vector*.cc) use it to turn one tile op into ISA instructions:
//
//   Status EmitVectorOp(Emitter& e, const ir::TileOpNode& op) {
//     TILEJIT_ASSIGN_OR_RETURN(auto dst, e.RegionAddress(dst_region));   // Opnd: reg + imm
//     target::Instr in{.op = target::Opcode::kVadd};
//     in.dst = dst; ...
//     e.Emit(in);
//   }
//
// Scalar values. Every runtime value an instruction names is a target::Opnd (register +
// immediate). Int()/FloatBits() fold constants into immediates (reg 0) and otherwise compute
// into registers. Registers holding let/loop variables live for their scope; every other
// register an Emitter method returns is a *temporary* that stays valid until the end of the
// current tile op or statement (the statement walker releases them), so an op lowering may
// hold several at once but must not keep them across statements. Running out of registers is
// a diagnostic ("too many live scalar values"), never a crash.
//
// Lines. Every emitted instruction gets `line` = the canonical statement id of the statement
// being lowered (set by the statement walker through SetLine), so the op lowerings never set
// it themselves.
//
// Errors. Op lowerings report user-visible problems (an unsupported geometry, a runtime value
// out of a field's range that is known statically) as diagnostics at the op's SourceLoc via
// diag() and return diag().ToStatus(); broken invariants (an op the pipeline should have
// removed) are TILEJIT_CHECK failures.
//
// Thread safety: one Emitter per core program per compile; not shared.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "compiler/ir/buffer_layout.h"
#include "compiler/ir/ir.h"
#include "compiler/target/isa.h"
#include "compiler/target/kernel_metadata.h"
#include "compiler/target/npu_target.h"

namespace tilejit::codegen {

// The address and geometry of a region in its buffer's layout.
struct RegionRef {
  const ir::Region* region = nullptr;
  target::TileLayout layout;  // of the region's buffer
  // Byte address of the region's first element (GM: device address = param base register +
  // offset; on-chip: the buffer's placed address + offset). For zN/zZ/nZ layouts the region's
  // mins inside the matrix must be fractal-aligned (rows: any for zN, cols: multiple of C0);
  // RegionAddress reports a diagnostic otherwise.
  target::Opnd address;
  // The region's extents as a matrix: rows = the extent of the buffer's second-to-last dim
  // (1 for a 1-D buffer), cols = the extent of the last dim, batch = the product of the
  // extents of the leading dims.
  int64_t batch = 1;
  int64_t rows = 1;
  int64_t cols = 1;
  // Runtime mins of the row dim and the last dim (for tail clipping against the buffer's
  // shape): the number of valid rows is min(rows, row_limit - row_min), likewise for cols
  // with col_limit.
  target::Opnd row_min;
  target::Opnd col_min;
  // The dim the rows run along: the second-to-last, except for a GM region a copy folded
  // (copy.cc): second-to-last extent 1 and one leading dim spanned (`Q[a:b, h, :]`), whose
  // rows are that dim's (batch 1, layout.pitch its stride) to pair with an on-chip [R, C].
  int row_dim = -1;  // -1: rank - 2
  // The sizes of the row dim and the last dim: immediates, or the symbol's register when the
  // dim is a T.symbolic one (then `layout` was computed with that dim as 1).
  target::Opnd row_limit = target::OpImm(1);
  target::Opnd col_limit = target::OpImm(1);
  // Byte strides. `row_stride` is the distance between rows of the row dim (layout.pitch,
  // which for an on-chip fractal layout is its own unit, see tile_layout.h); `batch_strides[d]`
  // is the distance between indices of leading dim d (d < rank - 2). For a GM tensor with a
  // T.symbolic dim after the stride's dim they are registers computed from the symbols;
  // otherwise immediates.
  target::Opnd row_stride = target::OpImm(0);
  std::vector<target::Opnd> batch_strides;
};

class Emitter {
 public:
  Emitter(const target::NpuTarget& target, target::CoreType core, DiagnosticEngine* diag);
  ~Emitter();
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;

  const target::NpuTarget& target() const { return target_; }
  target::CoreType core() const { return core_; }
  DiagnosticEngine& diag() { return *diag_; }

  // ---- instructions --------------------------------------------------------------------
  // Appends `in` with line = the current line. Validation happens at encoding (Finish).
  void Emit(target::Instr in);
  void SetLine(uint32_t line) { line_ = line; }
  uint32_t line() const { return line_; }
  // The SourceLoc of the statement being lowered (set by the statement walker next to
  // SetLine); diagnostics the Emitter itself reports (registers, alignment) point there.
  void SetLoc(SourceLoc loc) { loc_ = loc; }
  SourceLoc loc() const { return loc_; }
  size_t size() const { return code_.size(); }
  // Branches: a label is an instruction index; PatchBranch fixes the `off` of a branch
  // emitted earlier at index `at` to jump to `target_index`.
  void PatchBranch(size_t at, size_t target_index);
  // The finished stream (ends with `end`).
  std::vector<target::Instr> Finish();

  // ---- scalar values ---------------------------------------------------------------------
  // An integer/bool scalar expression (index arithmetic, conditions, runtime event ids,
  // alloc_var loads, scalar loads from UB/GM) as an operand; constants fold to immediates.
  Result<target::Opnd> Int(const ir::Expr& e);
  // A float scalar expression as an operand holding its fp32 bit pattern (for the vector
  // `scalar` field); a float constant folds to an immediate.
  Result<target::Opnd> FloatBits(const ir::Expr& e);
  // Arithmetic on operands that folds when both sides are static and otherwise emits into a
  // temporary. `Scaled(a, k)` = a * k.
  target::Opnd Add(target::Opnd a, target::Opnd b);
  target::Opnd Add(target::Opnd a, int64_t imm) { return Add(a, target::OpImm(imm)); }
  target::Opnd Sub(target::Opnd a, target::Opnd b);
  target::Opnd Scaled(target::Opnd a, int64_t k);
  target::Opnd Mul(target::Opnd a, target::Opnd b);
  target::Opnd Min(target::Opnd a, target::Opnd b);
  target::Opnd Max(target::Opnd a, target::Opnd b);
  // Static bounds [lo, hi] of an integer expression from the ranges the walker knows
  // (cid in [0, grid), vid in [0, 1], loop vars over their static ranges, lets by their
  // values); nullopt when unbounded (e.g. a scalar loaded from memory). Used to decide
  // statically that a GM region never crosses its tensor's bounds (no tail handling).
  std::optional<std::pair<int64_t, int64_t>> Bounds(const ir::Expr& e);
  // A register holding `o` (o.reg itself when o.imm == 0, else a temporary).
  uint8_t InReg(target::Opnd o);
  // A fresh temporary register (valid until the end of the current statement).
  uint8_t Temp();

  // ---- buffers -------------------------------------------------------------------------
  const target::TileLayout& Layout(const ir::Buffer& buffer);
  // The GM device address of a parameter's element 0 (a register loaded by ld_arg).
  target::Opnd ParamBase(const ir::Buffer& param);
  // The size of dim `d` of `buffer`: its static extent, or the symbol's register for a
  // T.symbolic dim.
  Result<target::Opnd> DimSize(const ir::BufferNode& buffer, size_t d);
  // Address and geometry of a region (see RegionRef).
  Result<RegionRef> RegionAddress(const ir::Region& region);

  // ---- used by the statement walker only ---------------------------------------------------
  // Binds a variable to a register for its scope (let, for, cid, vid).
  // `range` is the variable's static bounds when known (see Bounds).
  void BindVar(const ir::Var& var, uint8_t reg, std::optional<std::pair<int64_t, int64_t>> range);
  void UnbindVar(const ir::Var& var);
  // Binds a let's variable to its value expression, recomputed at each use instead of held in
  // a register (rematerialisation, when registers run short). False, binding nothing, when the
  // value reads memory or its expansion exceeds kMaxRematNodes.
  bool BindRemat(const ir::Var& var, const ir::Expr& value);
  static constexpr int kMaxRematNodes = 24;
  // Registers neither long-lived nor temporary right now.
  int FreeRegs() const;
  // Whether this program ran out of scalar registers (after a "too many live scalar values"
  // diagnostic); MarkOutOfRegs records it for the walker's own diagnostic.
  bool out_of_regs() const;
  void MarkOutOfRegs();
  // Allocates a register that stays allocated until ReleaseLong.
  std::optional<uint8_t> AllocLong();
  void ReleaseLong(uint8_t reg);
  // Frees every temporary (end of a statement).
  void ReleaseTemps();
  // Declares the kernel's parameters in ABI order (ld_arg slot = index).
  void SetParams(const std::vector<ir::Buffer>& params);
  // Binds the kernel's symbols (T.symbolic dims) for the whole program: symbol i is loaded in
  // the prologue from ld_arg slot first_slot + i into a hoisted register, with the range
  // [0, max_value] (what a launch may bind).
  void BindSymbols(const std::vector<ir::Var>& symbols, int first_slot, int64_t max_value);
  // Where device-print records go (the kernel metadata's, shared by both core programs so
  // that record numbers are global). Not owned; null: printing is an internal error.
  void SetPrints(std::vector<target::PrintRecord>* prints) { prints_ = prints; }
  std::vector<target::PrintRecord>* prints() { return prints_; }

 private:
  struct State;
  const target::NpuTarget& target_;
  target::CoreType core_;
  DiagnosticEngine* diag_;
  uint32_t line_ = 0;
  SourceLoc loc_;
  std::vector<target::Instr> code_;
  std::vector<target::PrintRecord>* prints_ = nullptr;
  std::unique_ptr<State> state_;  // registers, var bindings, layouts (emitter.cc)
};

}  // namespace tilejit::codegen
