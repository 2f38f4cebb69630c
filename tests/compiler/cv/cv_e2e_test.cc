// SPDX-License-Identifier: Apache-2.0
// Cube/vector separation end to end: Expert-style mixed kernels (explicit L1/L0C/UB buffers,
// the author's barrier_all around each step, no T.Scope) compiled with
// TL_ASCEND_AUTO_CV_COMBINE and TL_ASCEND_AUTO_CV_SYNC, so legalize_copies stages every
// L0C->UB and UB->L1 copy through a compiler workspace, combine_cv splits the body and
// cross_core_sync orders the hand-offs. Each kernel runs on the simulator in checked mode and
// in perturbed mode with three seeds; a launch must report nothing and match a C++ reference.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "codegen/codegen_test_util.h"
#include "compiler/compiler.h"

namespace tilejit::compiler {
namespace {

using codegen::testing::AllClose;
using codegen::testing::F16;
using codegen::testing::F32;
using codegen::testing::FindingsText;
using codegen::testing::RoundToHalf;
using codegen::testing::ToFloats;
using frontend::Value;

constexpr char kConfigs[] = R"(import tilelang
import tilelang.language as T

pass_configs = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
}
)";

// C = A @ B + D. The vector cores split the rows by vid; C_L0 -> c_ub is the hand-off.
constexpr char kMatmulAdd[] = R"(
@tilelang.jit(out_idx=[-1], pass_configs=pass_configs)
def matmul_add(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):
    n_num = N // block_N
    sub_M = block_M // 2

    @T.prim_func
    def main(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            D: T.Tensor((M, N), accum_dtype),
            C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel((M // block_M) * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            A_L1 = T.alloc_L1((block_M, block_K), dtype)
            B_L1 = T.alloc_L1((block_K, block_N), dtype)
            C_L0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            c_ub = T.alloc_ub((sub_M, block_N), accum_dtype)
            d_ub = T.alloc_ub((sub_M, block_N), accum_dtype)

            for k in T.serial(K // block_K):
                T.copy(A[bx * block_M, k * block_K], A_L1)
                T.copy(B[k * block_K, by * block_N], B_L1)
                T.barrier_all()
                T.gemm_v0(A_L1, B_L1, C_L0, init=(k == 0))
                T.barrier_all()
            row = bx * block_M + vid * sub_M
            T.copy(D[row, by * block_N], d_ub)
            T.copy(C_L0[vid * sub_M:(vid + 1) * sub_M, :], c_ub)
            T.barrier_all()
            T.tile.add(c_ub, c_ub, d_ub)
            T.barrier_all()
            T.copy(c_ub, C[row, by * block_N])

    return main
)";

// O = sum_j cast16(0.5 * Q @ K_j^T) @ V_j: per iteration a scores hand-off cube -> vector,
// a probabilities hand-off vector -> cube and a P@V hand-off cube -> vector, all in a loop.
// LAUNCH and SUB are replaced per variant (threads=1, or the (cid, vid) form).
constexpr char kChain[] = R"(
@tilelang.jit(out_idx=[-1], pass_configs=pass_configs)
def chain(M, N, D, block_M, block_N, dtype="float16", accum_dtype="float"):
    sub_M = SUB
    n_blocks = N // block_N

    @T.prim_func
    def main(
            Q: T.Tensor((M, D), dtype),
            K: T.Tensor((N, D), dtype),
            V: T.Tensor((N, D), dtype),
            O: T.Tensor((M, D), accum_dtype),
    ):
        with LAUNCH:
            q_l1 = T.alloc_L1((block_M, D), dtype)
            k_l1 = T.alloc_L1((block_N, D), dtype)
            v_l1 = T.alloc_L1((block_N, D), dtype)
            p_l1 = T.alloc_L1((block_M, block_N), dtype)
            s_l0c = T.alloc_L0C((block_M, block_N), accum_dtype)
            o_l0c = T.alloc_L0C((block_M, D), accum_dtype)
            s_ub = T.alloc_ub((sub_M, block_N), accum_dtype)
            p_ub = T.alloc_ub((sub_M, block_N), dtype)
            o_ub = T.alloc_ub((sub_M, D), accum_dtype)
            acc = T.alloc_ub((sub_M, D), accum_dtype)

            r0 = VID * sub_M
            T.copy(Q[cid * block_M, 0], q_l1)
            T.tile.fill(acc, 0.0)
            T.barrier_all()
            for j in T.serial(n_blocks):
                T.copy(K[j * block_N, 0], k_l1)
                T.copy(V[j * block_N, 0], v_l1)
                T.barrier_all()
                T.gemm_v0(q_l1, k_l1, s_l0c, transpose_B=True, init=True)
                T.barrier_all()
                T.copy(s_l0c[r0:r0 + sub_M, :], s_ub)
                T.barrier_all()
                T.tile.mul(s_ub, s_ub, 0.5)
                T.barrier_all()
                T.tile.cast(p_ub, s_ub, "CAST_RINT")
                T.barrier_all()
                T.copy(p_ub, p_l1[r0:r0 + sub_M, :])
                T.barrier_all()
                T.gemm_v0(p_l1, v_l1, o_l0c, init=True)
                T.barrier_all()
                T.copy(o_l0c[r0:r0 + sub_M, :], o_ub)
                T.barrier_all()
                T.tile.add(acc, acc, o_ub)
                T.barrier_all()
            T.copy(acc, O[cid * block_M + r0, 0])

    return main
)";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

std::string ChainSource(bool one_vector_core) {
  std::string s = kChain;
  if (one_vector_core) {
    s = Replace(s, "LAUNCH", "T.Kernel(M // block_M, threads=1, is_npu=True) as (cid)");
    s = Replace(s, "SUB", "block_M");
    return Replace(s, "VID", "0");
  }
  s = Replace(s, "LAUNCH", "T.Kernel(M // block_M, is_npu=True) as (cid, vid)");
  s = Replace(s, "SUB", "block_M // 2");
  return Replace(s, "VID", "vid");
}

struct Compiled {
  std::vector<uint8_t> binary;
  std::string ir;  // the final Tile IR
};

Result<Compiled> CompileSource(const std::string& body, const std::string& entry,
                               std::vector<Value> args) {
  frontend::FrontendRequest req;
  req.source = std::string(kConfigs) + body;
  req.file_name = entry + ".py";
  req.entry = entry;
  req.args = std::move(args);
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  PipelineOptions options;
  options.print_after = {"cross_core_sync"};
  Result<CompiledKernel> k = Compile({req, options}, &sources, &diag);
  if (!k.ok()) return k.status().WithContext(diag.RenderAll());
  Compiled c{k->binary, k->ir_dumps.empty() ? "" : k->ir_dumps.back().second};
  return c;
}

// Runs checked, then perturbed with three seeds; every launch must be clean and match.
void RunEverywhere(const std::vector<uint8_t>& binary, const std::vector<runner::NpyArray>& in,
                   const std::vector<float>& want, double rtol, double atol) {
  runner::sim::SimDevice device;
  Result<runner::KernelId> id = device.LoadBinary(binary);
  ASSERT_TRUE(id.ok()) << id.status();
  std::vector<runner::LaunchOptions> runs(4);
  for (int s = 1; s < 4; ++s) {
    runs[s].mode = runner::CheckMode::kPerturbed;
    runs[s].seed = 100 + s;
  }
  for (const runner::LaunchOptions& o : runs) {
    SCOPED_TRACE(o.mode == runner::CheckMode::kChecked ? "checked" : "perturbed");
    Result<runner::RunResult> run = runner::RunKernel(device, *id, in, o);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_TRUE(run->report.findings.empty()) << FindingsText(run->report);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, rtol, atol));
  }
}

