// SPDX-License-Identifier: Apache-2.0
// Emitter: instruction buffer, register allocation, operand arithmetic and region addresses.
// The expression lowerings live in emitter_scalar.cc / emitter_float.cc / emitter_bounds.cc.
#include "compiler/codegen/emitter.h"

#include <algorithm>
#include <utility>

#include "common/check.h"
#include "compiler/codegen/emitter_internal.h"
#include "compiler/target/line_table.h"

namespace tilejit::codegen {

using target::Instr;
using target::Opcode;
using target::OpImm;
using target::Opnd;
using target::OpReg;

Emitter::Emitter(const target::NpuTarget& target, target::CoreType core, DiagnosticEngine* diag)
    : target_(target), core_(core), diag_(diag), state_(std::make_unique<State>(this)) {}

Emitter::~Emitter() = default;

// ---- instructions ----------------------------------------------------------------------

void Emitter::Emit(Instr in) {
  in.line = line_;
  code_.push_back(in);
}

void Emitter::PatchBranch(size_t at, size_t target_index) {
  TILEJIT_CHECK(at < code_.size()) << "PatchBranch past the end";
  TILEJIT_CHECK(code_[at].op == Opcode::kJmp || code_[at].op == Opcode::kBz ||
                code_[at].op == Opcode::kBnz)
      << "PatchBranch on a non-branch";
  code_[at].off = static_cast<int64_t>(target_index) - static_cast<int64_t>(at);
}

// The prologue (hoisted ld_args) is prepended here; branch offsets are relative, so the
// indices the walker used for labels stay valid.
std::vector<Instr> Emitter::Finish() {
  std::vector<Instr> out = state_->prologue;
  out.insert(out.end(), code_.begin(), code_.end());
  Instr end{.op = Opcode::kEnd};
  end.line = target::kNoStmt;
  out.push_back(end);
  code_.clear();
  state_->prologue.clear();
  return out;
}

// ---- registers -------------------------------------------------------------------------

void Emitter::State::ReportOutOfRegs() {
  if (reported_out_of_regs) return;
  reported_out_of_regs = true;
  e->diag().Error(e->loc()) << "too many live scalar values: the "
                            << target::CoreTypeName(e->core()) << " program needs more than "
                            << (target::kNumRegs - 1)
                            << " scalar registers here (simplify the index arithmetic or "
                               "reduce nesting)";
}

uint8_t Emitter::State::Take(RegUse use) {
  for (int r = 1; r < target::kNumRegs; ++r) {
    if (regs[r] != RegUse::kFree) continue;
    regs[r] = use;
    touched[r] = true;
    wide[r] = false;
    if (use == RegUse::kTemp) temps.push_back(static_cast<uint8_t>(r));
    return static_cast<uint8_t>(r);
  }
  ReportOutOfRegs();
  return 0;
}

std::optional<uint8_t> Emitter::State::TryTakeHoisted() {
  for (int r = target::kNumRegs - 1; r >= 1; --r) {
    if (regs[r] != RegUse::kFree || touched[r]) continue;
    regs[r] = RegUse::kLong;
    touched[r] = true;
    return static_cast<uint8_t>(r);
  }
  return std::nullopt;
}

uint8_t Emitter::State::TakeHoisted() {
  if (const std::optional<uint8_t> r = TryTakeHoisted()) return *r;
  ReportOutOfRegs();
  return 0;
}

uint8_t Emitter::Temp() { return state_->Take(RegUse::kTemp); }

std::optional<uint8_t> Emitter::AllocLong() {
  for (int r = 1; r < target::kNumRegs; ++r) {
    if (state_->regs[r] != RegUse::kFree) continue;
    state_->regs[r] = RegUse::kLong;
    state_->touched[r] = true;
    state_->wide[r] = false;
    return static_cast<uint8_t>(r);
  }
  return std::nullopt;
}

void Emitter::ReleaseLong(uint8_t reg) {
  TILEJIT_CHECK(reg > 0 && reg < target::kNumRegs && state_->regs[reg] == RegUse::kLong)
      << "ReleaseLong of r" << int{reg} << " which is not long-lived";
  state_->regs[reg] = RegUse::kFree;
}

void Emitter::ReleaseTemps() {
  for (uint8_t r : state_->temps) {
    if (state_->regs[r] == RegUse::kTemp) state_->regs[r] = RegUse::kFree;
  }
  state_->temps.clear();
}

void Emitter::State::Alu(Opcode op, uint8_t rd, uint8_t rs1, Opnd src2) {
  if (!FitsInt32(src2.imm)) src2 = OpReg(e->InReg(src2));
  Instr in{.op = op};
  in.rd = rd;
  in.rs1 = rs1;
  in.src2 = src2;
  e->Emit(in);
}

void Emitter::State::MoveTo(uint8_t rd, Opnd v) {
  if (v.reg == 0) {
    Instr li{.op = Opcode::kLi};
    li.rd = rd;
    li.imm64 = v.imm;
    e->Emit(li);
  } else if (v.imm == 0) {
    if (v.reg == rd) return;
    Instr mov{.op = Opcode::kMov};
    mov.rd = rd;
    mov.rs1 = v.reg;
    e->Emit(mov);
  } else {
    Alu(Opcode::kAdd, rd, v.reg, OpImm(v.imm));
  }
}

uint8_t Emitter::InReg(Opnd o) {
  if (o.imm == 0) return o.reg;
  const uint8_t t = Temp();
  state_->wide[t] = t != 0 && state_->wide[o.reg];
  if (o.reg == 0 || !FitsInt32(o.imm)) {
    Instr li{.op = Opcode::kLi};
    li.rd = t;
    li.imm64 = o.imm;
    Emit(li);
    if (o.reg != 0) state_->Alu(Opcode::kAdd, t, t, OpReg(o.reg));
  } else {
    state_->Alu(Opcode::kAdd, t, o.reg, OpImm(o.imm));
  }
  return t;
}

// ---- operand arithmetic ------------------------------------------------------------------

Opnd Emitter::Add(Opnd a, Opnd b) {
  if (b.is_static()) return Opnd{a.reg, WrapAdd(a.imm, b.imm)};
  if (a.is_static()) return Opnd{b.reg, WrapAdd(a.imm, b.imm)};
  if (state_->wide[b.reg] && !state_->wide[a.reg]) std::swap(a, b);
  const uint8_t t = Temp();
  state_->Alu(Opcode::kAdd, t, a.reg, OpReg(b.reg));
  state_->wide[t] = t != 0 && state_->wide[a.reg];
  return Opnd{t, WrapAdd(a.imm, b.imm)};
}

Opnd Emitter::Sub(Opnd a, Opnd b) {
  if (b.is_static()) return Opnd{a.reg, WrapSub(a.imm, b.imm)};
  if (a.reg == b.reg) return OpImm(WrapSub(a.imm, b.imm));
  const uint8_t t = Temp();
  state_->Alu(Opcode::kSub, t, a.reg, OpReg(b.reg));
  return Opnd{t, WrapSub(a.imm, b.imm)};
}

Opnd Emitter::Scaled(Opnd a, int64_t k) {
  if (a.is_static()) return OpImm(WrapMul(a.imm, k));
  if (k == 0) return OpImm(0);
  if (k == 1) return a;
  const uint8_t t = Temp();
  state_->Alu(Opcode::kMul, t, a.reg, OpImm(k));
  return Opnd{t, WrapMul(a.imm, k)};
}

Opnd Emitter::Mul(Opnd a, Opnd b) {
  if (b.is_static()) return Scaled(a, b.imm);
  if (a.is_static()) return Scaled(b, a.imm);
  const uint8_t ra = InReg(a);
  const uint8_t t = Temp();
  state_->Alu(Opcode::kMul, t, ra, OpReg(InReg(b)));
  return OpReg(t);
}

Opnd Emitter::Min(Opnd a, Opnd b) {
  if (a.is_static() && b.is_static()) return OpImm(std::min(a.imm, b.imm));
  if (a.reg == b.reg) return Opnd{a.reg, std::min(a.imm, b.imm)};
  const uint8_t ra = InReg(a);
  const uint8_t t = Temp();
  state_->Alu(Opcode::kMin, t, ra, b);
  return OpReg(t);
}

Opnd Emitter::Max(Opnd a, Opnd b) {
  if (a.is_static() && b.is_static()) return OpImm(std::max(a.imm, b.imm));
  if (a.reg == b.reg) return Opnd{a.reg, std::max(a.imm, b.imm)};
  const uint8_t ra = InReg(a);
  const uint8_t t = Temp();
  state_->Alu(Opcode::kMax, t, ra, b);
  return OpReg(t);
}

// ---- variables and parameters --------------------------------------------------------------

void Emitter::BindVar(const ir::Var& var, uint8_t reg,
                      std::optional<std::pair<int64_t, int64_t>> range) {
  state_->vars[var.get()] = State::Binding{reg, range, nullptr, 0};
}

void Emitter::UnbindVar(const ir::Var& var) { state_->vars.erase(var.get()); }

bool Emitter::BindRemat(const ir::Var& var, const ir::Expr& value) {
  const std::optional<int> nodes = state_->RematNodes(value);
  if (!nodes.has_value() || *nodes > kMaxRematNodes) return false;
  State::Binding b{0, state_->BoundsOf(value), value, *nodes};
  if (ir::IsFloat(var->dtype)) b.range.reset();
  state_->vars[var.get()] = std::move(b);
  return true;
}

bool Emitter::out_of_regs() const { return state_->reported_out_of_regs; }
void Emitter::MarkOutOfRegs() { state_->reported_out_of_regs = true; }

int Emitter::FreeRegs() const {
  int n = 0;
  for (int r = 1; r < target::kNumRegs; ++r) n += state_->regs[r] == RegUse::kFree;
  return n;
}

void Emitter::SetParams(const std::vector<ir::Buffer>& params) {
  state_->param_slot.clear();
  for (size_t i = 0; i < params.size(); ++i)
    state_->param_slot[params[i].get()] = static_cast<int>(i);
}

void Emitter::BindSymbols(const std::vector<ir::Var>& symbols, int first_slot, int64_t max_value) {
  for (size_t i = 0; i < symbols.size(); ++i) {
    Instr ld{.op = Opcode::kLdArg};
    ld.arg = first_slot + static_cast<int>(i);
    ld.rd = state_->TakeHoisted();
    ld.line = target::kNoStmt;
    if (ld.rd == 0) return;  // out of registers, reported
    state_->prologue.push_back(ld);
    BindVar(symbols[i], ld.rd, Interval{0, max_value});
  }
}

const target::TileLayout& Emitter::Layout(const ir::Buffer& buffer) {
  auto it = state_->layouts.find(buffer.get());
  if (it == state_->layouts.end()) {
    // A symbolic dim counts as 1 here; GM regions take their strides and clip limits from
    // the symbols instead (RegionRef::row_stride, batch_strides, row_limit, col_limit).
    ir::BufferNode shape_of = *buffer;
    for (size_t d = 0; d < shape_of.shape.size(); ++d) {
      if (shape_of.DimSymbol(d) != nullptr) shape_of.shape[d] = 1;
    }
    it = state_->layouts.emplace(buffer.get(), ir::LayoutOf(shape_of, target_)).first;
  }
  return it->second;
}

Opnd Emitter::ParamBase(const ir::Buffer& param) {
  auto it = state_->param_regs.find(param.get());
  if (it != state_->param_regs.end()) return OpReg(it->second);
  auto slot = state_->param_slot.find(param.get());
  TILEJIT_CHECK(slot != state_->param_slot.end())
      << "GM buffer '" << param->name << "' is not a kernel parameter";
  Instr ld{.op = Opcode::kLdArg};
  ld.arg = slot->second;
  if (const std::optional<uint8_t> r = state_->TryTakeHoisted()) {
    state_->wide[*r] = true;
    ld.rd = *r;
    ld.line = target::kNoStmt;
    state_->prologue.push_back(ld);
    state_->param_regs[param.get()] = *r;
    return OpReg(*r);
  }
  // Every register has been used since the prologue, so none can hold the base from there:
  // load it here, for this statement only (a scalar instruction; the pipes do not wait).
  const uint8_t t = Temp();
  state_->wide[t] = t != 0;
  ld.rd = t;
  Emit(ld);
  return OpReg(t);
}

uint8_t Emitter::State::VarBufferReg(const ir::BufferNode& buffer) {
  auto it = var_regs.find(&buffer);
  if (it != var_regs.end()) return it->second;
  const uint8_t r = TakeHoisted();
  var_regs[&buffer] = r;
  return r;
}

}  // namespace tilejit::codegen
