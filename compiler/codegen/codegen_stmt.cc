// SPDX-License-Identifier: Apache-2.0
// The statement walker: the projection of the kernel body on one core type, lowered to
// scalar control flow plus the tile-op lowerings of ops.h. Statements without work for the
// core (another core's scope, loops/ifs/lets around nothing) are skipped, so each program
// only carries the control flow its own work needs.
#include <algorithm>
#include <string>

#include "common/check.h"
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/codegen_internal.h"
#include "compiler/codegen/emitter_internal.h"
#include "compiler/codegen/ops.h"
#include "compiler/target/asm.h"
#include "compiler/target/line_table.h"

namespace tilejit::codegen {
namespace {

using target::Instr;
using target::Opcode;
using target::OpImm;
using target::Opnd;
using target::OpReg;

class Walker {
 public:
  // `remat_when_free`: free registers at or below which a let is rematerialised
  // (Emitter::BindRemat) rather than held; the rest stay for loop counters and temporaries.
  Walker(Emitter& e, ir::CoreKind kind, const LineMap& lines, int remat_when_free)
      : e_(e),
        kind_(kind),
        lines_(lines),
        remat_when_free_(remat_when_free),
        base_errors_(e.diag().error_count()) {}

  Status Lower(const ir::Stmt& s) {
    if (s == nullptr) return Status::Ok();
    if (s->kind == ir::StmtKind::kSeq) {
      for (const auto& c : ir::As<ir::SeqNode>(s).stmts) TILEJIT_RETURN_IF_ERROR(Lower(c));
      return Status::Ok();
    }
    if (!HasWork(s, kind_)) return Status::Ok();
    const uint32_t saved_line = e_.line();
    const SourceLoc saved_loc = e_.loc();
    Enter(*s);
    Status st = Dispatch(s);
    e_.ReleaseTemps();
    e_.SetLine(saved_line);
    e_.SetLoc(saved_loc);
    // Emitter helpers that cannot return a Status (registers) only leave a diagnostic.
    if (st.ok() && e_.diag().error_count() > base_errors_) return e_.diag().ToStatus();
    return st;
  }

 private:
  void Enter(const ir::StmtNode& s) {
    e_.SetLine(LineOf(lines_, s.loc));
    e_.SetLoc(s.loc);
  }

  Status OutOfRegs() {
    e_.MarkOutOfRegs();
    e_.diag().Error(e_.loc()) << "too many live scalar values: the "
                              << target::CoreTypeName(e_.core()) << " program needs more than "
                              << (target::kNumRegs - 1)
                              << " scalar registers here (too many nested loops and lets)";
    return e_.diag().ToStatus();
  }

  Status Dispatch(const ir::Stmt& s) {
    switch (s->kind) {
      case ir::StmtKind::kSeq:
        return Lower(s);
      case ir::StmtKind::kKernel:
        return LowerKernel(ir::As<ir::KernelNode>(s));
      case ir::StmtKind::kAllocate:
        return Status::Ok();
      case ir::StmtKind::kFor:
        return LowerFor(ir::As<ir::ForNode>(s));
      case ir::StmtKind::kIf:
        return LowerIf(ir::As<ir::IfNode>(s));
      case ir::StmtKind::kLet:
        return LowerLet(ir::As<ir::LetNode>(s));
      case ir::StmtKind::kStore:
        return LowerStore(ir::As<ir::StoreNode>(s));
      case ir::StmtKind::kTileOp:
        return LowerTileOp(ir::As<ir::TileOpNode>(s));
      case ir::StmtKind::kBarrier:
      case ir::StmtKind::kSetFlag:
      case ir::StmtKind::kWaitFlag:
      case ir::StmtKind::kSetCrossFlag:
      case ir::StmtKind::kWaitCrossFlag:
        return LowerSync(s);
      case ir::StmtKind::kCoreScope: {
        const auto& scope = ir::As<ir::CoreScopeNode>(s);
        if (scope.core != kind_) return Status::Ok();
        const bool outer = in_scope_;
        in_scope_ = true;
        Status st = Lower(scope.body);
        in_scope_ = outer;
        return st;
      }
    }
    TILEJIT_UNREACHABLE();
    return Status::Ok();
  }

