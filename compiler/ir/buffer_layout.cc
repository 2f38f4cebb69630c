// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/buffer_layout.h"

#include "common/check.h"

namespace tilejit::ir {

target::Mem MemOf(MemScope scope) {
  switch (scope) {
    case MemScope::kGM:
      return target::Mem::kGM;
    case MemScope::kL1:
      return target::Mem::kL1;
    case MemScope::kL0A:
      return target::Mem::kL0A;
    case MemScope::kL0B:
      return target::Mem::kL0B;
    case MemScope::kL0C:
      return target::Mem::kL0C;
    case MemScope::kUB:
      return target::Mem::kUB;
    default:
      break;
  }
  TILEJIT_UNREACHABLE() << ": scope " << MemScopeName(scope) << " has no memory";
  return target::Mem::kGM;
}

target::TileLayout LayoutOf(const BufferNode& buffer, const target::NpuTarget& target) {
  const int es = DTypeBytes(buffer.dtype);
  if (buffer.scope == MemScope::kLocalVar) return target::RegisterLayout(es, buffer.shape);
  return target::LayoutOf(MemOf(buffer.scope), es, buffer.shape, target);
}

}  // namespace tilejit::ir
