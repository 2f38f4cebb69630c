// SPDX-License-Identifier: Apache-2.0
// DMA effects: burst lists (one memcpy per burst), the ND -> zN conversion of MTE2 (one
// memcpy per C0-wide row piece, the C0 padding of a last partial column block zero-filled
// and counted as written; rows past `rows` are not touched), tail padding of GM -> UB bursts,
// atomic accumulation of stores, and the constant fills of L1/UB (every filled byte counts as
// written).
#include <algorithm>
#include <bit>
#include <cstring>

#include "runner/sim/ops.h"

namespace tilejit::runner::sim::internal {
namespace {

using target::AtomicOp;
using target::DType;
using target::Instr;
using target::Opcode;

uint64_t Round(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

struct BurstSpaces {
  MemSpace src;
  MemSpace dst;
};

BurstSpaces SpacesOf(Opcode op) {
  switch (op) {
    case Opcode::kCopyGmL1:
      return {MemSpace::kGm, MemSpace::kL1};
    case Opcode::kCopyGmUb:
      return {MemSpace::kGm, MemSpace::kUb};
    case Opcode::kCopyUbGm:
      return {MemSpace::kUb, MemSpace::kGm};
    case Opcode::kCopyUbUb:
      return {MemSpace::kUb, MemSpace::kUb};
    case Opcode::kCopyL1Gm:
      return {MemSpace::kL1, MemSpace::kGm};
    default:
      return {MemSpace::kGm, MemSpace::kL1};
  }
}

uint64_t DstBurstBytes(const Instr& in) {
  const uint64_t len = in.len.imm;
  return in.op == Opcode::kCopyGmUb && in.pad != 0 ? Round(len, 32) : len;
}

int C0Of(DType d) { return 32 / target::DTypeBytes(d); }

void DescribeNz(const Instr& in, std::vector<Span>* out) {
  const uint64_t eb = target::DTypeBytes(in.dtype);
  const uint64_t rows = in.rows.imm, cols = in.cols.imm;
  for (uint64_t r = 0; r < rows; ++r) {
    AddRun(out, {MemSpace::kGm, in.src.imm + r * in.src_stride.imm, cols * eb, false});
  }
  const uint64_t blocks = (cols + C0Of(in.dtype) - 1) / C0Of(in.dtype);
  for (uint64_t cb = 0; cb < blocks; ++cb) {
    AddRun(out, {MemSpace::kL1, in.dst.imm + cb * in.dst_pitch.imm * 32, rows * 32, true});
  }
}

void ApplyNz(const Instr& in, MemView& mem) {
  const uint64_t eb = target::DTypeBytes(in.dtype);
  const uint64_t c0 = C0Of(in.dtype);
  const uint64_t rows = in.rows.imm, cols = in.cols.imm;
  const uint64_t blocks = (cols + c0 - 1) / c0;
  for (uint64_t cb = 0; cb < blocks; ++cb) {
    uint8_t* dst = mem.Ptr(MemSpace::kL1, in.dst.imm + cb * in.dst_pitch.imm * 32, rows * 32);
    const uint64_t valid = std::min(c0, cols - cb * c0);
    for (uint64_t r = 0; r < rows; ++r) {
      uint8_t* d = dst + r * 32;
      const uint8_t* s =
          mem.Ptr(MemSpace::kGm, in.src.imm + r * in.src_stride.imm + cb * c0 * eb, valid * eb);
      std::memcpy(d, s, valid * eb);
      std::memset(d + valid * eb, 0, 32 - valid * eb);
    }
  }
}

template <typename T>
void Accumulate(uint8_t* dst, const uint8_t* src, uint64_t bytes, AtomicOp op, DType d) {
  const uint64_t eb = target::DTypeBytes(d);
  for (uint64_t i = 0; i + eb <= bytes; i += eb) {
    const double a = LoadElem(dst + i, d), b = LoadElem(src + i, d);
    const double r = op == AtomicOp::kAdd   ? a + b
                     : op == AtomicOp::kMax ? std::max(a, b)
                                            : std::min(a, b);
    StoreElem(dst + i, d, r);
  }
}

// fill_l1 / fill_ub: the element is built once (converted like vdup's scalar) and repeated.
MemSpace FillSpace(const Instr& in) {
  return in.op == Opcode::kFillL1 ? MemSpace::kL1 : MemSpace::kUb;
}

void DescribeFill(const Instr& in, std::vector<Span>* out) {
  for (int64_t b = 0; b < in.nburst.imm; ++b) {
    AddRun(out, {FillSpace(in), static_cast<uint64_t>(in.dst.imm + b * in.dst_stride.imm),
                 static_cast<uint64_t>(in.len.imm), true});
  }
}

void ApplyFill(const Instr& in, MemView& mem) {
  const uint32_t bits = static_cast<uint32_t>(in.scalar.imm);
  double v = static_cast<int32_t>(bits);
  if (target::IsFloatDType(in.dtype)) v = std::bit_cast<float>(bits);
  if (in.dtype == DType::kU32) v = bits;
  uint8_t elem[4] = {};
  StoreElem(elem, in.dtype, v);
  const uint64_t eb = target::DTypeBytes(in.dtype);
  const uint64_t len = in.len.imm;
  for (int64_t b = 0; b < in.nburst.imm; ++b) {
    uint8_t* d = mem.Ptr(FillSpace(in), in.dst.imm + b * in.dst_stride.imm, len);
    for (uint64_t i = 0; i < len; ++i) d[i] = elem[i % eb];
  }
}

}  // namespace

void DescribeDma(const Instr& in, std::vector<Span>* out) {
  if (in.op == Opcode::kCopyGmL1Nz) {
    DescribeNz(in, out);
    return;
  }
  if (in.op == Opcode::kFillL1 || in.op == Opcode::kFillUb) {
    DescribeFill(in, out);
    return;
  }
  const BurstSpaces sp = SpacesOf(in.op);
  const bool atomic = in.op == Opcode::kCopyUbGm && in.atomic != AtomicOp::kNone;
  std::vector<Span> writes;
  for (int64_t b = 0; b < in.nburst.imm; ++b) {
    AddRun(out, {sp.src, static_cast<uint64_t>(in.src.imm + b * in.src_stride.imm),
                 static_cast<uint64_t>(in.len.imm), false});
    AddRun(&writes, {sp.dst, static_cast<uint64_t>(in.dst.imm + b * in.dst_stride.imm),
                     DstBurstBytes(in), true, false, atomic});
  }
  out->insert(out->end(), writes.begin(), writes.end());
}

Status ApplyDma(const Instr& in, MemView& mem) {
  if (in.op == Opcode::kCopyGmL1Nz) {
    ApplyNz(in, mem);
    return Status::Ok();
  }
  if (in.op == Opcode::kFillL1 || in.op == Opcode::kFillUb) {
    ApplyFill(in, mem);
    return Status::Ok();
  }
  const BurstSpaces sp = SpacesOf(in.op);
  const uint64_t len = in.len.imm;
  const uint64_t dlen = DstBurstBytes(in);
  for (int64_t b = 0; b < in.nburst.imm; ++b) {
    const uint8_t* s = mem.Ptr(sp.src, in.src.imm + b * in.src_stride.imm, len);
    uint8_t* d = mem.Ptr(sp.dst, in.dst.imm + b * in.dst_stride.imm, dlen);
    if (in.op == Opcode::kCopyUbGm && in.atomic != AtomicOp::kNone) {
      Accumulate<void>(d, s, len, in.atomic, in.dtype);
      continue;
    }
    std::memmove(d, s, len);
    if (dlen > len) {
      const uint64_t eb = target::DTypeBytes(in.dtype);
      const uint32_t pv = static_cast<uint32_t>(in.padval);
      for (uint64_t i = len; i < dlen; ++i) {
        d[i] = static_cast<uint8_t>(pv >> (8 * ((i - len) % eb)));
      }
    }
  }
  return Status::Ok();
}

}  // namespace tilejit::runner::sim::internal
