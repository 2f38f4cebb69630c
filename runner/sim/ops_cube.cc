// SPDX-License-Identifier: Apache-2.0
// Cube-side effects. Addresses inside a zN matrix with `pitch` rows per column block:
// element (r, c) is at base + ((c / C0) * pitch + r) * 32 + (c % C0) * elem_bytes. L0A/L0B/L0C
// tiles are whole fractals (layout.h); mmad converts its operands to row-major fp32 and hands
// the product to the BLAS.
#include <algorithm>
#include <cstring>
#include <vector>

#include "runner/sim/gemm.h"
#include "runner/sim/half.h"
#include "runner/sim/layout.h"
#include "runner/sim/ops.h"

namespace tilejit::runner::sim::internal {
namespace {

using target::AtomicOp;
using target::DType;
using target::Instr;
using target::Opcode;

uint64_t Round(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }
uint64_t Eb(DType d) { return target::DTypeBytes(d); }
uint64_t C0(DType d) { return 32 / Eb(d); }

uint64_t ZnOffset(uint64_t r, uint64_t c, uint64_t pitch, uint64_t c0, uint64_t eb) {
  return ((c / c0) * pitch + r) * 32 + (c % c0) * eb;
}

// Logical shape of the matrix stored in L1 by a load: A/B itself or its transpose.
struct L1Shape {
  uint64_t rows, cols;
};
L1Shape LoadSource(const Instr& in) {
  if (in.transpose != 0)
    return {static_cast<uint64_t>(in.cols.imm), static_cast<uint64_t>(in.rows.imm)};
  return {static_cast<uint64_t>(in.rows.imm), static_cast<uint64_t>(in.cols.imm)};
}

FractalLayout LoadDestLayout(const Instr& in) {
  const int eb = static_cast<int>(Eb(in.dtype));
  return in.op == Opcode::kLoadL0a ? L0ALayout(in.rows.imm, in.cols.imm, eb)
                                   : L0BLayout(in.rows.imm, in.cols.imm, eb);
}

void DescribeLoad(const Instr& in, std::vector<Span>* out) {
  const L1Shape s = LoadSource(in);
  const uint64_t c0 = C0(in.dtype);
  for (uint64_t cb = 0; cb < Round(s.cols, c0) / c0; ++cb) {
    AddRun(out, {MemSpace::kL1, in.src.imm + cb * in.src_pitch.imm * 32, s.rows * 32, false});
  }
  const MemSpace dst = in.op == Opcode::kLoadL0a ? MemSpace::kL0A : MemSpace::kL0B;
  AddRun(out, {dst, static_cast<uint64_t>(in.dst.imm),
               static_cast<uint64_t>(LoadDestLayout(in).Bytes()), true});
}

// L1 zN (k x n) -> L0B nZ without transposition: each destination fractal column (one n,
// C0 consecutive k) is a gather with a stride of one 32-byte L1 row.
template <typename T>
void ZnToNz(const T* src, T* dst, uint64_t rows, uint64_t cols, uint64_t pitch, uint64_t c0) {
  const uint64_t nf = (cols + 15) / 16;
  for (uint64_t kb = 0; kb * c0 < rows; ++kb) {
    const uint64_t kmax = std::min(c0, rows - kb * c0);
    for (uint64_t nb = 0; nb < nf; ++nb) {
      T* frac = dst + (kb * nf + nb) * 16 * c0;
      for (uint64_t nn = 0; nn < 16 && nb * 16 + nn < cols; ++nn) {
        const uint64_t n = nb * 16 + nn;
        const T* col = src + ((n / c0) * pitch + kb * c0) * c0 + n % c0;
        T* out = frac + nn * c0;
        for (uint64_t kk = 0; kk < kmax; ++kk) out[kk] = col[kk * c0];
      }
    }
  }
}

void ApplyLoad(const Instr& in, MemView& mem) {
  const FractalLayout dl = LoadDestLayout(in);
  const uint64_t eb = Eb(in.dtype), c0 = C0(in.dtype), pitch = in.src_pitch.imm;
  const L1Shape s = LoadSource(in);
  const uint64_t src_bytes = ZnOffset(s.rows - 1, Round(s.cols, c0) - 1, pitch, c0, eb) + eb;
  const uint8_t* src = mem.Ptr(MemSpace::kL1, in.src.imm, src_bytes);
  const MemSpace space = in.op == Opcode::kLoadL0a ? MemSpace::kL0A : MemSpace::kL0B;
  uint8_t* dst = mem.Ptr(space, in.dst.imm, dl.Bytes());
  if (dl.PaddedRows() != dl.rows || dl.PaddedCols() != dl.cols) {
    std::memset(dst, 0, dl.Bytes());  // fractal padding is written as zero
  }
  const bool row_runs = in.transpose == 0 && dl.inner == Order::kRowMajor;
  const bool col_runs = in.transpose != 0 && dl.inner == Order::kColMajor;
  if (row_runs || col_runs) {
    // A C0-wide piece of one L1 row is one fractal row (zZ) or column (nZ) of the target.
    for (uint64_t r = 0; r < s.rows; ++r) {
      for (uint64_t c = 0; c < s.cols; c += c0) {
        const uint64_t dr = row_runs ? r : c, dc = row_runs ? c : r;
        const uint64_t n = std::min(c0, s.cols - c);
        std::memcpy(dst + dl.Offset(dr, dc) * eb, src + ZnOffset(r, c, pitch, c0, eb), n * eb);
      }
    }
    return;
  }
  if (in.op == Opcode::kLoadL0b && in.transpose == 0 && (eb == 2 || eb == 4)) {
    if (eb == 2) {
      ZnToNz(reinterpret_cast<const uint16_t*>(src), reinterpret_cast<uint16_t*>(dst), s.rows,
             s.cols, pitch, c0);
    } else {
      ZnToNz(reinterpret_cast<const uint32_t*>(src), reinterpret_cast<uint32_t*>(dst), s.rows,
             s.cols, pitch, c0);
    }
    return;
  }
  for (int64_t r = 0; r < dl.rows; ++r) {
    for (int64_t c = 0; c < dl.cols; ++c) {
      const uint64_t sr = in.transpose ? c : r, sc = in.transpose ? r : c;
      std::memcpy(dst + dl.Offset(r, c) * eb, src + ZnOffset(sr, sc, pitch, c0, eb), eb);
    }
  }
}

// The bytes of C (m x n) an mmad writes: whole 64-byte rows of full column blocks, partial
// rows of a last partial block.
void AddL0cRuns(const Instr& in, bool write, std::vector<Span>* out) {
  const uint64_t m = in.m.imm, n = in.n.imm, pitch = Round(m, 16);
  for (uint64_t cb = 0; cb * 16 < n; ++cb) {
    const uint64_t base = in.dst.imm + cb * pitch * 64;
    const uint64_t width = std::min<uint64_t>(16, n - cb * 16);
    if (width == 16) {
      AddRun(out, {MemSpace::kL0C, base, m * 64, write, true});
      continue;
    }
    for (uint64_t r = 0; r < m; ++r)
      AddRun(out, {MemSpace::kL0C, base + r * 64, width * 4, write, true});
  }
}

void DescribeMmad(const Instr& in, std::vector<Span>* out) {
  const int64_t m = in.m.imm, n = in.n.imm, k = in.k.imm;
  if (m == 0 || n == 0) return;
  const int eb = static_cast<int>(Eb(in.dtype));
  if (k > 0) {
    AddRun(out, {MemSpace::kL0A, static_cast<uint64_t>(in.src.imm),
                 static_cast<uint64_t>(L0ALayout(m, k, eb).Bytes()), false});
    AddRun(out, {MemSpace::kL0B, static_cast<uint64_t>(in.src1.imm),
                 static_cast<uint64_t>(L0BLayout(k, n, eb).Bytes()), false});
  }
  if (in.init.imm == 0) AddL0cRuns(in, false, out);
  AddL0cRuns(in, true, out);
}

void ToFloat(const uint8_t* src, DType d, size_t n, float* out) {
  if (d == DType::kF16) {
    HalfToFloatN(reinterpret_cast<const uint16_t*>(src), out, n);
  } else if (d == DType::kBF16) {
    Bf16ToFloatN(reinterpret_cast<const uint16_t*>(src), out, n);
  } else {
    std::memcpy(out, src, n * 4);
  }
}

// L0B nZ (k x n) -> B^T row-major (n x k): a fractal column holds C0 consecutive k of one n.
void NzToTransposed(const uint8_t* frac, const FractalLayout& bl, uint8_t* out) {
  const uint64_t k = bl.rows, n = bl.cols, c0 = bl.frac_rows, eb = bl.elem_bytes;
  const uint64_t nf = bl.FracColCount();
  for (uint64_t kb = 0; kb * c0 < k; ++kb) {
    const uint64_t run = std::min(c0, k - kb * c0) * eb;
    for (uint64_t col = 0; col < n; ++col) {
      const uint64_t f = kb * nf + col / 16;
      std::memcpy(out + (col * k + kb * c0) * eb, frac + (f * 16 * c0 + (col % 16) * c0) * eb, run);
    }
  }
}

void MmadInt8(const Instr& in, MemView& mem) {
  const int64_t m = in.m.imm, n = in.n.imm, k = in.k.imm;
  const FractalLayout al = L0ALayout(m, k, 1), bl = L0BLayout(k, n, 1), cl = L0CLayout(m, n, 4);
  const auto* a = reinterpret_cast<const int8_t*>(mem.Ptr(MemSpace::kL0A, in.src.imm, al.Bytes()));
  const auto* b = reinterpret_cast<const int8_t*>(mem.Ptr(MemSpace::kL0B, in.src1.imm, bl.Bytes()));
  uint8_t* c = mem.Ptr(MemSpace::kL0C, in.dst.imm, cl.Bytes());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t acc = 0;
      if (in.init.imm == 0) std::memcpy(&acc, c + cl.Offset(i, j) * 4, 4);
      for (int64_t p = 0; p < k; ++p) acc += int32_t{a[al.Offset(i, p)]} * b[bl.Offset(p, j)];
      std::memcpy(c + cl.Offset(i, j) * 4, &acc, 4);
    }
  }
}

