// SPDX-License-Identifier: Apache-2.0
// The host interpreter: hand-computed small kernels, its error reports, and agreement with
// the simulator on the Expert kernels the back end compiles today (their frontend IR is what
// the interpreter runs; the simulator runs the compiled binary).
#include "tile_interp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compiler/ir/ir_parser.h"
#include "devgen_harness.h"
#include "kernel_gen.h"
#include "rng.h"

namespace tilejit::devgen {
namespace {

Result<std::vector<HostTensor>> InterpretText(const std::string& text,
                                              std::vector<HostTensor> inputs) {
  Result<ir::Kernel> k = ir::ParseTileIrString(text);
  if (!k.ok()) return k.status();
  return Interpret(*k, inputs);
}

HostTensor F32(std::vector<int64_t> shape, std::vector<double> v) {
  return {ir::DType::kFloat32, std::move(shape), std::move(v)};
}

TEST(TileInterp, RowSoftmaxStepsMatchHandComputedValues) {
  const std::string text = R"(param %x: gm float32[2, 2] input
param %y: gm float32[2, 2] output
param %s: gm float32[2] output
out_idx = [1, 2]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %t: shared float32[2, 2]
  alloc %m: shared float32[2]
  copy(%t, %x[0:+2, 0:+2])
  reduce_max(%m, %t) {dim=-1}
  sub(%t, %t, %m)
  exp(%t, %t)
  reduce_sum(%m, %t) {dim=1}
  div(%t, %t, %m)
  copy(%y[0:+2, 0:+2], %t)
  copy(%s[0:+2], %m)
}
)";
  auto out = InterpretText(text, {F32({2, 2}, {0, 1, 2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  const double e = std::exp(-1.0f);
  EXPECT_NEAR((*out)[0].data[0], e / (1 + e), 1e-7);
  EXPECT_NEAR((*out)[0].data[1], 1 / (1 + e), 1e-7);
  EXPECT_EQ((*out)[0].data[2], 0.5);
  EXPECT_EQ((*out)[0].data[3], 0.5);
  EXPECT_EQ((*out)[1].data[1], 2.0);
}

TEST(TileInterp, GemmAccumulatesAcrossALoopWithRuntimeInitAndTranspose) {
  // C = sum over i of A[:, i-th K slice] @ B[i-th slice]^T, B stored transposed.
  const std::string text = R"(param %a: gm float16[2, 4] input
param %b: gm float16[2, 4] input
param %c: gm float32[2, 2] output
out_idx = [2]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %l1a: shared float16[2, 2]
  alloc %l1b: shared float16[2, 2]
  alloc %acc: fragment float32[2, 2]
  for %i in serial(0, 2) {
    copy(%l1a, %a[0:+2, %i * 2:+2])
    copy(%l1b, %b[0:+2, %i * 2:+2])
    gemm_v0(%acc, %l1a, %l1b) {init=%i == 0, transpose_B=true}
  }
  copy(%c[0:+2, 0:+2], %acc)
}
)";
  HostTensor a{ir::DType::kFloat16, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}};
  HostTensor b{ir::DType::kFloat16, {2, 4}, {1, 0, 1, 0, 0, 1, 0, 1}};
  auto out = InterpretText(text, {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data, (std::vector<double>{4, 6, 12, 14}));
}

TEST(TileInterp, HalfResultsRoundOncePerOp) {
  const std::string text = R"(param %x: gm float16[1, 16] input
param %y: gm float16[1, 16] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %t: shared float16[1, 16]
  copy(%t, %x[0:+1, 0:+16])
  mul(%t, %t, 0.1)
  copy(%y[0:+1, 0:+16], %t)
}
)";
  HostTensor x{ir::DType::kFloat16, {1, 16}, std::vector<double>(16, 3.0)};
  auto out = InterpretText(text, {x});
  ASSERT_TRUE(out.ok()) << out.status();
  // 0.1 is first rounded to fp16 (the instruction's scalar), the product then once more.
  EXPECT_EQ((*out)[0].data[0],
            RoundTo(ir::DType::kFloat16, 3.0 * RoundTo(ir::DType::kFloat16, 0.1)));
}

TEST(TileInterp, ReportsAReadOfANeverWrittenBuffer) {
  const std::string text = R"(param %y: gm float32[4] output
out_idx = [0]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %t: shared float32[4]
  add(%t, %t, 1.0)
  copy(%y[0:+4], %t)
}
)";
  auto out = InterpretText(text, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("never-written"), std::string::npos) << out.status();
}

