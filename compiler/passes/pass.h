// SPDX-License-Identifier: Apache-2.0
// The pass interface: every lowering pass is a pure function from a Tile IR kernel to a new
// one, with a context carrying the target, the resolved switches, diagnostics and statistics.
//
//   Result<ir::Kernel> ExpandComposites(const ir::Kernel& kernel, PassContext& ctx);
//
// Contract for every pass:
//  - User errors (a kernel the pass cannot lower) are diagnostics on ctx.diag at the user's
//    SourceLoc, and the pass returns ctx.diag->ToStatus() (kCompileError). Warnings go to
//    ctx.diag and the pass continues.
//  - Broken internal invariants are TILEJIT_CHECK failures; the pipeline catches them once
//    per compile and turns them into an internal status (a bad kernel never aborts the
//    process).
//  - Provenance: a statement a pass derives from another keeps that statement's SourceLoc, so
//    codegen can attribute its instructions to the original statement's canonical id (the
//    line table) and diagnostics point at the user's code. Statements with no user origin get
//    the loc of the statement that caused them.
//  - Determinism: no dependence on pointer values, hash-map iteration order, time or threads.
//
// Thread safety: a PassContext belongs to one compile on one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "common/diagnostic.h"
#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/pass_config.h"
#include "compiler/target/npu_target.h"

namespace tilejit::passes {

struct PassContext {
  const target::NpuTarget* target = nullptr;  // not owned; lives for the whole process
  compiler::PassConfigs configs;
  DiagnosticEngine* diag = nullptr;  // not owned
  // Statistics of the running pass ("statistic name" -> count). The pipeline resets it before
  // each pass and reports it under the pass's name (--time-passes, --stats).
  std::map<std::string, int64_t, std::less<>> stats;

  void Count(std::string_view stat, int64_t n = 1) { stats[std::string(stat)] += n; }

  // PipelineOptions::interrupt (null: never); the pipeline polls it between passes. A pass
  // with a long loop calls Poll() in it, which throws Interrupted out of the pass when the
  // interrupt says stop (RunPipeline returns the carried status).
  const std::function<Status()>* interrupt = nullptr;
  Status Interrupt() const { return interrupt && *interrupt ? (*interrupt)() : Status::Ok(); }
  void Poll() const;
};

// Thrown by PassContext::Poll; carries the interrupt's status.
struct Interrupted {
  Status status;
};

inline void PassContext::Poll() const {
  if (Status s = Interrupt(); !s.ok()) throw Interrupted{std::move(s)};
}

using PassFn = Result<ir::Kernel> (*)(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
