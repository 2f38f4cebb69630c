// SPDX-License-Identifier: Apache-2.0
// The canonical printer: the deterministic text of a Kernel (docs/tile_ir.md has the
// grammar). The text is what `--emit ir` shows, what IrHash covers and what ir_parser.h
// reads back; print -> parse -> print is the identity.
//
// Canonical names, by order of first appearance in the text: params %p0, %p1, ...; on-chip
// buffers %<scope>_<n> with a counter per scope (%l1_0, %l0a_0, %ub_1, %shared_0, %var_0);
// kernel launch vars %cid and %vid; every other var %v0, %v1, ... Name hints, comments and
// SourceLocs never appear.
//
// Canonical statement ids: every statement other than a Seq gets the index of its position
// in a pre-order walk, which is the order its line appears in the text (a Seq only groups
// lines). Codegen's line table maps instructions to these ids; StmtIdTable gives the map.
//
// All functions are pure and thread-safe. Malformed IR (null children, undefined buffers)
// prints without crashing, as text the parser rejects.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace tilejit::ir {

struct PrintOptions {
  // Prefix each statement line with "#<id>" (for tests and debugging; not canonical text).
  bool show_stmt_ids = false;
};

// The canonical text of `kernel` (ends with a newline).
std::string PrintKernel(const Kernel& kernel, const PrintOptions& options = {});

// Debug text of a statement or expression, with names assigned afresh for this call (so not
// consistent with the names in a PrintKernel of the enclosing kernel).
std::string PrintStmt(const Stmt& stmt);
std::string PrintExpr(const Expr& expr);

// table[id] is the statement with canonical id `id` (see above).
std::vector<Stmt> StmtIdTable(const Kernel& kernel);

// Shortest text that parses back to the bit-identical double: always contains '.', 'e',
// "inf" or "nan" so that it never reads as an integer ("1.0", "1e-05", "-inf").
std::string FormatDouble(double v);

}  // namespace tilejit::ir
