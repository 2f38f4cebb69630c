// SPDX-License-Identifier: Apache-2.0
// Layout decisions per memory. The fractal formulas themselves are docs/isa.md section 3; the
// only choices made here are which layout a memory uses and how its padding is sized, so that
// placement reserves exactly the bytes codegen addresses.
#include "compiler/target/tile_layout.h"

#include <algorithm>

#include "common/check.h"

namespace tilejit::target {
namespace {

int64_t MemAlign(const NpuTarget& t, Mem m) {
  const MemInfo* info = MemInfoOf(t, m);
  return info != nullptr ? info->align.value : 32;
}

// The dims every layout shares: batch, rows, cols and the element size.
TileLayout Dims(int elem_bytes, std::span<const int64_t> shape) {
  TileLayout l;
  l.elem_bytes = elem_bytes;
  const size_t rank = shape.size();
  l.cols = rank >= 1 ? shape[rank - 1] : 1;
  l.rows = rank >= 2 ? shape[rank - 2] : 1;
  for (size_t i = 0; i + 2 < rank; ++i) l.batch *= shape[i];
  l.c0 = 32 / l.elem_bytes;
  return l;
}

}  // namespace

TileLayout RegisterLayout(int elem_bytes, std::span<const int64_t> shape) {
  TileLayout l = Dims(elem_bytes, shape);
  l.kind = LayoutKind::kRegister;
  l.align = 1;
  return l;
}

TileLayout LayoutOf(Mem mem, int elem_bytes, std::span<const int64_t> shape,
                    const NpuTarget& target) {
  TileLayout l = Dims(elem_bytes, shape);
  const size_t rank = shape.size();
  const int64_t es = l.elem_bytes;
  switch (mem) {
    case Mem::kGM:
      l.kind = LayoutKind::kND;
      l.pitch = l.cols * es;
      l.matrix_bytes = l.rows * l.pitch;
      l.align = 1;
      break;
    case Mem::kUB:
      l.kind = LayoutKind::kND;
      l.pitch = rank >= 2 ? RoundUp(l.cols * es, 32) : l.cols * es;
      l.matrix_bytes = RoundUp(l.rows * l.pitch, 32);
      l.align = MemAlign(target, Mem::kUB);
      break;
    case Mem::kL1:
      l.kind = LayoutKind::kZN;
      l.pitch = RoundUp(l.rows, 16);
      l.matrix_bytes = CeilDiv(l.cols, l.c0) * l.pitch * 32;
      l.align = std::max<int64_t>(MemAlign(target, Mem::kL1), 32);
      break;
    case Mem::kL0A:
      l.kind = LayoutKind::kZZ;
      l.matrix_bytes = CeilDiv(l.rows, 16) * CeilDiv(l.cols, l.c0) * kFractalBytes;
      l.align = std::max(MemAlign(target, Mem::kL0A), kFractalBytes);
      break;
    case Mem::kL0B:
      l.kind = LayoutKind::kNZ;
      l.matrix_bytes = CeilDiv(l.rows, l.c0) * CeilDiv(l.cols, 16) * kFractalBytes;
      l.align = std::max(MemAlign(target, Mem::kL0B), kFractalBytes);
      break;
    case Mem::kL0C:
      l.kind = LayoutKind::kZN;
      l.c0 = 16;
      l.pitch = RoundUp(l.rows, 16);
      l.matrix_bytes = CeilDiv(l.cols, 16) * l.pitch * 16 * es;
      l.matrix_bytes = RoundUp(l.matrix_bytes, kL0cFractalBytes);
      l.align = std::max(MemAlign(target, Mem::kL0C), kL0cFractalBytes);
      break;
    default:
      TILEJIT_UNREACHABLE() << ": no tile layout in memory " << MemName(mem);
  }
  l.bytes = l.batch * l.matrix_bytes;
  return l;
}

}  // namespace tilejit::target
