// SPDX-License-Identifier: Apache-2.0
// Vector codegen, element-wise families: binary ops tile-tile / tile-scalar / scalar read from
// a UB element, unary functions, fill and axpy, over shapes that exercise every split of the
// repeat engine (dense runs, padded rows, long rows, more than 255 repeats, batches,
// sub-regions), in fp32 and fp16, on the simulator in checked mode.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tests/compiler/codegen/vector_test_util.h"

namespace tilejit::codegen::testing {
namespace {

using Shape = std::vector<int64_t>;

struct BinCase {
  const char* op;
  std::function<float(float, float)> f;
};

const std::vector<BinCase>& BinaryOps() {
  static const std::vector<BinCase> ops = {
      {"add", [](float a, float b) { return a + b; }},
      {"sub", [](float a, float b) { return a - b; }},
      {"mul", [](float a, float b) { return a * b; }},
      {"div", [](float a, float b) { return a / b; }},
      {"max", [](float a, float b) { return std::max(a, b); }},
      {"min", [](float a, float b) { return std::min(a, b); }},
  };
  return ops;
}

// Second operands away from zero so that div is well conditioned.
std::vector<float> Divisors(size_t n, uint32_t seed) {
  std::vector<float> v = Data(n, seed, 0.5f, 2.0f);
  for (size_t i = 0; i < n; i += 3) v[i] = -v[i];
  return v;
}

void RunBinaryVV(const std::string& dtype, const Shape& shape) {
  const bool half = dtype == "float16";
  const size_t n = static_cast<size_t>(Numel(shape));
  std::vector<float> x = Data(n, 1), y = Divisors(n, 2);
  if (half) {
    x = RoundToHalf(x);
    y = RoundToHalf(y);
  }
  for (const BinCase& c : BinaryOps()) {
    SCOPED_TRACE(std::string(c.op) + " " + dtype + " [" + ShapeList(shape) + "]");
    VecKernel k;
    k.Ub("a", dtype, shape).Ub("b", dtype, shape).Ub("c", dtype, shape);
    k.In("a").In("b").Out("c").Op(std::string(c.op) + "(%c, %a, %b)");
    auto make = half ? F16 : F32;
    auto run = RunIr(k.Text(), {make(shape, x), make(shape, y)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    std::vector<float> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = c.f(x[i], y[i]);
    if (half) want = RoundToHalf(want);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, half ? 1e-3 : 1e-6, 1e-6));
  }
}

TEST(VectorElementwise, BinaryTileTileFp32AcrossShapes) {
  for (const Shape& s :
       std::vector<Shape>{{64}, {8, 64}, {5, 37}, {3, 1000}, {170, 96}, {2, 4, 24}, {2, 3, 10}})
    RunBinaryVV("float32", s);
}

TEST(VectorElementwise, BinaryTileTileFp16AcrossShapes) {
  for (const Shape& s : std::vector<Shape>{{200}, {7, 19}, {2, 700}, {260, 16}})
    RunBinaryVV("float16", s);
}

TEST(VectorElementwise, BinaryWithImmediateScalar) {
  const Shape shape{5, 37};
  const std::vector<float> x = Data(185, 3);
  for (const BinCase& c : BinaryOps()) {
    SCOPED_TRACE(c.op);
    VecKernel k;
    k.Ub("a", "float32", shape).In("a").Out("a").Op(std::string(c.op) + "(%a, %a, -1.5)");
    auto run = RunIr(k.Text(), {F32(shape, x)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]),
                         Map(x.size(), [&](size_t i) { return c.f(x[i], -1.5f); }), 1e-6, 1e-6));
  }
}

