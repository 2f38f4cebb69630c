// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the vector effects (ops_vector.cc: repeat form and masks; ops_vector_2d.cc:
// row/column forms). Internal to runner/sim.
//
// Operand geometry (docs/isa.md section 7): element j of repeat r of an operand with block
// stride `blk` and repeat stride `rep` (both in 32-byte blocks) lives at
//   base + r * rep * 32 + (j / epb) * blk * 32 + (j % epb) * elem_bytes,  epb = 32 / elem_bytes.
// A 2-D matrix operand (row r at base + r * rstride * 32, elements contiguous) is the same
// formula with blk = 1, rep = rstride, `rows` repeats of `count` elements; a contiguous vector
// is one repeat.
//
// ForEachRun walks an operand's active elements as maximal contiguous byte runs, in element
// order; it is the one place the formula is evaluated for access sets (DescribeOperand) and
// for data (Gather, Scatter). An effect gathers every input into compute-type arrays, runs one
// loop per (operation, dtype) over them, then scatters the result, so overlapping operands see
// the old values and the arithmetic never touches memory layout.
//
// Thread-compatible like ops.h; the arrays are the calling thread's Scratch buffers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/status.h"
#include "compiler/target/isa.h"
#include "runner/sim/ops.h"
#include "runner/sim/vector_codec.h"

