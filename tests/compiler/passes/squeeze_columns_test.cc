// SPDX-License-Identifier: Apache-2.0
// squeeze_columns before/after: [R, 1] UB vectors that only vector ops and element accesses
// use become [R]; a copy, a compare or a column index keeps them; an element-wise op left
// pairing [R] with [R, 1] is a located diagnostic. The first kernel is the shape of upstream's
// layer norm (tile-ai/tilelang-ascend examples/normalization/layer_norm.py): an [R] row sum
// divided by an [R, 1] count into an [R, 1] mean.
#include "compiler/passes/squeeze_columns.h"

#include <gtest/gtest.h>

#include <string>

#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

// %x [16, 64] and %s [16] first; the printer names them %ub_0 and %ub_1.
std::string Kernel(std::string_view body, std::string_view x = "%x", std::string_view s = "%s") {
  return std::string(
             "param %p0: gm float32[16, 64] input\n"
             "param %p1: gm float32[16, 1] output\n"
             "out_idx = [1]\n"
             "workspace_idx = []\n"
             "launch(1, threads=0) (%cid, %vid) {\n"
             "  alloc ") +
         std::string(x) + ": ub float32[16, 64]\n  alloc " + std::string(s) + ": ub float32[16]\n" +
         std::string(body) + "}\n";
}

TEST(SqueezeColumns, VectorOnlyColumnsBecomeDenseVectors) {
  PassRunner r;
  EXPECT_EQ(r.Run(SqueezeColumns, Kernel("  alloc %m: ub float32[16, 1]\n"
                                         "  copy(%x, %p0)\n"
                                         "  reduce_sum(%m, %x) {dim=1}\n"
                                         "  fill(%s, 64.0)\n"
                                         "  div(%m, %m, %s)\n"
                                         "  sub(%x, %x, %m)\n"
                                         "  broadcast(%x, %m) {axis=1}\n"
                                         "  %m[3, 0] = %m[2, 0] + 1.0\n"
                                         "  copy(%p0, %x)\n")),
            Kernel("  alloc %ub_2: ub float32[16]\n"
                   "  copy(%ub_0, %p0)\n"
                   "  reduce_sum(%ub_2, %ub_0) {dim=1}\n"
                   "  fill(%ub_1, 64.0)\n"
                   "  div(%ub_2, %ub_2, %ub_1)\n"
                   "  sub(%ub_0, %ub_0, %ub_2)\n"
                   "  broadcast(%ub_0, %ub_2) {axis=1}\n"
                   "  %ub_2[3] = %ub_2[2] + 1.0\n"
                   "  copy(%p0, %ub_0)\n",
                   "%ub_0", "%ub_1"));
  EXPECT_EQ(r.ctx.stats["squeezed"], 1);
}

TEST(SqueezeColumns, CopiedOrMaskedColumnsKeepTheirLayout) {
  PassRunner r;
  const std::string in = Kernel(
      "  alloc %m: ub float32[16, 1]\n"
      "  alloc %k: ub float32[16, 1]\n"
      "  alloc %mask: ub uint8[16, 32]\n"
      "  copy(%m, %p0[0:+16, 0:+1])\n"
      "  compare(%mask, %k, 0.0) {mode=\"GT\"}\n"
      "  copy(%p1, %m)\n");
  const std::string out = r.Run(SqueezeColumns, in);
  EXPECT_NE(out.find("alloc %ub_2: ub float32[16, 1]"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_3: ub float32[16, 1]"), std::string::npos) << out;
  EXPECT_EQ(r.ctx.stats["squeezed"], 0);
}

TEST(SqueezeColumns, ElementwiseOpPairingARowWithAKeptColumnIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(SqueezeColumns, Kernel("  alloc %m: ub float32[16, 1]\n"
                                         "  copy(%m, %p0[0:+16, 0:+1])\n"
                                         "  exp(%s, %m)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "exp pairs 's' [16] with 'm' [16, 1] element by element, which needs 'm' to be [16]; "
            "it cannot be: it needs one value per 32-byte UB row elsewhere (declare the two "
            "alike)");
  EXPECT_EQ(r.FirstErrorLine(), 10u);
  ASSERT_EQ(r.diag.diagnostics().front().notes.size(), 1u);
  EXPECT_EQ(r.diag.diagnostics().front().notes[0].message,
            "'m' keeps its [R, 1] layout for the copy of 'm' here");
}

TEST(SqueezeColumns, ColumnDestinationWithARowSecondSourceStaysPerRow) {
  // div(m[16, 1], k[16, 1], s[16]) divides each one-element row by its row's value: legal
  // with the padded layout, so a kept m is not an error.
  PassRunner r;
  const std::string out = r.Run(SqueezeColumns, Kernel("  alloc %m: ub float32[16, 1]\n"
                                                       "  copy(%m, %p0[0:+16, 0:+1])\n"
                                                       "  div(%m, %m, %s)\n"
                                                       "  copy(%p1, %m)\n"));
  EXPECT_NE(out.find("div(%ub_2, %ub_2, %ub_1)"), std::string::npos) << r.FirstError();
}

}  // namespace
}  // namespace tilejit::passes