TEST(VectorElementwise, BinaryWithScalarReadFromUbElement) {
  const Shape shape{6, 40};
  const std::vector<float> x = Data(240, 4), s = Divisors(8, 5);
  for (const BinCase& c : BinaryOps()) {
    SCOPED_TRACE(c.op);
    VecKernel k;
    k.Ub("a", "float32", shape).Ub("s", "float32", {8}).In("a").In("s").Out("a");
    k.Op(std::string(c.op) + "(%a, %a, %s[3])");
    auto run = RunIr(k.Text(), {F32(shape, x), F32({8}, s)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]),
                         Map(x.size(), [&](size_t i) { return c.f(x[i], s[3]); }), 1e-6, 1e-6));
    // The vector instruction reads the element itself: no scalar load.
    EXPECT_EQ(CountOp(run->binary, target::CoreType::kAiv, target::Opcode::kLdUb), 0);
  }
}

TEST(VectorElementwise, BinaryOnSubRegionLeavesTheRestAlone) {
  const Shape shape{6, 40};
  const std::vector<float> x = Data(240, 6), y = Data(240, 7);
  VecKernel k;
  k.Ub("a", "float32", shape).Ub("b", "float32", shape).In("a").In("b").Out("a");
  k.Op("mul(%a[1:+4, 8:+19], %a[1:+4, 8:+19], %b[2:+4, 16:+19])");
  auto run = RunIr(k.Text(), {F32(shape, x), F32(shape, y)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want = x;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 19; ++c) want[(1 + r) * 40 + 8 + c] *= y[(2 + r) * 40 + 16 + c];
  }
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 1e-6, 1e-6));
}

TEST(VectorElementwise, RuntimeRowOffsetRegion) {
  const Shape shape{4, 24};
  const std::vector<float> x = Data(96, 8);
  VecKernel k;
  k.Ub("a", "float32", shape).In("a").Out("a");
  k.Op("add(%a[%cid + 1:+2, :], %a[%cid + 1:+2, :], 10.0)");
  auto run = RunIr(k.Text(), {F32(shape, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want = x;
  for (int i = 24; i < 72; ++i) want[i] += 10.0f;
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 1e-6, 1e-6));
}

struct UnCase {
  const char* op;
  float (*f)(float);
  bool positive;
};

void RunUnary(const std::string& dtype, const Shape& shape) {
  static const UnCase kOps[] = {
      {"exp", [](float a) { return std::exp(a); }, false},
      {"ln", [](float a) { return std::log(a); }, true},
      {"sqrt", [](float a) { return std::sqrt(a); }, true},
      {"rsqrt", [](float a) { return 1.0f / std::sqrt(a); }, true},
      {"reciprocal", [](float a) { return 1.0f / a; }, true},
      {"abs", [](float a) { return std::fabs(a); }, false},
      {"relu", [](float a) { return a > 0 ? a : 0.0f; }, false},
      {"sigmoid", [](float a) { return 1.0f / (1.0f + std::exp(-a)); }, false},
  };
  const bool half = dtype == "float16";
  const size_t n = static_cast<size_t>(Numel(shape));
  for (const UnCase& c : kOps) {
    SCOPED_TRACE(std::string(c.op) + " " + dtype + " [" + ShapeList(shape) + "]");
    std::vector<float> x = c.positive ? Data(n, 9, 0.25f, 4.0f) : Data(n, 9);
    if (half) x = RoundToHalf(x);
    VecKernel k;
    k.Ub("a", dtype, shape).Ub("b", dtype, shape).In("a").Out("b");
    k.Op(std::string(c.op) + "(%b, %a)");
    auto run = RunIr(k.Text(), {(half ? F16 : F32)(shape, x)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    std::vector<float> want = Map(n, [&](size_t i) { return c.f(x[i]); });
    if (half) want = RoundToHalf(want);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, half ? 2e-3 : 1e-5, 1e-6));
  }
}

TEST(VectorElementwise, UnaryFunctionsFp32) {
  RunUnary("float32", {9, 70});
  RunUnary("float32", {257, 64});
}

TEST(VectorElementwise, UnaryFunctionsFp16) { RunUnary("float16", {3, 150}); }

TEST(VectorElementwise, FillWholeTileAndSubRegion) {
  const Shape shape{300, 20};
  VecKernel k;
  k.Ub("a", "float16", shape).Out("a");
  k.Op("fill(%a, float16(0.5))").Op("barrier(v)").Op("fill(%a[10:+5, 16:+4], float16(-3.0))");
  auto run = RunIr(k.Text(), {});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want(6000, 0.5f);
  for (int r = 10; r < 15; ++r) {
    for (int c = 16; c < 20; ++c) want[r * 20 + c] = -3.0f;
  }
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 0, 0));
}

