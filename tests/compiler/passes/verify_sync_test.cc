// SPDX-License-Identifier: Apache-2.0
// verify_sync: findings and their severity (author: warning; compiler: internal error).
#include "compiler/passes/verify_sync.h"

#include <gtest/gtest.h>

#include <string>

#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

constexpr std::string_view kHeader = R"(param %p0: gm float32[64, 64] input
param %p1: gm float32[64, 64] output
out_idx = [1]
workspace_idx = []
)";

std::string Vector(std::string_view body) {
  return std::string(kHeader) + "launch(1, threads=0) (%cid, %vid) {\n  scope vector {\n" +
         std::string(body) + "  }\n}\n";
}

std::vector<SyncFinding> Findings(std::string_view text, bool auto_sync = false) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<ir::Kernel> k = ir::ParseTileIr(text, &sources, &diag, "test.tir");
  EXPECT_TRUE(k.ok()) << diag.RenderAll();
  if (!k.ok()) return {};
  return CheckSyncs(*k, target::Ascend910B2(), {.auto_sync = auto_sync});
}

constexpr std::string_view kRacyAdd =
    "    alloc %ub_0: ub float32[16, 64] @0\n"
    "    alloc %ub_1: ub float32[16, 64] @4096\n"
    "    copy(%ub_0, %p0[0:+16, :])\n"
    "    add(%ub_1, %ub_0, %ub_0)\n"
    "    copy(%p1[0:+16, :], %ub_1)\n";

TEST(VerifySync, WarnsAtTheAuthorsStatementForAnUnorderedReadAfterWrite) {
  PassRunner r;
  std::string out = r.Run(VerifySync, Vector(kRacyAdd));
  EXPECT_EQ(out, Vector(kRacyAdd));  // the kernel still compiles
  std::vector<std::string> w = r.Messages(Severity::kWarning);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("unordered RAW: `add(ub_1, ub_0, ub_0)` (pipe v) may run before "
                      "`copy(ub_0, p0)` (pipe mte2)"),
            std::string::npos)
      << w[0];
  EXPECT_NE(w[1].find("`copy(p1, ub_1)` (pipe mte3)"), std::string::npos) << w[1];
  EXPECT_EQ(r.diag.diagnostics()[0].loc.line, 10u);  // the add
}

TEST(VerifySync, IsAnInternalErrorForAHazardWhenAutoSyncOwnsTheOrder) {
  PassRunner r;
  r.ctx.configs.auto_sync = true;
  Result<ir::Kernel> in = ir::ParseTileIr(Vector(kRacyAdd), &r.sources, &r.diag, "t.tir");
  ASSERT_TRUE(in.ok());
  Result<ir::Kernel> out = VerifySync(*in, r.ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInternal);
  EXPECT_NE(out.status().message().find("unordered RAW"), std::string::npos) << out.status();
}

TEST(VerifySync, AcceptsAnOrderedProgram) {
  std::vector<SyncFinding> f =
      Findings(Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                      "    alloc %ub_1: ub float32[16, 64] @4096\n"
                      "    copy(%ub_0, %p0[0:+16, :])\n"
                      "    set_flag(mte2, v, 0)\n"
                      "    wait_flag(mte2, v, 0)\n"
                      "    add(%ub_1, %ub_0, %ub_0)\n"
                      "    barrier(all)\n"
                      "    copy(%p1[0:+16, :], %ub_1)\n"));
  EXPECT_TRUE(f.empty()) << f[0].message;
}

TEST(VerifySync, ReportsACompilerSetLeftArmedAsInternal) {
  std::vector<SyncFinding> f =
      Findings(Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                      "    copy(%ub_0, %p0[0:+16, :])\n"
                      "    set_flag(mte2, v, 3) {compiler}\n"
                      "    barrier(all)\n"
                      "    exp(%ub_0, %ub_0)\n"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, SyncFinding::Kind::kArmedAtExit);
  EXPECT_TRUE(f[0].compiler_made);
  EXPECT_EQ(f[0].loc.line, 9u);
}