void ApplyMmad(const Instr& in, MemView& mem) {
  const int64_t m = in.m.imm, n = in.n.imm, k = in.k.imm;
  if (m == 0 || n == 0) return;
  if (in.dtype == DType::kS8) {
    MmadInt8(in, mem);
    return;
  }
  const int eb = static_cast<int>(Eb(in.dtype));
  const FractalLayout al = L0ALayout(m, k, eb), bl = L0BLayout(k, n, eb), cl = L0CLayout(m, n, 4);
  thread_local std::vector<uint8_t> raw;
  thread_local std::vector<float> a, b, c;
  a.resize(m * k);
  b.resize(k * n);
  c.resize(m * n);
  raw.resize(std::max(m * k, k * n) * eb);
  if (k > 0) {
    FractalToNd(mem.Ptr(MemSpace::kL0A, in.src.imm, al.Bytes()), al, raw.data(), k);
    ToFloat(raw.data(), in.dtype, m * k, a.data());
    NzToTransposed(mem.Ptr(MemSpace::kL0B, in.src1.imm, bl.Bytes()), bl, raw.data());
    ToFloat(raw.data(), in.dtype, k * n, b.data());
  }
  uint8_t* cp = mem.Ptr(MemSpace::kL0C, in.dst.imm, cl.Bytes());
  const bool accumulate = in.init.imm == 0;
  const bool whole = cl.PaddedRows() == m && cl.PaddedCols() == n;
  if (accumulate && whole && k > 0) {
    // Fused accumulation: the product lands in scratch and is added panel by panel into the
    // zN tile (one pass over C instead of a round trip through row-major).
    GemmF32(m, n, k, a.data(), k, b.data(), k, c.data(), n, false, /*b_transposed=*/true);
    for (int64_t cb = 0; cb < n / 16; ++cb) {
      for (int64_t r = 0; r < m; ++r) {
        float acc[16];
        uint8_t* p = cp + ((cb * m + r) * 16) * 4;
        std::memcpy(acc, p, sizeof(acc));
        const float* add = &c[r * n + cb * 16];
        for (int i = 0; i < 16; ++i) acc[i] += add[i];
        std::memcpy(p, acc, sizeof(acc));
      }
    }
    return;
  }
  if (accumulate) FractalToNd(cp, cl, c.data(), n);
  if (k > 0) {
    GemmF32(m, n, k, a.data(), k, b.data(), k, c.data(), n, accumulate, /*b_transposed=*/true);
  } else if (!accumulate) {
    std::fill(c.begin(), c.end(), 0.0f);
  }
  if (whole) {
    NdToFractal(c.data(), n, cl, cp);
    return;
  }
  // Partial fractals: only r < m, c < n are written; the padding keeps its contents.
  FractalLayout padded = cl;
  padded.rows = cl.PaddedRows();
  padded.cols = cl.PaddedCols();
  thread_local std::vector<float> tile;
  tile.resize(cl.Elements());
  FractalToNd(cp, padded, tile.data(), padded.cols);
  for (int64_t i = 0; i < m; ++i) std::memcpy(&tile[i * padded.cols], &c[i * n], n * 4);
  NdToFractal(tile.data(), padded.cols, padded, cp);
}

