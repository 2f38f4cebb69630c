// SPDX-License-Identifier: Apache-2.0
// The classification lives in one place so that the pass which scopes Expert kernels and the
// pass which splits Developer kernels can never disagree about where a statement runs.
#include "compiler/analysis/core_kind.h"

#include <variant>

#include "compiler/analysis/buffer_access.h"

namespace tilejit::analysis {
namespace {

Work Combine(Work a, Work b) { return a == Work::kShared ? b : a; }

// Printing runs where its operands live: a dump of UB on the vector cores, of L1 or L0 on the
// cube, of GM (and a printf of values every core has) on every core type the kernel uses.
Work DebugWork(const ir::TileOpNode& op) {
  Work w = Work::kShared;
  for (const BufferAccess& a : AccessesOf(op)) {
    if (IsCubeScope(a.buffer->scope)) w = Work::kCube;
    if (a.buffer->scope == ir::MemScope::kUB) w = Work::kVector;
  }
  return w;
}

Work TileOpWork(const ir::TileOpNode& op) {
  if (ir::TileOpFamilyOf(op.op) == ir::TileOpFamily::kDebug) return DebugWork(op);
  if (op.op == ir::TileOpCode::kGemmV0 || op.op == ir::TileOpCode::kMma) return Work::kCube;
  if (op.op != ir::TileOpCode::kCopy && op.op != ir::TileOpCode::kFill) return Work::kVector;
  for (const ir::Operand& arg : op.args) {
    const auto* r = std::get_if<ir::Region>(&arg);
    if (r != nullptr && IsCubeScope(r->buffer->scope)) return Work::kCube;
  }
  return Work::kVector;
}

}  // namespace

bool IsCubeScope(ir::MemScope s) {
  return s == ir::MemScope::kL1 || s == ir::MemScope::kL0A || s == ir::MemScope::kL0B ||
         s == ir::MemScope::kL0C;
}

Work PipeWork(target::Pipe p) {
  switch (p) {
    case target::Pipe::kMte1:
    case target::Pipe::kM:
    case target::Pipe::kFix:
      return Work::kCube;
    case target::Pipe::kV:
      return Work::kVector;
    default:
      return Work::kShared;
  }
}

Work LeafWork(const ir::StmtNode& s) {
  switch (s.kind) {
    case ir::StmtKind::kTileOp:
      return TileOpWork(static_cast<const ir::TileOpNode&>(s));
    case ir::StmtKind::kBarrier:
      return PipeWork(static_cast<const ir::BarrierNode&>(s).pipe);
    case ir::StmtKind::kSetFlag:
    case ir::StmtKind::kWaitFlag: {
      const auto& f = static_cast<const ir::FlagNode&>(s);
      return Combine(PipeWork(f.src), PipeWork(f.dst));
    }
    case ir::StmtKind::kSetCrossFlag:
    case ir::StmtKind::kWaitCrossFlag:
      return PipeWork(static_cast<const ir::CrossFlagNode&>(s).pipe);
    case ir::StmtKind::kStore:
      return static_cast<const ir::StoreNode&>(s).buffer->scope == ir::MemScope::kUB ? Work::kVector
                                                                                     : Work::kNone;
    default:
      return Work::kNone;
  }
}

std::string_view LeafName(const ir::StmtNode& s) {
  if (s.kind == ir::StmtKind::kTileOp) {
    return ir::TileOpName(static_cast<const ir::TileOpNode&>(s).op);
  }
  return s.kind == ir::StmtKind::kStore ? "store" : "sync";
}

}  // namespace tilejit::analysis
