// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: arbitrary bytes through the tokenizer and parser (module and expression
// entry points) and the AST dump. Any crash, sanitizer report, hang or out-of-memory is a bug:
// bad input must always end as a Module with kUnsupported statements or a diagnostic.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/diagnostic.h"
#include "common/source_loc.h"
#include "compiler/frontend/ast_dump.h"
#include "compiler/frontend/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tilejit;
  SourceManager sources;
  uint32_t id = sources.AddFile("fuzz.py", std::string(reinterpret_cast<const char*>(data), size));
  Result<frontend::Module> module = frontend::ParseModule(sources, id);
  if (!module.ok()) __builtin_trap();  // only file-level problems may fail, and there are none
  for (const frontend::StmtPtr& s : module->body) {
    if (s->kind == frontend::StmtKind::kUnsupported && !s->unsupported_loc.known()) {
      __builtin_trap();  // every error must carry a location
    }
  }
  (void)frontend::DumpModule(*module);
  DiagnosticEngine diag(&sources);
  Result<frontend::ExprPtr> expr = frontend::ParseExpression(sources, id, &diag);
  if (expr.ok()) (void)frontend::DumpExpr(**expr);
  return 0;
}