  // Binds a launch variable: a constant when it has one value, else get_cid/get_vid.
  Status BindLaunchVar(const ir::Var& var, Opcode op, int64_t hi, std::optional<uint8_t>* reg) {
    if (hi == 0) {
      e_.BindVar(var, 0, std::pair<int64_t, int64_t>{0, 0});
      return Status::Ok();
    }
    *reg = e_.AllocLong();
    if (!reg->has_value()) return OutOfRegs();
    Instr in{.op = op};
    in.rd = **reg;
    e_.Emit(in);
    e_.BindVar(var, **reg, std::pair<int64_t, int64_t>{0, hi});
    return Status::Ok();
  }

  Status LowerKernel(const ir::KernelNode& k) {
    // A grid over symbols (checked by Codegen) bounds cid by its value at the symbols' maxima,
    // and in any case by the block limit every launch checks (LaunchBlockCount): a product of
    // several symbols has no int64 bound of its own.
    const auto grid = e_.Bounds(k.grid);
    const int64_t hi = grid.has_value() ? grid->second : target::kMaxBlockCount;
    const int64_t max_cid = std::clamp<int64_t>(hi, 1, target::kMaxBlockCount) - 1;
    const bool vid_varies = e_.core() == target::CoreType::kAiv && k.threads != 1;
    std::optional<uint8_t> cid_reg, vid_reg;
    TILEJIT_RETURN_IF_ERROR(BindLaunchVar(k.cid, Opcode::kGetCid, max_cid, &cid_reg));
    TILEJIT_RETURN_IF_ERROR(BindLaunchVar(k.vid, Opcode::kGetVid, vid_varies ? 1 : 0, &vid_reg));
    e_.ReleaseTemps();
    Status st = Lower(k.body);
    e_.UnbindVar(k.cid);
    e_.UnbindVar(k.vid);
    if (cid_reg) e_.ReleaseLong(*cid_reg);
    if (vid_reg) e_.ReleaseLong(*vid_reg);
    return st;
  }

  std::optional<std::pair<int64_t, int64_t>> LoopRange(const ir::ForNode& f, Opnd mn, Opnd ext) {
    if (mn.is_static() && ext.is_static()) return std::pair{mn.imm, mn.imm + ext.imm - 1};
    auto bmin = e_.Bounds(f.min), bext = e_.Bounds(f.extent);
    if (!bmin || !bext || bext->second < 1) return std::nullopt;
    return std::pair{bmin->first, bmin->second + bext->second - 1};
  }

  void EmitCmpLt(uint8_t rd, uint8_t rs1, Opnd end) {
    if (!FitsInt32(end.imm)) end = OpReg(e_.InReg(end));
    Instr cmp{.op = Opcode::kCmp};
    cmp.rd = rd;
    cmp.rs1 = rs1;
    cmp.src2 = end;
    cmp.cmp = target::CmpMode::kLt;
    e_.Emit(cmp);
  }

  // Static trip count: do { body } while (++i < end). Otherwise the test runs first.
  Status LowerFor(const ir::ForNode& f) {
    TILEJIT_CHECK(f.for_kind != ir::ForKind::kParallel)
        << "a T.Parallel loop reached codegen (lower_parallel must lower it)";
    TILEJIT_ASSIGN_OR_RETURN(Opnd mn, e_.Int(f.min));
    TILEJIT_ASSIGN_OR_RETURN(Opnd ext, e_.Int(f.extent));
    const bool static_trip = mn.is_static() && ext.is_static();
    if (ext.is_static() && ext.imm <= 0) return Status::Ok();
    if (static_trip && ext.imm == 1) {  // one iteration: the var is a constant
      e_.BindVar(f.var, 0, std::pair{mn.imm, mn.imm});
      e_.ReleaseTemps();
      Status st = Lower(f.body);
      e_.UnbindVar(f.var);
      return st;
    }
    const auto range = LoopRange(f, mn, ext);
    const std::optional<uint8_t> counter = e_.AllocLong();
    if (!counter) return OutOfRegs();
    std::optional<uint8_t> end_reg;
    Opnd end;
    if (static_trip) {
      end = OpImm(mn.imm + ext.imm);
    } else {
      end_reg = e_.AllocLong();
      if (!end_reg) return OutOfRegs();
      EmitMove(e_, *end_reg, e_.Add(mn, ext));
      end = OpReg(*end_reg);
    }
    EmitMove(e_, *counter, mn);
    e_.ReleaseTemps();
    const size_t top = e_.size();
    size_t exit_branch = 0;
    if (!static_trip) {
      const uint8_t t = e_.Temp();
      EmitCmpLt(t, *counter, end);
      exit_branch = e_.size();
      Instr bz{.op = Opcode::kBz};
      bz.rs1 = t;
      e_.Emit(bz);
      e_.ReleaseTemps();
    }
    const size_t body_start = e_.size();
    e_.BindVar(f.var, *counter, range);
    const uint32_t line = e_.line();
    const SourceLoc loc = e_.loc();
    Status st = Lower(f.body);
    e_.SetLine(line);
    e_.SetLoc(loc);
    e_.UnbindVar(f.var);
    if (!st.ok()) return st;
    Instr inc{.op = Opcode::kAdd};
    inc.rd = *counter;
    inc.rs1 = *counter;
    inc.src2 = OpImm(1);
    e_.Emit(inc);
    if (static_trip) {
      const uint8_t t = e_.Temp();
      EmitCmpLt(t, *counter, end);
      Instr bnz{.op = Opcode::kBnz};
      bnz.rs1 = t;
      e_.Emit(bnz);
      e_.PatchBranch(e_.size() - 1, body_start);
    } else {
      e_.Emit(Instr{.op = Opcode::kJmp});
      e_.PatchBranch(e_.size() - 1, top);
      e_.PatchBranch(exit_branch, e_.size());
    }
    e_.ReleaseLong(*counter);
    if (end_reg) e_.ReleaseLong(*end_reg);
    return Status::Ok();
  }

