// SPDX-License-Identifier: Apache-2.0
// The physical layout of a tile in a memory of the target: the one definition shared by
// memory placement (sizes, alignment) and codegen (addresses). docs/isa.md section 3 defines
// the fractal layouts; this file decides which one each memory uses:
//
//   memory  layout                    matrix = last two dims (a 1-D tile is 1 x n)
//   gm      ND, dense row-major       row pitch = cols * es
//   ub      ND, rows 32-byte aligned  row pitch = roundup(cols * es, 32) (1-D: dense)
//   l1      zN(P, C0)                 P = roundup(rows, 16), C0 = 32 / es
//   l0a     zZ                        16 x C0 fractals of 512 B
//   l0b     nZ                        C0 x 16 fractals of 512 B
//   l0c     zN(P, 16), 4-byte elems   P = roundup(rows, 16)
//
// Leading dims (all but the last two) index whole matrices ("batch"), each matrix_bytes long,
// so a multi-buffered tile [2, 128, 64] is two independent 128 x 64 matrices. A scalar held in
// a register (the IR's `var` scope) has the kRegister layout and no memory (ir/buffer_layout.h).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "compiler/target/npu_target.h"

namespace tilejit::target {

// One cube fractal of L0A/L0B (16 x 32 bytes), and of L0C (16 x 16 four-byte elements, also the
// mmad destination alignment).
inline constexpr int64_t kFractalBytes = 512;
inline constexpr int64_t kL0cFractalBytes = 1024;

enum class LayoutKind : uint8_t { kND, kZN, kZZ, kNZ, kRegister };

struct TileLayout {
  LayoutKind kind = LayoutKind::kND;
  int elem_bytes = 4;
  int64_t batch = 1;  // product of the leading dims
  int64_t rows = 1;   // second-to-last dim (1 for a 1-D buffer)
  int64_t cols = 1;   // last dim
  // kND: bytes between row starts. kZN: P, the rows per column block (a multiple of 16).
  // Unused otherwise.
  int64_t pitch = 0;
  int64_t c0 = 8;            // elements per 32 bytes (kZN, kZZ, kNZ); 16 for L0C
  int64_t matrix_bytes = 0;  // bytes of one (padded) matrix
  int64_t bytes = 0;         // batch * matrix_bytes: what placement reserves
  int64_t align = 32;        // required start alignment in bytes
};

// The layout of a tile of `shape` with `elem_bytes`-byte elements in `mem` of `target`.
// Requires mem in {gm, ub, l1, l0a, l0b, l0c}.
TileLayout LayoutOf(Mem mem, int elem_bytes, std::span<const int64_t> shape,
                    const NpuTarget& target);

// The layout of a scalar register: no memory, alignment 1.
TileLayout RegisterLayout(int elem_bytes, std::span<const int64_t> shape);

// Rounds `v` up to a multiple of `m` (m > 0).
inline int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
inline int64_t CeilDiv(int64_t v, int64_t m) { return (v + m - 1) / m; }

}  // namespace tilejit::target