std::vector<float> Small(size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> d(-8, 8);  // exact in fp16; small products exact in fp32
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(d(rng)) / 8.0f;
  return v;
}

TEST(CvEndToEnd, MatmulAddHandsL0cToTheVectorCoresThroughAWorkspace) {
  const int m = 128, n = 128, k = 64, bm = 64, bn = 64, bk = 32;
  auto c = CompileSource(kMatmulAdd, "matmul_add",
                         {Value::Int(m), Value::Int(n), Value::Int(k), Value::Int(bm),
                          Value::Int(bn), Value::Int(bk)});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NE(c->ir.find("set_cross_flag(fix, 0, mode=2) {compiler}"), std::string::npos) << c->ir;
  EXPECT_NE(c->ir.find("compiler_workspace"), std::string::npos) << c->ir;
  std::mt19937_64 rng(5);
  std::vector<float> a = Small(size_t(m) * k, rng), b = Small(size_t(k) * n, rng);
  std::vector<float> d = Small(size_t(m) * n, rng);
  std::vector<float> want = d;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p)
        want[size_t(i) * n + j] += a[size_t(i) * k + p] * b[size_t(p) * n + j];
  RunEverywhere(c->binary, {F16({m, k}, a), F16({k, n}, b), F32({m, n}, d)}, want, 1e-5, 1e-4);
}