  Status LowerIf(const ir::IfNode& s) {
    TILEJIT_ASSIGN_OR_RETURN(Opnd c, e_.Int(s.cond));
    if (c.is_static()) {
      e_.ReleaseTemps();
      return Lower(c.imm != 0 ? s.then_body : s.else_body);
    }
    Instr bz{.op = Opcode::kBz};
    bz.rs1 = e_.InReg(c);
    const size_t bz_at = e_.size();
    e_.Emit(bz);
    e_.ReleaseTemps();
    const uint32_t line = e_.line();
    const SourceLoc loc = e_.loc();
    TILEJIT_RETURN_IF_ERROR(Lower(s.then_body));
    if (!HasWork(s.else_body, kind_)) {
      e_.PatchBranch(bz_at, e_.size());
      return Status::Ok();
    }
    e_.SetLine(line);
    e_.SetLoc(loc);
    const size_t jmp_at = e_.size();
    e_.Emit(Instr{.op = Opcode::kJmp});
    e_.PatchBranch(bz_at, e_.size());
    TILEJIT_RETURN_IF_ERROR(Lower(s.else_body));
    e_.PatchBranch(jmp_at, e_.size());
    return Status::Ok();
  }

  Status LowerLet(const ir::LetNode& s) {
    // Under register pressure a cheap load-free value is recomputed at its uses instead of
    // held: index arithmetic of deeply nested Expert kernels (upstream's xattention) binds
    // more values than the 31 registers, and a handful of ALU instructions per use is the
    // cheaper trade than refusing the kernel.
    if (e_.FreeRegs() <= remat_when_free_ && e_.BindRemat(s.var, s.value)) {
      Status st = Lower(s.body);
      e_.UnbindVar(s.var);
      return st;
    }
    const bool is_float = ir::IsFloat(s.var->dtype);
    Result<Opnd> value = is_float ? e_.FloatBits(s.value) : e_.Int(s.value);
    if (!value.ok()) return value.status();
    std::optional<uint8_t> reg;
    if (value->is_static()) {
      e_.BindVar(s.var, 0, std::pair{value->imm, value->imm});
    } else {
      reg = e_.AllocLong();
      if (!reg) return OutOfRegs();
      EmitMove(e_, *reg, *value);
      e_.BindVar(s.var, *reg, is_float ? std::nullopt : e_.Bounds(s.value));
    }
    e_.ReleaseTemps();
    Status st = Lower(s.body);
    e_.UnbindVar(s.var);
    if (reg) e_.ReleaseLong(*reg);
    return st;
  }