TEST(VerifySync, ReportsTheAuthorsDoubleSetAndUnsatisfiableWaitAsWarnings) {
  std::vector<SyncFinding> f =
      Findings(Vector("    set_flag(mte2, v, 1)\n"
                      "    set_flag(mte2, v, 1)\n"
                      "    wait_flag(mte2, v, 1)\n"
                      "    wait_flag(mte2, v, 1)\n"));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].kind, SyncFinding::Kind::kDoubleSet);
  EXPECT_EQ(f[0].loc.line, 8u);
  EXPECT_EQ(f[1].kind, SyncFinding::Kind::kNeverSet);
  EXPECT_EQ(f[1].loc.line, 10u);
  EXPECT_FALSE(f[0].compiler_made || f[1].compiler_made);
}

TEST(VerifySync, AcceptsAPreArmedLoopPairWithARuntimeTripCount) {
  std::vector<SyncFinding> f =
      Findings(Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                      "    set_flag(v, mte2, 0)\n"
                      "    for %v0 in serial(0, %cid) {\n"
                      "      wait_flag(v, mte2, 0)\n"
                      "      copy(%ub_0, %p0[0:+16, :])\n"
                      "      set_flag(mte2, v, 0)\n"
                      "      wait_flag(mte2, v, 0)\n"
                      "      exp(%ub_0, %ub_0)\n"
                      "      set_flag(v, mte2, 0)\n"
                      "    }\n"
                      "    wait_flag(v, mte2, 0)\n"));
  EXPECT_TRUE(f.empty()) << f[0].message;
}

TEST(VerifySync, FindsTheLoopCarriedHazardOfAPairThatIsNotPreArmed) {
  // Without the slot-free pair, the next load may overwrite %ub_0 while exp still reads it.
  std::vector<SyncFinding> f =
      Findings(Vector("    alloc %ub_0: ub float32[16, 64] @0\n"
                      "    for %v0 in serial(0, 4) {\n"
                      "      copy(%ub_0, %p0[0:+16, :])\n"
                      "      set_flag(mte2, v, 0)\n"
                      "      wait_flag(mte2, v, 0)\n"
                      "      exp(%ub_0, %ub_0)\n"
                      "    }\n"));
  // exp -> next load (exp reads and writes %ub_0), WAW load -> next load, exp -> next exp
  // (same pipe, no barrier), and the next set may find the event not yet consumed.
  ASSERT_EQ(f.size(), 4u);
  int war = 0, reuse = 0;
  for (const SyncFinding& x : f) {
    EXPECT_EQ(x.kind, SyncFinding::Kind::kHazard);
    EXPECT_NE(x.message.find("previous loop iteration"), std::string::npos) << x.message;
    war += x.message.find(
               "`copy(ub_0, p0)` (pipe mte2) may run before `exp(ub_0, ub_0)` "
               "(pipe v, previous loop iteration)") != std::string::npos;
    reuse += x.message.find(
                 "`set_flag(mte2, v, 0)` may set its event before the earlier "
                 "`wait_flag(mte2, v, 0)` (previous loop iteration)") != std::string::npos;
  }
  EXPECT_EQ(war, 1);
  EXPECT_EQ(reuse, 1);
}

TEST(VerifySync, FindsAWaitThatOnlySomePathsSatisfy) {
  std::vector<SyncFinding> f =
      Findings(Vector("    if %cid == 0 {\n"
                      "      set_flag(mte2, v, 2)\n"
                      "    }\n"
                      "    wait_flag(mte2, v, 2)\n"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, SyncFinding::Kind::kMaybeUnset);
}

TEST(VerifySync, TreatsAHazardOnACompilerWorkspaceAsInternal) {
  std::string text = R"(param %p0: gm float32[64, 64] input
param %p1: gm float32[1, 16, 64] compiler_workspace
out_idx = []
workspace_idx = [1]
launch(1, threads=0) (%cid, %vid) {
  scope vector {
    alloc %ub_0: ub float32[16, 64] @0
    copy(%ub_0, %p0[0:+16, :])
    barrier(all)
    copy(%p1[%cid:+1, :, :], %ub_0)
    copy(%ub_0, %p1[%cid:+1, :, :])
  }
}
)";
  std::vector<SyncFinding> f = Findings(text);
  ASSERT_FALSE(f.empty());
  EXPECT_TRUE(f[0].compiler_made);
}

TEST(VerifySync, LeavesProgramsWithRuntimeEventIdsUnchecked) {
  std::vector<SyncFinding> f = Findings(Vector("    set_flag(mte2, v, %cid)\n"));
  EXPECT_TRUE(f.empty());
}

}  // namespace
}  // namespace tilejit::passes