void RunChain(bool one_vector_core) {
  const int m = 64, n = 128, dim = 32, bm = 32, bn = 32;
  auto c = CompileSource(
      ChainSource(one_vector_core), "chain",
      {Value::Int(m), Value::Int(n), Value::Int(dim), Value::Int(bm), Value::Int(bn)});
  ASSERT_TRUE(c.ok()) << c.status();
  std::mt19937_64 rng(one_vector_core ? 11 : 12);
  std::vector<float> q = Small(size_t(m) * dim, rng), kk = Small(size_t(n) * dim, rng);
  std::vector<float> v = Small(size_t(n) * dim, rng);
  std::vector<float> want(size_t(m) * dim, 0.0f);
  for (int j0 = 0; j0 < n; j0 += bn) {
    std::vector<float> p(size_t(m) * bn, 0.0f);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < bn; ++j) {
        float s = 0;
        for (int x = 0; x < dim; ++x) s += q[size_t(i) * dim + x] * kk[size_t(j0 + j) * dim + x];
        p[size_t(i) * bn + j] = 0.5f * s;
      }
    p = RoundToHalf(p);
    for (int i = 0; i < m; ++i)
      for (int x = 0; x < dim; ++x) {
        float o = 0;
        for (int j = 0; j < bn; ++j) o += p[size_t(i) * bn + j] * v[size_t(j0 + j) * dim + x];
        want[size_t(i) * dim + x] += o;
      }
  }
  RunEverywhere(c->binary, {F16({m, dim}, q), F16({n, dim}, kk), F16({n, dim}, v)}, want, 1e-3,
                1e-3);
}

TEST(CvEndToEnd, LoopWithHandOffsBothWaysOnTwoVectorCores) { RunChain(false); }

TEST(CvEndToEnd, LoopWithHandOffsBothWaysOnOneVectorCore) { RunChain(true); }

TEST(CvEndToEnd, CompilerWorkspacesAreDescribedInTheMetadata) {
  auto c = CompileSource(
      ChainSource(false), "chain",
      {Value::Int(64), Value::Int(64), Value::Int(32), Value::Int(32), Value::Int(32)});
  ASSERT_TRUE(c.ok()) << c.status();
  Result<target::KernelBinary> bin = target::ReadKernelBinary(c->binary);
  ASSERT_TRUE(bin.ok()) << bin.status();
  const target::KernelMetadata& md = bin->metadata;
  std::vector<int64_t> per_block;
  for (int i : md.workspace_idx) {
    const target::KernelParam& p = md.params[i];
    EXPECT_TRUE(p.compiler_workspace);
    EXPECT_EQ(p.shape[0], md.block_count);
    per_block.push_back(p.workspace_bytes_per_block);
  }
  // Scores [32, 32] f32, probabilities [32, 32] f16, P@V [32, 32] f32.
  EXPECT_EQ(per_block, (std::vector<int64_t>{32 * 32 * 4, 32 * 32 * 2, 32 * 32 * 4}));
  EXPECT_EQ(md.core_mix, target::CoreMix::kMixed);
}

// Developer mode (devgen seed 50196, reduced): a loop with two L0C->UB hand-offs that share a
// UB tile the body reads first, so multi_buffer versions the two workspaces but not the tile.
// Interleaving the two unrolled copies must keep the cube's workspace writes in the order of
// the vector's reads: one ready counter per direction pairs them by count.
constexpr char kTwoHandOffsPerIteration[] = R"(param %a: gm float16[96, 16] input
param %b: gm float16[16, 16] input
param %o: gm float32[96, 16] output
out_idx = [2]
workspace_idx = []
launch(3, threads=1) (%cid, %vid) {
  alloc %t: shared float32[32, 16]
  alloc %acc: shared float32[32, 16]
  alloc %a1: shared float16[32, 16]
  alloc %b1: shared float16[16, 16]
  alloc %c: fragment float32[32, 16]
  let %row = %cid * 32
  copy(%a1, %a[%row:+32, 0:+16])
  copy(%b1, %b[0:+16, 0:+16])
  gemm_v0(%c, %a1, %b1) {init=true}
  fill(%t, 0.0)
  fill(%acc, 0.0)
  for %i in serial(0, 3) {
    min(%t, %t, 1000.0)
    copy(%t, %c)
    add(%acc, %acc, %t)
    copy(%t, %c)
    add(%acc, %acc, %t)
  }
  copy(%o[%row:+32, 0:+16], %acc)
}
)";

