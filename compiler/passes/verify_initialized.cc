// SPDX-License-Identifier: Apache-2.0
// verify_initialized runs first, on the traced kernel: there program order is the author's
// order, and no compiler-made buffer (staging tiles, scratch, workspaces) exists yet whose
// reads the compiler itself would have to justify. A read before every write is found with
// one walk of the access trace in program order; positions stand for statements, so a write
// and a read by the same statement (an op accumulating into its destination) never count.
#include "compiler/passes/verify_initialized.h"

#include <map>
#include <set>
#include <string>

#include "compiler/analysis/buffer_access.h"

namespace tilejit::passes {
namespace {

bool IsOnChip(const ir::BufferNode& b) {
  switch (b.scope) {
    case ir::MemScope::kUB:
    case ir::MemScope::kL1:
    case ir::MemScope::kL0A:
    case ir::MemScope::kL0B:
    case ir::MemScope::kL0C:
    case ir::MemScope::kShared:
    case ir::MemScope::kFragment:
      return !b.address.has_value();
    default:
      return false;
  }
}

// True when a statement inside control `c` surely runs, and runs at least once.
bool SurelyRuns(const analysis::AccessTrace& trace, int c) {
  for (; c >= 0; c = trace.controls[c].parent) {
    const analysis::TracedControl& ctl = trace.controls[c];
    if (!ctl.is_loop) return false;
    const std::optional<int64_t> trips =
        ir::AsConstInt(static_cast<const ir::ForNode*>(ctl.node)->extent);
    if (!trips.has_value() || *trips < 1) return false;
  }
  return true;
}

// An operand the statement reads as input (not the destination it accumulates into, and
// not a print's operand).
bool IsInputRead(const analysis::TracedAccess& a) {
  if (a.access.write) return false;
  if (a.stmt->kind != ir::StmtKind::kTileOp) return true;  // a load: store, condition, index
  const auto* op = static_cast<const ir::TileOpNode*>(a.stmt);
  if (ir::TileOpFamilyOf(op->op) == ir::TileOpFamily::kDebug) return false;
  const auto* dst = op->args.empty() ? nullptr : std::get_if<ir::Region>(&op->args[0]);
  return !(dst != nullptr && a.access.region == dst && analysis::ReadsDestination(*op));
}

}  // namespace

Result<ir::Kernel> VerifyInitialized(const ir::Kernel& kernel, PassContext& ctx) {
  const analysis::AccessTrace trace = analysis::TraceAccesses(kernel.body);
  std::map<const ir::BufferNode*, const analysis::TracedAccess*> first_write;
  for (const analysis::TracedAccess& a : trace.accesses)
    if (a.access.write) first_write.try_emplace(a.access.buffer, &a);
  std::set<const ir::BufferNode*> reported;
  for (const analysis::TracedAccess& a : trace.accesses) {
    const ir::BufferNode* b = a.access.buffer;
    if (!IsOnChip(*b) || !IsInputRead(a) || reported.contains(b)) continue;
    auto w = first_write.find(b);
    if (w != first_write.end() && w->second->pos <= a.pos) continue;
    if (!SurelyRuns(trace, a.control)) continue;
    reported.insert(b);
    auto error = ctx.diag->Error(a.stmt->loc);
    if (w != first_write.end()) {
      error.Note(w->second->stmt->loc, "'" + b->name + "' is first written here");
      error << "'" << b->name
            << "' is read here before anything writes it: its first write comes later, so "
               "the first time this runs it reads memory that holds no data yet";
    } else {
      error << "'" << b->name
            << "' is read here but nothing in the kernel ever writes it: it holds no data";
    }
  }
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  return kernel;
}

}  // namespace tilejit::passes
