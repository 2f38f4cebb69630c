// SPDX-License-Identifier: Apache-2.0
// The production CompilerBackend: compiler::Specialize and compiler::Lower
// (compiler/compiler.h), with the compile's diagnostics rendered against the request's own
// source before they leave the compile.
//
// Stateless apart from the fingerprint; thread-safe.
#pragma once

#include <memory>

#include "server/backend.h"

namespace tilejit::server {

std::unique_ptr<CompilerBackend> NewCompilerBackend();

// Converts the diagnostics of one compile (rendered with `engine`'s sources). Exposed for
// other backends and tests.
std::vector<DiagnosticInfo> ConvertDiagnostics(const DiagnosticEngine& engine,
                                               const std::vector<Diagnostic>& diagnostics);

}  // namespace tilejit::server
