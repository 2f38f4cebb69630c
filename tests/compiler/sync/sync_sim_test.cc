// SPDX-License-Identifier: Apache-2.0
// sync_insert end to end: kernels written without any intra-core sync, compiled with
// TL_ASCEND_AUTO_SYNC on (the whole pipeline, verify_sync included), run on the simulator in
// checked mode and in perturbed mode with seeds 1..3, and compared with a C++ host reference.
// Every launch must report no finding (no race, no flag misuse) and the same numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <tuple>

#include "codegen/codegen_test_util.h"
#include "compiler/compiler.h"

namespace tilejit::compiler {
namespace {

using codegen::testing::AllClose;
using codegen::testing::F16;
using codegen::testing::F32;
using codegen::testing::FindingsText;
using codegen::testing::ToFloats;
using frontend::Value;

std::string ReadShared(const std::string& name) {
  std::ifstream in(std::filesystem::path(TILEJIT_SHARED_KERNELS_DIR) / name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Compiles `source` and runs it checked and perturbed (seeds 1..3); every run must be clean
// and match `want` (the first output).
void CompileRunAndCompare(const std::string& source, const std::string& entry,
                          std::vector<Value> args, const std::vector<runner::NpyArray>& inputs,
                          const std::vector<float>& want, double rtol, double atol) {
  frontend::FrontendRequest req;
  req.source = source;
  req.file_name = entry + ".py";
  req.entry = entry;
  req.args = std::move(args);
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<CompiledKernel> k = Compile({req, {{}, "", false, true, nullptr}}, &sources, &diag);
  ASSERT_TRUE(k.ok()) << k.status() << "\n" << diag.RenderAll();
  runner::sim::SimDevice device;
  Result<runner::KernelId> id = device.LoadBinary(k->binary);
  ASSERT_TRUE(id.ok()) << id.status();
  for (uint64_t seed = 0; seed <= 3; ++seed) {
    runner::LaunchOptions options;
    options.mode = seed == 0 ? runner::CheckMode::kChecked : runner::CheckMode::kPerturbed;
    options.seed = seed;
    options.host_threads = 2;
    SCOPED_TRACE(::testing::Message() << "perturbation seed " << seed << " (0: checked)");
    Result<runner::RunResult> run = runner::RunKernel(device, *id, inputs, options);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_TRUE(run->report.findings.empty()) << FindingsText(run->report);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, rtol, atol));
  }
}

std::vector<float> Random(size_t n, uint64_t seed, bool halves) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-8, 8);  // exact in fp16
  std::normal_distribution<float> g;
  std::vector<float> v(n);
  for (float& x : v) x = halves ? static_cast<float>(d(rng)) / 8.0f : g(rng);
  return v;
}

// ---- vector kernels ------------------------------------------------------------------------

TEST(SyncInsertOnSimulator, SoftmaxMixedMatchesTheReference) {
  const int m = 64, n = 256, block_m = 16;
  std::vector<float> x = Random(size_t(m) * n, 1, false), want(x.size());
  for (int i = 0; i < m; ++i) {
    float mx = -INFINITY, sum = 0;
    for (int j = 0; j < n; ++j) mx = std::max(mx, x[size_t(i) * n + j]);
    for (int j = 0; j < n; ++j) sum += std::exp(x[size_t(i) * n + j] - mx);
    for (int j = 0; j < n; ++j) want[size_t(i) * n + j] = std::exp(x[size_t(i) * n + j] - mx) / sum;
  }
  CompileRunAndCompare(ReadShared("softmax_mixed.py"), "softmax",
                       {Value::Int(m), Value::Int(n), Value::Int(block_m)}, {F32({m, n}, x)}, want,
                       1e-4, 1e-6);
}

std::vector<float> LayerNorm(const std::vector<float>& x, const std::vector<float>& g,
                             const std::vector<float>& b, int m, int n) {
  std::vector<float> y(x.size());
  for (int i = 0; i < m; ++i) {
    double mean = 0, var = 0;
    for (int j = 0; j < n; ++j) mean += x[size_t(i) * n + j];
    mean /= n;
    for (int j = 0; j < n; ++j)
      var += (x[size_t(i) * n + j] - mean) * (x[size_t(i) * n + j] - mean);
    const double rstd = 1.0 / std::sqrt(var / n + 1e-5);
    for (int j = 0; j < n; ++j)
      y[size_t(i) * n + j] = static_cast<float>((x[size_t(i) * n + j] - mean) * rstd * g[j] + b[j]);
  }
  return y;
}

