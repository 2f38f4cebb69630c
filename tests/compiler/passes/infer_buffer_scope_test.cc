// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/infer_buffer_scope.h"

#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>

#include "compiler/frontend/frontend.h"
#include "compiler/ir/visitor.h"
#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

// A kernel with two fp16 GM inputs and an fp32 output; `allocs_and_body` follows the launch.
std::string Kernel(std::string_view allocs_and_body) {
  return std::string(
             "param %p0: gm float16[64, 64] input\n"
             "param %p1: gm float16[64, 64] input\n"
             "param %p2: gm float32[64, 64] output\n"
             "out_idx = [2]\n"
             "workspace_idx = []\n"
             "launch(1, threads=0) (%cid, %vid) {\n") +
         std::string(allocs_and_body) + "}\n";
}

TEST(InferBufferScope, GemmOperandsResolveByPosition) {
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %a: shared float16[64, 64]\n"
                                           "  alloc %b: shared float16[64, 64]\n"
                                           "  alloc %c: fragment float32[64, 64]\n"
                                           "  copy(%a, %p0)\n"
                                           "  copy(%b, %p1)\n"
                                           "  gemm_v0(%c, %a, %b)\n"
                                           "  copy(%p2, %c)\n")),
            Kernel("  alloc %l1_0: l1 float16[64, 64]\n"
                   "  alloc %l1_1: l1 float16[64, 64]\n"
                   "  alloc %l0c_0: l0c float32[64, 64]\n"
                   "  copy(%l1_0, %p0)\n"
                   "  copy(%l1_1, %p1)\n"
                   "  gemm_v0(%l0c_0, %l1_0, %l1_1)\n"
                   "  copy(%p2, %l0c_0)\n"));
  EXPECT_EQ(r.ctx.stats["l1"], 2);
  EXPECT_EQ(r.ctx.stats["l0c"], 1);
}

TEST(InferBufferScope, MmaFragmentsBecomeL0aL0bAndL0c) {
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %l1: l1 float16[64, 64]\n"
                                           "  alloc %a: fragment float16[64, 64]\n"
                                           "  alloc %b: fragment float16[64, 64]\n"
                                           "  alloc %c: fragment float32[64, 64]\n"
                                           "  copy(%l1, %p0)\n"
                                           "  copy(%a, %l1)\n"
                                           "  copy(%b, %l1)\n"
                                           "  mma(%c, %a, %b)\n")),
            Kernel("  alloc %l1_0: l1 float16[64, 64]\n"
                   "  alloc %l0a_0: l0a float16[64, 64]\n"
                   "  alloc %l0b_0: l0b float16[64, 64]\n"
                   "  alloc %l0c_0: l0c float32[64, 64]\n"
                   "  copy(%l1_0, %p0)\n"
                   "  copy(%l0a_0, %l1_0)\n"
                   "  copy(%l0b_0, %l1_0)\n"
                   "  mma(%l0c_0, %l0a_0, %l0b_0)\n"));
}

TEST(InferBufferScope, FragmentNoGemmUsesIsL0c) {
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %c: fragment float32[64, 64]\n"
                                           "  copy(%p2, %c)\n")),
            Kernel("  alloc %l0c_0: l0c float32[64, 64]\n"
                   "  copy(%p2, %l0c_0)\n"));
}

TEST(InferBufferScope, SharedUsedOnlyByVectorWorkIsUb) {
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %x: shared float32[64, 64]\n"
                                           "  alloc %m: shared float32[64]\n"
                                           "  alloc %s: shared float32[4]\n"
                                           "  alloc %unused: shared float32[4]\n"
                                           "  copy(%x, %p2)\n"
                                           "  reduce_max(%m, %x) {dim=1}\n"
                                           "  %s[0] = 1.0\n"
                                           "  copy(%p2, %x)\n")),
            Kernel("  alloc %ub_0: ub float32[64, 64]\n"
                   "  alloc %ub_1: ub float32[64]\n"
                   "  alloc %ub_2: ub float32[4]\n"
                   "  alloc %ub_3: ub float32[4]\n"
                   "  copy(%ub_0, %p2)\n"
                   "  reduce_max(%ub_1, %ub_0) {dim=1}\n"
                   "  %ub_2[0] = 1.0\n"
                   "  copy(%p2, %ub_0)\n"));
  EXPECT_EQ(r.ctx.stats["ub"], 4);
}

