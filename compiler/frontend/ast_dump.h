// SPDX-License-Identifier: Apache-2.0
// A debug printer for the AST (tests, `tilejit parse`-style tooling): renders the tree as
// Python source with every operation parenthesised, so that precedence is visible and the
// output parses back to the same tree: `-2**2` dumps as `(-(2 ** 2))`. Unsupported
// statements become comment lines `# unsupported L:C-L:C: reason [binds: a, b]`, and
// f-strings print as f"template". Pure functions; thread-safe.
#pragma once

#include <string>

#include "compiler/frontend/ast.h"

namespace tilejit::frontend {

std::string DumpExpr(const Expr& e);
// One statement (and its body), each line indented by `indent` spaces and ended by '\n'.
std::string DumpStmt(const Stmt& s, int indent = 0);
std::string DumpModule(const Module& m);

}  // namespace tilejit::frontend
