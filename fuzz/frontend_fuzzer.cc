// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: arbitrary bytes through the whole frontend (parse, host evaluation,
// tracing, canonical printing and hashing). Every top-level `def` is tried as the entry with
// a fixed argument list, so inputs derived from real kernels reach the tracer. Any crash,
// sanitizer report, hang or out-of-memory is a bug: bad input must end as a diagnostic.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/diagnostic.h"
#include "common/source_loc.h"
#include "compiler/frontend/frontend.h"
#include "compiler/frontend/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tilejit;
  const std::string source(reinterpret_cast<const char*>(data), size);
  SourceManager parse_sources;
  Result<frontend::Module> module =
      frontend::ParseModule(parse_sources, parse_sources.AddFile("fuzz.py", source));
  if (!module.ok()) return 0;
  for (const frontend::StmtPtr& s : module->body) {
    if (s->kind != frontend::StmtKind::kFunctionDef) continue;
    frontend::FrontendRequest request;
    request.source = source;
    request.file_name = "fuzz.py";
    request.entry = s->name;
    // The shared kernels' argument shapes: enough small ints for every factory in the set.
    for (int64_t v : {256, 256, 256, 64, 128, 64}) request.args.push_back(frontend::Value::Int(v));
    SourceManager sources;
    DiagnosticEngine diag(&sources);
    Result<frontend::FrontendResult> result = frontend::RunFrontend(request, &sources, &diag);
    if (result.ok() && result->ir_hash.empty()) __builtin_trap();
    if (!result.ok() && !diag.has_errors()) __builtin_trap();  // a failure always says why
    (void)diag.RenderAll();
  }
  return 0;
}
