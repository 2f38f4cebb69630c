// SPDX-License-Identifier: Apache-2.0
// Vector codegen, broadcasting: binary ops with a per-row ([R] and [R, 1]) or per-column
// ([1, C]) second operand, including R == C (per row by rule) and more than 240 rows, and the
// broadcast op along both axes, fp32 and fp16, on the simulator in checked mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tests/compiler/codegen/vector_test_util.h"

namespace tilejit::codegen::testing {
namespace {

using Shape = std::vector<int64_t>;

struct Op {
  const char* name;
  std::function<float(float, float)> f;
};

const Op kOps[] = {
    {"add", [](float a, float b) { return a + b; }},
    {"sub", [](float a, float b) { return a - b; }},
    {"mul", [](float a, float b) { return a * b; }},
    {"div", [](float a, float b) { return a / b; }},
    {"max", [](float a, float b) { return std::max(a, b); }},
    {"min", [](float a, float b) { return std::min(a, b); }},
};

// dst[R, C] = a[R, C] op v, where v has `vshape` and is indexed by row or by column.
void RunBroadcastBinary(const std::string& dtype, int64_t rows, int64_t cols, const Shape& vshape,
                        bool per_row) {
  const bool half = dtype == "float16";
  const size_t n = static_cast<size_t>(rows * cols), vn = static_cast<size_t>(Numel(vshape));
  std::vector<float> x = Data(n, 21), v = Data(vn, 22, 0.5f, 3.0f);
  if (half) {
    x = RoundToHalf(x);
    v = RoundToHalf(v);
  }
  for (const Op& op : kOps) {
    SCOPED_TRACE(std::string(op.name) + " " + dtype + " [" + std::to_string(rows) + ", " +
                 std::to_string(cols) + "] with [" + ShapeList(vshape) + "]");
    VecKernel k;
    k.Ub("a", dtype, {rows, cols}).Ub("v", dtype, vshape).Ub("d", dtype, {rows, cols});
    k.In("a").In("v").Out("d").Op(std::string(op.name) + "(%d, %a, %v)");
    auto run =
        RunIr(k.Text(), {(half ? F16 : F32)({rows, cols}, x), (half ? F16 : F32)(vshape, v)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    std::vector<float> want = Map(n, [&](size_t i) {
      return op.f(x[i], v[per_row ? i / static_cast<size_t>(cols) : i % static_cast<size_t>(cols)]);
    });
    if (half) want = RoundToHalf(want);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, half ? 1e-3 : 1e-6, 1e-6));
  }
}

TEST(VectorBroadcast, PerRowVectorOperand) {
  RunBroadcastBinary("float32", 32, 512, {32}, true);
  RunBroadcastBinary("float32", 7, 37, {7}, true);
  RunBroadcastBinary("float16", 5, 100, {5}, true);
}

TEST(VectorBroadcast, PerRowWithEqualRowsAndColumnsIsStillPerRow) {
  RunBroadcastBinary("float32", 16, 16, {16}, true);
}

TEST(VectorBroadcast, PerRowColumnOperandOfOneElementPerRow) {
  RunBroadcastBinary("float32", 9, 40, {9, 1}, true);
  RunBroadcastBinary("float16", 4, 33, {4, 1}, true);
}

TEST(VectorBroadcast, PerRowPastTheRowLimitSplitsAlignedGroups) {
  RunBroadcastBinary("float32", 300, 16, {300}, true);
}

TEST(VectorBroadcast, PerColumnOperand) {
  RunBroadcastBinary("float32", 6, 50, {1, 50}, false);
  RunBroadcastBinary("float16", 270, 24, {1, 24}, false);
}

TEST(VectorBroadcast, BroadcastOpAlongRowsAndColumns) {
  const std::vector<float> r = Data(12, 23), c = Data(20, 24);
  VecKernel k;
  k.Ub("r", "float32", {12}).Ub("c", "float32", {1, 20}).Ub("rr", "float32", {12, 1});
  k.Ub("d0", "float32", {12, 20}).Ub("d1", "float32", {12, 20}).Ub("d2", "float32", {12, 20});
  k.In("r").In("c").In("rr").Out("d0").Out("d1").Out("d2");
  k.Op("broadcast(%d0, %r) {axis=1}").Op("broadcast(%d1, %c) {axis=0}");
  k.Op("broadcast(%d2, %rr) {axis=1}");
  auto run = RunIr(k.Text(), {F32({12}, r), F32({1, 20}, c), F32({12, 1}, r)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(
      AllClose(ToFloats(run->outputs[0]), Map(240, [&](size_t i) { return r[i / 20]; }), 0, 0));
  EXPECT_TRUE(
      AllClose(ToFloats(run->outputs[1]), Map(240, [&](size_t i) { return c[i % 20]; }), 0, 0));
  EXPECT_TRUE(
      AllClose(ToFloats(run->outputs[2]), Map(240, [&](size_t i) { return r[i / 20]; }), 0, 0));
}

TEST(VectorBroadcast, BroadcastOpFp16) {
  const std::vector<float> c = RoundToHalf(Data(130, 25));
  VecKernel k;
  k.Ub("c", "float16", {1, 130}).Ub("d", "float16", {3, 130}).In("c").Out("d");
  k.Op("broadcast(%d, %c) {axis=0}");
  auto run = RunIr(k.Text(), {F16({1, 130}, c)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(
      AllClose(ToFloats(run->outputs[0]), Map(390, [&](size_t i) { return c[i % 130]; }), 0, 0));
}

TEST(VectorBroadcast, SoftmaxOverRows) {
  // The softmax kernel's vector body (docs/tile_ir.md) on one block, with the author's
  // barriers between dependent vector ops.
  const int64_t rows = 64, cols = 250;
  const std::vector<float> x = Data(static_cast<size_t>(rows * cols), 26, -4.0f, 4.0f);
  VecKernel k;
  k.Ub("x", "float32", {rows, cols}).Ub("m", "float32", {rows}).Ub("s", "float32", {rows});
  k.In("x").Out("x");
  k.Op("reduce_max(%m, %x) {dim=-1}").Op("barrier(v)").Op("sub(%x, %x, %m)").Op("barrier(v)");
  k.Op("exp(%x, %x)").Op("barrier(v)").Op("reduce_sum(%s, %x) {dim=-1}").Op("barrier(v)");
  k.Op("div(%x, %x, %s)");
  auto run = RunIr(k.Text(), {F32({rows, cols}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    float m = x[r * cols], sum = 0.0f;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) want[r * cols + c] = std::exp(x[r * cols + c] - m) / sum;
  }
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 1e-5, 1e-7));
}

TEST(VectorBroadcast, WrongAxisIsADiagnostic) {
  VecKernel k;
  k.Ub("r", "float32", {12}).Ub("d", "float32", {12, 20}).In("r").Out("d");
  k.Op("broadcast(%d, %r) {axis=0}");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("broadcast axis 0 does not match"), std::string::npos)
      << bin.status();
}

TEST(VectorBroadcast, MismatchedSecondOperandIsADiagnostic) {
  VecKernel k;
  k.Ub("a", "float32", {12, 20}).Ub("v", "float32", {7}).In("a").In("v").Out("a");
  k.Op("add(%a, %a, %v)");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("add shape mismatch: the destination is [12, 20] but the "
                                        "second source is [7]"),
            std::string::npos)
      << bin.status();
}

}  // namespace
}  // namespace tilejit::codegen::testing
