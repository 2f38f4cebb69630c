// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the Tile IR text parser (compiler/ir/ir_parser.h), the `tile_ir` input
// of the service. Oracles (trap on violation): the parser returns OK or kCompileError with at
// least one located diagnostic; a kernel it accepts and the verifier passes prints to text
// that parses again, passes again and prints identically (the printer and parser are
// inverses on valid kernels).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/diagnostic.h"
#include "common/source_loc.h"
#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"

namespace {

using namespace tilejit;  // NOLINT

// The kernel parsed from `text`, if any; traps when an error comes without a location.
Result<ir::Kernel> Parse(std::string_view text) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<ir::Kernel> k = ir::ParseTileIr(text, &sources, &diag, "fuzz.tir");
  if (!k.ok()) {
    if (k.status().code() != StatusCode::kCompileError) __builtin_trap();
    bool located = false;
    for (const Diagnostic& d : diag.diagnostics()) located = located || d.loc.known();
    if (!located) __builtin_trap();
  }
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<ir::Kernel> first = Parse(text);
  if (!first.ok() || !ir::Verify(*first).ok()) return 0;
  const std::string printed = ir::PrintKernel(*first);
  Result<ir::Kernel> second = Parse(printed);
  if (!second.ok() || !ir::Verify(*second).ok()) __builtin_trap();
  if (ir::PrintKernel(*second) != printed) __builtin_trap();
  return 0;
}