TEST(SyncInsertOnSimulator, LayerNormMixedWithItsRowLoopMatchesTheReference) {
  const int m = 32, n = 128, block_m = 8;
  std::vector<float> x = Random(size_t(m) * n, 2, false), g = Random(n, 3, false),
                     b = Random(n, 4, false);
  CompileRunAndCompare(ReadShared("layernorm_mixed.py"), "layer_norm",
                       {Value::Int(m), Value::Int(n), Value::Int(block_m)},
                       {F32({m, n}, x), F32({n}, g), F32({n}, b)}, LayerNorm(x, g, b, m, n), 1e-4,
                       1e-4);
}

// A vector kernel with a loop over row tiles refilling the same UB tiles every iteration
// (loop-carried WAR on the tiles), a runtime trip count (odd blocks run one step less) and an
// `if` on cid that handles the odd blocks' last tile (adding x once more).
constexpr char kVectorLoop[] = R"(
import tilelang
import tilelang.language as T

pass_configs = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


@tilelang.jit(out_idx=[-1], pass_configs=pass_configs)
def scaled_exp(M, N, rows, dtype="float"):
    per_block = M // 4
    steps = per_block // (2 * rows)

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            x_ub = T.alloc_ub((rows, N), dtype)
            y_ub = T.alloc_ub((rows, N), dtype)
            with T.Scope("V"):
                base = cid * per_block + vid * (per_block // 2)
                for i in T.serial(steps - cid % 2):
                    T.copy(X[base + i * rows, 0], x_ub)
                    T.tile.exp(y_ub, x_ub)
                    T.copy(y_ub, Y[base + i * rows, 0])
                if cid % 2 == 1:
                    T.copy(X[base + (steps - 1) * rows, 0], x_ub)
                    T.tile.exp(y_ub, x_ub)
                    T.tile.add(y_ub, y_ub, x_ub)
                    T.copy(y_ub, Y[base + (steps - 1) * rows, 0])

    return main
)";

TEST(SyncInsertOnSimulator, VectorLoopWithARuntimeTripCountAndAnIfMatchesTheReference) {
  const int m = 256, n = 64, rows = 16;
  const int per_block = m / 4, steps = per_block / (2 * rows);
  std::vector<float> x = Random(size_t(m) * n, 5, false), want(x.size());
  for (int i = 0; i < m; ++i) {
    const int block = i / per_block, tile = (i % (per_block / 2)) / rows;
    const bool extra = block % 2 == 1 && tile == steps - 1;
    for (int j = 0; j < n; ++j) {
      const float v = x[size_t(i) * n + j];
      want[size_t(i) * n + j] = std::exp(v) + (extra ? v : 0.0f);
    }
  }
  CompileRunAndCompare(kVectorLoop, "scaled_exp", {Value::Int(m), Value::Int(n), Value::Int(rows)},
                       {F32({m, n}, x)}, want, 1e-5, 1e-5);
}

// ---- cube kernels --------------------------------------------------------------------------

// An Expert-style GEMM (explicit L1/L0C tiles, gemm_v0) with no sync at all: the serial K loop
// refills the same L1 tiles, M/N/K tails are clipped, and blocks with an odd cid add a second
// product pass of their first K tile inside an `if` (C = A*B + [cid odd] * A0*B0).
constexpr char kGemm[] = R"(
import tilelang
import tilelang.language as T

pass_configs = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[-1], pass_configs=pass_configs)
def gemm(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):
    n_num = T.ceildiv(N, block_N)

    @T.prim_func
    def main(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M) * n_num, is_npu=True) as (cid, _):
            bx = cid // n_num
            by = cid % n_num
            A_L1 = T.alloc_L1((block_M, block_K), dtype)
            B_L1 = T.alloc_L1((block_K, block_N), dtype)
            C_L0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            with T.Scope("C"):
                for k in T.serial(T.ceildiv(K, block_K)):
                    T.copy(A[bx * block_M, k * block_K], A_L1)
                    T.copy(B[k * block_K, by * block_N], B_L1)
                    T.gemm_v0(A_L1, B_L1, C_L0, init=(k == 0))
                if cid % 2 == 1:
                    T.copy(A[bx * block_M, 0], A_L1)
                    T.copy(B[0, by * block_N], B_L1)
                    T.gemm_v0(A_L1, B_L1, C_L0, init=False)
                T.copy(C_L0, C[bx * block_M, by * block_N])

    return main
)";