TEST(InferBufferScope, SharedReadByAScalarLoadIsUb) {
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %x: shared float32[64, 64]\n"
                                           "  alloc %m: shared float32[64]\n"
                                           "  copy(%m, %p2[0:+1, :])\n"
                                           "  mul(%x, %x, %m[3])\n")),
            Kernel("  alloc %ub_0: ub float32[64, 64]\n"
                   "  alloc %ub_1: ub float32[64]\n"
                   "  copy(%ub_1, %p2[0:+1, :])\n"
                   "  mul(%ub_0, %ub_0, %ub_1[3])\n"));
}

TEST(InferBufferScope, CopyOnlySharedBetweenGmAndACubeBufferIsL1UnlessThatBufferIsL1) {
  // %a only stages GM data into an L0A tile: L1. %b is copied into %c, which the gemm reads
  // from L1: there is no L1 -> L1 path, so %b is the UB side (upstream's vid-reduced sparse
  // flash attention gathers KV rows this way, kv_ub -> kv_l1).
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %la: l0a float16[64, 64]\n"
                                           "  alloc %b: shared float16[64, 64]\n"
                                           "  alloc %a: shared float16[64, 64]\n"
                                           "  alloc %c: shared float16[64, 64]\n"
                                           "  alloc %acc: fragment float32[64, 64]\n"
                                           "  copy(%a, %p0)\n"
                                           "  copy(%la, %a)\n"
                                           "  copy(%b, %p1)\n"
                                           "  copy(%c, %b)\n"
                                           "  gemm_v0(%acc, %a, %c)\n")),
            Kernel("  alloc %l0a_0: l0a float16[64, 64]\n"
                   "  alloc %ub_0: ub float16[64, 64]\n"
                   "  alloc %l1_0: l1 float16[64, 64]\n"
                   "  alloc %l1_1: l1 float16[64, 64]\n"
                   "  alloc %l0c_0: l0c float32[64, 64]\n"
                   "  copy(%l1_0, %p0)\n"
                   "  copy(%l0a_0, %l1_0)\n"
                   "  copy(%ub_0, %p1)\n"
                   "  copy(%l1_1, %ub_0)\n"
                   "  gemm_v0(%l0c_0, %l1_0, %l1_1)\n"));
}

TEST(InferBufferScope, CopyOnlySharedBetweenGmBuffersIsUb) {
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %t: shared float32[64, 64]\n"
                                           "  alloc %u: shared float32[64, 64]\n"
                                           "  copy(%t, %p2)\n"
                                           "  copy(%u, %t)\n"
                                           "  copy(%p2, %u)\n")),
            Kernel("  alloc %ub_0: ub float32[64, 64]\n"
                   "  alloc %ub_1: ub float32[64, 64]\n"
                   "  copy(%ub_0, %p2)\n"
                   "  copy(%ub_1, %ub_0)\n"
                   "  copy(%p2, %ub_1)\n"));
}

TEST(InferBufferScope, HandOffBufferCopiedFromVectorDataIntoCubeIsUb) {
  // The flash-attention pattern: s (vector) -> p_half -> p_l1 (gemm A). p_half touches a
  // vector buffer, so it is the UB side of the hand-off.
  PassRunner r;
  std::string out = r.Run(InferBufferScope, Kernel("  alloc %s: shared float32[64, 64]\n"
                                                   "  alloc %p_half: shared float16[64, 64]\n"
                                                   "  alloc %p_l1: shared float16[64, 64]\n"
                                                   "  alloc %v: shared float16[64, 64]\n"
                                                   "  alloc %o: fragment float32[64, 64]\n"
                                                   "  exp(%s, %s)\n"
                                                   "  copy(%p_half, %s)\n"
                                                   "  copy(%p_l1, %p_half)\n"
                                                   "  copy(%v, %p1)\n"
                                                   "  gemm_v0(%o, %p_l1, %v)\n"));
  EXPECT_EQ(out, Kernel("  alloc %ub_0: ub float32[64, 64]\n"
                        "  alloc %ub_1: ub float16[64, 64]\n"
                        "  alloc %l1_0: l1 float16[64, 64]\n"
                        "  alloc %l1_1: l1 float16[64, 64]\n"
                        "  alloc %l0c_0: l0c float32[64, 64]\n"
                        "  exp(%ub_0, %ub_0)\n"
                        "  copy(%ub_1, %ub_0)\n"
                        "  copy(%l1_0, %ub_1)\n"
                        "  copy(%l1_1, %p1)\n"
                        "  gemm_v0(%l0c_0, %l1_0, %l1_1)\n"));
}

