// SPDX-License-Identifier: Apache-2.0
// Tile layouts computed by hand from docs/isa.md section 3 (independent of the formulas in
// tile_layout.cc): padded sizes, pitches and alignments per memory.
#include "compiler/target/tile_layout.h"

#include <gtest/gtest.h>

#include <vector>

namespace tilejit::target {
namespace {

TileLayout Layout(Mem mem, int es, std::vector<int64_t> shape) {
  return LayoutOf(mem, es, shape, Ascend910B2());
}

TEST(TileLayout, UbRowsArePaddedTo32Bytes) {
  const TileLayout l = Layout(Mem::kUB, 2, {3, 10});  // 10 fp16 = 20 B a row -> 32
  EXPECT_EQ(l.kind, LayoutKind::kND);
  EXPECT_EQ(l.pitch, 32);
  EXPECT_EQ(l.bytes, 96);
  const TileLayout v = Layout(Mem::kUB, 4, {10});  // 1-D: dense, the block padded
  EXPECT_EQ(v.pitch, 40);
  EXPECT_EQ(v.bytes, 64);
}

TEST(TileLayout, L1IsZnWithRowsPaddedTo16) {
  const TileLayout l = Layout(Mem::kL1, 2, {20, 64});  // P = 32, four C0 = 16 column blocks
  EXPECT_EQ(l.kind, LayoutKind::kZN);
  EXPECT_EQ(l.pitch, 32);
  EXPECT_EQ(l.c0, 16);
  EXPECT_EQ(l.bytes, 4 * 32 * 32);
}

TEST(TileLayout, L0FractalsAndL0cAlignment) {
  const TileLayout a = Layout(Mem::kL0A, 2, {20, 40});  // 2 x 3 zZ fractals of 512 B
  EXPECT_EQ(a.kind, LayoutKind::kZZ);
  EXPECT_EQ(a.bytes, 6 * kFractalBytes);
  EXPECT_EQ(a.align % kFractalBytes, 0);
  const TileLayout b = Layout(Mem::kL0B, 2, {40, 20});  // 3 x 2 nZ fractals
  EXPECT_EQ(b.kind, LayoutKind::kNZ);
  EXPECT_EQ(b.bytes, 6 * kFractalBytes);
  const TileLayout c = Layout(Mem::kL0C, 4, {20, 20});  // P = 32, 2 blocks of 16 fp32
  EXPECT_EQ(c.c0, 16);
  EXPECT_EQ(c.bytes, 2 * 32 * 16 * 4);
  EXPECT_EQ(c.align % kL0cFractalBytes, 0);
}

TEST(TileLayout, LeadingDimsAreWholeMatrices) {
  const TileLayout l = Layout(Mem::kUB, 4, {2, 3, 8});
  EXPECT_EQ(l.batch, 2);
  EXPECT_EQ(l.matrix_bytes, 96);
  EXPECT_EQ(l.bytes, 192);
}

TEST(TileLayout, GmIsDenseAndRegistersHaveNoMemory) {
  const TileLayout g = Layout(Mem::kGM, 2, {3, 10});
  EXPECT_EQ(g.pitch, 20);
  EXPECT_EQ(g.bytes, 60);
  EXPECT_EQ(g.align, 1);
  const TileLayout r = RegisterLayout(4, std::vector<int64_t>{1});
  EXPECT_EQ(r.kind, LayoutKind::kRegister);
  EXPECT_EQ(r.bytes, 0);
}

}  // namespace
}  // namespace tilejit::target