TEST(VectorElementwise, FillInt32WithRuntimeValue) {
  VecKernel k;
  k.Ub("a", "int32", {3, 10}).Out("a").Op("fill(%a, %cid + 7)");
  auto run = RunIr(k.Text(), {});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_EQ(ToInt32(run->outputs[0]), std::vector<int32_t>(30, 7));
}

// upstream's tests fill integer tiles with 0.0: a whole-number float constant is that integer;
// any other float is still refused.
TEST(VectorElementwise, FillIntegerTileWithAWholeFloatConstant) {
  VecKernel k;
  k.Ub("a", "int32", {3, 10}).Out("a").Op("fill(%a, -3.0)");
  auto run = RunIr(k.Text(), {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(ToInt32(run->outputs[0]), std::vector<int32_t>(30, -3));
  VecKernel half;
  half.Ub("a", "int32", {3, 10}).Out("a").Op("fill(%a, 0.5)");
  auto bad = RunIr(half.Text(), {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("a float scalar cannot be combined with integer"),
            std::string::npos)
      << bad.status();
}

TEST(VectorElementwise, AxpyWithImmediateAndUbScalar) {
  const Shape shape{5, 33};
  const std::vector<float> x = Data(165, 10), y = Data(165, 11), s = Data(8, 12);
  VecKernel k;
  k.Ub("a", "float32", shape).Ub("b", "float32", shape).Ub("s", "float32", {8});
  k.In("a").In("b").In("s").Out("a");
  k.Op("axpy(%a, %b, 0.5)").Op("barrier(v)").Op("axpy(%a, %b, %s[5])");
  auto run = RunIr(k.Text(), {F32(shape, x), F32(shape, y), F32({8}, s)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]),
                       Map(165, [&](size_t i) { return x[i] + 0.5f * y[i] + s[5] * y[i]; }), 1e-5,
                       1e-6));
}

TEST(VectorElementwise, Int32TileTileAndTileScalar) {
  const Shape shape{5, 20};
  std::vector<int32_t> x(100), y(100);
  for (int i = 0; i < 100; ++i) {
    x[i] = i * 37 % 101 - 50;
    y[i] = i * 53 % 97 - 40;
  }
  VecKernel k;
  k.Ub("a", "int32", shape).Ub("b", "int32", shape).Ub("c", "int32", shape);
  k.Ub("d", "int32", shape).In("a").In("b").Out("c").Out("d");
  k.Op("max(%c, %a, %b)").Op("mul(%d, %a, -3)");
  auto run = RunIr(k.Text(), {I32(shape, x), I32(shape, y)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<int32_t> want_c(100), want_d(100);
  for (int i = 0; i < 100; ++i) {
    want_c[i] = std::max(x[i], y[i]);
    want_d[i] = x[i] * -3;
  }
  EXPECT_EQ(ToInt32(run->outputs[0]), want_c);
  EXPECT_EQ(ToInt32(run->outputs[1]), want_d);
}

TEST(VectorElementwise, Bf16FillAndCast) {
  const Shape shape{3, 40};
  const std::vector<float> x = Data(120, 13);
  VecKernel k;
  k.Ub("a", "float32", shape).Ub("f", "bfloat16", shape).Ub("h", "bfloat16", shape);
  k.In("a").Out("f").Out("h");
  k.Op("fill(%f, bfloat16(1.5))").Op("cast(%h, %a) {count=120, mode=\"CAST_RINT\"}");
  auto run = RunIr(k.Text(), {F32(shape, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), std::vector<float>(120, 1.5f), 0, 0));
  std::vector<float> want =
      Map(120, [&](size_t i) { return runner::sim::Bf16ToFloat(runner::sim::FloatToBf16(x[i])); });
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[1]), want, 0, 0));
}

