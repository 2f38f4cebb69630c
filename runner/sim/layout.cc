// SPDX-License-Identifier: Apache-2.0
// Conversions walk whole fractals and move their contiguous runs (a fractal row for row-major
// inner order, a fractal column for column-major inner order) with memcpy; only the
// column-major inner order needs an element gather, which is a short strided loop.
#include "runner/sim/layout.h"

#include <algorithm>
#include <cstring>

#include "common/check.h"

namespace tilejit::runner::sim {
namespace {
bool IsWholeL0c(const FractalLayout& l);
}  // namespace

int64_t FractalLayout::Offset(int64_t r, int64_t c) const {
  const int64_t fr = r / frac_rows;
  const int64_t fc = c / frac_cols;
  const int64_t frac =
      outer == Order::kRowMajor ? fr * FracColCount() + fc : fc * FracRowCount() + fr;
  const int64_t ir = r % frac_rows;
  const int64_t ic = c % frac_cols;
  const int64_t inner_off = inner == Order::kRowMajor ? ir * frac_cols + ic : ic * frac_rows + ir;
  return frac * frac_rows * frac_cols + inner_off;
}

FractalLayout L1Layout(int64_t rows, int64_t cols, int elem_bytes) {
  return {rows, cols, elem_bytes, 16, C0(elem_bytes), Order::kRowMajor, Order::kColMajor};
}
FractalLayout L0ALayout(int64_t rows, int64_t cols, int elem_bytes) {
  return {rows, cols, elem_bytes, 16, C0(elem_bytes), Order::kRowMajor, Order::kRowMajor};
}
FractalLayout L0BLayout(int64_t rows, int64_t cols, int elem_bytes) {
  return {rows, cols, elem_bytes, C0(elem_bytes), 16, Order::kColMajor, Order::kRowMajor};
}
FractalLayout L0CLayout(int64_t rows, int64_t cols, int elem_bytes) {
  return {rows, cols, elem_bytes, 16, 16, Order::kRowMajor, Order::kColMajor};
}

namespace {

// Visits every fractal row run (row-major inner) of the layout: fn(r, c0, offset, count) for
// the run of `count` elements starting at logical (r, c0) stored at element `offset`.
template <typename Fn>
void ForEachRowRun(const FractalLayout& l, Fn&& fn) {
  for (int64_t fr = 0; fr < l.FracRowCount(); ++fr) {
    for (int64_t fc = 0; fc < l.FracColCount(); ++fc) {
      const int64_t c0 = fc * l.frac_cols;
      for (int64_t ir = 0; ir < l.frac_rows; ++ir) {
        const int64_t r = fr * l.frac_rows + ir;
        fn(r, c0, l.Offset(r, c0), static_cast<int64_t>(l.frac_cols));
      }
    }
  }
}

}  // namespace

namespace {
// zN with 16 x 16 fractals of 4-byte elements (L0C), whole fractals only: a fractal column
// block is a row-major (rows x 16) panel, so both directions are fixed 64-byte row copies.
bool IsWholeL0c(const FractalLayout& l) {
  return l.elem_bytes == 4 && l.frac_rows == 16 && l.frac_cols == 16 &&
         l.inner == Order::kRowMajor && l.outer == Order::kColMajor && l.rows % 16 == 0 &&
         l.cols % 16 == 0;
}
}  // namespace

void NdToFractal(const void* nd, int64_t ld, const FractalLayout& l, void* fractal) {
  TILEJIT_CHECK(ld >= l.cols);
  if (IsWholeL0c(l)) {
    const auto* src = static_cast<const uint32_t*>(nd);
    auto* dst = static_cast<uint32_t*>(fractal);
    for (int64_t cb = 0; cb < l.cols / 16; ++cb) {
      for (int64_t r = 0; r < l.rows; ++r) {
        uint32_t* out = dst + (cb * l.rows + r) * 16;
        const uint32_t* in = src + r * ld + cb * 16;
        for (int i = 0; i < 16; ++i) out[i] = in[i];
      }
    }
    return;
  }
  const auto* src = static_cast<const uint8_t*>(nd);
  auto* dst = static_cast<uint8_t*>(fractal);
  const int eb = l.elem_bytes;
  if (l.inner == Order::kRowMajor) {
    ForEachRowRun(l, [&](int64_t r, int64_t c0, int64_t off, int64_t count) {
      uint8_t* out = dst + off * eb;
      const int64_t valid = r < l.rows ? std::max<int64_t>(0, std::min(count, l.cols - c0)) : 0;
      if (valid > 0) std::memcpy(out, src + (r * ld + c0) * eb, valid * eb);
      if (valid < count) std::memset(out + valid * eb, 0, (count - valid) * eb);
    });
    return;
  }
  for (int64_t r = 0; r < l.PaddedRows(); ++r) {
    for (int64_t c = 0; c < l.PaddedCols(); ++c) {
      uint8_t* out = dst + l.Offset(r, c) * eb;
      if (r < l.rows && c < l.cols) {
        std::memcpy(out, src + (r * ld + c) * eb, eb);
      } else {
        std::memset(out, 0, eb);
      }
    }
  }
}

void FractalToNd(const void* fractal, const FractalLayout& l, void* nd, int64_t ld) {
  TILEJIT_CHECK(ld >= l.cols);
  if (IsWholeL0c(l)) {
    const auto* src = static_cast<const uint32_t*>(fractal);
    auto* dst = static_cast<uint32_t*>(nd);
    for (int64_t cb = 0; cb < l.cols / 16; ++cb) {
      for (int64_t r = 0; r < l.rows; ++r) {
        const uint32_t* in = src + (cb * l.rows + r) * 16;
        uint32_t* out = dst + r * ld + cb * 16;
        for (int i = 0; i < 16; ++i) out[i] = in[i];
      }
    }
    return;
  }
  const auto* src = static_cast<const uint8_t*>(fractal);
  auto* dst = static_cast<uint8_t*>(nd);
  const int eb = l.elem_bytes;
  if (l.inner == Order::kRowMajor) {
    ForEachRowRun(l, [&](int64_t r, int64_t c0, int64_t off, int64_t count) {
      if (r >= l.rows || c0 >= l.cols) return;
      const int64_t valid = std::min(count, l.cols - c0);
      std::memcpy(dst + (r * ld + c0) * eb, src + off * eb, valid * eb);
    });
    return;
  }
  for (int64_t r = 0; r < l.rows; ++r) {
    for (int64_t c = 0; c < l.cols; ++c) {
      std::memcpy(dst + (r * ld + c) * eb, src + l.Offset(r, c) * eb, eb);
    }
  }
}

void FractalToFractal(const void* src, const FractalLayout& sl, void* dst,
                      const FractalLayout& dl) {
  TILEJIT_CHECK(sl.rows == dl.rows && sl.cols == dl.cols && sl.elem_bytes == dl.elem_bytes);
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  const int eb = sl.elem_bytes;
  const bool runs = sl.inner == Order::kRowMajor && dl.inner == Order::kRowMajor &&
                    sl.frac_cols == dl.frac_cols && sl.frac_rows == dl.frac_rows;
  if (runs) {
    ForEachRowRun(dl, [&](int64_t r, int64_t c0, int64_t off, int64_t count) {
      std::memcpy(d + off * eb, s + sl.Offset(r, c0) * eb, count * eb);
    });
    return;
  }
  for (int64_t r = 0; r < dl.PaddedRows(); ++r) {
    for (int64_t c = 0; c < dl.PaddedCols(); ++c) {
      const bool inside = r < sl.PaddedRows() && c < sl.PaddedCols();
      uint8_t* out = d + dl.Offset(r, c) * eb;
      if (inside) {
        std::memcpy(out, s + sl.Offset(r, c) * eb, eb);
      } else {
        std::memset(out, 0, eb);
      }
    }
  }
}

}  // namespace tilejit::runner::sim
