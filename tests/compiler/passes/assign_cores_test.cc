// SPDX-License-Identifier: Apache-2.0
// assign_cores: before/after Tile IR text, and its diagnostics.
#include "compiler/passes/assign_cores.h"

#include <gtest/gtest.h>

#include <string>

#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "compiler/target/npu_target.h"

namespace tilejit::passes {
namespace {

struct PassOutcome {
  std::string ir;           // printed result, empty on failure
  std::string diagnostics;  // rendered
};

PassOutcome AssignCoresOn(std::string_view text, bool cv_combine = false) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<ir::Kernel> k = ir::ParseTileIr(text, &sources, &diag);
  EXPECT_TRUE(k.ok()) << diag.RenderAll();
  if (!k.ok()) return {};
  PassContext ctx;
  ctx.target = &target::Ascend910B2();
  ctx.configs.auto_cv_combine = cv_combine;
  ctx.diag = &diag;
  Result<ir::Kernel> out = AssignCores(*k, ctx);
  return {out.ok() ? ir::PrintKernel(*out) : "", diag.RenderAll()};
}

constexpr std::string_view kHeader = R"(param %p0: gm float16[64, 64] input
param %p1: gm float32[64, 64] output
out_idx = [1]
workspace_idx = []
)";

TEST(AssignCores, WrapsACubeOnlyKernelWholeInACubeScope) {
  std::string before = std::string(kHeader) + R"(launch(1, threads=0) (%cid, %vid) {
  alloc %l1_0: l1 float16[64, 64]
  alloc %l0c_0: l0c float32[64, 64]
  copy(%l1_0, %p0)
  barrier(all)
  gemm_v0(%l0c_0, %l1_0, %l1_0) {init=true, transpose_A=false, transpose_B=false}
  barrier(all)
  copy(%p1, %l0c_0)
}
)";
  std::string after = std::string(kHeader) + R"(launch(1, threads=0) (%cid, %vid) {
  scope cube {
    alloc %l1_0: l1 float16[64, 64]
    alloc %l0c_0: l0c float32[64, 64]
    copy(%l1_0, %p0)
    barrier(all)
    gemm_v0(%l0c_0, %l1_0, %l1_0) {init=true, transpose_A=false, transpose_B=false}
    barrier(all)
    copy(%p1, %l0c_0)
  }
}
)";
  PassOutcome r = AssignCoresOn(before);
  EXPECT_EQ(r.ir, after) << r.diagnostics;
}

TEST(AssignCores, WrapsAVectorOnlyKernelInAVectorScope) {
  PassOutcome r = AssignCoresOn(std::string(kHeader) + R"(launch(2, threads=0) (%cid, %vid) {
  alloc %ub_0: ub float32[32, 64]
  fill(%ub_0, 1.0)
  copy(%p1[%cid * 32:+32, :], %ub_0)
}
)");
  EXPECT_NE(r.ir.find("  scope vector {\n    alloc %ub_0"), std::string::npos) << r.ir;
  EXPECT_EQ(r.ir.find("scope cube"), std::string::npos) << r.ir;
}

TEST(AssignCores, KeepsAuthorScopesAndGivesLooseLeavesTheirKind) {
  PassOutcome r = AssignCoresOn(std::string(kHeader) + R"(launch(1, threads=0) (%cid, %vid) {
  alloc %l0c_0: l0c float32[64, 64]
  alloc %ub_0: ub float32[64, 64]
  scope cube {
    copy(%p1, %l0c_0)
  }
  barrier(all)
  fill(%ub_0, 0.0)
  scope vector {
    copy(%p1, %ub_0)
  }
}
)");
  // barrier_all names no core-specific pipe: both cores get it; fill is vector work.
  EXPECT_NE(r.ir.find("scope cube {\n    barrier(all)\n  }\n  scope vector {\n    barrier(all)"),
            std::string::npos)
      << r.ir;
  EXPECT_NE(r.ir.find("scope vector {\n    fill(%ub_0, 0.0)\n  }"), std::string::npos) << r.ir;
}

TEST(AssignCores, SharedSyncGoesOnlyToTheCoreTypesTheKernelUses) {
  PassOutcome r = AssignCoresOn(std::string(kHeader) + R"(launch(1, threads=0) (%cid, %vid) {
  alloc %ub_0: ub float32[64, 64]
  barrier(all)
  scope vector {
    fill(%ub_0, 0.0)
  }
}
)");
  EXPECT_EQ(r.ir.find("scope cube"), std::string::npos) << r.ir;
  EXPECT_NE(r.ir.find("scope vector {\n    barrier(all)\n  }"), std::string::npos) << r.ir;
}

TEST(AssignCores, MixedWorkWithoutScopesNamesBothFixes) {
  PassOutcome r = AssignCoresOn(std::string(kHeader) + R"(launch(1, threads=0) (%cid, %vid) {
  alloc %l0c_0: l0c float32[64, 64]
  alloc %ub_0: ub float32[64, 64]
  copy(%p1, %l0c_0)
  fill(%ub_0, 0.0)
}
)");
  EXPECT_EQ(r.ir, "");
  EXPECT_NE(r.diagnostics.find("this kernel mixes cube work (copy) and vector work (fill) without "
                               "T.Scope; either wrap each part in `with T.Scope(\"C\"):` / `with "
                               "T.Scope(\"V\"):`, or set TL_ASCEND_AUTO_CV_COMBINE"),
            std::string::npos)
      << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("note: vector work (fill) is here"), std::string::npos)
      << r.diagnostics;
}

TEST(AssignCores, CubeWorkInAVectorScopeIsADiagnostic) {
  PassOutcome r = AssignCoresOn(std::string(kHeader) + R"(launch(1, threads=0) (%cid, %vid) {
  alloc %l0c_0: l0c float32[64, 64]
  scope vector {
    copy(%p1, %l0c_0)
  }
}
)");
  EXPECT_NE(r.diagnostics.find("copy is cube work inside T.Scope(\"V\"); move it into a "
                               "T.Scope(\"C\") block"),
            std::string::npos)
      << r.diagnostics;
}

}  // namespace
}  // namespace tilejit::passes