TEST(SyncInsertOnSimulator, ExpertStyleGemmWithoutSyncsMatchesTheReference) {
  const int m = 80, n = 72, k = 100, bm = 32, bn = 48, bk = 32;
  std::vector<float> a = Random(size_t(m) * k, 6, true), b = Random(size_t(k) * n, 7, true);
  const int n_num = (n + bn - 1) / bn;
  std::vector<float> want(size_t(m) * n, 0.0f);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const int cid = (i / bm) * n_num + j / bn;
      float acc = 0;
      for (int p = 0; p < k; ++p) acc += a[size_t(i) * k + p] * b[size_t(p) * n + j];
      if (cid % 2 == 1)
        for (int p = 0; p < std::min(bk, k); ++p)
          acc += a[size_t(i) * k + p] * b[size_t(p) * n + j];
      want[size_t(i) * n + j] = acc;
    }
  }
  CompileRunAndCompare(
      kGemm, "gemm",
      {Value::Int(m), Value::Int(n), Value::Int(k), Value::Int(bm), Value::Int(bn), Value::Int(bk)},
      {F16({m, k}, a), F16({k, n}, b)}, want, 1e-4, 1e-3);
}

TEST(SyncInsertOnSimulator, DeveloperGemmMatchesTheReference) {
  const int m = 128, n = 256, k = 192, bm = 64, bn = 128, bk = 64;
  std::vector<float> a = Random(size_t(m) * k, 8, true), b = Random(size_t(k) * n, 9, true);
  std::vector<float> want(size_t(m) * n, 0.0f);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j)
        want[size_t(i) * n + j] += a[size_t(i) * k + p] * b[size_t(p) * n + j];
  // The seed's GEMM writes fp16: compare at fp16 precision.
  CompileRunAndCompare(
      ReadShared("gemm_developer.py"), "matmul",
      {Value::Int(m), Value::Int(n), Value::Int(k), Value::Int(bm), Value::Int(bn), Value::Int(bk)},
      {F16({m, k}, a), F16({k, n}, b)}, want, 2e-3, 2e-2);
}

// ---- verify_sync on Expert kernels ------------------------------------------------------

struct Outcome {
  Status status;
  std::vector<std::string> warnings;
};

Outcome CompileShared(const std::string& file, const std::string& entry, std::vector<Value> args) {
  frontend::FrontendRequest req;
  req.source = ReadShared(file);
  req.file_name = file;
  req.entry = entry;
  req.args = std::move(args);
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<CompiledKernel> k = Compile({req, {{}, "", false, true, nullptr}}, &sources, &diag);
  Outcome out{k.ok() ? Status::Ok() : k.status(), {}};
  for (const Diagnostic& d : diag.diagnostics())
    if (d.severity == Severity::kWarning) out.warnings.push_back(d.message);
  return out;
}

std::vector<Value> Ints(std::initializer_list<int> v) {
  std::vector<Value> out;
  for (int x : v) out.push_back(Value::Int(x));
  return out;
}

TEST(VerifySyncOnKernels, FindsNothingInTheSharedExpertKernels) {
  for (const auto& [file, entry, args] :
       std::vector<std::tuple<std::string, std::string, std::vector<Value>>>{
           {"gemm_expert.py", "matmul", Ints({256, 512, 384, 128, 256, 64})},
           {"gemm_pingpong_expert.py", "matmul_pingpong", Ints({256, 256, 512, 128, 128, 64})},
           {"elementwise_add_expert.py", "vec_add", Ints({512, 1024, 64, 256})}}) {
    Outcome o = CompileShared(file, entry, args);
    EXPECT_TRUE(o.status.ok()) << file << ": " << o.status;
    EXPECT_TRUE(o.warnings.empty()) << file << ": " << o.warnings.front();
  }
}

TEST(VerifySyncOnKernels, WarnsAboutTheAuthorsMissingSyncAndStillCompiles) {
  Outcome o =
      CompileShared("elementwise_add_missing_sync.py", "vec_add_racy", Ints({256, 256, 64, 128}));
  ASSERT_TRUE(o.status.ok()) << o.status;
  ASSERT_FALSE(o.warnings.empty());
  EXPECT_NE(o.warnings[0].find("unordered RAW: `add(c_ub, a_ub, b_ub)` (pipe v)"),
            std::string::npos)
      << o.warnings[0];
}

}  // namespace
}  // namespace tilejit::compiler
