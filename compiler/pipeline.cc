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
#include "compiler/passes/assign_cores.h"
#include "compiler/passes/combine_cv.h"
#include "compiler/passes/cross_core_sync.h"
#include "compiler/passes/expand_composites.h"
#include "compiler/passes/infer_buffer_scope.h"
#include "compiler/passes/legalize_copies.h"
#include "compiler/passes/lower_parallel.h"
#include "compiler/passes/memory_planning.h"
#include "compiler/passes/multi_buffer.h"
#include "compiler/passes/squeeze_columns.h"
#include "compiler/passes/sync_insert.h"
#include "compiler/passes/verify_initialized.h"
#include "compiler/passes/verify_sync.h"
#include "compiler/passes/vid_reduction.h"

namespace tilejit::compiler {
namespace {

bool Always(const PassConfigs&) { return true; }

bool CvCombine(const PassConfigs& c) { return c.auto_cv_combine; }
// CV_SYNC alone has no effect (NormalizePassConfigs warns about it).
bool CvSync(const PassConfigs& c) { return c.auto_cv_combine && c.auto_cv_sync; }
bool AutoSync(const PassConfigs& c) { return c.auto_sync; }

constexpr PassInfo kPasses[] = {
    {"verify_initialized", 1, Always, passes::VerifyInitialized,
     "an on-chip buffer read before anything can have written it is an error"},
    {"infer_buffer_scope", 2, Always, passes::InferBufferScope,
     "alloc_shared -> L1 or UB, alloc_fragment -> L0A/L0B/L0C, by how each buffer is used"},
    {"squeeze_columns", 1, Always, passes::SqueezeColumns,
     "[R, 1] UB vectors used only by vector ops -> [R], dense like every [R] vector"},
    {"vid_reduction", 3, Always, passes::VidReduction,
     "threads=2: vector row tiles split between the two AIVs by data flow; (cid, vid) form "
     "not reading vid: one AIV"},
    {"lower_parallel", 4, Always, passes::LowerParallel,
     "T.Parallel element-wise loops -> tile vector ops on whole regions"},
    {"expand_composites", 3, Always, passes::ExpandComposites,
     "gemm_v0 -> L1->L0 loads into double-buffered L0 tiles + mma over K slices; UB scratch "
     "for sort, topk and merge_sort"},
    {"legalize_copies", 3, Always, passes::LegalizeCopies,
     "every copy is a data path of the target; L0C->UB and UB->L1 via GM workspaces"},
    {"multi_buffer", 2, Always, passes::MultiBuffer,
     "T.Pipelined and auto_multi_buffer: tiles and workspace slots refilled per iteration"},
    {"combine_cv", 1, CvCombine, passes::CombineCv,
     "one body -> a cube program and a vector program"},
    {"cross_core_sync", 5, CvSync, passes::CrossCoreSync,
     "ready and slot-free cross-core flags around every cube<->vector hand-off"},
    {"assign_cores", 1, Always, passes::AssignCores,
     "every tile op and sync in a cube or vector scope (T.Scope, or the kernel's only kind)"},
    {"memory_planning", 4, Always, passes::MemoryPlanning,
     "addresses for every on-chip buffer: alignment, fractal padding, capacity, reuse"},
    {"sync_insert", 2, AutoSync, passes::SyncInsert,
     "set/wait pairs and pipe barriers for every intra-core dependence"},
    {"verify_sync", 2, Always, passes::VerifySync,
     "static check of the syncs of every core program"},
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
  passes::PassContext ctx;
  ctx.target = &target;
  ctx.configs = configs;
  ctx.diag = diag;
  ctx.interrupt = &options.interrupt;
  PipelineResult result;
  result.kernel = kernel;
  for (const PassInfo& pass : kPasses) {
    if (!pass.enabled(configs)) continue;
    TILEJIT_RETURN_IF_ERROR(ctx.Interrupt());
    PassRecord record;
    Result<ir::Kernel> next = [&]() -> Result<ir::Kernel> {
      try {
        return RunOne(pass, result.kernel, ctx, VerifyEach(options), &record);
      } catch (const InternalError& e) {
        return Internal("internal error in pass " + std::string(pass.name) + ": " + e.what());
      } catch (const passes::Interrupted& stop) {
        return stop.status;
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