TEST(TileInterp, ReportsAnOutputNoBlockWrote) {
  const std::string text = R"(param %y: gm float32[8] output
out_idx = [0]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  alloc %t: shared float32[4]
  fill(%t, 1.0)
  if %cid == 0 {
    copy(%y[0:+4], %t)
  }
}
)";
  auto out = InterpretText(text, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("never written"), std::string::npos) << out.status();
}

// --- agreement with the simulator on Expert kernels ---------------------------------------

struct ExpertCase {
  const char* file;
  const char* entry;
  std::vector<frontend::Value> args;
  std::vector<std::pair<ir::DType, std::vector<int64_t>>> inputs;
  double rtol, atol_scale;
};

void ExpectInterpreterMatchesSimulator(const ExpertCase& c) {
  SCOPED_TRACE(c.file);
  const std::string path =
      (std::filesystem::path(TILEJIT_TESTDATA_DIR) / "expert_kernels" / c.file).string();
  Result<Compiled> k = CompileTileLang(path, c.entry, c.args);
  ASSERT_TRUE(k.ok()) << k.status();
  Rng rng(42);
  std::vector<runner::NpyArray> npy;
  std::vector<HostTensor> host;
  for (const auto& [dtype, shape] : c.inputs) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = static_cast<float>(rng.Uniform(-16, 16)) / 16.0f;
    npy.push_back(ToNpy(dtype, shape, v));
    host.push_back(ToHost(dtype, shape, v));
  }
  Result<runner::RunResult> run = Launch(k->kernel.binary, npy, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_TRUE(run->report.findings.empty()) << FindingsText(run->report);
  Result<std::vector<HostTensor>> want = Interpret(k->frontend_kernel, host);
  ASSERT_TRUE(want.ok()) << want.status() << "\n" << k->kernel.ir_text;
  EXPECT_TRUE(OutputsMatch(*want, run->outputs, c.rtol, c.atol_scale));
}

using frontend::Value;

TEST(TileInterp, MatchesTheSimulatorOnExpertSoftmax) {
  ExpectInterpreterMatchesSimulator({"softmax_expert.py",
                                     "softmax_expert",
                                     {Value::Int(64), Value::Int(96), Value::Int(16)},
                                     {{ir::DType::kFloat32, {64, 96}}},
                                     1e-6,
                                     1e-7});
}

TEST(TileInterp, MatchesTheSimulatorOnExpertLayerNorm) {
  ExpectInterpreterMatchesSimulator(
      {"layernorm_expert.py",
       "layer_norm_expert",
       {Value::Int(64), Value::Int(96), Value::Int(8)},
       {{ir::DType::kFloat32, {64, 96}}, {ir::DType::kFloat32, {96}}, {ir::DType::kFloat32, {96}}},
       1e-5,
       1e-6});
}

TEST(TileInterp, MatchesTheSimulatorOnExpertGemmWithTailsAndTransposes) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      std::vector<int64_t> as = ta ? std::vector<int64_t>{72, 40} : std::vector<int64_t>{40, 72};
      std::vector<int64_t> bs = tb ? std::vector<int64_t>{50, 72} : std::vector<int64_t>{72, 50};
      ExpectInterpreterMatchesSimulator(
          {"gemm_tails_expert.py",
           "matmul_t",
           {Value::Int(40), Value::Int(50), Value::Int(72), Value::Int(32), Value::Int(32),
            Value::Int(32), Value::Bool(ta), Value::Bool(tb)},
           {{ir::DType::kFloat16, as}, {ir::DType::kFloat16, bs}},
           1e-6,
           1e-6});
    }
  }
}

TEST(TileInterp, MatchesTheSimulatorOnExpertMatmulAddThroughAWorkspace) {
  ExpectInterpreterMatchesSimulator({"matmul_add_workspace_expert.py",
                                     "matmul_add_ws",
                                     {Value::Int(128), Value::Int(128), Value::Int(64),
                                      Value::Int(64), Value::Int(64), Value::Int(32)},
                                     {{ir::DType::kFloat16, {128, 64}},
                                      {ir::DType::kFloat16, {64, 128}},
                                      {ir::DType::kFloat32, {128, 128}}},
                                     1e-6,
                                     1e-6});
}

TEST(TileInterp, MatchesTheSimulatorOnExpertAnnotatedAdd) {
  ExpectInterpreterMatchesSimulator(
      {"add_annotated_expert.py",
       "add_annotated",
       {Value::Int(64), Value::Int(256), Value::Int(32), Value::Int(128)},
       {{ir::DType::kFloat32, {64, 256}}, {ir::DType::kFloat32, {64, 256}}},
       0,
       0});
}

}  // namespace
}  // namespace tilejit::devgen
