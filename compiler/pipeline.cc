// SPDX-License-Identifier: Apache-2.0
// The pass table and the loop that runs it. Reading this file top to bottom is reading the
// compiler: each entry says what runs, in which order and under which switch (DESIGN.md
// section 4 explains the order).
#include "compiler/pipeline.h"

#include <algorithm>
#include <chrono>

#include "common/check.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/assign_cores.h"
#include "compiler/passes/expand_composites.h"
#include "compiler/passes/legalize_copies.h"
#include "compiler/passes/lower_parallel.h"
#include "compiler/passes/memory_planning.h"

namespace tilejit::compiler {
namespace {

bool Always(const PassConfigs&) { return true; }

// Passes of DESIGN.md section 4 that belong to Developer mode (infer_buffer_scope,
// vid_reduction, multi_buffer, combine_cv, cross_core_sync, sync_insert, verify_sync) join this
// table with that issue; until then a Developer-mode kernel fails in the first pass that cannot
// handle it, with a diagnostic.
constexpr PassInfo kPasses[] = {
    {"lower_parallel", 1, Always, passes::LowerParallel,
     "T.Parallel element-wise loops -> tile vector ops on whole regions"},
    {"expand_composites", 1, Always, passes::ExpandComposites,
     "gemm_v0 -> L1->L0 loads into double-buffered L0 tiles + mma over K slices"},
    {"legalize_copies", 1, Always, passes::LegalizeCopies,
     "every copy is a data path of the target; illegal paths are diagnostics"},
    {"assign_cores", 1, Always, passes::AssignCores,
     "every tile op and sync in a cube or vector scope (T.Scope, or the kernel's only kind)"},
    {"memory_planning", 1, Always, passes::MemoryPlanning,
     "addresses for every on-chip buffer: alignment, fractal padding, capacity"},
};

bool Wanted(const std::vector<std::string>& names, std::string_view pass) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return n == "all" || n == pass; });
}

Status CheckOptions(const PipelineOptions& options) {
  for (const std::string& name : options.print_after) {
    if (name != "all" && FindPass(name) == nullptr) {
      return InvalidArgument("--print-after: unknown pass '" + name + "'");
    }
  }
  if (!options.stop_after.empty() && FindPass(options.stop_after) == nullptr) {
    return InvalidArgument("--stop-after: unknown pass '" + options.stop_after + "'");
  }
  return Status::Ok();
}

// Developer mode (scope inference, automatic sync, cube/vector separation) arrives with its
// own passes; until then a kernel that relies on it is refused up front with one clear
// diagnostic per cause, rather than compiled into racy code or failing later with a message
// about a symptom.
class DeveloperModeGate : public ir::Visitor {
 public:
  explicit DeveloperModeGate(DiagnosticEngine* diag) : diag_(diag) {}

 protected:
  void VisitAllocate(const ir::AllocateNode& op) override {
    const ir::MemScope scope = op.buffer->scope;
    if (scope != ir::MemScope::kShared && scope != ir::MemScope::kFragment) return;
    diag_->Error(op.loc) << "'" << op.buffer->name << "' is allocated with T.alloc_"
                         << ir::MemScopeName(scope)
                         << ", which needs Developer-mode scope inference; this version does "
                            "not have it yet: allocate it with T.alloc_L1, T.alloc_L0A, "
                            "T.alloc_L0B, T.alloc_L0C or T.alloc_ub";
  }

 private:
  DiagnosticEngine* diag_;
};

Status CheckSupported(const ir::Kernel& kernel, const PassConfigs& configs,
                      DiagnosticEngine* diag) {
  DeveloperModeGate(diag).VisitKernel(kernel);
  if (configs.auto_sync) {
    diag->Error(kernel.loc) << "pass config TL_ASCEND_AUTO_SYNC is set, but automatic "
                               "intra-core sync insertion is not available in this version "
                               "yet; remove it and order the pipes with set_flag/wait_flag, "
                               "pipe_barrier or barrier_all";
  }
  return diag->ToStatus();
}

bool VerifyEach(const PipelineOptions& options) {
#ifdef NDEBUG
  return options.verify_each;
#else
  (void)options;
  return true;
#endif
}

// One pass: run, time, collect statistics, verify. Internal check failures propagate as
// InternalError to RunPipeline, which names the pass.
Result<ir::Kernel> RunOne(const PassInfo& pass, const ir::Kernel& kernel, passes::PassContext& ctx,
                          bool verify, PassRecord* record) {
  ctx.stats.clear();
  auto start = std::chrono::steady_clock::now();
  Result<ir::Kernel> out = pass.run(kernel, ctx);
  record->millis =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  record->pass = std::string(pass.name);
  for (const auto& [name, value] : ctx.stats) record->stats.emplace_back(name, value);
  if (!out.ok()) return out;
  if (verify) {
    Status v = ir::Verify(*out);
    if (!v.ok()) {
      return Internal("pass " + std::string(pass.name) + " produced invalid IR: " + v.message());
    }
  }
  return out;
}

}  // namespace

std::span<const PassInfo> PassTable() { return kPasses; }

const PassInfo* FindPass(std::string_view name) {
  for (const PassInfo& p : kPasses) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string PipelineFingerprint() {
  std::string out;
  for (const PassInfo& p : kPasses) {
    if (!out.empty()) out += ',';
    out += std::string(p.name) + "@" + std::to_string(p.version);
  }
  return out;
}

Result<PipelineResult> RunPipeline(const ir::Kernel& kernel, const target::NpuTarget& target,
                                   const PassConfigs& configs, const PipelineOptions& options,
                                   DiagnosticEngine* diag) {
  TILEJIT_RETURN_IF_ERROR(CheckOptions(options));
  TILEJIT_RETURN_IF_ERROR(CheckSupported(kernel, configs, diag));
  passes::PassContext ctx;
  ctx.target = &target;
  ctx.configs = configs;
  ctx.diag = diag;
  PipelineResult result;
  result.kernel = kernel;
  for (const PassInfo& pass : kPasses) {
    if (!pass.enabled(configs)) continue;
    PassRecord record;
    Result<ir::Kernel> next = [&]() -> Result<ir::Kernel> {
      try {
        return RunOne(pass, result.kernel, ctx, VerifyEach(options), &record);
      } catch (const InternalError& e) {
        return Internal("internal error in pass " + std::string(pass.name) + ": " + e.what());
      }
    }();
    result.records.push_back(std::move(record));
    if (!next.ok()) return next.status();
    result.kernel = *std::move(next);
    if (Wanted(options.print_after, pass.name)) {
      result.ir_dumps.emplace_back(std::string(pass.name), ir::PrintKernel(result.kernel));
    }
    if (options.stop_after == pass.name) {
      result.stopped = true;
      break;
    }
  }
  return result;
}

}  // namespace tilejit::compiler
