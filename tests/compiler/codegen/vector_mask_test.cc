// SPDX-License-Identifier: Apache-2.0
// Vector codegen, compare and select: the mask bit layout (vector_mask.cc), every compare mode,
// tile and scalar second operands, per-row and packed masks, fp32 and fp16, and the row
// lengths that cannot be lowered, on the simulator in checked mode.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tests/compiler/codegen/vector_test_util.h"

namespace tilejit::codegen::testing {
namespace {

using Shape = std::vector<int64_t>;

runner::NpyArray U8(Shape shape) {
  runner::NpyArray a;
  a.dtype = target::ElementType::kUInt8;
  a.data.assign(static_cast<size_t>(Numel(shape)), 0xAA);
  a.shape = std::move(shape);
  return a;
}

bool Bit(const runner::NpyArray& mask, size_t byte_row_start, size_t c) {
  return (mask.data[byte_row_start + c / 8] >> (c % 8)) & 1;
}

struct Mode {
  const char* name;
  std::function<bool(float, float)> f;
};

const Mode kModes[] = {
    {"EQ", [](float a, float b) { return a == b; }},
    {"NE", [](float a, float b) { return a != b; }},
    {"LT", [](float a, float b) { return a < b; }},
    {"LE", [](float a, float b) { return a <= b; }},
    {"GT", [](float a, float b) { return a > b; }},
    {"GE", [](float a, float b) { return a >= b; }},
};

// Integer-valued data so that EQ and NE see both outcomes.
std::vector<float> Small(size_t n, uint32_t seed) {
  std::vector<float> v = Data(n, seed, -3.0f, 3.0f);
  for (float& x : v) x = static_cast<float>(static_cast<int>(x));
  return v;
}

void RunCompareSelect(const std::string& dtype, int64_t rows, int64_t cols, int64_t mask_bytes) {
  const bool half = dtype == "float16";
  const Shape shape = rows == 1 ? Shape{cols} : Shape{rows, cols};
  const Shape mshape = rows == 1 ? Shape{mask_bytes} : Shape{rows, mask_bytes};
  const size_t n = static_cast<size_t>(rows * cols);
  const std::vector<float> x = Small(n, 51), y = Small(n, 52);
  for (const Mode& m : kModes) {
    SCOPED_TRACE(std::string(m.name) + " " + dtype + " [" + ShapeList(shape) + "]");
    VecKernel k;
    k.Ub("a", dtype, shape).Ub("b", dtype, shape).Ub("m", "uint8", mshape).Ub("d", dtype, shape);
    k.In("a").In("b").In("m").Out("d").Out("m");
    k.Op(std::string("compare(%m, %a, %b) {mode=\"") + m.name + "\"}").Op("barrier(v)");
    k.Op("select(%d, %m, %a, %b) {mode=\"VSEL_TENSOR_TENSOR_MODE\"}");
    auto make = half ? F16 : F32;
    auto run = RunIr(k.Text(), {make(shape, x), make(shape, y), U8(mshape)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    const int64_t row_bytes = rows == 1 ? 0 : mask_bytes;
    std::vector<float> want(n);
    int wrong_bits = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t r = i / static_cast<size_t>(cols), c = i % static_cast<size_t>(cols);
      const bool cond = m.f(x[i], y[i]);
      want[i] = cond ? x[i] : y[i];
      wrong_bits += Bit(run->outputs[1], r * static_cast<size_t>(row_bytes), c) != cond;
    }
    EXPECT_EQ(wrong_bits, 0);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 0, 0));
  }
}

TEST(VectorMask, CompareAndSelectTileTileFp32) {
  RunCompareSelect("float32", 6, 50, 32);   // one partial repeat per row
  RunCompareSelect("float32", 3, 296, 64);  // four full repeats + a partial one per row
}

TEST(VectorMask, CompareAndSelectTileTileFp16) {
  RunCompareSelect("float16", 4, 128, 16);
  RunCompareSelect("float16", 1, 300, 64);  // 1-D: one packed mask row
}

TEST(VectorMask, CompareAndSelectWithScalars) {
  const Shape shape{6, 50};
  const std::vector<float> x = Data(300, 53);
  VecKernel k;
  k.Ub("a", "float32", shape).Ub("m", "uint8", {6, 64}).Ub("d", "float32", shape);
  k.In("a").In("m").Out("d");
  k.Op("compare(%m, %a, 0.25) {mode=\"GT\"}").Op("barrier(v)");
  k.Op("select(%d, %m, %a, -1.0) {mode=\"VSEL_TENSOR_SCALAR_MODE\"}");
  auto run = RunIr(k.Text(), {F32(shape, x), U8({6, 64})});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]),
                       Map(300, [&](size_t i) { return x[i] > 0.25f ? x[i] : -1.0f; }), 0, 0));
}

