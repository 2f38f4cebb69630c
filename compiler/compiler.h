// SPDX-License-Identifier: Apache-2.0
// The compiler's one entry point: a compile request (TileLang source or Tile IR text, entry,
// arguments, pass configs, target) -> a compiled kernel (cache key, ELF binary, metadata,
// diagnostics, the request's source map, optional IR dumps and pass timings).
//
//   SourceManager sources;
//   DiagnosticEngine diag(&sources);
//   Result<CompiledKernel> k = Compile(request, &sources, &diag);
//   // on error: k.status() is kCompileError (user error; diag holds every diagnostic) or
//   // kInternal (a compiler bug, with context: pass name and the check that failed).
//
// The work is split in two stages so a service can consult its cache between them:
//   Specialize (frontend: parse, evaluate, trace; normalise configs; derive the cache key)
//   Lower      (the pass pipeline and codegen; runs only on a cache miss)
// Compile = Specialize + Lower.
//
// Guarantees: a bad kernel never aborts the process (internal check failures are caught once
// per compile and returned as kInternal); the same request gives byte-identical binaries in
// any process or thread.
//
// Thread safety: all functions are reentrant; each call needs its own SourceManager and
// DiagnosticEngine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/source_loc.h"
#include "compiler/frontend/frontend.h"
#include "compiler/pipeline.h"
#include "compiler/target/kernel_metadata.h"

namespace tilejit::compiler {

struct CompileRequest {
  frontend::FrontendRequest frontend;
  PipelineOptions pipeline;
};

// What Specialize produces: enough to look the kernel up in a cache.
struct Specialized {
  frontend::FrontendResult frontend;  // kernel, configs, source map, IR text and hash
  std::string key;                    // hex SHA-256 cache key (key.h)
};

struct CompiledKernel {
  std::string key;
  std::vector<uint8_t> binary;  // the ELF kernel binary (target/binary.h); empty after stop_after
  target::KernelMetadata metadata;
  // Warnings and notes of this compile (errors make the compile fail instead).
  std::vector<Diagnostic> diagnostics;
  // source_map[id]: where canonical statement `id` is in the request's own source.
  std::vector<SourceLoc> source_map;
  std::vector<std::string> ignored_config_keys;
  std::string ir_text;                                        // canonical IR (frontend)
  std::vector<std::pair<std::string, std::string>> ir_dumps;  // (pass, IR after it)
  std::vector<PassRecord> passes;
  double frontend_millis = 0;
  double backend_millis = 0;
};

// The compiler fingerprint that enters every cache key: compiler version, build id and the
// pipeline fingerprint (ordered pass names with per-pass versions).
const std::string& CompilerFingerprint();

Result<Specialized> Specialize(const CompileRequest& request, SourceManager* sources,
                               DiagnosticEngine* diag);

// Runs the pipeline and codegen on a specialised kernel.
Result<CompiledKernel> Lower(const Specialized& specialized, const PipelineOptions& options,
                             DiagnosticEngine* diag);

Result<CompiledKernel> Compile(const CompileRequest& request, SourceManager* sources,
                               DiagnosticEngine* diag);

}  // namespace tilejit::compiler