  Status LowerStore(const ir::StoreNode& s) {
    const ir::Buffer& buf = s.buffer;
    const bool is_float = ir::IsFloat(buf->dtype);
    Result<Opnd> value = is_float ? e_.FloatBits(s.value) : e_.Int(s.value);
    if (!value.ok()) return value.status();
    if (buf->scope == ir::MemScope::kLocalVar) {
      // The variable's register, through a load of it (the Emitter owns var registers).
      const ir::Expr self = ir::Load(buf, s.indices, s.loc);
      TILEJIT_ASSIGN_OR_RETURN(Opnd var, is_float ? e_.FloatBits(self) : e_.Int(self));
      EmitMove(e_, var.reg, *value);
      return Status::Ok();
    }
    if (buf->scope != ir::MemScope::kGM && buf->scope != ir::MemScope::kUB) {
      e_.diag().Error(s.loc) << "scalar store to " << ir::MemScopeName(buf->scope) << " buffer '"
                             << buf->name << "' (the scalar unit reaches only GM and UB)";
      return e_.diag().ToStatus();
    }
    ir::Region region;
    region.buffer = buf;
    region.loc = s.loc;
    for (const auto& i : s.indices) region.ranges.push_back(ir::Range{i, 1});
    TILEJIT_ASSIGN_OR_RETURN(RegionRef ref, e_.RegionAddress(region));
    Instr st{.op = buf->scope == ir::MemScope::kUB ? Opcode::kStUb : Opcode::kStGm};
    st.rs1 = e_.InReg(*value);
    st.addr = ref.address;
    st.dtype = IsaDType(buf->dtype);
    e_.Emit(st);
    return Status::Ok();
  }

  Status RequireScope(const ir::StmtNode& s, const char* what) {
    if (in_scope_) return Status::Ok();
    e_.diag().Error(s.loc) << what
                           << " outside a `scope cube`/`scope vector` block reached codegen "
                              "(assign_cores must place it on a core)";
    return e_.diag().ToStatus();
  }

  Status LowerTileOp(const ir::TileOpNode& op) {
    TILEJIT_RETURN_IF_ERROR(RequireScope(op, "a tile op"));
    switch (op.op) {
      case ir::TileOpCode::kCopy:
        return EmitCopy(e_, op);
      case ir::TileOpCode::kMma:
        return EmitMma(e_, op);
      case ir::TileOpCode::kGemmV0:
        TILEJIT_CHECK(false) << "gemm_v0 reached codegen (expand_composites must expand it)";
        return Status::Ok();
      case ir::TileOpCode::kPrintf:
      case ir::TileOpCode::kDumpTensor:
        return EmitDebug(e_, op);
      case ir::TileOpCode::kFill: {
        const auto* dst = std::get_if<ir::Region>(&op.args[0]);
        if (dst != nullptr && dst->buffer->scope == ir::MemScope::kL1) return EmitFillL1(e_, op);
        return EmitVectorOp(e_, op);
      }
      default:
        return EmitVectorOp(e_, op);
    }
  }

  Status LowerSync(const ir::Stmt& s) {
    TILEJIT_RETURN_IF_ERROR(RequireScope(*s, "a synchronisation statement"));
    if (s->kind == ir::StmtKind::kBarrier) {
      const auto& b = ir::As<ir::BarrierNode>(s);
      Instr in{.op = b.grid ? Opcode::kSyncAll : Opcode::kBarrier};
      if (!b.grid) in.pipe = b.pipe;
      e_.Emit(in);
      return Status::Ok();
    }
    if (const auto* f = ir::TryAs<ir::FlagNode>(s)) {
      TILEJIT_ASSIGN_OR_RETURN(Opnd ev, e_.Int(f->event));
      Instr in{.op = s->kind == ir::StmtKind::kSetFlag ? Opcode::kSetFlag : Opcode::kWaitFlag};
      in.spipe = f->src;
      in.dpipe = f->dst;
      in.event = ev;
      e_.Emit(in);
      return Status::Ok();
    }
    const auto& x = ir::As<ir::CrossFlagNode>(s);
    TILEJIT_ASSIGN_OR_RETURN(Opnd flag, e_.Int(x.flag));
    Instr in{.op = s->kind == ir::StmtKind::kSetCrossFlag ? Opcode::kXset : Opcode::kXwait};
    in.pipe = x.pipe;
    in.flag = flag;
    if (in.op == Opcode::kXset) in.xmode = x.mode;
    e_.Emit(in);
    return Status::Ok();
  }

