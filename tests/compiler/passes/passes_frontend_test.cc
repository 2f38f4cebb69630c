// SPDX-License-Identifier: Apache-2.0
// The passes of this directory chained on kernels the frontend traced from TileLang source,
// so the IR they see is the tracer's, not hand-written text.
#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "compiler/frontend/frontend.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/expand_composites.h"
#include "compiler/passes/legalize_copies.h"
#include "compiler/passes/lower_parallel.h"
#include "compiler/passes/memory_planning.h"
#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the frontend, then `passes` in order with a Verify after each; the final text.
std::string Lower(PassRunner& r, const frontend::FrontendRequest& req,
                  std::initializer_list<PassFn> passes) {
  Result<frontend::FrontendResult> fe = frontend::RunFrontend(req, &r.sources, &r.diag);
  EXPECT_TRUE(fe.ok()) << r.diag.RenderAll();
  if (!fe.ok()) return "";
  ir::Kernel k = fe->kernel;
  for (PassFn pass : passes) {
    Result<ir::Kernel> out = pass(k, r.ctx);
    EXPECT_TRUE(out.ok()) << r.diag.RenderAll();
    if (!out.ok()) return "";
    Status v = ir::Verify(*out);
    EXPECT_TRUE(v.ok()) << v << "\n" << ir::PrintKernel(*out);
    k = *out;
  }
  return ir::PrintKernel(k);
}

TEST(PassesOnTracedKernels, ExpertGemmExpandsLegalizesAndPlaces) {
  frontend::FrontendRequest req;
  req.source = ReadFile(std::string(TILEJIT_TESTDATA_DIR) + "/kernels/gemm_expert.py");
  req.file_name = "gemm_expert.py";
  req.entry = "matmul";
  for (int64_t a : {256, 512, 384, 128, 256, 64}) req.args.push_back(frontend::Value::Int(a));
  PassRunner r;
  std::string out = Lower(r, req, {ExpandComposites, LegalizeCopies, MemoryPlanning});
  EXPECT_EQ(out.find("gemm_v0"), std::string::npos) << out;
  // A [128, 64] and B [64, 256] fit L0 whole: one slice in one slot (32 KiB of L0B).
  EXPECT_NE(out.find("alloc %l0a_0: l0a float16[1, 128, 64] compiler_scratch @0"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("alloc %l0b_0: l0b float16[1, 64, 256] compiler_scratch @0"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("mma(%l0c_0, %l0a_0, %l0b_0) {init=%v2 == 0}"), std::string::npos) << out;
  EXPECT_EQ(r.ctx.stats["onchip_bytes_l0b"], 32768);
  EXPECT_EQ(r.ctx.stats["onchip_bytes_l0c"], 131072);
}

TEST(PassesOnTracedKernels, ParallelVectorKernelLowersToTileOps) {
  frontend::FrontendRequest req;
  req.source =
      "import tilelang\n"
      "import tilelang.language as T\n\n"
      "@tilelang.jit(out_idx=[-1])\n"
      "def kernel(M=64, N=64):\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((M, N), \"float\"), R: T.Tensor((M,), \"float\"),\n"
      "             B: T.Tensor((M, N), \"float\")):\n"
      "        with T.Kernel(1, is_npu=True) as (cid, vid):\n"
      "            a = T.alloc_ub((M, N), \"float\")\n"
      "            r = T.alloc_ub((M,), \"float\")\n"
      "            T.copy(A, a)\n"
      "            T.copy(R, r)\n"
      "            T.barrier_all()\n"
      "            for (i, j) in T.Parallel(M, N):\n"
      "                a[i, j] = T.exp(a[i, j] * 2.0 - r[i])\n"
      "            for i in T.Parallel(M):\n"
      "                r[i] = T.if_then_else(r[i] > 0.0, r[i], 0.0)\n"
      "            T.barrier_all()\n"
      "            T.copy(a, B)\n"
      "    return main\n";
  req.file_name = "parallel.py";
  req.entry = "kernel";
  PassRunner r;
  std::string out = Lower(r, req, {LowerParallel, LegalizeCopies, MemoryPlanning});
  EXPECT_EQ(out.find("parallel("), std::string::npos) << out;
  EXPECT_NE(out.find("exp("), std::string::npos) << out;
  EXPECT_NE(out.find("compare("), std::string::npos) << out;
  EXPECT_NE(out.find("select("), std::string::npos) << out;
  EXPECT_EQ(r.ctx.stats.count("onchip_bytes_ub"), 1u);
}

}  // namespace
}  // namespace tilejit::passes
