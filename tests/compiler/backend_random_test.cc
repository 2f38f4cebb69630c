// SPDX-License-Identifier: Apache-2.0
// Seeded random shapes through the whole compiler and the simulator: the Expert GEMM with
// tails and transpose flags, and the Expert softmax with row tails, each compiled from its
// TileLang source (tests/testdata/expert_kernels) and run in checked mode against a C++
// reference. A shape the back end refuses must be refused with a diagnostic (never an internal
// error); every accepted shape must compute the right numbers with no finding. The case count
// is fixed, so the run time is bounded by the shapes, not by a clock.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

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

constexpr int kGemmCases = 24;
constexpr int kSoftmaxCases = 16;

std::string ReadKernel(const std::string& name) {
  std::ifstream in(std::filesystem::path(TILEJIT_TESTDATA_DIR) / "expert_kernels" / name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Compiles; on success loads and runs in checked mode. Returns false (with a test failure
// unless the compile was refused with a diagnostic) when there is nothing to compare.
bool CompileAndRun(const std::string& file, const std::string& entry, std::vector<Value> args,
                   const std::vector<runner::NpyArray>& inputs, runner::RunResult* out) {
  frontend::FrontendRequest req;
  req.source = ReadKernel(file);
  req.file_name = file;
  req.entry = entry;
  req.args = std::move(args);
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<CompiledKernel> k = Compile({req, {{}, "", false, true, nullptr}}, &sources, &diag);
  if (!k.ok()) {
    EXPECT_EQ(k.status().code(), StatusCode::kCompileError) << k.status();
    return false;
  }
  runner::sim::SimDevice device;
  Result<runner::KernelId> id = device.LoadBinary(k->binary);
  EXPECT_TRUE(id.ok()) << id.status();
  if (!id.ok()) return false;
  Result<runner::RunResult> run = runner::RunKernel(device, *id, inputs, {});
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return false;
  EXPECT_TRUE(run->report.findings.empty()) << FindingsText(run->report);
  *out = *std::move(run);
  return true;
}

std::vector<float> RandomHalves(size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> d(-8, 8);  // exact in fp16, small sums exact in fp32
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(d(rng)) / 8.0f;
  return v;
}

TEST(BackEndRandom, ExpertGemmWithTailsAndTransposesMatchesTheReference) {
  std::mt19937_64 rng(20261129);
  int ran = 0;
  for (int c = 0; c < kGemmCases; ++c) {
    auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng() % (hi - lo + 1)); };
    const int bm = 16 * pick(1, 8), bn = 16 * pick(1, 8), bk = 16 * pick(1, 4);
    const int m = pick(1, 3 * bm), n = pick(1, 3 * bn), kk = pick(1, 3 * bk);
    const bool ta = rng() % 2, tb = rng() % 2;
    std::vector<float> a = RandomHalves(size_t(m) * kk, rng), b = RandomHalves(size_t(kk) * n, rng);
    std::vector<float> want(size_t(m) * n, 0.0f);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        for (int p = 0; p < kk; ++p)
          want[size_t(i) * n + j] += (ta ? a[size_t(p) * m + i] : a[size_t(i) * kk + p]) *
                                     (tb ? b[size_t(j) * kk + p] : b[size_t(p) * n + j]);
    std::vector<Value> args = {Value::Int(m),  Value::Int(n),  Value::Int(kk),  Value::Int(bm),
                               Value::Int(bn), Value::Int(bk), Value::Bool(ta), Value::Bool(tb)};
    std::vector<int64_t> ashape = ta ? std::vector<int64_t>{kk, m} : std::vector<int64_t>{m, kk};
    std::vector<int64_t> bshape = tb ? std::vector<int64_t>{n, kk} : std::vector<int64_t>{kk, n};
    runner::RunResult run;
    SCOPED_TRACE(::testing::Message() << "M N K " << m << " " << n << " " << kk << " tiles " << bm
                                      << " " << bn << " " << bk << " ta " << ta << " tb " << tb);
    if (!CompileAndRun("gemm_tails_expert.py", "matmul_t", args, {F16(ashape, a), F16(bshape, b)},
                       &run)) {
      continue;
    }
    ++ran;
    EXPECT_TRUE(AllClose(ToFloats(run.outputs[0]), want, 1e-4, 1e-3));
  }
  EXPECT_GE(ran, kGemmCases / 2);  // most random shapes fit; the rest were diagnosed
}

TEST(BackEndRandom, ExpertSoftmaxWithRowTailsMatchesTheReference) {
  // block_M >= 4: with one row per vector core the trimmed shapes ([C] against [1]) no
  // longer read as a per-row broadcast (a frontend shape-rule limitation, noted).
  std::mt19937_64 rng(7);
  for (int c = 0; c < kSoftmaxCases; ++c) {
    auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng() % (hi - lo + 1)); };
    const int block_m = 4 * pick(1, 4), n = 8 * pick(1, 64), m = pick(1, 4 * block_m);
    std::normal_distribution<float> d;
    std::vector<float> x(size_t(m) * n);
    for (float& v : x) v = d(rng);
    std::vector<float> want(x.size());
    for (int i = 0; i < m; ++i) {
      float mx = -INFINITY, sum = 0;
      for (int j = 0; j < n; ++j) mx = std::max(mx, x[size_t(i) * n + j]);
      for (int j = 0; j < n; ++j) sum += std::exp(x[size_t(i) * n + j] - mx);
      for (int j = 0; j < n; ++j)
        want[size_t(i) * n + j] = std::exp(x[size_t(i) * n + j] - mx) / sum;
    }
    runner::RunResult run;
    SCOPED_TRACE(::testing::Message() << "M N block_M " << m << " " << n << " " << block_m);
    if (!CompileAndRun("softmax_expert.py", "softmax_expert",
                       {Value::Int(m), Value::Int(n), Value::Int(block_m)}, {F32({m, n}, x)},
                       &run)) {
      ADD_FAILURE() << "softmax refused";
      continue;
    }
    EXPECT_TRUE(AllClose(ToFloats(run.outputs[0]), want, 1e-4, 1e-6));
  }
}

}  // namespace
}  // namespace tilejit::compiler
