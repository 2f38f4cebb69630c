// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/combine_cv.h"

#include <gtest/gtest.h>

#include <string>

#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

constexpr char kHeader[] =
    "param %p0: gm float16[128, 64] input\n"
    "param %p1: gm float32[128, 64] output\n"
    "param %p2: gm float32[2, 64, 64] compiler_workspace\n"
    "out_idx = [1]\n"
    "workspace_idx = [2]\n";

constexpr char kAllocs[] =
    "  alloc %l1_0: l1 float16[64, 64]\n"
    "  alloc %l0a_0: l0a float16[64, 64]\n"
    "  alloc %l0b_0: l0b float16[64, 64]\n"
    "  alloc %l0c_0: l0c float32[64, 64]\n"
    "  alloc %ub_0: ub float32[64, 64]\n";

std::string Launch(std::string_view body, std::string_view launch = "launch(2, threads=1)") {
  return std::string(kHeader) + std::string(launch) + " (%cid, %vid) {\n" + kAllocs +
         std::string(body) + "}\n";
}

void EnableCvSync(PassRunner& r) {
  r.ctx.configs.auto_cv_combine = true;
  r.ctx.configs.auto_cv_sync = true;
}

TEST(CombineCv, SplitsTheBodyIntoACubeAndAVectorProjection) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CombineCv, Launch("  let %v0 = %cid * 64\n"
                                    "  copy(%l1_0, %p0[%v0:+64, :])\n"
                                    "  copy(%l0a_0, %l1_0)\n"
                                    "  copy(%l0b_0, %l1_0)\n"
                                    "  barrier(all)\n"
                                    "  mma(%l0c_0, %l0a_0, %l0b_0) {init=true}\n"
                                    "  copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                    "  copy(%ub_0, %p2[%cid:+1, :, :])\n"
                                    "  add(%ub_0, %ub_0, %ub_0)\n"
                                    "  barrier(all)\n"
                                    "  copy(%p1[%v0:+64, :], %ub_0)\n")),
            Launch("  let %v0 = %cid * 64\n"
                   "  scope cube {\n"
                   "    copy(%l1_0, %p0[%v0:+64, :])\n"
                   "    copy(%l0a_0, %l1_0)\n"
                   "    copy(%l0b_0, %l1_0)\n"
                   "    barrier(all)\n"
                   "    mma(%l0c_0, %l0a_0, %l0b_0) {init=true}\n"
                   "    copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                   "    barrier(all)\n"
                   "  }\n"
                   "  scope vector {\n"
                   "    barrier(all)\n"
                   "    copy(%ub_0, %p2[%cid:+1, :, :])\n"
                   "    add(%ub_0, %ub_0, %ub_0)\n"
                   "    barrier(all)\n"
                   "    copy(%p1[%v0:+64, :], %ub_0)\n"
                   "  }\n"));
  EXPECT_EQ(r.ctx.stats["hand_offs"], 1);
}

TEST(CombineCv, ReplicatesControlFlowAndDropsLoopsAndIfsLeftEmpty) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CombineCv, Launch("  for %v0 in serial(0, 4) {\n"
                                    "    copy(%l1_0, %p0[%v0 * 32:+64, :])\n"
                                    "    if %cid == 0 {\n"
                                    "      fill(%ub_0, 0.0)\n"
                                    "    } else {\n"
                                    "      copy(%l0a_0, %l1_0)\n"
                                    "    }\n"
                                    "  }\n"
                                    "  for %v1 in serial(0, %cid + 1) {\n"
                                    "    exp(%ub_0, %ub_0)\n"
                                    "  }\n")),
            Launch("  scope cube {\n"
                   "    for %v0 in serial(0, 4) {\n"
                   "      copy(%l1_0, %p0[%v0 * 32:+64, :])\n"
                   "      if %cid == 0 {\n"
                   "      } else {\n"
                   "        copy(%l0a_0, %l1_0)\n"
                   "      }\n"
                   "    }\n"
                   "  }\n"
                   "  scope vector {\n"
                   "    for %v0 in serial(0, 4) {\n"
                   "      if %cid == 0 {\n"
                   "        fill(%ub_0, 0.0)\n"
                   "      }\n"
                   "    }\n"
                   "    for %v1 in serial(0, %cid + 1) {\n"
                   "      exp(%ub_0, %ub_0)\n"
                   "    }\n"
                   "  }\n"));
}

TEST(CombineCv, HoistsNestedAllocationsAndKeepsLetsWhereTheyAreUsed) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CombineCv, Launch("  copy(%l1_0, %p0[0:+64, :])\n"
                                    "  alloc %var_0: var float32[1]\n"
                                    "  let %v0 = %ub_0[0, 0]\n"
                                    "  %var_0[0] = %v0\n"
                                    "  copy(%p0[64:+64, :], %l1_0)\n")),
            Launch("  alloc %var_0: var float32[1]\n"
                   "  scope cube {\n"
                   "    copy(%l1_0, %p0[0:+64, :])\n"
                   "    copy(%p0[64:+64, :], %l1_0)\n"
                   "  }\n"
                   "  scope vector {\n"
                   "    let %v0 = %ub_0[0, 0]\n"
                   "    %var_0[0] = %v0\n"
                   "  }\n"));
}

