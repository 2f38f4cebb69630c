// SPDX-License-Identifier: Apache-2.0
// Seeded mutation test: corrupt printed kernels in many small ways and require that the parser
// either rejects the text with a located diagnostic or accepts it, in which case the result
// must print, re-parse to the same text and survive the verifier. Never a crash (run it under
// ASan+UBSan). Deterministic: fixed seeds, fixed case count.
#include <gtest/gtest.h>

#include <random>

#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "test_kernels.h"

namespace tilejit::ir {
namespace {

constexpr int kCasesPerKernel = 350;

const std::string_view kFragments[] = {
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ":+",
    "=",
    "-",
    "%",
    "//",
    "@",
    "\"",
    "#",
    "\n",
    " ",
    "%v0",
    "%p0",
    "%ub_0",
    "%cid",
    "let ",
    "for ",
    "if ",
    "launch",
    "0",
    "-1",
    "99999999999999999999",
    "1e999",
    "inf",
    "nan",
    "float16",
    "int64(",
    "select(",
    "not ",
    "and",
    "expr(",
    "scope cube {",
    "\x01",
    "\xff",
    "barrier(all)",
    "sync_all()",
    "}\n",
    "{\n",
    ":+0",
};

std::string Mutate(const std::string& text, std::mt19937& rng) {
  std::string s = text;
  int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    size_t pos = rng() % s.size();
    switch (rng() % 6) {
      case 0:  // delete a span
        s.erase(pos, 1 + rng() % 8);
        break;
      case 1:  // insert a fragment
        s.insert(pos, kFragments[rng() % std::size(kFragments)]);
        break;
      case 2:  // replace one byte
        s[pos] = static_cast<char>(rng() % 256);
        break;
      case 3: {  // duplicate a line
        size_t start = s.rfind('\n', pos);
        start = start == std::string::npos ? 0 : start + 1;
        size_t end = s.find('\n', pos);
        end = end == std::string::npos ? s.size() : end + 1;
        s.insert(start, s.substr(start, end - start));
        break;
      }
      case 4:  // truncate
        s.resize(pos);
        break;
      default: {  // swap two spans
        size_t other = rng() % s.size();
        std::swap(s[pos], s[other]);
      }
    }
  }
  return s;
}

TEST(IrParserMutation, NeverCrashesAndAcceptedTextRoundTrips) {
  int accepted = 0, rejected = 0;
  uint32_t seed = 1;
  for (const auto& [name, kernel] : testing::AllTestKernels()) {
    std::string text = PrintKernel(kernel);
    std::mt19937 rng(seed++);
    for (int i = 0; i < kCasesPerKernel; ++i) {
      std::string mutated = Mutate(text, rng);
      SourceManager sources;
      DiagnosticEngine diag(&sources);
      Result<Kernel> k = ParseTileIr(mutated, &sources, &diag);
      if (!k.ok()) {
        ++rejected;
        ASSERT_EQ(diag.error_count(), 1u) << name << " case " << i;
        ASSERT_TRUE(diag.diagnostics()[0].loc.known()) << name << " case " << i;
        continue;
      }
      ++accepted;
      std::string printed = PrintKernel(*k);
      Result<Kernel> again = ParseTileIrString(printed);
      ASSERT_TRUE(again.ok()) << name << " case " << i << ": " << again.status() << "\n" << printed;
      ASSERT_EQ(PrintKernel(*again), printed) << name << " case " << i;
      (void)Verify(*k);
      (void)StmtIdTable(*k);
    }
  }
  // The mutations must exercise both paths.
  EXPECT_GT(accepted, 50);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace tilejit::ir