TEST(VectorElementwise, RuntimeScalarExpression) {
  const Shape shape{4, 16};
  const std::vector<float> x = Data(64, 14);
  VecKernel k;
  k.Ub("a", "float32", shape).Ub("b", "float32", shape).In("a").Out("b");
  k.Op("sub(%b, %a, %cid + 2)");
  auto run = RunIr(k.Text(), {F32(shape, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), Map(64, [&](size_t i) { return x[i] - 2.0f; }),
                       1e-6, 1e-6));
}

TEST(VectorElementwise, RowPitchPastTheStrideFieldGoesRowByRow) {
  // 2100 fp32 elements per row: a pitch of 263 blocks does not fit the 8-bit repeat stride.
  const Shape shape{3, 2100};
  const std::vector<float> x = Data(6300, 15);
  VecKernel k;
  k.Ub("a", "float32", shape).In("a").Out("a");
  k.Op("mul(%a[:, 64:+100], %a[:, 64:+100], 2.0)");
  auto run = RunIr(k.Text(), {F32(shape, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want = x;
  for (int r = 0; r < 3; ++r) {
    for (int c = 64; c < 164; ++c) want[r * 2100 + c] *= 2.0f;
  }
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 0, 0));
}

TEST(VectorElementwise, OneMatrixOfAMultiBufferedTile) {
  const Shape shape{2, 3, 10};
  const std::vector<float> x = Data(60, 16);
  VecKernel k;
  k.Ub("a", "float32", shape).In("a").Out("a");
  k.Op("exp(%a[%cid + 1:+1, :, :], %a[%cid + 1:+1, :, :])");
  auto run = RunIr(k.Text(), {F32(shape, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want = x;
  for (int i = 30; i < 60; ++i) want[i] = std::exp(x[i]);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 1e-5, 1e-6));
}

TEST(VectorElementwise, LongDenseRunsSplitAt255Repeats) {
  // 300 x 64 fp32 is 300 full repeats: two instructions.
  VecKernel k;
  k.Ub("a", "float32", {300, 64}).In("a").Out("a").Op("add(%a, %a, 1.0)");
  auto bin = CompileIr(k.Text());
  ASSERT_TRUE(bin.ok()) << bin.status();
  EXPECT_EQ(CountOp(*bin, target::CoreType::kAiv, target::Opcode::kVadds), 2);
}

TEST(VectorElementwise, PaddedRowsRepeatOverRowsWithThePitchAsStride) {
  // 37 fp32 = 148 bytes per row, pitch 160 bytes = 5 blocks: one instruction, mask 37.
  VecKernel k;
  k.Ub("a", "float32", {5, 37}).In("a").Out("a").Op("add(%a, %a, 1.0)");
  auto bin = CompileIr(k.Text());
  ASSERT_TRUE(bin.ok()) << bin.status();
  int found = 0;
  for (const target::Instr& in : Program(*bin, target::CoreType::kAiv)) {
    if (in.op != target::Opcode::kVadds) continue;
    ++found;
    EXPECT_EQ(in.repeat.imm, 5);
    EXPECT_EQ(in.mask.imm, 37);
    EXPECT_EQ(in.dst_rep, 5);
    EXPECT_EQ(in.src_rep, 5);
  }
  EXPECT_EQ(found, 1);
}

TEST(VectorElementwise, MisalignedColumnStartIsADiagnostic) {
  VecKernel k;
  k.Ub("a", "float32", {4, 32}).In("a").Out("a").Op("add(%a[:, 3:+8], %a[:, 3:+8], 1.0)");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(
      bin.status().message().find("does not start on a 32-byte block (it starts at column 3)"),
      std::string::npos)
      << bin.status();
}

TEST(VectorElementwise, UnsupportedElementTypeIsADiagnostic) {
  VecKernel k;
  k.Ub("a", "int32", {4, 16}).In("a").Out("a").Op("exp(%a, %a)");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("exp cannot be lowered"), std::string::npos)
      << bin.status();
}

}  // namespace
}  // namespace tilejit::codegen::testing