TEST(CombineCv, InlinesAuthorScopesIntoTheirCoresProgram) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CombineCv, Launch("  scope vector {\n"
                                    "    fill(%ub_0, 1.0)\n"
                                    "    set_cross_flag(mte3, 5, mode=2)\n"
                                    "  }\n"
                                    "  copy(%l1_0, %p0[0:+64, :])\n"
                                    "  scope cube {\n"
                                    "    wait_cross_flag(5)\n"
                                    "  }\n")),
            Launch("  scope cube {\n"
                   "    copy(%l1_0, %p0[0:+64, :])\n"
                   "    wait_cross_flag(5)\n"
                   "  }\n"
                   "  scope vector {\n"
                   "    fill(%ub_0, 1.0)\n"
                   "    set_cross_flag(mte3, 5, mode=2)\n"
                   "  }\n"));
}

TEST(CombineCv, SingleKindKernelGetsOneScopeEvenWithSharedSyncs) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CombineCv, Launch("  fill(%ub_0, 1.0)\n"
                                    "  barrier(all)\n"
                                    "  copy(%p1[0:+64, :], %ub_0)\n")),
            Launch("  scope vector {\n"
                   "    fill(%ub_0, 1.0)\n"
                   "    barrier(all)\n"
                   "    copy(%p1[0:+64, :], %ub_0)\n"
                   "  }\n"));
}

TEST(CombineCv, HandOffWithoutCvSyncNamesTheSwitch) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_EQ(r.Run(CombineCv, Launch("  copy(%p2[%cid:+1, :, :], %l0c_0)\n"
                                    "  copy(%ub_0, %p2[%cid:+1, :, :])\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "this copy hands data from the cube core to the vector core through a compiler "
            "workspace, and nothing orders the two sides: set TL_ASCEND_AUTO_CV_SYNC in "
            "pass_configs so the compiler adds the cross-core flags (or write the T.Scope blocks, "
            "the workspace and the flags yourself)");
  EXPECT_EQ(r.FirstErrorLine(), 12u);
}

TEST(CombineCv, WithoutHandOffsCvSyncIsNotNeeded) {
  PassRunner r;
  r.ctx.configs.auto_cv_combine = true;
  EXPECT_NE(r.Run(CombineCv, Launch("  copy(%l1_0, %p0[0:+64, :])\n"
                                    "  fill(%ub_0, 1.0)\n")),
            "");
  EXPECT_TRUE(r.Messages().empty());
}

TEST(CombineCv, ControlFlowReadingOneCoresMemoryForBothIsADiagnostic) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CombineCv, Launch("  if %ub_0[0, 0] > 0.0 {\n"
                                    "    fill(%ub_0, 1.0)\n"
                                    "    copy(%l1_0, %p0[0:+64, :])\n"
                                    "  }\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "the condition depends on 'ub_0', which only the vector core has, but the cube core's "
            "work needs it too; automatic cube/vector separation cannot share on-chip values "
            "between the cores: compute it from scalars or GM, or split the kernel with T.Scope");
}

TEST(CombineCv, AVarComputedFromUbDataCannotSteerCubeWork) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CombineCv, Launch("  alloc %var_0: var int32[1]\n"
                                    "  %var_0[0] = cast<int32>(%ub_0[0, 0])\n"
                                    "  for %v0 in serial(0, %var_0[0]) {\n"
                                    "    copy(%l1_0, %p0[0:+64, :])\n"
                                    "  }\n")),
            "");
  EXPECT_NE(r.FirstError().find("the loop extent depends on 'var_0', which only the vector core "
                                "has"),
            std::string::npos)
      << r.FirstError();
}

TEST(CombineCv, ControlFlowReadingOneCoresMemoryForItselfIsFine) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_NE(r.Run(CombineCv, Launch("  copy(%l1_0, %p0[0:+64, :])\n"
                                    "  if %ub_0[0, 0] > 0.0 {\n"
                                    "    fill(%ub_0, 1.0)\n"
                                    "  }\n")),
            "");
  EXPECT_TRUE(r.Messages().empty());
}

TEST(CombineCv, CrossFlagOnAPipeBothCoresHaveIsADiagnostic) {
  PassRunner r;
  EnableCvSync(r);
  EXPECT_EQ(r.Run(CombineCv, Launch("  copy(%l1_0, %p0[0:+64, :])\n"
                                    "  fill(%ub_0, 1.0)\n"
                                    "  set_cross_flag(mte3, 1, mode=2)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "cannot tell which core runs this cross-core flag: its pipe (mte3) exists on both the "
            "cube and the vector cores; put it in a T.Scope(\"C\") or T.Scope(\"V\") block");
}

}  // namespace
}  // namespace tilejit::passes