// L0C element (r, c) of a fixpipe source: zN with 16 columns per block and src_pitch rows.
uint64_t L0cOffset(const Instr& in, uint64_t r, uint64_t c) {
  return ((c / 16) * in.src_pitch.imm + r) * 16 * 4 + (c % 16) * 4;
}

void DescribeFix(const Instr& in, std::vector<Span>* out) {
  const uint64_t rows = in.rows.imm, cols = in.cols.imm;
  const bool to_l1 = in.op == Opcode::kFixL0cL1;
  for (uint64_t cb = 0; cb < Round(cols, 16) / 16; ++cb) {
    AddRun(out, {MemSpace::kL0C, in.src.imm + cb * in.src_pitch.imm * 64, rows * 64, false});
  }
  const uint64_t eb = Eb(in.odtype);
  if (to_l1) {
    const uint64_t c0 = C0(in.odtype);
    for (uint64_t cb = 0; cb < Round(cols, c0) / c0; ++cb) {
      AddRun(out,
             {MemSpace::kL1, in.dst.imm + cb * in.dst_pitch.imm * 32, Round(rows, 16) * 32, true});
    }
    return;
  }
  const bool atomic = in.atomic != AtomicOp::kNone;
  for (uint64_t r = 0; r < rows; ++r) {
    AddRun(out,
           {MemSpace::kGm, in.dst.imm + r * in.dst_stride.imm, cols * eb, true, false, atomic});
  }
}

