// SPDX-License-Identifier: Apache-2.0
// Vector effects, 2-D forms: row r, element c of a matrix operand at base + r * rstride * 32 +
// c * elem_bytes; [R] and [C] vectors are contiguous (docs/isa.md section 7).
//
// Reductions accumulate in double in element order and round once on the store, the results
// the simulator has always produced (the ISA leaves the order open; a fixed one keeps runs
// reproducible). So sums stay sequential within a row, with four rows interleaved so that
// their addition chains overlap; column reductions are independent per column and vectorise
// as they are. max and min do not depend on the order except that +0 and -0 compare equal:
// they run in parallel lanes, and a zero result is recomputed in element order.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "runner/sim/ops_vector_internal.h"

namespace tilejit::runner::sim::internal {
namespace {

using target::Instr;
using target::Opcode;

enum class Shape { kRowReduce, kColReduce, kRowBroadcast, kColBroadcast, kBrcb, kTranspose };

Shape ShapeOf(Opcode op) {
  switch (op) {
    case Opcode::kVrowSum:
    case Opcode::kVrowMax:
    case Opcode::kVrowMin:
      return Shape::kRowReduce;
    case Opcode::kVcolSum:
    case Opcode::kVcolMax:
    case Opcode::kVcolMin:
      return Shape::kColReduce;
    case Opcode::kVbcolAdd:
    case Opcode::kVbcolSub:
    case Opcode::kVbcolMul:
    case Opcode::kVbcolDiv:
    case Opcode::kVbcolMax:
    case Opcode::kVbcolMin:
      return Shape::kColBroadcast;
    case Opcode::kVbrcb:
      return Shape::kBrcb;
    case Opcode::kVtrans:
      return Shape::kTranspose;
    default:
      return Shape::kRowBroadcast;
  }
}

bool IsSum(Opcode op) { return op == Opcode::kVrowSum || op == Opcode::kVcolSum; }

double ReduceInit(Opcode op) {
  if (IsSum(op)) return 0.0;
  const double inf = std::numeric_limits<double>::infinity();
  return op == Opcode::kVrowMax || op == Opcode::kVcolMax ? -inf : inf;
}

// Sums of K consecutive rows of x (each `count` long), each in element order.
template <int K, typename T>
void SumRows(const T* x, uint64_t count, double* acc) {
  double s[K] = {};
  for (uint64_t c = 0; c < count; ++c) {
    for (int k = 0; k < K; ++k) s[k] = AddOp{}(s[k], double{x[k * count + c]});
  }
  std::copy(s, s + K, acc);
}

// op (max or min) folded over x in element order from `init`.
template <typename T, typename Op>
double Extremum(const T* x, uint64_t n, double init, Op op) {
  constexpr uint64_t kLanes = 8;
  T lanes[kLanes];
  std::fill(lanes, lanes + kLanes, static_cast<T>(init));
  uint64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (uint64_t k = 0; k < kLanes; ++k) lanes[k] = op(lanes[k], x[i + k]);
  }
  double acc = init;
  for (T v : lanes) acc = op(acc, double{v});
  for (; i < n; ++i) acc = op(acc, double{x[i]});
  if (acc != 0) return acc;
  acc = init;  // +0 or -0: whichever comes first in element order
  for (i = 0; i < n; ++i) acc = op(acc, double{x[i]});
  return acc;
}

template <typename T>
void ReduceRows(Opcode op, const T* x, uint64_t rows, uint64_t count, double* acc) {
  if (!IsSum(op)) {
    VisitBinary(op, [&](auto f) {
      for (uint64_t r = 0; r < rows; ++r) acc[r] = Extremum(x + r * count, count, acc[r], f);
    });
    return;
  }
  uint64_t r = 0;
  for (; r + 4 <= rows; r += 4) SumRows<4>(x + r * count, count, acc + r);
  for (; r < rows; ++r) SumRows<1>(x + r * count, count, acc + r);
}

template <typename T>
void ReduceColumns(Opcode op, const T* x, uint64_t rows, uint64_t count, double* acc) {
  VisitBinary(op, [&](auto f) {
    for (uint64_t r = 0; r < rows; ++r) {
      const T* row = x + r * count;
      for (uint64_t c = 0; c < count; ++c) acc[c] = f(acc[c], double{row[c]});
    }
  });
}

template <typename Codec>
void ReduceEffect(const Instr& in, Shape shape, MemView& mem, const Codec& codec) {
  const uint64_t rows = in.repeat.imm, count = in.count.imm;
  const uint64_t n = shape == Shape::kRowReduce ? rows : count;
  const auto* x =
      Gather(codec, mem, Matrix(in.src.imm, in.src_rstride, in.dtype), rows, count, Slot::kSrc);
  double* acc = Scratch<double>(Slot::kAcc, n);
  std::fill(acc, acc + n, ReduceInit(in.op));
  if (shape == Shape::kRowReduce) {
    ReduceRows(in.op, x, rows, count, acc);
  } else {
    ReduceColumns(in.op, x, rows, count, acc);
  }
  const uint64_t eb = Eb(in.dtype);
  uint8_t* dst = mem.Ptr(MemSpace::kUb, in.dst.imm, n * eb);
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t* p = dst + i * eb;
    double v = acc[i];
    if (in.acc != 0) v = VisitBinary(in.op, [&](auto f) { return f(v, LoadElem(p, in.dtype)); });
    StoreElem(p, in.dtype, v);
  }
}

