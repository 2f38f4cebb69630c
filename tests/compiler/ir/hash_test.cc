// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/hash.h"

#include <gtest/gtest.h>

#include "common/sha256.h"
#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "test_kernels.h"

namespace tilejit::ir {
namespace {

TEST(IrHash, IsHexSha256OfCanonicalText) {
  Kernel k = testing::SoftmaxKernel();
  std::string h = IrHash(k);
  EXPECT_EQ(h.size(), 64u);
  EXPECT_EQ(h, Sha256Hex(PrintKernel(k)));
}

TEST(IrHash, SurvivesRoundTripAndRebuilding) {
  for (const auto& [name, kernel] : testing::AllTestKernels()) {
    Result<Kernel> parsed = ParseTileIrString(PrintKernel(kernel));
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(IrHash(*parsed), IrHash(kernel)) << name;
  }
  EXPECT_EQ(IrHash(testing::GemmPingpongKernel()), IrHash(testing::GemmPingpongKernel()));
}

TEST(IrHash, IgnoresCommentsWhitespaceAndLocalNames) {
  Result<Kernel> a = ParseTileIrString(
      "param %A: gm float32[8] input\nout_idx = []\nworkspace_idx = []\n"
      "launch(1, threads=0) (%c, %v) {\n  alloc %t: ub float32[8]\n  copy(%t, %A)\n}\n");
  Result<Kernel> b = ParseTileIrString(
      "# same kernel\nparam %x:   gm float32[8] input\nout_idx = []\nworkspace_idx = []\n\n"
      "launch(1, threads=0)(%blk, %sub) {  # launch\n  alloc %tile: ub float32[8]\n"
      "  copy(%tile, %x)\n}\n");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(IrHash(*a), IrHash(*b));
}

TEST(IrHash, ChangesWithAnyPrintedDifference) {
  Kernel a = testing::SoftmaxKernel();
  Kernel b = testing::SoftmaxKernel();
  b.out_idx = {0};
  EXPECT_NE(IrHash(a), IrHash(b));
  Kernel c = testing::FlashAttentionKernel();
  EXPECT_NE(IrHash(a), IrHash(c));
}

}  // namespace
}  // namespace tilejit::ir
