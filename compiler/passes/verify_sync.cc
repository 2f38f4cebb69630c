// SPDX-License-Identifier: Apache-2.0
// verify_sync: the same analysis sync_insert relies on, run once over the final program, so a
// mistake in any pass that makes or moves syncs surfaces as an internal error instead of a
// racy binary.
#include "compiler/passes/verify_sync.h"

#include <array>
#include <optional>
#include <sstream>
#include <variant>

#include "compiler/analysis/sync_analysis.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"

namespace tilejit::passes {
namespace {

namespace sync = analysis::sync;

using sync::FlagIssue;
using sync::Hazard;
using sync::Node;

// A short description of a statement in the author's names (buffer name hints), for messages.
std::string Brief(const ir::Stmt& s) {
  if (const auto* op = ir::TryAs<ir::TileOpNode>(s)) {
    std::string text = std::string(ir::TileOpName(op->op)) + "(";
    for (size_t i = 0; i < op->args.size(); ++i) {
      if (i > 0) text += ", ";
      const auto* r = std::get_if<ir::Region>(&op->args[i]);
      text += r != nullptr ? r->buffer->name : "<scalar>";
    }
    return text + ")";
  }
  if (const auto* st = ir::TryAs<ir::StoreNode>(s)) return "store to " + st->buffer->name;
  if (s->kind == ir::StmtKind::kFor) return "loop bounds";
  if (s->kind == ir::StmtKind::kIf) return "if condition";
  if (s->kind == ir::StmtKind::kLet) return "let value";
  std::string text = ir::PrintStmt(s);
  const size_t nl = text.find('\n');
  if (nl != std::string::npos) text.resize(nl);
  const size_t first = text.find_first_not_of(' ');
  return first == std::string::npos ? text : text.substr(first);
}

bool HasScope(const ir::Kernel& kernel, ir::CoreKind core) {
  class Finder : public ir::Visitor {
   public:
    explicit Finder(ir::CoreKind c) : core(c) {}
    ir::CoreKind core;
    bool found = false;

   protected:
    void VisitCoreScope(const ir::CoreScopeNode& op) override { found = found || op.core == core; }
  } f(core);
  f.VisitKernel(kernel);
  return f.found;
}

bool OnCompilerWorkspace(const Node* n) {
  for (const sync::Part& p : n->parts)
    for (const sync::Access& a : p.accesses)
      if (a.tensor != nullptr && a.tensor->compiler_made) return true;
  return false;
}

SyncFinding FromHazard(const Hazard& h, ir::CoreKind core, const CheckSyncsOptions& options) {
  SyncFinding f;
  f.kind = SyncFinding::Kind::kHazard;
  f.core = core;
  const SourceLoc a = h.first->stmt->loc;
  const SourceLoc b = h.second->stmt->loc;
  const bool same_origin = h.first != h.second && a.known() && a == b;
  f.compiler_made = options.auto_sync || same_origin || OnCompilerWorkspace(h.first) ||
                    OnCompilerWorkspace(h.second);
  f.loc = b;
  std::ostringstream m;
  if (h.event) {
    m << "`" << Brief(h.second->stmt) << "` may set its event before the earlier `"
      << Brief(h.first->stmt) << "`" << (h.carried != nullptr ? " (previous loop iteration)" : "")
      << " has consumed it (a double set); order the wait before the set or use another id";
    f.message = m.str();
    return f;
  }
  m << "unordered " << sync::HazardKindName(h) << ": `" << Brief(h.second->stmt) << "` (pipe "
    << target::PipeName(h.second->parts[h.second_part].pipe) << ") may run before `"
    << Brief(h.first->stmt) << "` (pipe " << target::PipeName(h.first->parts[h.first_part].pipe)
    << (h.carried != nullptr ? ", previous loop iteration" : "")
    << ") is done with the same memory; order them with set_flag/wait_flag or a pipe barrier";
  f.message = m.str();
  return f;
}

SyncFinding FromFlag(const sync::FlagFinding& ff, ir::CoreKind core) {
  SyncFinding f;
  f.core = core;
  f.compiler_made = ir::SyncOriginOf(*ff.sync->stmt) == ir::SyncOrigin::kCompiler;
  f.loc = ff.sync->stmt->loc;
  const std::string what = "`" + Brief(ff.sync->stmt) + "`";
  switch (ff.issue) {
    case FlagIssue::kDoubleSet:
      f.kind = SyncFinding::Kind::kDoubleSet;
      f.message = what + " sets an event that may still be set (every set needs its wait first)";
      break;
    case FlagIssue::kNeverSet:
      f.kind = SyncFinding::Kind::kNeverSet;
      f.message = what + " waits for an event that no earlier set_flag sets: it would wait forever";
      break;
    case FlagIssue::kMaybeUnset:
      f.kind = SyncFinding::Kind::kMaybeUnset;
      f.message = what + " waits for an event that only some paths set";
      break;
    case FlagIssue::kArmedAtExit:
      f.kind = SyncFinding::Kind::kArmedAtExit;
      f.message = what + " leaves its event set at the end of the program (no matching wait_flag)";
      break;
    case FlagIssue::kUnknownEvent:
      f.kind = SyncFinding::Kind::kUnknownEvent;
      f.message = what + " uses an event id outside 0..7";
      break;
  }
  return f;
}

}  // namespace

std::vector<SyncFinding> CheckSyncs(const ir::Kernel& kernel, const target::NpuTarget& target,
                                    const CheckSyncsOptions& options) {
  std::vector<SyncFinding> out;
  const bool cube = HasScope(kernel, ir::CoreKind::kCube);
  const bool vector = HasScope(kernel, ir::CoreKind::kVector);
  std::optional<sync::Program> programs[2];
  if (cube) programs[0].emplace(kernel.body, target, ir::CoreKind::kCube);
  if (vector) programs[1].emplace(kernel.body, target, ir::CoreKind::kVector);
  std::array<sync::Analysis, 2> analyses;
  if (cube && vector) {
    analyses = sync::AnalyzeCores(*programs[0], *programs[1]);
  } else if (cube || vector) {
    analyses[cube ? 0 : 1] = sync::Analyze(*programs[cube ? 0 : 1]);
  }
  for (int c = 0; c < 2; ++c) {
    const ir::CoreKind core = c == 0 ? ir::CoreKind::kCube : ir::CoreKind::kVector;
    const sync::Analysis& a = analyses[c];
    if (a.runtime_ids) continue;  // not modelled (see the header)
    for (const sync::FlagFinding& f : a.flags) out.push_back(FromFlag(f, core));
    for (const Hazard& h : a.hazards) out.push_back(FromHazard(h, core, options));
  }
  return out;
}

Result<ir::Kernel> VerifySync(const ir::Kernel& kernel, PassContext& ctx) {
  const std::vector<SyncFinding> findings =
      CheckSyncs(kernel, *ctx.target, {.auto_sync = ctx.configs.auto_sync});
  std::string internal;
  for (const SyncFinding& f : findings) {
    const char* core = f.core == ir::CoreKind::kCube ? "cube" : "vector";
    if (f.compiler_made) {
      internal += std::string("\n  ") + core + " program: " + f.message;
      continue;
    }
    ctx.diag->Warning(f.loc) << "in the " << core << " program: " << f.message;
  }
  ctx.Count("sync_findings", static_cast<int64_t>(findings.size()));
  if (!internal.empty()) {
    return Internal("verify_sync: the compiler produced unordered or unbalanced syncs:" + internal);
  }
  return kernel;
}

}  // namespace tilejit::passes
