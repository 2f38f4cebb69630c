// SPDX-License-Identifier: Apache-2.0
// Parser for the Tile IR text format (docs/tile_ir.md): the inverse of the canonical
// printer, and the `format: tile_ir` input of the service.
//
// It builds fresh nodes whose SourceLocs point into the IR text (the file registered in the
// SourceManager), so diagnostics about a parsed kernel show the IR line. Errors are
// diagnostics with line:col; the parser stops at the first one and never crashes on any
// input. It checks syntax, names (every %name used is defined earlier in the text; a name is
// a buffer or a var, not both) and literal ranges; scoping and structural rules are the
// verifier's job (verifier.h), so run it after parsing untrusted text.
//
// Stateless functions; safe to call from several threads on distinct arguments.
#pragma once

#include <string>
#include <string_view>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/source_loc.h"
#include "compiler/ir/ir.h"

namespace tilejit::ir {

// Parses the text of file `file_id` in `sources`. On error, reports to `diag` and returns
// its status (kCompileError).
Result<Kernel> ParseTileIr(const SourceManager& sources, uint32_t file_id, DiagnosticEngine* diag);

// Convenience: registers `text` as `file_name` in `sources` and parses it.
Result<Kernel> ParseTileIr(std::string_view text, SourceManager* sources, DiagnosticEngine* diag,
                           std::string file_name = "<tile_ir>");

// For tests and tools: parses `text` with a private SourceManager. The error status message
// holds every rendered diagnostic. (SourceLocs refer to the discarded manager's file 1.)
Result<Kernel> ParseTileIrString(std::string_view text);

}  // namespace tilejit::ir
