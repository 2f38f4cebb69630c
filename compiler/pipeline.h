// SPDX-License-Identifier: Apache-2.0
// The lowering pipeline: THE ordered list of passes (name, version, enable condition, summary)
// and the one loop that runs it (compiler/pipeline.cc). Codegen is not in the table: it runs
// after the last pass (compiler.cc). docs/pipeline.md is checked against this table.
//
// The pipeline fingerprint (every pass's name and version, in order) is part of the compiler
// fingerprint and therefore of every cache key: bump a pass's version whenever its output can
// change for some input.
//
// Thread safety: the table is an immutable static; RunPipeline is reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/pass_config.h"
#include "compiler/passes/pass.h"

namespace tilejit::compiler {

// Debug and introspection options of the pipeline (none affects the binary).
struct PipelineOptions {
  std::vector<std::string> print_after;  // pass names, or "all": keep the IR after them
  std::string stop_after;                // stop after this pass (no binary is produced)
  bool time_passes = false;              // record per-pass wall time and statistics
  bool verify_each = false;              // verify the IR between passes (also on in debug builds)
  // Polled before each pass and inside long analyses (PassContext::Poll); a non-OK
  // status (kDeadlineExceeded, kCancelled) ends the compile with that status. Null: never.
  std::function<Status()> interrupt;
};

// Per-pass record (time only with time_passes; statistics always).
struct PassRecord {
  std::string pass;
  double millis = 0;
  std::vector<std::pair<std::string, int64_t>> stats;  // sorted by name
};

struct PassInfo {
  std::string_view name;
  int version;
  // Whether the pass runs for these switches.
  bool (*enabled)(const PassConfigs& configs);
  passes::PassFn run;
  std::string_view summary;  // one line, for docs and --help
};

// The passes in execution order.
std::span<const PassInfo> PassTable();
const PassInfo* FindPass(std::string_view name);

// "name@version,name@version,..." over the whole table (enabled or not).
std::string PipelineFingerprint();

struct PipelineResult {
  ir::Kernel kernel;
  std::vector<PassRecord> records;                            // one per pass that ran
  std::vector<std::pair<std::string, std::string>> ir_dumps;  // print_after
  bool stopped = false;                                       // stop_after reached
};

// Runs every enabled pass in order on `kernel`. Between passes the IR is verified when
// options.verify_each is set (always in builds without NDEBUG). Errors: kCompileError with the
// diagnostics in `diag`; kInvalidArgument for an unknown pass name in the options; kInternal
// naming the pass when an internal check fails or a pass produces IR the verifier rejects.
Result<PipelineResult> RunPipeline(const ir::Kernel& kernel, const target::NpuTarget& target,
                                   const PassConfigs& configs, const PipelineOptions& options,
                                   DiagnosticEngine* diag);

}  // namespace tilejit::compiler
