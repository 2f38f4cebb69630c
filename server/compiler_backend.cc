// SPDX-License-Identifier: Apache-2.0
#include "server/compiler_backend.h"

#include <utility>

#include "compiler/compiler.h"

namespace tilejit::server {
namespace {

// What Lower needs from Specialize. The SourceManager must outlive the DiagnosticEngine
// Lower reports into, and both must outlive the requesting thread (Lower is queued), so they
// travel together in one shared object.
struct SpecializedState {
  SourceManager sources;
  compiler::Specialized specialized;
};

DiagnosticInfo ConvertOne(const DiagnosticEngine& engine, const Diagnostic& d) {
  DiagnosticInfo info;
  info.severity = d.severity;
  if (d.loc.known()) {
    info.file = engine.sources()->name(d.loc.file_id);
    info.line = d.loc.line;
    info.column = d.loc.column;
  }
  info.message = d.message;
  info.rendered = engine.Render(d);
  for (const Diagnostic& note : d.notes) info.notes.push_back(ConvertOne(engine, note));
  return info;
}

class Backend final : public CompilerBackend {
 public:
  Backend() : fingerprint_(compiler::CompilerFingerprint()) {}

  const std::string& Fingerprint() const override { return fingerprint_; }

  SpecializeOutcome Specialize(frontend::FrontendRequest request) override {
    auto state = std::make_shared<SpecializedState>();
    DiagnosticEngine diag(&state->sources);
    compiler::CompileRequest creq;
    creq.frontend = std::move(request);
    Result<compiler::Specialized> r = compiler::Specialize(creq, &state->sources, &diag);
    SpecializeOutcome out;
    out.diagnostics = ConvertDiagnostics(diag, diag.diagnostics());
    if (!r.ok()) {
      out.status = r.status();
      return out;
    }
    state->specialized = std::move(r).value();
    const frontend::FrontendResult& fe = state->specialized.frontend;
    out.key = state->specialized.key;
    out.ignored_config_keys = fe.ignored_keys;
    out.ir_text = fe.ir_text;
    // SourceManager ids are 1-based in registration order: the request's files (or its one
    // source) are registered first, so id - 1 is the request's own file index.
    for (uint32_t id = 1; id <= state->sources.file_count(); ++id) {
      out.file_names.push_back(state->sources.name(id));
    }
    out.source_map.reserve(fe.source_map.size());
    for (const SourceLoc& loc : fe.source_map) {
      if (!loc.known() || loc.file_id == 0) {
        out.source_map.push_back({});
      } else {
        out.source_map.push_back({loc.file_id - 1, loc.line, loc.column});
      }
    }
    out.state = std::move(state);
    return out;
  }

  LowerOutcome Lower(const SpecializeOutcome& specialized, const LowerOptions& lower) override {
    auto state = std::static_pointer_cast<const SpecializedState>(specialized.state);
    DiagnosticEngine diag(&state->sources);
    compiler::PipelineOptions options;
    options.time_passes = true;
    options.print_after = lower.print_after;
    options.interrupt = lower.interrupt;
    Result<compiler::CompiledKernel> r = compiler::Lower(state->specialized, options, &diag);
    LowerOutcome out;
    out.diagnostics = ConvertDiagnostics(diag, diag.diagnostics());
    if (!r.ok()) {
      out.status = r.status();
      return out;
    }
    compiler::CompiledKernel& k = r.value();
    out.binary = std::move(k.binary);
    out.metadata = std::move(k.metadata);
    for (const compiler::PassRecord& p : k.passes) out.passes.push_back({p.pass, p.millis});
    out.ir_dumps = std::move(k.ir_dumps);
    return out;
  }

 private:
  std::string fingerprint_;
};

}  // namespace

std::vector<DiagnosticInfo> ConvertDiagnostics(const DiagnosticEngine& engine,
                                               const std::vector<Diagnostic>& diagnostics) {
  std::vector<DiagnosticInfo> out;
  out.reserve(diagnostics.size());
  for (const Diagnostic& d : diagnostics) out.push_back(ConvertOne(engine, d));
  return out;
}

std::unique_ptr<CompilerBackend> NewCompilerBackend() { return std::make_unique<Backend>(); }

}  // namespace tilejit::server