TEST(CvEndToEnd, TwoHandOffsPerMultiBufferedIterationStayPairedInOrder) {
  frontend::FrontendRequest req;
  req.source = kTwoHandOffsPerIteration;
  req.file_name = "two_hand_offs.tir";
  req.format = frontend::SourceFormat::kTileIr;
  req.pass_configs = {{"tl.ascend_auto_cv_combine", Value::Bool(true)},
                      {"tl.ascend_auto_cross_core_sync", Value::Bool(true)},
                      {"tl.ascend_auto_sync", Value::Bool(true)},
                      {"tl.ascend_memory_planning", Value::Bool(true)}};
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  PipelineOptions options;
  options.print_after = {"multi_buffer"};
  Result<CompiledKernel> k = Compile({req, options}, &sources, &diag);
  ASSERT_TRUE(k.ok()) << diag.RenderAll() << k.status();
  ASSERT_FALSE(k->ir_dumps.empty());
  // The precondition this test depends on: the loop was unrolled with versioned workspaces.
  EXPECT_NE(k->ir_dumps.back().second.find("%p6"), std::string::npos) << k->ir_dumps.back().second;
  const int m = 96, kd = 16, n = 16;
  std::mt19937_64 rng(7);
  std::vector<float> a = Small(size_t(m) * kd, rng), b = Small(size_t(kd) * n, rng);
  std::vector<float> want(size_t(m) * n, 0.0f);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      for (int p = 0; p < kd; ++p)
        want[size_t(i) * n + j] += a[size_t(i) * kd + p] * b[size_t(p) * n + j];
      want[size_t(i) * n + j] *= 6.0f;  // three iterations, two hand-offs each
    }
  RunEverywhere(k->binary, {F16({m, kd}, a), F16({kd, n}, b)}, want, 1e-5, 1e-4);
}

// Deleting any one cross-core flag the compiler made must show: a race, a deadlock or a
// counter left at block end (the flags are all necessary, and the checker sees them).
TEST(CvEndToEnd, EveryCompilerCrossFlagIsNecessary) {
  const int m = 64, n = 128, dim = 32, bm = 32, bn = 32;
  auto c = CompileSource(
      ChainSource(false), "chain",
      {Value::Int(m), Value::Int(n), Value::Int(dim), Value::Int(bm), Value::Int(bn)});
  ASSERT_TRUE(c.ok()) << c.status();
  std::mt19937_64 rng(3);
  std::vector<runner::NpyArray> in = {F16({m, dim}, Small(size_t(m) * dim, rng)),
                                      F16({n, dim}, Small(size_t(n) * dim, rng)),
                                      F16({n, dim}, Small(size_t(n) * dim, rng))};
  std::vector<std::string> lines;
  for (size_t at = 0; at < c->ir.size();) {
    size_t end = c->ir.find('\n', at);
    lines.push_back(c->ir.substr(at, end - at));
    at = end + 1;
  }
  int mutants = 0;
  for (size_t drop = 0; drop < lines.size(); ++drop) {
    if (lines[drop].find("cross_flag(") == std::string::npos) continue;
    std::string text;
    for (size_t i = 0; i < lines.size(); ++i)
      if (i != drop) text += lines[i] + "\n";
    frontend::FrontendRequest req;
    req.source = text;
    req.file_name = "mutant.tir";
    req.format = frontend::SourceFormat::kTileIr;
    SourceManager sources;
    DiagnosticEngine diag(&sources);
    Result<CompiledKernel> k = Compile({req, {}}, &sources, &diag);
    ASSERT_TRUE(k.ok()) << diag.RenderAll() << k.status();
    runner::sim::SimDevice device;
    Result<runner::KernelId> id = device.LoadBinary(k->binary);
    ASSERT_TRUE(id.ok()) << id.status();
    Result<runner::RunResult> run = runner::RunKernel(device, *id, in, {});
    EXPECT_TRUE(!run.ok() || !run->report.findings.empty())
        << "deleting `" << lines[drop] << "` went unnoticed";
    ++mutants;
  }
  EXPECT_EQ(mutants, 18);
}

}  // namespace
}  // namespace tilejit::compiler