template <typename Codec>
void BroadcastEffect(const Instr& in, Shape shape, MemView& mem, const Codec& codec) {
  using T = typename Codec::Compute;
  const uint64_t rows = in.repeat.imm, count = in.count.imm;
  const bool col = shape == Shape::kColBroadcast;
  const T* vec =
      Gather(codec, mem, Matrix(in.src1.imm, 0, in.dtype), 1, col ? count : rows, Slot::kVec);
  T* out = Scratch<T>(Slot::kOut, rows * count);
  if (shape == Shape::kBrcb) {
    for (uint64_t r = 0; r < rows; ++r) std::fill(out + r * count, out + (r + 1) * count, vec[r]);
  } else {
    const T* a =
        Gather(codec, mem, Matrix(in.src.imm, in.src_rstride, in.dtype), rows, count, Slot::kSrc);
    VisitBinary(in.op, [&](auto f) {
      for (uint64_t r = 0; r < rows; ++r) {
        if (col) {
          MapPairs(a + r * count, vec, out + r * count, count, f);
        } else {
          MapScalar(a + r * count, vec[r], out + r * count, count, f);
        }
      }
    });
  }
  Scatter(codec, out, mem, Matrix(in.dst.imm, in.dst_rstride, in.dtype), rows, count);
}

// vtrans: src is rows x count, dst count x rows (its rows `dst_rstride` blocks apart). It moves
// bytes, so every bit pattern (signalling NaNs included) arrives unchanged.
void TransposeEffect(const Instr& in, MemView& mem) {
  const uint64_t rows = in.repeat.imm, count = in.count.imm, eb = Eb(in.dtype);
  const Operand s = Matrix(in.src.imm, in.src_rstride, in.dtype);
  const Operand d = Matrix(in.dst.imm, in.dst_rstride, in.dtype);
  const uint8_t* sp = mem.Ptr(MemSpace::kUb, s.base, Extent(s, rows, count));
  std::vector<uint8_t> moved(rows * count * eb);
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < count; ++c) {
      std::memcpy(&moved[(c * rows + r) * eb], sp + ElemOffset(s, r, c), eb);
    }
  }
  uint8_t* dp = mem.Ptr(MemSpace::kUb, d.base, Extent(d, count, rows));
  ForEachRun(d, count, rows, [&](uint64_t off, uint64_t first, uint64_t n) {
    std::memcpy(dp + off, &moved[first * eb], n * eb);
  });
}

}  // namespace

void Describe2d(const Instr& in, std::vector<Span>* out) {
  const uint64_t rows = in.repeat.imm, count = in.count.imm;
  const Shape shape = ShapeOf(in.op);
  const Operand src = Matrix(in.src.imm, in.src_rstride, in.dtype);
  if (shape == Shape::kTranspose) {
    DescribeOperand(src, rows, count, false, out);
    DescribeOperand(Matrix(in.dst.imm, in.dst_rstride, in.dtype), count, rows, true, out);
    return;
  }
  if (shape == Shape::kRowReduce || shape == Shape::kColReduce) {
    const Operand vec = Matrix(in.dst.imm, 0, in.dtype);
    const uint64_t n = shape == Shape::kRowReduce ? rows : count;
    DescribeOperand(src, rows, count, false, out);
    if (in.acc != 0) DescribeOperand(vec, 1, n, false, out);
    DescribeOperand(vec, 1, n, true, out);
    return;
  }
  if (shape != Shape::kBrcb) DescribeOperand(src, rows, count, false, out);
  DescribeOperand(Matrix(in.src1.imm, 0, in.dtype), 1, shape == Shape::kColBroadcast ? count : rows,
                  false, out);
  DescribeOperand(Matrix(in.dst.imm, in.dst_rstride, in.dtype), rows, count, true, out);
}

Status Apply2d(const Instr& in, MemView& mem) {
  if (in.repeat.imm == 0) return Status::Ok();
  const Shape shape = ShapeOf(in.op);
  if (shape == Shape::kTranspose) {
    TransposeEffect(in, mem);
    return Status::Ok();
  }
  VisitCodec(in.dtype, [&](const auto& codec) {
    if (shape == Shape::kRowReduce || shape == Shape::kColReduce) {
      ReduceEffect(in, shape, mem, codec);
    } else {
      BroadcastEffect(in, shape, mem, codec);
    }
  });
  return Status::Ok();
}

}  // namespace tilejit::runner::sim::internal
