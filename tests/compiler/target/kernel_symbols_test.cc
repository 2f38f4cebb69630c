// SPDX-License-Identifier: Apache-2.0
// Symbolic shapes in the metadata schema: symbols, dim_symbols and the grid program round trip,
// each rule has a rejection, and the grid evaluator's arithmetic (floor semantics, overflow).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>

#include "compiler/target/kernel_metadata.h"
#include "tests/compiler/target/binary_samples.h"
#include "tests/compiler/target/binary_test_util.h"

namespace tilejit::target {
namespace {

using ::testing::HasSubstr;
using testing::ReplaceOnce;

KernelMetadata SymbolicMetadata() { return testing::SampleSymbolicBinary().metadata; }

void ExpectSymbolicInvalid(const std::function<void(KernelMetadata&)>& edit,
                           const std::string& text) {
  KernelMetadata m = SymbolicMetadata();
  edit(m);
  const Status s = ValidateKernelMetadata(m);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr(text));
  EXPECT_FALSE(SerializeKernelMetadata(m).ok());
}

TEST(KernelSymbols, SymbolicSampleRoundTripsWithItsKeys) {
  auto text = SerializeKernelMetadata(SymbolicMetadata());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("\"symbols\":[{\"max\":1048576,\"name\":\"M\"},"
                               "{\"max\":65536,\"name\":\"N\"}]"));
  EXPECT_THAT(*text, HasSubstr("\"grid\":[\"s0\",\"c127\",\"+\",\"c128\",\"//\"]"));
  EXPECT_THAT(*text, HasSubstr("\"dim_symbols\":[0,-1]"));
  EXPECT_THAT(*text, HasSubstr("\"dim_symbols\":[-2,-1]"));
  EXPECT_THAT(*text, HasSubstr("\"block_count\":0"));
  auto parsed = ParseKernelMetadata(*text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, SymbolicMetadata());
}

TEST(KernelSymbols, StaticParamsWriteEmptyDimSymbols) {
  auto text = SerializeKernelMetadata(testing::SampleBinary().metadata);
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, HasSubstr("\"grid\":[]"));
  EXPECT_THAT(*text, HasSubstr("\"symbols\":[]"));
  EXPECT_THAT(*text, HasSubstr("\"dim_symbols\":[]"));
}

TEST(KernelSymbols, NormalizeDimSymbolsEmptiesAllStaticLists) {
  KernelParam p{"A", {4, 5}, ElementType::kInt8, ParamRole::kInput, false, 0, {-1, -1}};
  NormalizeDimSymbols(p);
  EXPECT_TRUE(p.dim_symbols.empty());
  p.dim_symbols = {-1, 0};
  NormalizeDimSymbols(p);
  EXPECT_EQ(p.dim_symbols, (std::vector<int>{-1, 0}));
}

TEST(KernelSymbols, ParamSizeBytesRefusesSymbolicParams) {
  const KernelMetadata m = SymbolicMetadata();
  EXPECT_EQ(ParamSizeBytes(m.params[0]).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*ShapeSizeBytes(ElementType::kFloat16, std::vector<int64_t>{3, 5}), 30);
}

TEST(KernelSymbols, RejectsBadSymbols) {
  ExpectSymbolicInvalid([](auto& m) { m.symbols[0].name = ""; }, "not an identifier");
  ExpectSymbolicInvalid([](auto& m) { m.symbols[0].name = "1M"; }, "not an identifier");
  ExpectSymbolicInvalid([](auto& m) { m.symbols[0].name = "M-1"; }, "not an identifier");
  ExpectSymbolicInvalid([](auto& m) { m.symbols[0].name = "M\x7f"; }, "not an identifier");
  ExpectSymbolicInvalid([](auto& m) { m.symbols[1].name = "M"; }, "symbol name 'M' is used twice");
  ExpectSymbolicInvalid([](auto& m) { m.symbols[0].max = -1; }, "max -1");
  ExpectSymbolicInvalid([](auto& m) { m.symbols[0].max = int64_t{1} << 31; }, "max 2147483648");
  ExpectSymbolicInvalid(
      [](auto& m) {
        m.symbols.resize(kMaxSymbols + 1, {"x", 1});
      },
      "more than 64");
}

TEST(KernelSymbols, RejectsBadDimSymbols) {
  ExpectSymbolicInvalid([](auto& m) { m.params[0].dim_symbols = {0}; }, "1 dim_symbols for rank 2");
  ExpectSymbolicInvalid([](auto& m) { m.params[0].dim_symbols = {2, -1}; }, "refers to symbol 2");
  ExpectSymbolicInvalid([](auto& m) { m.params[0].dim_symbols = {-3, -1}; }, "refers to symbol -3");
  ExpectSymbolicInvalid([](auto& m) { m.params[0].shape = {128, 64}; }, "its shape entry is 128");
  ExpectSymbolicInvalid([](auto& m) { m.params[2].dim_symbols = {-1, -1}; }, "every dim static");
  ExpectSymbolicInvalid([](auto& m) { m.params[0].dim_symbols = {-2, -1}; }, "is the block count");
  ExpectSymbolicInvalid(
      [](auto& m) {
        m.params[3].dim_symbols = {-1, -2};
      },
      "dim 1 is the block count");
  ExpectSymbolicInvalid(
      [](auto& m) {
        m.grid.clear();
        m.block_count = 4;
      },
      "is the block count");
  ExpectSymbolicInvalid(
      [](auto& m) {
        m.params[1].dim_symbols = {-1, 0};
      },
      "symbol 1 ('N') is not the extent of any dim of an input param");
}