TEST(InferBufferScope, ExpertScopesAreLeftAlone) {
  std::string text = Kernel(
      "  alloc %l1_0: l1 float16[64, 64]\n"
      "  alloc %ub_0: ub float32[64, 64]\n"
      "  copy(%l1_0, %p0)\n"
      "  copy(%ub_0, %p2)\n");
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, text), text);
  EXPECT_TRUE(r.ctx.stats.empty());
}

TEST(InferBufferScope, FragmentInTwoGemmPositionsIsADiagnosticAtItsAlloc) {
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %a: fragment float16[64, 64]\n"
                                           "  alloc %b: fragment float16[64, 64]\n"
                                           "  alloc %f: fragment float16[64, 64]\n"
                                           "  alloc %g: fragment float16[64, 64]\n"
                                           "  mma(%f, %a, %b)\n"
                                           "  mma(%g, %f, %b)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "alloc_fragment 'f' is used as gemm operand C and as operand A: a fragment lives in "
            "one cube memory (l0a for A, l0b for B, l0c for C); allocate one fragment per "
            "operand position");
  EXPECT_EQ(r.FirstErrorLine(), 9u);
  ASSERT_EQ(r.diag.diagnostics().front().notes.size(), 2u);
  EXPECT_EQ(r.diag.diagnostics().front().notes[0].loc.line, 11u);
  EXPECT_EQ(r.diag.diagnostics().front().notes[1].message, "used as operand A of mma here");
  EXPECT_EQ(r.diag.diagnostics().front().notes[1].loc.line, 12u);
}

TEST(InferBufferScope, FragmentAsGemmV0InputSaysToUseAllocShared) {
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %a: fragment float16[64, 64]\n"
                                           "  alloc %b: shared float16[64, 64]\n"
                                           "  alloc %c: fragment float32[64, 64]\n"
                                           "  gemm_v0(%c, %a, %b)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "alloc_fragment 'a' is used as operand A of gemm_v0, which reads A and B from l1; "
            "allocate it with T.alloc_shared (a fragment is an l0 tile: operands of mma, or a "
            "gemm accumulator)");
  EXPECT_EQ(r.FirstErrorLine(), 7u);
  EXPECT_EQ(r.diag.diagnostics().front().notes.at(0).loc.line, 10u);
}

TEST(InferBufferScope, SharedAsAccumulatorOrMmaOperandSaysToUseAllocFragment) {
  for (std::string_view op : {"gemm_v0(%s, %a, %a)", "mma(%c, %s, %a)"}) {
    PassRunner r;
    EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %s: shared float16[64, 64]\n"
                                             "  alloc %a: fragment float16[64, 64]\n"
                                             "  alloc %c: fragment float32[64, 64]\n  " +
                                             std::string(op) + "\n")),
              "");
    EXPECT_NE(r.FirstError().find("which needs an l0 tile; allocate it with T.alloc_fragment"),
              std::string::npos)
        << r.FirstError();
    EXPECT_EQ(r.FirstErrorLine(), 7u) << op;
  }
}

