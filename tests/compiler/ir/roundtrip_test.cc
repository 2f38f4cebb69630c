// SPDX-License-Identifier: Apache-2.0
// print -> parse -> print is the identity on every hand-built kernel, and parsing yields the
// same statement-id structure.
#include <gtest/gtest.h>

#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "test_kernels.h"

namespace tilejit::ir {
namespace {

class RoundTrip : public ::testing::TestWithParam<testing::NamedKernel> {};

TEST_P(RoundTrip, PrintParsePrintIsIdentity) {
  std::string text = PrintKernel(GetParam().kernel);
  Result<Kernel> parsed = ParseTileIrString(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  EXPECT_EQ(PrintKernel(*parsed), text);
}

TEST_P(RoundTrip, ParsedKernelHasSameStatementIds) {
  const Kernel& k = GetParam().kernel;
  Result<Kernel> parsed = ParseTileIrString(PrintKernel(k));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::vector<Stmt> before = StmtIdTable(k);
  std::vector<Stmt> after = StmtIdTable(*parsed);
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(before[i]->kind, after[i]->kind) << i;
}

TEST_P(RoundTrip, HandBuiltAndParsedKernelsVerify) {
  const Kernel& k = GetParam().kernel;
  EXPECT_TRUE(Verify(k).ok()) << Verify(k);
  Result<Kernel> parsed = ParseTileIrString(PrintKernel(k));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(Verify(*parsed).ok()) << Verify(*parsed);
}

INSTANTIATE_TEST_SUITE_P(Kernels, RoundTrip, ::testing::ValuesIn(testing::AllTestKernels()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace tilejit::ir