double Combine(AtomicOp op, double old, double v) {
  switch (op) {
    case AtomicOp::kAdd:
      return old + v;
    case AtomicOp::kMax:
      return std::max(old, v);
    case AtomicOp::kMin:
      return std::min(old, v);
    case AtomicOp::kNone:
      break;
  }
  return v;
}

// fix_l0c_gm from f32 without atomics: one converted run of up to 16 values per column block.
bool FixGmFast(const Instr& in, MemView& mem) {
  if (in.op != Opcode::kFixL0cGm || in.dtype != DType::kF32 || in.atomic != AtomicOp::kNone) {
    return false;
  }
  const uint64_t rows = in.rows.imm, cols = in.cols.imm, eb = Eb(in.odtype);
  const uint8_t* src =
      mem.Ptr(MemSpace::kL0C, in.src.imm, L0cOffset(in, rows - 1, Round(cols, 16) - 1) + 4);
  float run[16];
  for (uint64_t r = 0; r < rows; ++r) {
    uint8_t* row = mem.Ptr(MemSpace::kGm, in.dst.imm + r * in.dst_stride.imm, cols * eb);
    for (uint64_t cb = 0; cb * 16 < cols; ++cb) {
      const uint64_t w = std::min<uint64_t>(16, cols - cb * 16);
      std::memcpy(run, src + L0cOffset(in, r, cb * 16), w * 4);
      if (in.relu != 0) {
        for (uint64_t i = 0; i < w; ++i) run[i] = run[i] < 0 ? 0.0f : run[i];
      }
      uint8_t* out = row + cb * 16 * eb;
      if (in.odtype == DType::kF32) {
        std::memcpy(out, run, w * 4);
      } else {
        uint16_t h[16];
        if (in.odtype == DType::kF16) {
          FloatToHalfN(run, h, w);
        } else {
          FloatToBf16N(run, h, w);
        }
        std::memcpy(out, h, w * 2);
      }
    }
  }
  return true;
}

