// SPDX-License-Identifier: Apache-2.0
// Golden offsets below are derived by hand from reference/ascend_hw.md section 5 (inner and
// outer orders), not from the implementation: element (r, c) of the ND source holds
// r * 100 + c, and each check names the element expected at a literal buffer offset.
#include "runner/sim/layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace tilejit::runner::sim {
namespace {

std::vector<uint16_t> Nd16(int rows, int cols) {
  std::vector<uint16_t> v(rows * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) v[r * cols + c] = static_cast<uint16_t>(r * 100 + c);
  return v;
}

std::vector<uint16_t> ToFractal16(const FractalLayout& l, const std::vector<uint16_t>& nd) {
  std::vector<uint16_t> out(l.Elements(), 0xffff);
  NdToFractal(nd.data(), l.cols, l, out.data());
  return out;
}

struct Golden {
  int offset;
  int value;  // r * 100 + c, or 0 for padding
};

void ExpectGolden(const std::vector<uint16_t>& buf, std::initializer_list<Golden> goldens) {
  for (const Golden& g : goldens) EXPECT_EQ(buf[g.offset], g.value) << "offset " << g.offset;
}

TEST(Layout, L1ZnFp16Is16x16RowMajorFractalsInColumnMajorOrder) {
  const auto buf = ToFractal16(L1Layout(32, 32, 2), Nd16(32, 32));
  ASSERT_EQ(buf.size(), 1024u);
  // Fractal 0: rows 0-15, cols 0-15. Fractal 1 (down the column): rows 16-31, cols 0-15.
  // Fractal 2: rows 0-15, cols 16-31. Fractal 3: rows 16-31, cols 16-31.
  ExpectGolden(buf, {{0, 0},
                     {1, 1},
                     {15, 15},
                     {16, 100},
                     {17, 101},
                     {255, 1515},
                     {256, 1600},
                     {511, 3115},
                     {512, 16},
                     {513, 17},
                     {528, 116},
                     {767, 1531},
                     {768, 1616},
                     {1023, 3131}});
}

TEST(Layout, L1ZnFp32UsesSixteenByEightFractals) {
  std::vector<float> nd(16 * 16);
  for (int i = 0; i < 256; ++i) nd[i] = static_cast<float>((i / 16) * 100 + i % 16);
  const FractalLayout l = L1Layout(16, 16, 4);
  std::vector<float> buf(l.Elements());
  NdToFractal(nd.data(), 16, l, buf.data());
  // C0 = 8: fractal 0 holds cols 0-7 (8 per row), fractal 1 cols 8-15.
  EXPECT_EQ(buf[7], 7);
  EXPECT_EQ(buf[8], 100);
  EXPECT_EQ(buf[127], 1507);
  EXPECT_EQ(buf[128], 8);
  EXPECT_EQ(buf[255], 1515);
}

TEST(Layout, L0AZzOrdersFractalsRowMajor) {
  const auto buf = ToFractal16(L0ALayout(32, 32, 2), Nd16(32, 32));
  // Fractal order (0,0), (0,16), (16,0), (16,16); row-major inside.
  ExpectGolden(buf, {{0, 0},
                     {16, 100},
                     {255, 1515},
                     {256, 16},
                     {272, 116},
                     {511, 1531},
                     {512, 1600},
                     {768, 1616},
                     {1023, 3131}});
}

TEST(Layout, L0BNzIsColumnMajorInsideRowMajorAcross) {
  const auto buf = ToFractal16(L0BLayout(32, 32, 2), Nd16(32, 32));
  // Fractal C0=16 rows x 16 cols, column-major inside: offset i -> (i % 16, i / 16).
  ExpectGolden(buf, {{0, 0},
                     {1, 100},
                     {15, 1500},
                     {16, 1},
                     {17, 101},
                     {255, 1515},
                     {256, 16},
                     {257, 116},
                     {272, 17},
                     {512, 1600},
                     {513, 1700},
                     {768, 1616},
                     {1023, 3131}});
}

TEST(Layout, L0CZnFp32MatchesL1ZnOrderWithSixteenColumns) {
  std::vector<float> nd(32 * 32);
  for (int i = 0; i < 1024; ++i) nd[i] = static_cast<float>((i / 32) * 100 + i % 32);
  const FractalLayout l = L0CLayout(32, 32, 4);
  std::vector<float> buf(l.Elements());
  NdToFractal(nd.data(), 32, l, buf.data());
  const Golden goldens[] = {{16, 100}, {256, 1600}, {512, 16}, {1023, 3131}};
  for (const Golden& g : goldens) EXPECT_EQ(buf[g.offset], g.value) << g.offset;
}

TEST(Layout, TinyFp32OperandsAreWrittenOutLiterally) {
  const float nd[6] = {1, 2, 3, 4, 5, 6};  // 3 x 2
  // L0B nZ fp32: one 8 x 16 fractal, column-major inside: offset = c * 8 + r.
  std::vector<float> b(L0BLayout(3, 2, 4).Elements(), -1);
  NdToFractal(nd, 2, L0BLayout(3, 2, 4), b.data());
  const std::vector<float> b_head = {1, 3, 5, 0, 0, 0, 0, 0, 2, 4, 6, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(std::vector<float>(b.begin(), b.begin() + 17), b_head);
  EXPECT_EQ(b.size(), 128u);
  // L0A zZ fp32: one 16 x 8 fractal, row-major inside: offset = r * 8 + c.
  std::vector<float> a(L0ALayout(3, 2, 4).Elements(), -1);
  NdToFractal(nd, 2, L0ALayout(3, 2, 4), a.data());
  const std::vector<float> a_head = {1, 2, 0, 0, 0, 0, 0, 0, 3, 4, 0, 0, 0,
                                     0, 0, 0, 5, 6, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(std::vector<float>(a.begin(), a.begin() + 25), a_head);
  EXPECT_EQ(a.size(), 128u);
}

TEST(Layout, PartialFractalsArePaddedWithZeros) {
  const FractalLayout l = L1Layout(20, 5, 2);
  EXPECT_EQ(l.PaddedRows(), 32);
  EXPECT_EQ(l.PaddedCols(), 16);
  const auto buf = ToFractal16(l, Nd16(20, 5));
  ExpectGolden(buf, {{4, 4}, {5, 0}, {15, 0}, {19 * 16 + 4, 1904}, {20 * 16, 0}, {511, 0}});
}

TEST(Layout, RoundTripsAndFractalToFractalAgreeWithDirectConversion) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const int rows = 1 + rng() % 50, cols = 1 + rng() % 50;
    const auto nd = Nd16(rows, cols);
    for (auto make : {L1Layout, L0ALayout, L0BLayout, L0CLayout}) {
      const FractalLayout l = make(rows, cols, 2);
      const auto buf = ToFractal16(l, nd);
      std::vector<uint16_t> back(rows * cols, 0xffff);
      FractalToNd(buf.data(), l, back.data(), cols);
      ASSERT_EQ(back, nd) << rows << "x" << cols;
    }
    const auto l1 = ToFractal16(L1Layout(rows, cols, 2), nd);
    for (auto make : {L0ALayout, L0BLayout}) {
      const FractalLayout dl = make(rows, cols, 2);
      std::vector<uint16_t> via(dl.Elements(), 0xffff);
      FractalToFractal(l1.data(), L1Layout(rows, cols, 2), via.data(), dl);
      ASSERT_EQ(via, ToFractal16(dl, nd)) << rows << "x" << cols;
    }
  }
}

}  // namespace
}  // namespace tilejit::runner::sim