TEST(VectorMask, SelectInPlaceWithScalarFp16) {
  const std::vector<float> x = RoundToHalf(Data(256, 54));
  VecKernel k;
  k.Ub("a", "float16", {256}).Ub("m", "uint8", {96}).In("a").In("m").Out("a");
  k.Op("compare(%m, %a, float16(0.0)) {mode=\"GE\"}").Op("barrier(v)");
  k.Op("select(%a, %m, %a, float16(0.0)) {mode=\"VSEL_TENSOR_SCALAR_MODE\"}");
  auto run = RunIr(k.Text(), {F16({256}, x), U8({96})});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]),
                       Map(256, [&](size_t i) { return x[i] >= 0 ? x[i] : 0.0f; }), 0, 0));
}

TEST(VectorMask, RowLengthWithMisalignedPartialRepeatIsADiagnostic) {
  VecKernel k;
  k.Ub("a", "float32", {4, 100}).Ub("m", "uint8", {4, 32}).In("a").In("m").Out("m");
  k.Op("compare(%m, %a, %a) {mode=\"EQ\"}");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find(
                "compare on rows of 100 elements of 32-bit type cannot be lowered"),
            std::string::npos)
      << bin.status();
}

TEST(VectorMask, ScalarFormsNeedNoRoomBeyondTheBits) {
  // 50 bits per row fit 7 bytes of an 8-byte mask row: vcmps / vsels take the scalar itself.
  const Shape shape{4, 50};
  const std::vector<float> x = Small(200, 55);
  VecKernel k;
  k.Ub("a", "float32", shape).Ub("m", "uint8", {4, 8}).Ub("d", "float32", shape);
  k.In("a").In("m").Out("d").Out("m");
  k.Op("compare(%m, %a, 1.0) {mode=\"EQ\"}").Op("barrier(v)");
  k.Op("select(%d, %m, %a, 7.0) {mode=\"VSEL_TENSOR_SCALAR_MODE\"}");
  auto run = RunIr(k.Text(), {F32(shape, x), U8({4, 8})});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  int wrong_bits = 0;
  for (size_t i = 0; i < 200; ++i)
    wrong_bits += Bit(run->outputs[1], i / 50 * 8, i % 50) != (x[i] == 1.0f);
  EXPECT_EQ(wrong_bits, 0);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]),
                       Map(200, [&](size_t i) { return x[i] == 1.0f ? x[i] : 7.0f; }), 0, 0));
}

TEST(VectorMask, AMaskTileOfAnotherTypeIsCountedInBytes) {
  // Upstream reuses a float16 scratch tile as the mask: 4 x 16 halves = 4 rows of 32 bytes.
  const Shape shape{4, 64};
  const std::vector<float> x = Small(256, 56);
  VecKernel k;
  k.Ub("a", "float32", shape).Ub("m", "float16", {4, 16}).Ub("d", "float32", shape);
  k.In("a").In("m").Out("d");
  k.Op("compare(%m, %a, 0.0) {mode=\"GT\"}").Op("barrier(v)");
  k.Op("select(%d, %m, %a, 0.0) {mode=\"VSEL_TENSOR_SCALAR_MODE\"}");
  auto run = RunIr(k.Text(), {F32(shape, x), F16({4, 16}, std::vector<float>(64, 0.0f))});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]),
                       Map(256, [&](size_t i) { return x[i] > 0 ? x[i] : 0.0f; }), 0, 0));
}

TEST(VectorMask, MaskTooSmallIsADiagnostic) {
  VecKernel k;
  k.Ub("a", "float32", {4, 64}).Ub("m", "uint8", {4, 4}).In("a").In("m").Out("m");
  k.Op("compare(%m, %a, %a) {mode=\"EQ\"}");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("mask rows of 4 bytes cannot hold 64 bits"),
            std::string::npos)
      << bin.status();
}

}  // namespace
}  // namespace tilejit::codegen::testing