TEST(KernelSymbols, RejectsBadGrids) {
  ExpectSymbolicInvalid([](auto& m) { m.block_count = 4; }, "with a symbolic grid");
  ExpectSymbolicInvalid([](auto& m) { m.grid = {"s0", "+"}; }, "fewer than two operands");
  ExpectSymbolicInvalid([](auto& m) { m.grid = {"s0", "s1"}; }, "leaves 2 values");
  ExpectSymbolicInvalid([](auto& m) { m.grid = {"s2"}; }, "refers to symbol 2");
  ExpectSymbolicInvalid([](auto& m) { m.grid = {"s01"}; }, "canonical symbol index");
  ExpectSymbolicInvalid([](auto& m) { m.grid = {"c9223372036854775808"}; }, "canonical int64");
  ExpectSymbolicInvalid([](auto& m) { m.grid = {"c+1"}; }, "canonical int64");
  ExpectSymbolicInvalid([](auto& m) { m.grid = {"c-0"}; }, "canonical int64");
  ExpectSymbolicInvalid([](auto& m) { m.grid = {"s0", "c2", "/"}; }, "not a grid token");
  ExpectSymbolicInvalid([](auto& m) { m.grid.assign(kMaxGridTokens + 1, "s0"); }, "more than 256");
}

TEST(KernelSymbols, SymbolicCompilerWorkspaceRuleWaitsForTheLaunch) {
  KernelMetadata m = SymbolicMetadata();
  m.params[3].workspace_bytes_per_block = 1 << 30;  // checked at launch, not here
  EXPECT_TRUE(ValidateKernelMetadata(m).ok());
}

TEST(KernelSymbols, ParserRejectsMistypedSymbolFields) {
  auto text = SerializeKernelMetadata(SymbolicMetadata());
  ASSERT_TRUE(text.ok());
  auto expect = [](const std::string& t, const std::string& message) {
    auto r = ParseKernelMetadata(t);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_THAT(r.status().message(), HasSubstr(message));
  };
  expect(ReplaceOnce(*text, "\"grid\":[\"s0\"", "\"grid\":[0"), "non-string token");
  expect(ReplaceOnce(*text, "{\"max\":65536,", "{\"max\":\"1\","), "'max' is not an integer");
  expect(ReplaceOnce(*text, ",\"name\":\"N\"}", "}"), "lacks field 'name'");
  expect(ReplaceOnce(*text, "\"dim_symbols\":[0,-1]", "\"dim_symbols\":[0.5,-1]"), "non-integer");
  expect(ReplaceOnce(*text, "\"dim_symbols\":[0,-1]", "\"dim_symbols\":[-1,-1]"),
         "every dim static");
  expect(ReplaceOnce(*text, "\"symbols\":[{", "\"symbols\":[7,{"), "not an object");
}

Result<int64_t> Eval(std::vector<std::string> grid, std::vector<int64_t> symbols) {
  return EvaluateGridProgram(grid, symbols);
}

TEST(GridProgram, EvaluatesWithFloorSemantics) {
  EXPECT_EQ(*Eval({"s0", "c127", "+", "c128", "//"}, {129}), 2);
  EXPECT_EQ(*Eval({"c-7", "c2", "//"}, {}), -4);
  EXPECT_EQ(*Eval({"c-7", "c2", "%"}, {}), 1);
  EXPECT_EQ(*Eval({"c7", "c-2", "%"}, {}), -1);
  EXPECT_EQ(*Eval({"c7", "c-2", "//"}, {}), -4);
  EXPECT_EQ(*Eval({"s0", "s1", "min", "c3", "max"}, {10, 2}), 3);
  EXPECT_EQ(*Eval({"s0", "s1", "-", "c4", "*"}, {10, 2}), 32);
  EXPECT_EQ(*Eval({"c-9223372036854775808", "c-1", "%"}, {}), 0);
}

TEST(GridProgram, RejectsDivisionByZeroAndOverflow) {
  EXPECT_THAT(Eval({"s0", "c0", "//"}, {1}).status().message(), HasSubstr("divides by zero"));
  EXPECT_THAT(Eval({"s0", "s0", "%"}, {0}).status().message(), HasSubstr("divides by zero"));
  EXPECT_THAT(Eval({"c9223372036854775807", "c1", "+"}, {}).status().message(),
              HasSubstr("overflows"));
  EXPECT_THAT(Eval({"c-9223372036854775808", "c-1", "//"}, {}).status().message(),
              HasSubstr("overflows"));
  EXPECT_THAT(Eval({"c4294967296", "c4294967296", "*"}, {}).status().message(),
              HasSubstr("overflows"));
  EXPECT_THAT(Eval({"s1"}, {1}).status().message(), HasSubstr("refers to symbol 1"));
}

}  // namespace
}  // namespace tilejit::target
