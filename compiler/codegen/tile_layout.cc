// SPDX-License-Identifier: Apache-2.0
// Layout decisions per scope. The fractal formulas themselves are docs/isa.md section 3; the
// only choices made here are which layout a scope uses and how its padding is sized, so that
// placement reserves exactly the bytes codegen addresses.
#include "compiler/codegen/tile_layout.h"

#include <algorithm>

#include "common/check.h"

namespace tilejit::codegen {
namespace {

constexpr int64_t kFractalBytes = 512;
constexpr int64_t kL0cFractalBytes = 1024;  // 16 x 16 fp32: also the mmad destination alignment

int64_t MemAlign(const target::NpuTarget& t, target::Mem m) {
  const target::MemInfo* info = target::MemInfoOf(t, m);
  return info != nullptr ? info->align.value : 32;
}

}  // namespace

target::Mem MemOf(ir::MemScope scope) {
  switch (scope) {
    case ir::MemScope::kGM:
      return target::Mem::kGM;
    case ir::MemScope::kL1:
      return target::Mem::kL1;
    case ir::MemScope::kL0A:
      return target::Mem::kL0A;
    case ir::MemScope::kL0B:
      return target::Mem::kL0B;
    case ir::MemScope::kL0C:
      return target::Mem::kL0C;
    case ir::MemScope::kUB:
      return target::Mem::kUB;
    default:
      break;
  }
  TILEJIT_UNREACHABLE() << ": scope " << ir::MemScopeName(scope) << " has no memory";
  return target::Mem::kGM;
}

TileLayout LayoutOf(const ir::BufferNode& buffer, const target::NpuTarget& target) {
  TileLayout l;
  l.elem_bytes = ir::DTypeBytes(buffer.dtype);
  const auto& shape = buffer.shape;
  const size_t rank = shape.size();
  l.cols = rank >= 1 ? shape[rank - 1] : 1;
  l.rows = rank >= 2 ? shape[rank - 2] : 1;
  for (size_t i = 0; i + 2 < rank; ++i) l.batch *= shape[i];
  l.c0 = 32 / l.elem_bytes;
  const int64_t es = l.elem_bytes;
  switch (buffer.scope) {
    case ir::MemScope::kLocalVar:
      l.kind = LayoutKind::kRegister;
      l.align = 1;
      return l;
    case ir::MemScope::kGM:
      l.kind = LayoutKind::kND;
      l.pitch = l.cols * es;
      l.matrix_bytes = l.rows * l.pitch;
      l.align = 1;
      break;
    case ir::MemScope::kUB:
      l.kind = LayoutKind::kND;
      l.pitch = rank >= 2 ? RoundUp(l.cols * es, 32) : l.cols * es;
      l.matrix_bytes = RoundUp(l.rows * l.pitch, 32);
      l.align = MemAlign(target, target::Mem::kUB);
      break;
    case ir::MemScope::kL1:
      l.kind = LayoutKind::kZN;
      l.pitch = RoundUp(l.rows, 16);
      l.matrix_bytes = CeilDiv(l.cols, l.c0) * l.pitch * 32;
      l.align = std::max<int64_t>(MemAlign(target, target::Mem::kL1), 32);
      break;
    case ir::MemScope::kL0A:
      l.kind = LayoutKind::kZZ;
      l.matrix_bytes = CeilDiv(l.rows, 16) * CeilDiv(l.cols, l.c0) * kFractalBytes;
      l.align = std::max(MemAlign(target, target::Mem::kL0A), kFractalBytes);
      break;
    case ir::MemScope::kL0B:
      l.kind = LayoutKind::kNZ;
      l.matrix_bytes = CeilDiv(l.rows, l.c0) * CeilDiv(l.cols, 16) * kFractalBytes;
      l.align = std::max(MemAlign(target, target::Mem::kL0B), kFractalBytes);
      break;
    case ir::MemScope::kL0C:
      l.kind = LayoutKind::kZN;
      l.c0 = 16;
      l.pitch = RoundUp(l.rows, 16);
      l.matrix_bytes = CeilDiv(l.cols, 16) * l.pitch * 16 * es;
      l.matrix_bytes = RoundUp(l.matrix_bytes, kL0cFractalBytes);
      l.align = std::max(MemAlign(target, target::Mem::kL0C), kL0cFractalBytes);
      break;
    default:
      TILEJIT_UNREACHABLE() << ": layout of unresolved scope " << ir::MemScopeName(buffer.scope);
  }
  l.bytes = l.batch * l.matrix_bytes;
  return l;
}

}  // namespace tilejit::codegen