namespace tilejit::runner::sim::internal {

struct Operand {
  uint64_t base = 0;
  uint64_t blk = 1;
  uint64_t rep = 8;
  target::DType dtype = target::DType::kF16;
};

inline uint64_t Eb(target::DType d) { return target::DTypeBytes(d); }

// A row-major matrix operand of a 2-D instruction, or (rstride 0, one row) a vector.
inline Operand Matrix(uint64_t base, uint64_t rstride, target::DType d) {
  return {base, 1, rstride, d};
}

inline uint64_t ElemOffset(const Operand& o, uint64_t r, uint64_t j) {
  const uint64_t eb = Eb(o.dtype), epb = 32 / eb;
  return r * o.rep * 32 + (j / epb) * o.blk * 32 + (j % epb) * eb;
}

// Calls fn(byte_offset, first, n) for each maximal contiguous run: elements first .. first +
// n - 1 (numbered repeat by repeat, `mask` per repeat) at `byte_offset` from the base.
template <typename Fn>
void ForEachRun(const Operand& o, uint64_t repeat, uint64_t mask, Fn&& fn) {
  const uint64_t eb = Eb(o.dtype);
  // Contiguous pieces of a repeat: all of it when its blocks follow each other (blk 1), else
  // one 32-byte block, the next one blk * 32 bytes further.
  const uint64_t piece = o.blk == 1 ? mask : 32 / eb, piece_stride = o.blk * 32;
  uint64_t off = 0, first = 0, len = 0, next = 0;
  for (uint64_t r = 0; r < repeat; ++r) {
    uint64_t at = r * o.rep * 32;
    for (uint64_t j = 0; j < mask; j += piece, at += piece_stride) {
      const uint64_t n = std::min(piece, mask - j);
      if (len != 0 && off + len * eb == at) {
        len += n;
      } else {
        if (len != 0) fn(off, first, len);
        off = at, first = next, len = n;
      }
      next += n;
    }
  }
  if (len != 0) fn(off, first, len);
}

// Bytes from the base to the end of the operand's last active element (0 if none).
uint64_t Extent(const Operand& o, uint64_t repeat, uint64_t mask);

// Appends the operand's runs to an access set.
void DescribeOperand(const Operand& o, uint64_t repeat, uint64_t mask, bool write,
                     std::vector<Span>* out);

// The operand's active elements in element order, converted: in this thread's `slot` buffer,
// or, for an fp32 operand that is one aligned contiguous run, where they lie in memory (every
// effect writes its results only after it has read all of its inputs, so that is safe).
template <typename Codec>
const typename Codec::Compute* Gather(const Codec& codec, MemView& mem, const Operand& o,
                                      uint64_t repeat, uint64_t mask, Slot slot) {
  using C = typename Codec::Compute;
  const uint8_t* base = mem.Ptr(MemSpace::kUb, o.base, Extent(o, repeat, mask));
  if constexpr (std::is_same_v<Codec, F32Codec>) {
    const bool one_run = o.blk == 1 && (repeat == 1 || o.rep * 32 == mask * sizeof(float));
    if (one_run && reinterpret_cast<uintptr_t>(base) % alignof(float) == 0) {
      return reinterpret_cast<const float*>(base);
    }
  }
  C* buf = Scratch<C>(slot, repeat * mask);
  ForEachRun(o, repeat, mask, [&](uint64_t off, uint64_t first, uint64_t n) {
    codec.Load(base + off, n, buf + first);
  });
  return buf;
}

// Stores `values` (in Gather's element order) into the operand, later elements last.
template <typename Codec>
void Scatter(const Codec& codec, const typename Codec::Compute* values, MemView& mem,
             const Operand& o, uint64_t repeat, uint64_t mask,
             target::RoundMode mode = target::RoundMode::kRint, bool saturate = false) {
  uint8_t* base = mem.Ptr(MemSpace::kUb, o.base, Extent(o, repeat, mask));
  ForEachRun(o, repeat, mask, [&](uint64_t off, uint64_t first, uint64_t n) {
    codec.Store(values + first, n, base + off, mode, saturate);
  });
}

// ---- Element operations ---------------------------------------------------------------------
// Templates over the compute type (float, or double for GenericCodec). Each is the ISA's
// operation computed once and rounded once on the store: for + - * / of float-exact inputs the
// float result equals the double result rounded to float, so float compute stores the same
// bits as the scalar helpers' double compute.
//
// NaN operands of + - * / (and of vaxpy and sums): the result is the first NaN in operand
// order (src, then src1 or the scalar, then dst; for accumulations the running value first),
// quieted on the store. x86 arithmetic returns its first operand's NaN, but a compiler may
// swap the operands of + and *, so those two name the rule explicitly. max and min: below.

template <typename T>
T FirstNan(T a, T result) {
  return a != a ? a : result;
}

struct AddOp {
  template <typename T>
  T operator()(T a, T b) const {
    return FirstNan(a, a + b);
  }
};
struct SubOp {
  template <typename T>
  T operator()(T a, T b) const {
    return a - b;
  }
};
struct MulOp {
  template <typename T>
  T operator()(T a, T b) const {
    return FirstNan(a, a * b);
  }
};
struct DivOp {
  template <typename T>
  T operator()(T a, T b) const {
    return a / b;
  }
};
// std::max/min: the first operand unless the second compares greater (smaller), so a NaN
// second operand never wins and a NaN first operand always does.
struct MaxOp {
  template <typename T>
  T operator()(T a, T b) const {
    return std::max(a, b);
  }
};
struct MinOp {
  template <typename T>
  T operator()(T a, T b) const {
    return std::min(a, b);
  }
};

// Calls fn with the functor of a binary (or reduction) opcode: add, sub, mul, div, max, min in
// any of their forms (tile-tile, scalar, UB scalar, row/column broadcast, row/column reduce).
template <typename Fn>
decltype(auto) VisitBinary(target::Opcode op, Fn&& fn) {
  using target::Opcode;
  switch (op) {
    case Opcode::kVadd:
    case Opcode::kVadds:
    case Opcode::kVaddsUb:
    case Opcode::kVbrowAdd:
    case Opcode::kVbcolAdd:
    case Opcode::kVrowSum:
    case Opcode::kVcolSum:
      return fn(AddOp{});
    case Opcode::kVsub:
    case Opcode::kVsubs:
    case Opcode::kVsubsUb:
    case Opcode::kVbrowSub:
    case Opcode::kVbcolSub:
      return fn(SubOp{});
    case Opcode::kVmul:
    case Opcode::kVmuls:
    case Opcode::kVmulsUb:
    case Opcode::kVbrowMul:
    case Opcode::kVbcolMul:
      return fn(MulOp{});
    case Opcode::kVdiv:
    case Opcode::kVdivs:
    case Opcode::kVdivsUb:
    case Opcode::kVbrowDiv:
    case Opcode::kVbcolDiv:
      return fn(DivOp{});
    case Opcode::kVmax:
    case Opcode::kVmaxs:
    case Opcode::kVmaxsUb:
    case Opcode::kVbrowMax:
    case Opcode::kVbcolMax:
    case Opcode::kVrowMax:
    case Opcode::kVcolMax:
      return fn(MaxOp{});
    default:  // min forms
      return fn(MinOp{});
  }
}

// out[i] = op(a[i], b[i]).
template <typename T, typename Op>
void MapPairs(const T* a, const T* b, T* out, uint64_t n, Op op) {
  for (uint64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
}

// out[i] = op(a[i], s).
template <typename T, typename Op>
void MapScalar(const T* a, T s, T* out, uint64_t n, Op op) {
  for (uint64_t i = 0; i < n; ++i) out[i] = op(a[i], s);
}

// 2-D instructions (row/column reductions and broadcasts, vbrcb): access set and effect.
void Describe2d(const target::Instr& in, std::vector<Span>* out);
Status Apply2d(const target::Instr& in, MemView& mem);

// The block / whole-repeat reductions and vgatherb (ops_vector_raw.cc).
bool IsRawVector(target::Opcode op);
void DescribeRaw(const target::Instr& in, std::vector<Span>* out);
Status ApplyRaw(const target::Instr& in, MemView& mem);

// vsort32 and vmrgsort (ops_vector_sort.cc): access set and effects.
void DescribeSort(const target::Instr& in, std::vector<Span>* out);
Status Sort32Effect(const target::Instr& in, MemView& mem);
Status MrgSortEffect(const target::Instr& in, MemView& mem);

}  // namespace tilejit::runner::sim::internal
