// SPDX-License-Identifier: Apache-2.0
// The Python parser: recursive descent over the statement and expression subset of
// reference/tl_language.md section 6 plus decorators and nested defs, producing the tree of
// ast.h.
//
// Whole-file acceptance: ParseModule never fails because of the user's code. Each top-level
// statement that does not parse, or uses a construct outside the subset (class, try,
// comprehension, lambda, walrus, ...), anywhere inside it, becomes one StmtKind::kUnsupported
// statement holding its span (loc, end_loc), the names it binds where cheaply knowable
// (`class Foo`, `def f`, `x = [...]`), and its first error (unsupported_reason at
// unsupported_loc, the original message and location). Parsing resumes at the next line that
// starts a top-level statement (column 1, outside brackets and strings). A caller that needs
// such a statement reports its error with ReportUnsupported.
//
// Limits (each a diagnostic, so that hostile input cannot exhaust the stack, also under
// ASan): blocks plus elif chains nested 200 deep, expressions nested 100 deep (parentheses,
// brackets, unary operators), expression trees 500 nodes high, brackets 200 and indentation
// 100 levels deep (lexer.h).
//
// All functions are pure functions of their inputs (thread-safe on a const SourceManager).
// The returned tree owns everything; it does not reference the SourceManager.
#pragma once

#include <cstdint>
#include <memory>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/source_loc.h"
#include "compiler/frontend/ast.h"

namespace tilejit::frontend {

inline constexpr uint32_t kMaxStatementNesting = 200;
inline constexpr uint32_t kMaxExpressionNesting = 100;
inline constexpr uint32_t kMaxExpressionHeight = 500;

// Parses file `file_id`. Fails (kInvalidArgument) only for file-level problems: an unknown
// file id or a file of 1 GiB or more. Syntax errors become kUnsupported statements.
Result<Module> ParseModule(const SourceManager& sources, uint32_t file_id);

// Parses the whole of file `file_id` as one expression (surrounding blank lines and comments
// are allowed). Errors are reported to `diag` and returned as a kCompileError status.
Result<ExprPtr> ParseExpression(const SourceManager& sources, uint32_t file_id,
                                DiagnosticEngine* diag);

// Parses, on its own, the function whose `def` keyword (or `lambda` keyword) is at `at` in file
// `file_id`: a kFunctionDef (a lambda's is named "<lambda>"). Nothing else of the file is
// parsed, so the rest may hold anything: the tilejit Python package ships functions of files
// CPython already ran, nested in factories of any shape. Decorators are not parsed (the
// client says what they made of the function). Errors, including no def or lambda at `at`,
// go to `diag`; the status is then kCompileError.
Result<std::shared_ptr<const Stmt>> ParseFunctionAt(const SourceManager& sources, uint32_t file_id,
                                                    SourceLoc at, DiagnosticEngine* diag);

// Reports the error recorded in a kUnsupported statement (its original location and
// message) to `diag`. REQUIRES: stmt.kind == StmtKind::kUnsupported.
void ReportUnsupported(const Stmt& stmt, DiagnosticEngine* diag);

// ParseModule, then reports every kUnsupported statement as an error; fails with
// kCompileError if there was any. For tools and tests that want a strict parse.
Result<Module> ParseModuleStrict(const SourceManager& sources, uint32_t file_id,
                                 DiagnosticEngine* diag);

}  // namespace tilejit::frontend
