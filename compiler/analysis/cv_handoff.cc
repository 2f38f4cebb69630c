// SPDX-License-Identifier: Apache-2.0
#include "compiler/analysis/cv_handoff.h"

#include <variant>

namespace tilejit::analysis {
namespace {

using ir::MemScope;

const ir::Region* RegionArg(const ir::TileOpNode& op, size_t i) {
  return i < op.args.size() ? std::get_if<ir::Region>(&op.args[i]) : nullptr;
}

}  // namespace

bool IsCrossCoreCopy(const ir::TileOpNode& op) {
  if (op.op != ir::TileOpCode::kCopy) return false;
  const ir::Region* dst = RegionArg(op, 0);
  const ir::Region* src = RegionArg(op, 1);
  if (dst == nullptr || src == nullptr || op.args.size() != 2) return false;
  const MemScope s = src->buffer->scope;
  const MemScope d = dst->buffer->scope;
  return (s == MemScope::kL0C && d == MemScope::kUB) || (s == MemScope::kUB && d == MemScope::kL1);
}

bool IsCompilerWorkspace(const ir::BufferNode& b) { return b.compiler_made && IsWorkspace(b); }

bool IsWorkspace(const ir::BufferNode& b) {
  return b.role == ir::BufferRole::kWorkspace && b.scope == MemScope::kGM;
}

}  // namespace tilejit::analysis
