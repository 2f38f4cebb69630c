// SPDX-License-Identifier: Apache-2.0
// Vector codegen, cast: fp32 <-> fp16 and float -> int32 under every rounding mode, a partial
// `count`, and padded rows with different pitches on the two sides, on the simulator in
// checked mode.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/compiler/codegen/vector_test_util.h"

namespace tilejit::codegen::testing {
namespace {

TEST(VectorCast, Fp32ToFp16AndBack) {
  const std::vector<int64_t> shape{5, 70};  // 280 B fp32 rows and 140 B fp16 rows: both padded
  const std::vector<float> x = Data(350, 41, -100.0f, 100.0f);
  VecKernel k;
  k.Ub("a", "float32", shape).Ub("h", "float16", shape).Ub("b", "float32", shape);
  k.In("a").Out("h").Out("b");
  k.Op("cast(%h, %a) {count=350, mode=\"CAST_RINT\"}").Op("barrier(v)");
  k.Op("cast(%b, %h) {count=350, mode=\"CAST_NONE\"}");
  auto run = RunIr(k.Text(), {F32(shape, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), RoundToHalf(x), 0, 0));
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[1]), RoundToHalf(x), 0, 0));
}

TEST(VectorCast, FloatToInt32RoundingModes) {
  const std::vector<float> x = {2.5f, -2.5f, 3.5f, -0.4f, 1.6f, -1.6f, 7.0f, 0.5f, -7.5f, 100.49f};
  struct Mode {
    const char* name;
    int32_t (*f)(float);
  };
  const Mode modes[] = {
      {"CAST_RINT", [](float v) { return static_cast<int32_t>(std::nearbyint(v)); }},
      {"CAST_ROUND", [](float v) { return static_cast<int32_t>(std::round(v)); }},
      {"CAST_FLOOR", [](float v) { return static_cast<int32_t>(std::floor(v)); }},
      {"CAST_CEIL", [](float v) { return static_cast<int32_t>(std::ceil(v)); }},
      {"CAST_TRUNC", [](float v) { return static_cast<int32_t>(std::trunc(v)); }},
  };
  for (const Mode& m : modes) {
    SCOPED_TRACE(m.name);
    VecKernel k;
    k.Ub("a", "float32", {10}).Ub("i", "int32", {10}).In("a").Out("i");
    k.Op(std::string("cast(%i, %a) {count=10, mode=\"") + m.name + "\"}");
    auto run = RunIr(k.Text(), {F32({10}, x)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    std::vector<int32_t> want;
    for (float v : x) want.push_back(m.f(v));
    EXPECT_EQ(ToInt32(run->outputs[0]), want);
  }
}

TEST(VectorCast, PartialCountCastsTheFirstElementsOnly) {
  const std::vector<int64_t> shape{4, 30};
  const std::vector<float> x = Data(120, 42), y = Data(120, 43);
  VecKernel k;
  k.Ub("a", "float32", shape).Ub("h", "float16", shape).In("a").In("h").Out("h");
  k.Op("cast(%h, %a) {count=75, mode=\"CAST_RINT\"}");
  auto run = RunIr(k.Text(), {F32(shape, x), F16(shape, y)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want = RoundToHalf(y);
  for (int i = 0; i < 75; ++i) want[i] = RoundToHalf({x[i]})[0];
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 0, 0));
}

TEST(VectorCast, UnknownModeIsADiagnostic) {
  VecKernel k;
  k.Ub("a", "float32", {16}).Ub("h", "float16", {16}).In("a").Out("h");
  k.Op("cast(%h, %a) {count=16, mode=\"CAST_SIDEWAYS\"}");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("cast: unknown mode \"CAST_SIDEWAYS\""), std::string::npos)
      << bin.status();
}

}  // namespace
}  // namespace tilejit::codegen::testing
