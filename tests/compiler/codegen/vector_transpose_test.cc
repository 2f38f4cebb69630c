// SPDX-License-Identifier: Apache-2.0
// Vector codegen of transpose (vtrans pieces of at most 240 source rows) and the binary ops
// that lack an operand form (a shift or leaky ReLU by a tile, xor or pow by a scalar): run on
// the simulator in checked mode, or refused with a diagnostic naming the forms the op has.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/codegen/vector_test_util.h"

namespace tilejit::codegen::testing {
namespace {

void ExpectTranspose(const std::vector<int64_t>& shape) {
  SCOPED_TRACE(ShapeList(shape));
  const int64_t rows = shape[0], cols = shape[1];
  const std::vector<int64_t> out{cols, rows};
  std::vector<int32_t> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i * 7919 % 100003) - 5000;
  VecKernel k;
  k.Ub("a", "int32", shape).Ub("t", "int32", out).In("a").Out("t").Op("transpose(%t, %a)");
  auto run = RunIr(k.Text(), {I32(shape, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<int32_t> want(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) want[c * rows + r] = x[r * cols + c];
  }
  EXPECT_EQ(ToInt32(run->outputs[0]), want);
}

TEST(VectorTranspose, SquareTallWideAndPastTheRowLimit) {
  for (const auto& shape :
       std::vector<std::vector<int64_t>>{{16, 16}, {8, 40}, {40, 8}, {3, 5}, {300, 8}, {8, 300}}) {
    ExpectTranspose(shape);
  }
}

TEST(VectorTranspose, ShapeMismatchIsADiagnostic) {
  VecKernel k;
  k.Ub("a", "float16", {16, 32}).Ub("t", "float16", {16, 32}).In("a").Out("t");
  k.Op("transpose(%t, %a)");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("transpose shape mismatch: the source is [16, 32], so "
                                        "the destination must be its transpose, not [16, 32]"),
            std::string::npos)
      << bin.status();
}

TEST(VectorBinaryForms, MissingOperandFormsNameTheFormsTheOpHas) {
  struct Case {
    std::string op, dtype, second, want;
  };
  const std::vector<Case> cases = {
      {"bitwise_lshift", "int32", "%b",
       "bitwise_lshift has no form with a tile as its second operand; it takes a scalar"},
      {"leaky_relu", "float32", "%b",
       "leaky_relu has no form with a tile as its second operand; it takes a scalar"},
      {"bitwise_xor", "int16", "3",
       "bitwise_xor has no form with a scalar as its second operand; it takes a tile of the "
       "destination's shape"},
      {"pow", "float32", "2.0", "pow has no form with a scalar as its second operand"},
      {"bitwise_and", "int16", "%r",
       "bitwise_and has no form with a broadcast vector as its second operand; it takes a tile "
       "of the destination's shape or a scalar"},
  };
  for (const Case& c : cases) {
    VecKernel k;
    k.Ub("a", c.dtype, {4, 32}).Ub("b", c.dtype, {4, 32}).Ub("r", c.dtype, {4, 1});
    k.In("a").In("b").In("r").Out("a");
    k.Op(c.op + "(%a, %a, " + c.second + ")");
    auto bin = CompileIr(k.Text());
    ASSERT_FALSE(bin.ok()) << c.op;
    EXPECT_NE(bin.status().message().find(c.want), std::string::npos) << bin.status();
  }
}

TEST(VectorBinaryForms, BitwiseOpsRefuseTypesTheirInstructionsLack) {
  VecKernel k;
  k.Ub("a", "float16", {4, 32}).Ub("b", "float16", {4, 32}).In("a").In("b").Out("a");
  k.Op("bitwise_and(%a, %a, %b)");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("vand: element type f16 is not supported"),
            std::string::npos)
      << bin.status();
}

}  // namespace
}  // namespace tilejit::codegen::testing