  Emitter& e_;
  ir::CoreKind kind_;
  const LineMap& lines_;
  const int remat_when_free_;
  const size_t base_errors_;  // errors already reported before this program
  bool in_scope_ = false;
};

// Field and core checks per instruction, reported at the statement the instruction came
// from (a static event id 9, a vector op in cube code, ...).
Status CheckProgram(const std::vector<Instr>& prog, target::CoreType core,
                    const target::NpuTarget& npu, const std::vector<ir::Stmt>& stmt_ids,
                    DiagnosticEngine* diag) {
  for (const Instr& in : prog) {
    Status st = target::Validate(in);
    if (st.ok()) st = target::ValidateForCore(in, core, npu);
    if (st.ok()) continue;
    SourceLoc loc;
    if (in.line < stmt_ids.size() && stmt_ids[in.line] != nullptr) loc = stmt_ids[in.line]->loc;
    diag->Error(loc) << "cannot encode `" << target::Disassemble(in) << "` for the "
                     << target::CoreTypeName(core) << ": " << st.message();
    return diag->ToStatus();
  }
  return target::ValidateControlFlow(prog);
}

}  // namespace

void EmitMove(Emitter& e, uint8_t rd, Opnd v) {
  if (v.reg == 0) {
    Instr li{.op = Opcode::kLi};
    li.rd = rd;
    li.imm64 = v.imm;
    e.Emit(li);
    return;
  }
  if (v.imm == 0) {
    if (v.reg == rd) return;
    Instr mov{.op = Opcode::kMov};
    mov.rd = rd;
    mov.rs1 = v.reg;
    e.Emit(mov);
    return;
  }
  if (!FitsInt32(v.imm)) {
    const uint8_t t = e.InReg(OpImm(v.imm));
    v = Opnd{v.reg, 0};
    Instr add{.op = Opcode::kAdd};
    add.rd = rd;
    add.rs1 = v.reg;
    add.src2 = OpReg(t);
    e.Emit(add);
    return;
  }
  Instr add{.op = Opcode::kAdd};
  add.rd = rd;
  add.rs1 = v.reg;
  add.src2 = OpImm(v.imm);
  e.Emit(add);
}

namespace {

// One lowering of the program; `*out_of_regs` tells whether it failed for want of registers.
Result<std::vector<Instr>> LowerOnce(const ir::Kernel& kernel, target::CoreType core,
                                     const target::NpuTarget& npu, const LineMap& lines,
                                     int remat_when_free, std::vector<target::PrintRecord>* prints,
                                     DiagnosticEngine* diag, bool* out_of_regs) {
  Emitter e(npu, core, diag);
  e.SetParams(kernel.params);
  e.BindSymbols(kernel.symbols, static_cast<int>(kernel.params.size()), kMaxSymbolValue);
  e.SetPrints(prints);
  e.SetLine(target::kNoStmt);
  const ir::CoreKind kind =
      core == target::CoreType::kAic ? ir::CoreKind::kCube : ir::CoreKind::kVector;
  Walker walker(e, kind, lines, remat_when_free);
  Status st = walker.Lower(kernel.body);
  *out_of_regs = e.out_of_regs();
  if (st.ok() && diag->has_errors()) st = diag->ToStatus();
  if (!st.ok()) return st;
  return e.Finish();
}

}  // namespace

// Lets keep registers while 11 or more are free; a program that still runs out is lowered
// again with every load-free let rematerialised (slower code beats a refused kernel). Each
// attempt reports into its own engine, so only the kept attempt's diagnostics are seen.
Result<std::vector<Instr>> LowerProgram(const ir::Kernel& kernel, target::CoreType core,
                                        const target::NpuTarget& npu, const LineMap& lines,
                                        const std::vector<ir::Stmt>& stmt_ids,
                                        std::vector<target::PrintRecord>* prints,
                                        DiagnosticEngine* diag) {
  const size_t first_print = prints->size();
  Result<std::vector<Instr>> prog = Internal("codegen: no lowering attempt ran");
  for (const int remat_when_free : {10, target::kNumRegs}) {
    prints->resize(first_print);
    DiagnosticEngine attempt(diag->sources());
    bool out_of_regs = false;
    prog = LowerOnce(kernel, core, npu, lines, remat_when_free, prints, &attempt, &out_of_regs);
    if (prog.ok() || !out_of_regs || remat_when_free == target::kNumRegs) {
      for (const Diagnostic& d : attempt.diagnostics()) diag->Add(d);
      break;
    }
  }
  if (!prog.ok()) return diag->has_errors() ? diag->ToStatus() : prog.status();
  TILEJIT_RETURN_IF_ERROR(CheckProgram(*prog, core, npu, stmt_ids, diag));
  return prog;
}

}  // namespace tilejit::codegen