TEST(InferBufferScope, SharedUsedByCubeAndVectorWorkSaysToUseTwoBuffers) {
  PassRunner r;
  EXPECT_EQ(r.Run(InferBufferScope, Kernel("  alloc %a: shared float16[64, 64]\n"
                                           "  alloc %c: fragment float32[64, 64]\n"
                                           "  gemm_v0(%c, %a, %a)\n"
                                           "  relu(%a, %a)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "alloc_shared 'a' is used by both cube work and vector work, but no on-chip memory "
            "is shared by the cube and vector cores; allocate two buffers (one for the gemm, one "
            "for the vector ops) and T.copy between them");
  EXPECT_EQ(r.FirstErrorLine(), 7u);
  const Diagnostic& d = r.diag.diagnostics().front();
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[0].message, "cube work: operand A of gemm_v0");
  EXPECT_EQ(d.notes[1].message, "vector work: relu");
  EXPECT_EQ(d.notes[1].loc.line, 10u);
}

// ---------------------------------------------------------------------------------------------
// The Developer kernels of cases.json, traced by the frontend.

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Name hint -> scope name of every allocation.
class AllocScopes : public ir::Visitor {
 public:
  std::map<std::string, std::string> scopes;

 protected:
  void VisitAllocate(const ir::AllocateNode& op) override {
    scopes[op.buffer->name] = std::string(ir::MemScopeName(op.buffer->scope));
  }
};

std::map<std::string, std::string> InferOnKernel(const std::string& file, const std::string& entry,
                                                 std::initializer_list<int64_t> args) {
  frontend::FrontendRequest req;
  req.source = ReadFile(std::string(TILEJIT_SHARED_KERNELS_DIR) + "/" + file);
  req.file_name = file;
  req.entry = entry;
  for (int64_t a : args) req.args.push_back(frontend::Value::Int(a));
  PassRunner r;
  Result<frontend::FrontendResult> fe = frontend::RunFrontend(req, &r.sources, &r.diag);
  EXPECT_TRUE(fe.ok()) << r.diag.RenderAll();
  if (!fe.ok()) return {};
  Result<ir::Kernel> out = InferBufferScope(fe->kernel, r.ctx);
  EXPECT_TRUE(out.ok()) << r.diag.RenderAll();
  if (!out.ok()) return {};
  AllocScopes v;
  v.VisitKernel(*out);
  return v.scopes;
}

using Scopes = std::map<std::string, std::string>;

TEST(InferBufferScopeOnKernels, GemmDeveloper) {
  EXPECT_EQ(InferOnKernel("gemm_developer.py", "matmul", {256, 512, 384, 128, 256, 64}),
            (Scopes{{"A_L1", "l1"}, {"B_L1", "l1"}, {"C_L0", "l0c"}}));
}

TEST(InferBufferScopeOnKernels, MatmulAddDeveloper) {
  EXPECT_EQ(
      InferOnKernel("matmul_add_developer.py", "matmul_add", {256, 256, 256, 64, 128, 64}),
      (Scopes{{"A_L1", "l1"}, {"B_L1", "l1"}, {"C_L0", "l0c"}, {"c_ub", "ub"}, {"d_ub", "ub"}}));
}

TEST(InferBufferScopeOnKernels, FlashAttnDeveloper) {
  EXPECT_EQ(InferOnKernel("flash_attn_developer.py", "flash_attention", {1, 2, 256, 128, 64, 64}),
            (Scopes{{"q_l1", "l1"},
                    {"k_l1", "l1"},
                    {"v_l1", "l1"},
                    {"p_l1", "l1"},
                    {"s_l0c", "l0c"},
                    {"o_l0c", "l0c"},
                    {"s_ub", "ub"},
                    {"p_half", "ub"},
                    {"o_ub", "ub"},
                    {"acc_o", "ub"},
                    {"o_half", "ub"},
                    {"m_i", "ub"},
                    {"m_prev", "ub"},
                    {"l_i", "ub"},
                    {"l_blk", "ub"}}));
}

TEST(InferBufferScopeOnKernels, LayernormMixedIsAllUb) {
  EXPECT_EQ(InferOnKernel("layernorm_mixed.py", "layer_norm", {128, 512, 16}),
            (Scopes{{"x_ub", "ub"},
                    {"sq_ub", "ub"},
                    {"g_ub", "ub"},
                    {"b_ub", "ub"},
                    {"mean_ub", "ub"},
                    {"rstd_ub", "ub"}}));
}

TEST(InferBufferScopeOnKernels, SoftmaxMixedKeepsItsExpertUbScopes) {
  EXPECT_EQ(
      InferOnKernel("softmax_mixed.py", "softmax", {256, 1024, 16}),
      (Scopes{{"scores_ub", "ub"}, {"acc_ub", "ub"}, {"row_max_ub", "ub"}, {"row_sum_ub", "ub"}}));
}

}  // namespace
}  // namespace tilejit::passes
