// SPDX-License-Identifier: Apache-2.0
// Fractal (blocked) layouts of the cube-side memories, after reference/ascend_hw.md section 5,
// described by their inner and outer orders rather than by the two contradicting name
// conventions:
//
//   L1  "zN": fractals of 16 rows x C0 columns, row-major inside, column-major across
//   L0A "zZ": fractals of 16 rows x C0 columns, row-major inside, row-major across
//   L0B "nZ": fractals of C0 rows x 16 columns, column-major inside, row-major across
//   L0C "zN": fractals of 16 x 16 elements,    row-major inside, column-major across
//
// where C0 = 32 bytes / element size (16 for fp16/bf16, 8 for fp32). A matrix of R x C
// elements occupies ceil(R/fh) x ceil(C/fw) whole fractals; the padding elements of partial
// fractals are written as zero by the ND -> fractal conversions.
//
// Pure functions, thread-safe. Copies are bulk (one memcpy per fractal row or column run).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilejit::runner::sim {

enum class Order : uint8_t { kRowMajor, kColMajor };

struct FractalLayout {
  int64_t rows = 0;    // logical rows of the matrix
  int64_t cols = 0;    // logical columns
  int elem_bytes = 2;  // 1, 2 or 4
  int frac_rows = 16;  // fh
  int frac_cols = 16;  // fw
  Order inner = Order::kRowMajor;
  Order outer = Order::kColMajor;

  int64_t FracRowCount() const { return (rows + frac_rows - 1) / frac_rows; }
  int64_t FracColCount() const { return (cols + frac_cols - 1) / frac_cols; }
  int64_t PaddedRows() const { return FracRowCount() * frac_rows; }
  int64_t PaddedCols() const { return FracColCount() * frac_cols; }
  // Element count including padding.
  int64_t Elements() const { return PaddedRows() * PaddedCols(); }
  int64_t Bytes() const { return Elements() * elem_bytes; }
  // Element offset of logical (r, c), 0 <= r < PaddedRows(), 0 <= c < PaddedCols().
  int64_t Offset(int64_t r, int64_t c) const;
};

// C0 for an element size: 32 / elem_bytes.
inline int C0(int elem_bytes) { return 32 / elem_bytes; }

FractalLayout L1Layout(int64_t rows, int64_t cols, int elem_bytes);   // zN, 16 x C0
FractalLayout L0ALayout(int64_t rows, int64_t cols, int elem_bytes);  // zZ, 16 x C0
FractalLayout L0BLayout(int64_t rows, int64_t cols, int elem_bytes);  // nZ, C0 x 16
FractalLayout L0CLayout(int64_t rows, int64_t cols, int elem_bytes);  // zN, 16 x 16

// ND (row-major, `ld` elements between row starts, ld >= layout.cols) -> fractal buffer of
// layout.Bytes() bytes; padding elements become zero.
void NdToFractal(const void* nd, int64_t ld, const FractalLayout& layout, void* fractal);

// Fractal buffer -> ND (only the logical rows x cols are written).
void FractalToNd(const void* fractal, const FractalLayout& layout, void* nd, int64_t ld);

// Fractal -> fractal of the same logical shape and element size (e.g. L1 zN -> L0A zZ).
void FractalToFractal(const void* src, const FractalLayout& src_layout, void* dst,
                      const FractalLayout& dst_layout);

}  // namespace tilejit::runner::sim
