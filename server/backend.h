// SPDX-License-Identifier: Apache-2.0
// CompilerBackend: the compile service's view of the compiler, split in the two stages of
// compiler/compiler.h so that the service can consult its memo and cache between them:
//   Specialize  frontend + cache key (runs on a memo miss)
//   Lower       passes + codegen (runs on a cache miss, once per key: single-flight)
// The production implementation (compiler_backend.h) calls the compiler; tests substitute
// fakes that count calls and control timing.
//
// Everything crossing this interface is transport-free and source-manager-free: diagnostics
// are already rendered and located in the request's own file, and the source map is a plain
// table of (line, column) positions.
//
// Threading: implementations must be safe to call from many threads at once. Lower may run
// on a different thread than the Specialize that produced its input.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "common/status.h"
#include "compiler/frontend/frontend.h"
#include "compiler/target/kernel_metadata.h"

namespace tilejit::server {

// A located diagnostic, rendered against the request's own source.
struct DiagnosticInfo {
  Severity severity = Severity::kError;
  std::string file;
  uint32_t line = 0;    // 0: no location
  uint32_t column = 0;  // 0: no location
  std::string message;
  std::string rendered;  // "file:line:col: error: message" + source line + caret
  std::vector<DiagnosticInfo> notes;
};

// Where a canonical IR statement is in the request's own files: `file` indexes the request's
// files (PRIM_FUNC; SpecializeOutcome::file_names), 0 for the single-source formats.
struct SourcePos {
  uint32_t file = 0;
  uint32_t line = 0;  // 0: unknown
  uint32_t column = 0;
};

struct PassTiming {
  std::string pass;
  double millis = 0;
};

struct SpecializeOutcome {
  // OK; kCompileError (errors in `diagnostics`); kInvalidArgument; kInternal.
  Status status;
  std::string key;  // hex cache key (OK only)
  std::vector<DiagnosticInfo> diagnostics;
  std::vector<SourcePos> source_map;    // indexed by canonical statement id
  std::vector<std::string> file_names;  // SourcePos::file -> the request's name for that file
  std::vector<std::string> ignored_config_keys;
  std::string ir_text;
  // Backend-private state that Lower needs (the specialised kernel and its sources). Shared
  // so a queued Lower keeps it alive after the requesting thread has gone.
  std::shared_ptr<const void> state;
};

// Nothing here changes the binary.
struct LowerOptions {
  std::vector<std::string> print_after;  // pass names, or "all": keep the IR after them
  // Polled between passes and in long analyses; non-OK stops the compile with that status.
  std::function<Status()> interrupt;
};

struct LowerOutcome {
  Status status;  // OK; kCompileError (errors in `diagnostics`); kInternal
  std::vector<uint8_t> binary;
  target::KernelMetadata metadata;
  std::vector<DiagnosticInfo> diagnostics;
  std::vector<PassTiming> passes;                             // in pipeline order
  std::vector<std::pair<std::string, std::string>> ir_dumps;  // (pass, IR after it)
};

class CompilerBackend {
 public:
  virtual ~CompilerBackend() = default;

  // The compiler fingerprint (enters every request digest and cache key).
  virtual const std::string& Fingerprint() const = 0;

  // By value: the compile request keeps it (callers move in a request they built).
  virtual SpecializeOutcome Specialize(frontend::FrontendRequest request) = 0;

  // REQUIRES: `specialized` came from this backend's Specialize with an OK status; every name
  // in options.print_after is a pass of the pipeline or "all" (an unknown one is kInvalidArgument).
  virtual LowerOutcome Lower(const SpecializeOutcome& specialized, const LowerOptions& options) = 0;
};

}  // namespace tilejit::server
