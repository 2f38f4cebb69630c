// SPDX-License-Identifier: Apache-2.0
// The public entry points of parser.h.
#include "compiler/frontend/lexer.h"
#include "compiler/frontend/parser.h"
#include "compiler/frontend/parser_impl.h"

namespace tilejit::frontend {
namespace {

constexpr size_t kMaxFileBytes = size_t{1} << 30;

Status CheckFile(const SourceManager& sources, uint32_t file_id) {
  if (file_id == 0 || file_id > sources.file_count()) {
    return Status(StatusCode::kInvalidArgument,
                  "unknown source file id " + std::to_string(file_id));
  }
  if (sources.text(file_id).size() >= kMaxFileBytes) {
    return Status(StatusCode::kInvalidArgument,
                  sources.name(file_id) + ": source file is too large (1 GiB or more)");
  }
  return Status::Ok();
}

}  // namespace

Result<Module> ParseModule(const SourceManager& sources, uint32_t file_id) {
  TILEJIT_RETURN_IF_ERROR(CheckFile(sources, file_id));
  LexedFile lexed = Tokenize(sources, file_id);
  Parser parser(lexed);
  Module module = parser.ParseFile(file_id);
  for (const LexError& e : lexed.errors) {
    if (!e.refuses_file) continue;
    module.refused = FileError{e.loc, e.message};
    break;
  }
  return module;
}

Result<ExprPtr> ParseExpression(const SourceManager& sources, uint32_t file_id,
                                DiagnosticEngine* diag) {
  TILEJIT_RETURN_IF_ERROR(CheckFile(sources, file_id));
  LexedFile lexed = Tokenize(sources, file_id);
  Parser parser(lexed);
  ExprPtr e = parser.ParseLoneExpression();
  if (e) return e;
  diag->Error(parser.error_loc()) << parser.error_message();
  return diag->ToStatus();
}

Result<std::shared_ptr<const Stmt>> ParseFunctionAt(const SourceManager& sources, uint32_t file_id,
                                                    SourceLoc at, DiagnosticEngine* diag) {
  TILEJIT_RETURN_IF_ERROR(CheckFile(sources, file_id));
  LexedFile lexed = Tokenize(sources, file_id);
  Parser parser(lexed);
  std::shared_ptr<const Stmt> def = parser.ParseFunctionAt(at);
  if (def) return def;
  diag->Error(parser.error_loc()) << parser.error_message();
  return diag->ToStatus();
}

void ReportUnsupported(const Stmt& stmt, DiagnosticEngine* diag) {
  diag->Error(stmt.unsupported_loc) << stmt.unsupported_reason;
}

Result<Module> ParseModuleStrict(const SourceManager& sources, uint32_t file_id,
                                 DiagnosticEngine* diag) {
  TILEJIT_ASSIGN_OR_RETURN(Module module, ParseModule(sources, file_id));
  if (module.refused) {
    diag->Error(module.refused->loc) << module.refused->message;
    return diag->ToStatus();
  }
  for (const StmtPtr& s : module.body) {
    if (s->kind == StmtKind::kUnsupported) ReportUnsupported(*s, diag);
  }
  if (diag->has_errors()) return diag->ToStatus();
  return module;
}

}  // namespace tilejit::frontend
