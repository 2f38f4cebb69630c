// SPDX-License-Identifier: Apache-2.0
// Compile = Specialize (frontend + key) + Lower (pipeline + codegen + ELF). This is the one
// place where internal check failures are caught, so a bad kernel can never take a daemon
// down: whatever throws InternalError below becomes a kInternal status with context.
#include "compiler/compiler.h"

#include <chrono>

#include "build_id.h"  // generated: TILEJIT_BUILD_ID
#include "common/check.h"
#include "compiler/codegen/codegen.h"
#include "compiler/pipeline.h"
#include "compiler/target/binary.h"
#include "compiler/target/npu_target.h"

namespace tilejit::compiler {
namespace {

// Bump with any change to codegen's output (the passes carry their own versions).
constexpr std::string_view kCompilerVersion = "tilejit/0.2.0";
constexpr int kCodegenVersion = 7;

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::vector<Diagnostic> NonErrors(const DiagnosticEngine& diag) {
  std::vector<Diagnostic> out;
  for (const Diagnostic& d : diag.diagnostics()) {
    if (d.severity != Severity::kError) out.push_back(d);
  }
  return out;
}

Result<CompiledKernel> LowerUnchecked(const Specialized& sp, const PipelineOptions& options,
                                      DiagnosticEngine* diag) {
  const frontend::FrontendResult& fr = sp.frontend;
  const target::NpuTarget* target = target::FindTarget(fr.target);
  TILEJIT_CHECK(target != nullptr) << "unresolved target " << fr.target;
  auto start = std::chrono::steady_clock::now();
  TILEJIT_ASSIGN_OR_RETURN(
      PipelineResult lowered,
      RunPipeline(fr.kernel, *target, fr.normalized_configs.configs, options, diag));
  CompiledKernel out;
  out.key = sp.key;
  out.source_map = fr.source_map;
  out.ignored_config_keys = fr.ignored_keys;
  out.ir_text = fr.ir_text;
  out.ir_dumps = std::move(lowered.ir_dumps);
  out.passes = std::move(lowered.records);
  if (!lowered.stopped) {
    if (options.interrupt) TILEJIT_RETURN_IF_ERROR(options.interrupt());
    codegen::CodegenInput in{&lowered.kernel, &fr.kernel, target, CompilerFingerprint(), sp.key};
    TILEJIT_ASSIGN_OR_RETURN(target::KernelBinary binary, codegen::Codegen(in, diag));
    binary.source = {fr.ir_text, fr.normalized_configs.canonical};
    out.metadata = binary.metadata;
    TILEJIT_ASSIGN_OR_RETURN(out.binary, target::WriteKernelBinary(binary));
  }
  out.diagnostics = NonErrors(*diag);
  out.backend_millis = MillisSince(start);
  return out;
}

}  // namespace

const std::string& CompilerFingerprint() {
  static const std::string* fingerprint =
      new std::string(std::string(kCompilerVersion) + ";build=" + TILEJIT_BUILD_ID + ";passes=" +
                      PipelineFingerprint() + ";codegen@" + std::to_string(kCodegenVersion));
  return *fingerprint;
}

Result<Specialized> Specialize(const CompileRequest& request, SourceManager* sources,
                               DiagnosticEngine* diag) {
  try {
    TILEJIT_ASSIGN_OR_RETURN(frontend::FrontendResult fr,
                             frontend::RunFrontend(request.frontend, sources, diag));
    Specialized sp;
    sp.key = frontend::FrontendCacheKey(fr, CompilerFingerprint());
    sp.frontend = std::move(fr);
    return sp;
  } catch (const InternalError& e) {
    return Internal(std::string("internal error in the frontend: ") + e.what());
  }
}

Result<CompiledKernel> Lower(const Specialized& specialized, const PipelineOptions& options,
                             DiagnosticEngine* diag) {
  try {
    return LowerUnchecked(specialized, options, diag);
  } catch (const InternalError& e) {
    return Internal(std::string("internal error in codegen: ") + e.what());
  }
}

Result<CompiledKernel> Compile(const CompileRequest& request, SourceManager* sources,
                               DiagnosticEngine* diag) {
  auto start = std::chrono::steady_clock::now();
  TILEJIT_ASSIGN_OR_RETURN(Specialized sp, Specialize(request, sources, diag));
  const double frontend_millis = MillisSince(start);
  TILEJIT_ASSIGN_OR_RETURN(CompiledKernel out, Lower(sp, request.pipeline, diag));
  out.frontend_millis = frontend_millis;
  return out;
}

}  // namespace tilejit::compiler
