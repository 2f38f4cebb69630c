// SPDX-License-Identifier: Apache-2.0
// Timing formulas of timing.h. Every number comes from the NpuTarget so that another chip is
// another description; the only constants here are the ISA geometry (256-byte repeats,
// 16-row fractals) which the ISA fixes for every target.
#include "compiler/target/timing.h"

#include <algorithm>
#include <array>
#include <string>

namespace tilejit::target {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

// Resolves operands for one instruction; remembers the first error. In static mode an operand
// the formula reads must not name a register.
class Operands {
 public:
  Operands(const Instr& in, std::span<const int64_t> regs, bool static_only)
      : in_(in), regs_(regs), static_only_(static_only) {}
  int64_t Get(FieldId f) {
    if (static_only_ && GetField(in_, f).reg != 0) {
      Fail(InvalidArgument(std::string(OpcodeName(in_.op)) + ": operand '" +
                           std::string(GetFieldInfo(f).name) +
                           "' is a register; use InstrCost with register values"));
      return 0;
    }
    Result<int64_t> v = ResolveOperand(in_, f, regs_);
    if (!v.ok()) {
      Fail(v.status());
      return 0;
    }
    return v.value();
  }
  const Status& status() const { return status_; }

 private:
  void Fail(const Status& s) {
    if (status_.ok()) status_ = s;
  }
  const Instr& in_;
  std::span<const int64_t> regs_;
  bool static_only_;
  Status status_;
};

Cost Dma(int64_t uops, int64_t bytes, int64_t src_bw, int64_t dst_bw, int64_t fixed) {
  const int64_t xfer = std::max(CeilDiv(bytes, src_bw), CeilDiv(bytes, dst_bw));
  const int64_t occ = uops + xfer;
  return {occ, occ + fixed};
}

Cost BurstDma(const Instr& in, const NpuTarget& t, Operands& ops) {
  const int64_t nburst = ops.Get(FieldId::nburst);
  const int64_t len = ops.Get(FieldId::len);
  const int64_t uops = nburst * CeilDiv(len, t.dma_uop_bytes.value);
  const int64_t bytes = nburst * len;
  switch (in.op) {
    case Opcode::kCopyGmL1:
      return Dma(uops, bytes, t.gm_read_bpc.value, t.l1_write_bpc.value, t.gm_read_latency.value);
    case Opcode::kCopyGmUb:
      return Dma(uops, bytes, t.gm_read_bpc.value, t.ub_bpc.value, t.gm_read_latency.value);
    case Opcode::kCopyUbGm:
      return Dma(uops, bytes, t.ub_bpc.value, t.gm_write_bpc.value, t.gm_write_latency.value);
    case Opcode::kCopyL1Gm:
      return Dma(uops, bytes, t.l1_read_bpc.value, t.gm_write_bpc.value, t.gm_write_latency.value);
    default: {  // copy_ub_ub
      const int64_t occ = nburst * CeilDiv(len, t.ub_copy_bpc.value);
      return {occ, occ + t.ub_copy_latency.value};
    }
  }
}

// A fill writes only its destination: the DMA formula with the destination's write bandwidth
// on both sides and no fixed latency (no GM round trip).
Cost Fill(const Instr& in, const NpuTarget& t, Operands& ops) {
  const int64_t nburst = ops.Get(FieldId::nburst);
  const int64_t len = ops.Get(FieldId::len);
  const int64_t bw = in.op == Opcode::kFillL1 ? t.l1_write_bpc.value : t.ub_bpc.value;
  return Dma(nburst * CeilDiv(len, t.dma_uop_bytes.value), nburst * len, bw, bw, 0);
}

Cost Nd2Nz(const Instr& in, const NpuTarget& t, Operands& ops) {
  const int64_t rows = ops.Get(FieldId::rows);
  const int64_t row_bytes = ops.Get(FieldId::cols) * DTypeBytes(in.dtype);
  const int64_t uops = rows * CeilDiv(row_bytes, t.dma_uop_bytes.value);
  return Dma(uops, rows * row_bytes, t.gm_read_bpc.value, t.l1_write_bpc.value,
             t.gm_read_latency.value);
}

Cost LoadL0(const Instr& in, const NpuTarget& t, Operands& ops) {
  const int64_t rows = ops.Get(FieldId::rows);
  const int64_t cols = ops.Get(FieldId::cols);
  const int64_t c0 = C0Elems(t, in.dtype);
  const int64_t frac = t.fractal_rows.value;
  // A (m x k): 16-row by C0-column fractals; B (k x n): C0-row by 16-column fractals.
  const int64_t fractals = in.op == Opcode::kLoadL0a ? CeilDiv(rows, frac) * CeilDiv(cols, c0)
                                                     : CeilDiv(rows, c0) * CeilDiv(cols, frac);
  const int64_t bytes = fractals * t.fractal_bytes.value;
  const int64_t dst_bw = in.op == Opcode::kLoadL0a ? t.l0a_write_bpc.value : t.l0b_write_bpc.value;
  return Dma(CeilDiv(bytes, t.dma_uop_bytes.value), bytes, t.l1_read_bpc.value, dst_bw,
             t.load2d_latency.value);
}

Cost Fix(const Instr& in, const NpuTarget& t, Operands& ops) {
  const int64_t rows = ops.Get(FieldId::rows);
  const int64_t frac = t.fractal_rows.value;
  const int64_t row_bytes = CeilDiv(ops.Get(FieldId::cols), frac) * frac * 4;
  const bool to_gm = in.op == Opcode::kFixL0cGm;
  const int64_t dst_bw = to_gm ? t.gm_write_bpc.value : t.l1_write_bpc.value;
  const int64_t per_row =
      std::max(CeilDiv(row_bytes, dst_bw), CeilDiv(row_bytes, t.l0c_read_bpc.value));
  const int64_t occ = rows * per_row;
  return {occ, occ + (to_gm ? t.gm_write_latency.value : t.fix_l1_latency.value)};
}

Result<Cost> Mmad(const Instr& in, const NpuTarget& t, Operands& ops) {
  const CubeDtype* cube = FindCubeDtype(t, in.dtype);
  if (cube == nullptr) {
    return InvalidArgument("target " + std::string(t.name) + " has no cube rate for " +
                           std::string(DTypeName(in.dtype)));
  }
  const int64_t frac = t.fractal_rows.value;
  const int64_t occ =
      std::max<int64_t>(1, CeilDiv(ops.Get(FieldId::m), frac) * CeilDiv(ops.Get(FieldId::n), frac) *
                               CeilDiv(ops.Get(FieldId::k), cube->kstep.value));
  return Cost{occ, occ + t.mmad_state_latency.value};
}

int64_t BytesPerCycle(const VecCost& v, DType d) {
  switch (d) {
    case DType::kF16:
    case DType::kBF16:
      return v.p_f16.value;
    case DType::kF32:
      return v.p_f32.value;
    case DType::kS16:
    case DType::kU16:
    case DType::kS8:
    case DType::kU8:
      return v.p_s16.value;
    default:
      return v.p_s32.value;
  }
}

Result<Cost> Vector(const Instr& in, const NpuTarget& t, TimingClass cls, Operands& ops) {
  const VecCost* v = FindVecCost(t, cls);
  if (v == nullptr)
    return InvalidArgument("target " + std::string(t.name) + " lacks a vector cost");
  const int64_t rep_bytes = t.repeat_bytes.value;
  int64_t repeats = ops.Get(FieldId::repeat);
  if (UsesField(in.op, FieldId::count1)) {  // vmrgsort: one repeat per 256 bytes of proposals
    repeats =
        CeilDiv((ops.Get(FieldId::count) + ops.Get(FieldId::count1)) * kProposalBytes, rep_bytes);
  } else if (UsesField(in.op, FieldId::count)) {
    repeats *= CeilDiv(ops.Get(FieldId::count) * DTypeBytes(in.dtype), rep_bytes);
  }
  const int64_t uops =
      std::max<int64_t>(1, CeilDiv(repeats * rep_bytes, BytesPerCycle(*v, in.dtype)) * v->t.value);
  const int64_t d = IsFloatDType(in.dtype) ? v->d_fp.value : v->d_int.value;
  return Cost{uops, uops + d + t.vec_pipeline_delay.value};
}

Result<Cost> CostOf(const Instr& in, const NpuTarget& t, Operands& ops) {
  const TimingClass cls = GetOpcodeInfo(in.op).timing;
  switch (cls) {
    case TimingClass::kScalarAlu:
    case TimingClass::kEnd:
      return Cost{t.scalar_alu.value, t.scalar_alu.value};
    case TimingClass::kScalarLoad:
      return Cost{t.scalar_load.value, t.scalar_load.value};
    case TimingClass::kScalarStore:
      return Cost{t.scalar_store.value, t.scalar_store.value};
    case TimingClass::kSync:
      return Cost{t.sync_cycles.value, t.sync_cycles.value};
    case TimingClass::kCrossSync: {
      const int64_t extra = in.op == Opcode::kXset ? t.cross_set_latency.value : 0;
      return Cost{t.sync_cycles.value, t.sync_cycles.value + extra};
    }
    case TimingClass::kDmaGmL1:
    case TimingClass::kDmaGmUb:
    case TimingClass::kDmaUbGm:
    case TimingClass::kDmaUbUb:
    case TimingClass::kDmaL1Gm:
      return BurstDma(in, t, ops);
    case TimingClass::kDmaGmL1Nz:
      return Nd2Nz(in, t, ops);
    case TimingClass::kDmaFill:
      return Fill(in, t, ops);
    case TimingClass::kLoadL0:
      return LoadL0(in, t, ops);
    case TimingClass::kFixGm:
    case TimingClass::kFixL1:
      return Fix(in, t, ops);
    case TimingClass::kMmad:
      return Mmad(in, t, ops);
    default:
      return Vector(in, t, cls, ops);
  }
}

Result<Cost> Evaluate(const Instr& in, const NpuTarget& t, std::span<const int64_t> regs,
                      bool static_only) {
  TILEJIT_RETURN_IF_ERROR(Validate(in));
  Operands ops(in, regs, static_only);
  Result<Cost> cost = CostOf(in, t, ops);
  TILEJIT_RETURN_IF_ERROR(ops.status());
  return cost;
}

}  // namespace

Result<Cost> InstrCost(const Instr& in, const NpuTarget& t, std::span<const int64_t> regs) {
  return Evaluate(in, t, regs, /*static_only=*/false);
}

Result<Cost> StaticInstrCost(const Instr& in, const NpuTarget& t) {
  const std::array<int64_t, kNumRegs> zeros{};
  return Evaluate(in, t, zeros, /*static_only=*/true);
}

}  // namespace tilejit::target