void ApplyFix(const Instr& in, MemView& mem) {
  if (FixGmFast(in, mem)) return;
  const uint64_t rows = in.rows.imm, cols = in.cols.imm;
  const uint64_t eb = Eb(in.odtype);
  const bool to_l1 = in.op == Opcode::kFixL0cL1;
  const uint64_t out_rows = to_l1 ? Round(rows, 16) : rows;
  const uint64_t c0 = C0(in.odtype);
  const uint64_t out_cols = to_l1 ? Round(cols, c0) : cols;
  const uint64_t src_bytes = L0cOffset(in, rows - 1, Round(cols, 16) - 1) + 4;
  const uint8_t* src = mem.Ptr(MemSpace::kL0C, in.src.imm, src_bytes);
  for (uint64_t r = 0; r < out_rows; ++r) {
    uint8_t* row =
        to_l1 ? nullptr : mem.Ptr(MemSpace::kGm, in.dst.imm + r * in.dst_stride.imm, cols * eb);
    for (uint64_t c = 0; c < out_cols; ++c) {
      double v = c < cols && r < rows ? LoadElem(src + L0cOffset(in, r, c), in.dtype) : 0.0;
      if (in.relu != 0 && v < 0) v = 0;
      if (to_l1) {
        const uint64_t off = ZnOffset(r, c, in.dst_pitch.imm, c0, eb);
        StoreElem(mem.Ptr(MemSpace::kL1, in.dst.imm + off, eb), in.odtype, v);
        continue;
      }
      uint8_t* p = row + c * eb;
      if (in.atomic != AtomicOp::kNone) v = Combine(in.atomic, LoadElem(p, in.odtype), v);
      StoreElem(p, in.odtype, v);
    }
  }
}

}  // namespace

void DescribeCube(const Instr& in, std::vector<Span>* out) {
  switch (in.op) {
    case Opcode::kLoadL0a:
    case Opcode::kLoadL0b:
      DescribeLoad(in, out);
      return;
    case Opcode::kMmad:
      DescribeMmad(in, out);
      return;
    case Opcode::kFixL0cGm:
    case Opcode::kFixL0cL1:
      DescribeFix(in, out);
      return;
    default:
      return;
  }
}

Status ApplyCube(const Instr& in, MemView& mem) {
  switch (in.op) {
    case Opcode::kLoadL0a:
    case Opcode::kLoadL0b:
      ApplyLoad(in, mem);
      return Status::Ok();
    case Opcode::kMmad:
      ApplyMmad(in, mem);
      return Status::Ok();
    case Opcode::kFixL0cGm:
    case Opcode::kFixL0cL1:
      ApplyFix(in, mem);
      return Status::Ok();
    default:
      return InvalidArgument(std::string(target::OpcodeName(in.op)) + " is not a cube instruction");
  }
}

}  // namespace tilejit::runner::sim::internal
