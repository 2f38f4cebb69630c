// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/verify_initialized.h"

#include <gtest/gtest.h>

#include <string>

#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

// Line 7 onwards is `body`.
std::string Kernel(std::string_view body) {
  return std::string(
             "param %p0: gm float16[64, 64] input\n"
             "param %p1: gm float32[64, 64] output\n"
             "out_idx = [1]\n"
             "workspace_idx = []\n"
             "launch(1, threads=0) (%cid, %vid) {\n"
             "  alloc %s_0: shared float16[64, 64]\n") +
         std::string(body) + "}\n";
}

// The shape of upstream's vid-reduced sparse flash attention: the gemm at the top of the loop
// reads the tile the loop fills further down.
TEST(VerifyInitialized, ReadAtTheTopOfALoopBeforeTheWriteBelowIsAnError) {
  PassRunner r;
  const std::string text = Kernel(
      "  alloc %f_0: fragment float32[64, 64]\n"
      "  alloc %s_1: shared float16[64, 64]\n"
      "  copy(%s_1, %p0)\n"
      "  for %v0 in serial(0, 4) {\n"
      "    gemm_v0(%f_0, %s_1, %s_0) {init=true}\n"
      "    copy(%s_0, %p0)\n"
      "  }\n"
      "  copy(%p1, %f_0)\n");
  EXPECT_EQ(r.Run(VerifyInitialized, text), "");
  EXPECT_EQ(r.Messages(), std::vector<std::string>{
                              "'s_0' is read here before anything writes it: its first write "
                              "comes later, so the first time this runs it reads memory that "
                              "holds no data yet"});
  EXPECT_EQ(r.FirstErrorLine(), 11u);
  ASSERT_EQ(r.diag.diagnostics().size(), 1u);
  ASSERT_EQ(r.diag.diagnostics()[0].notes.size(), 1u);
  EXPECT_EQ(r.diag.diagnostics()[0].notes[0].loc.line, 12u);
}

TEST(VerifyInitialized, ABufferNothingWritesIsAnError) {
  PassRunner r;
  EXPECT_EQ(r.Run(VerifyInitialized, Kernel("  copy(%p1, %s_0)\n")), "");
  EXPECT_EQ(r.FirstError(),
            "'s_0' is read here but nothing in the kernel ever writes it: it holds no data");
}

// Reads that may not run, or that read what an earlier statement wrote, or that are the
// destination an op accumulates into, pass unchanged.
TEST(VerifyInitialized, ReadsThatMayNotRunOrFollowAWriteOrAccumulatePass) {
  for (const char* body : {
           // loop-carried: read under `if k > 0`, written below
           "  for %v0 in serial(0, 4) {\n"
           "    if %v0 > 0 {\n"
           "      copy(%p1, %s_0)\n"
           "    }\n"
           "    copy(%s_0, %p0)\n"
           "  }\n",
           // a loop that may run zero times
           "  for %v0 in serial(0, %cid) {\n"
           "    copy(%p1, %s_0)\n"
           "    copy(%s_0, %p0)\n"
           "  }\n",
           // written first (part of it is enough)
           "  copy(%s_0[0:+16, :], %p0[0:+16, :])\n"
           "  copy(%p1, %s_0)\n",
           // gemm with a runtime init accumulates into its destination
           "  alloc %f_0: fragment float32[64, 64]\n"
           "  copy(%s_0, %p0)\n"
           "  for %v0 in serial(0, 4) {\n"
           "    gemm_v0(%f_0, %s_0, %s_0) {init=%v0 == 0}\n"
           "  }\n"
           "  copy(%p1, %f_0)\n",
       }) {
    PassRunner r;
    EXPECT_NE(r.Run(VerifyInitialized, Kernel(body)), "") << body;
    EXPECT_TRUE(r.Messages().empty()) << body << r.FirstError();
  }
}

}  // namespace
}  // namespace tilejit::passes
