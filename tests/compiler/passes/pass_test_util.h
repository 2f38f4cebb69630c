// SPDX-License-Identifier: Apache-2.0
// Helpers for before/after pass tests: parse Tile IR text, run one pass with a fresh
// PassContext on the 910B2 target, verify the result and print it canonically; or collect
// the diagnostics of a failing run.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "common/source_loc.h"
#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/pass.h"
#include "compiler/target/npu_target.h"

namespace tilejit::passes::testing {

class PassRunner {
 public:
  PassRunner() {
    ctx.target = &target::Ascend910B2();
    ctx.diag = &diag;
  }

  // Parses `text` (its locs point into the text) and runs `pass`. On success returns the
  // printed result (after checking it verifies); on failure returns "" and the diagnostics
  // stay in `diag`.
  std::string Run(PassFn pass, std::string_view text) {
    Result<ir::Kernel> in = ir::ParseTileIr(text, &sources, &diag, "test.tir");
    EXPECT_TRUE(in.ok()) << in.status();
    if (!in.ok()) return "";
    EXPECT_TRUE(ir::Verify(*in).ok()) << ir::Verify(*in);
    Result<ir::Kernel> out = pass(*in, ctx);
    if (!out.ok()) return "";
    Status v = ir::Verify(*out);
    EXPECT_TRUE(v.ok()) << v << "\n" << ir::PrintKernel(*out);
    return ir::PrintKernel(*out);
  }

  // The messages of every diagnostic of `severity`, in order.
  std::vector<std::string> Messages(Severity severity = Severity::kError) const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diag.diagnostics())
      if (d.severity == severity) out.push_back(d.message);
    return out;
  }
  std::string FirstError() const {
    std::vector<std::string> m = Messages();
    return m.empty() ? "<no error>" : m.front();
  }
  // Line of the first error in the test text (1-based), 0 when none.
  uint32_t FirstErrorLine() const {
    for (const Diagnostic& d : diag.diagnostics())
      if (d.severity == Severity::kError) return d.loc.line;
    return 0;
  }

  SourceManager sources;
  DiagnosticEngine diag{&sources};
  PassContext ctx;
};

}  // namespace tilejit::passes::testing
