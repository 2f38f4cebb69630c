// SPDX-License-Identifier: Apache-2.0
// Vector codegen, reductions: reduce_sum/max/min along the last dim ([R] and [R, 1]
// destinations) and along dim 0, clear=true and clear=false, 1-D sources, more rows than one
// instruction takes (chained through `acc`), fp32 and fp16, on the simulator in checked mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/compiler/codegen/vector_test_util.h"

namespace tilejit::codegen::testing {
namespace {

using Shape = std::vector<int64_t>;

enum class Kind { kSum, kMax, kMin };

float Combine(Kind k, float a, float b) {
  return k == Kind::kSum ? a + b : k == Kind::kMax ? std::max(a, b) : std::min(a, b);
}

const char* Name(Kind k) {
  return k == Kind::kSum ? "reduce_sum" : k == Kind::kMax ? "reduce_max" : "reduce_min";
}

struct Case {
  std::string dtype;
  int64_t rows, cols;
  bool by_row;   // dim -1 (else dim 0)
  Shape dshape;  // destination shape
  bool clear;
};

void RunReduce(const Case& c) {
  const bool half = c.dtype == "float16";
  const size_t n = static_cast<size_t>(c.rows * c.cols), dn = static_cast<size_t>(Numel(c.dshape));
  const Shape sshape = c.rows == 1 ? Shape{c.cols} : Shape{c.rows, c.cols};
  std::vector<float> x = Data(n, 31), old = Data(dn, 32);
  if (half) {
    x = RoundToHalf(x);
    old = RoundToHalf(old);
  }
  for (Kind kind : {Kind::kSum, Kind::kMax, Kind::kMin}) {
    SCOPED_TRACE(std::string(Name(kind)) + " " + c.dtype + " [" + ShapeList(sshape) + "] -> [" +
                 ShapeList(c.dshape) + "] clear=" + (c.clear ? "true" : "false"));
    VecKernel k;
    k.Ub("s", c.dtype, sshape).Ub("d", c.dtype, c.dshape).In("s").In("d").Out("d");
    k.Op(std::string(Name(kind)) + "(%d, %s) {clear=" + (c.clear ? "true" : "false") +
         ", dim=" + (c.by_row ? "-1" : "0") + "}");
    auto make = half ? F16 : F32;
    auto run = RunIr(k.Text(), {make(sshape, x), make(c.dshape, old)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    std::vector<float> want(dn);
    for (size_t o = 0; o < dn; ++o) {
      float acc = c.clear ? (kind == Kind::kSum ? 0.0f : x[c.by_row ? o * c.cols : o]) : old[o];
      const size_t len = static_cast<size_t>(c.by_row ? c.cols : c.rows);
      for (size_t j = 0; j < len; ++j) {
        acc = Combine(kind, acc, x[c.by_row ? o * c.cols + j : j * c.cols + o]);
      }
      want[o] = acc;
    }
    if (half) want = RoundToHalf(want);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, half ? 4e-3 : 1e-5, 1e-4));
  }
}

TEST(VectorReduce, AlongLastDimToVector) {
  RunReduce({"float32", 32, 1024, true, {32}, true});
  RunReduce({"float32", 7, 37, true, {7}, true});
  RunReduce({"float16", 5, 100, true, {5}, true});
}

TEST(VectorReduce, AlongLastDimToColumnTile) { RunReduce({"float32", 9, 40, true, {9, 1}, true}); }

TEST(VectorReduce, AlongLastDimWithoutClearCombinesWithOldValues) {
  RunReduce({"float32", 6, 50, true, {6}, false});
  RunReduce({"float32", 6, 50, true, {6, 1}, false});
}

TEST(VectorReduce, AlongDimZero) {
  RunReduce({"float32", 12, 20, false, {20}, true});
  RunReduce({"float32", 12, 20, false, {1, 20}, true});
  RunReduce({"float16", 9, 130, false, {130}, true});
}

TEST(VectorReduce, AlongDimZeroWithoutClear) { RunReduce({"float32", 12, 20, false, {20}, false}); }

TEST(VectorReduce, OneDimensionalSource) { RunReduce({"float32", 1, 300, true, {1}, true}); }

TEST(VectorReduce, ManyRowsSplitAcrossInstructions) {
  // dim -1: 300 rows go as 240 + 60; dim 0: 300 rows chain through acc with a barrier.
  RunReduce({"float32", 300, 16, true, {300}, true});
  RunReduce({"float32", 300, 16, false, {16}, true});
  RunReduce({"float32", 300, 16, false, {16}, false});
}

TEST(VectorReduce, SubRegionSourceAndDestination) {
  const std::vector<float> x = Data(8 * 48, 33);
  VecKernel k;
  k.Ub("s", "float32", {8, 48}).Ub("d", "float32", {16}).In("s").Out("d");
  k.Op("fill(%d, 0.0)").Op("barrier(v)");
  k.Op("reduce_max(%d[8:+4], %s[2:+4, 16:+24]) {clear=true, dim=-1}");
  auto run = RunIr(k.Text(), {F32({8, 48}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want(16, 0.0f);
  for (int r = 0; r < 4; ++r) {
    float m = x[(2 + r) * 48 + 16];
    for (int c = 16; c < 40; ++c) m = std::max(m, x[(2 + r) * 48 + c]);
    want[8 + r] = m;
  }
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 0, 0));
}

TEST(VectorReduce, WrongDestinationShapeIsADiagnostic) {
  VecKernel k;
  k.Ub("s", "float32", {8, 48}).Ub("d", "float32", {48}).In("s").Out("d");
  k.Op("reduce_sum(%d, %s) {clear=true, dim=-1}");
  auto bin = CompileIr(k.Text());
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("reduce_sum shape mismatch: reducing [8, 48] along dim -1 "
                                        "cannot produce [48]"),
            std::string::npos)
      << bin.status();
}

}  // namespace
}  // namespace tilejit::codegen::testing
