// SPDX-License-Identifier: Apache-2.0
// The four Developer-mode switches (DESIGN.md section 4), each observed on the compiled
// program of a shared kernel: what turning it off changes, the warnings and errors of the
// combinations that cannot work, reuse in memory planning, and automatic sync beside the
// author's own flags.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "codegen/codegen_test_util.h"
#include "compiler/compiler.h"
#include "frontend/frontend_test_util.h"

namespace tilejit::compiler {
namespace {

using frontend::Value;
using frontend::fetest::ReadFile;

constexpr std::string_view kCvCombine = "tl.ascend_auto_cv_combine";
constexpr std::string_view kCvSync = "tl.ascend_auto_cross_core_sync";
constexpr std::string_view kAutoSync = "tl.ascend_auto_sync";
constexpr std::string_view kMemoryPlanning = "tl.ascend_memory_planning";
constexpr std::string_view kMultiBuffer = "tilejit.auto_multi_buffer";

struct Outcome {
  Result<CompiledKernel> kernel = Internal("not run");
  std::string diagnostics;  // rendered, warnings included
};

frontend::FrontendRequest SharedKernel(const std::string& file, const std::string& entry,
                                       std::vector<Value> args) {
  frontend::FrontendRequest req;
  req.source = ReadFile(frontend::fetest::KernelsDir() / file);
  req.file_name = file;
  req.entry = entry;
  req.args = std::move(args);
  return req;
}

frontend::FrontendRequest FlashAttention() {
  std::vector<Value> args;
  for (int64_t a : {1, 2, 256, 128, 64, 64}) args.push_back(Value::Int(a));
  return SharedKernel("flash_attn_developer.py", "flash_attention", std::move(args));
}
frontend::FrontendRequest MatmulAdd() {
  std::vector<Value> args;
  for (int64_t a : {256, 256, 256, 64, 128, 64}) args.push_back(Value::Int(a));
  return SharedKernel("matmul_add_developer.py", "matmul_add", std::move(args));
}
frontend::FrontendRequest SoftmaxMixed() {
  std::vector<Value> args;
  for (int64_t a : {256, 1024, 16}) args.push_back(Value::Int(a));
  return SharedKernel("softmax_mixed.py", "softmax", std::move(args));
}

Outcome CompileWith(frontend::FrontendRequest req,
                    std::vector<std::pair<std::string_view, bool>> configs) {
  for (const auto& [key, value] : configs) {
    req.pass_configs.emplace_back(std::string(key), Value::Bool(value));
  }
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Outcome o;
  PipelineOptions options;
  options.verify_each = true;
  o.kernel = Compile({req, options}, &sources, &diag);
  o.diagnostics = diag.RenderAll();
  return o;
}

int64_t Stat(const CompiledKernel& k, std::string_view pass, std::string_view stat) {
  for (const PassRecord& r : k.passes) {
    if (r.pass != pass) continue;
    for (const auto& [name, value] : r.stats)
      if (name == stat) return value;
  }
  return 0;
}

bool Ran(const CompiledKernel& k, std::string_view pass) {
  for (const PassRecord& r : k.passes)
    if (r.pass == pass) return true;
  return false;
}

int64_t OnChipBytes(const CompiledKernel& k) {
  const auto& m = k.metadata.on_chip;
  return m.l1 + m.l0a + m.l0b + m.l0c + m.ub;
}

TEST(Switches, AllFourOnCompileTheFlashAttentionKernel) {
  Outcome o = CompileWith(FlashAttention(), {});
  ASSERT_TRUE(o.kernel.ok()) << o.diagnostics << o.kernel.status();
  for (std::string_view pass : {"combine_cv", "cross_core_sync", "sync_insert"})
    EXPECT_TRUE(Ran(*o.kernel, pass)) << pass;
  EXPECT_GT(Stat(*o.kernel, "sync_insert", "set_wait_pairs"), 0);
  EXPECT_GT(Stat(*o.kernel, "cross_core_sync", "cross_flags"), 0);
}

TEST(Switches, CvCombineOffLeavesAMixedBodyToTheAuthorWithADiagnosticNamingBothFixes) {
  Outcome o = CompileWith(MatmulAdd(), {{kCvCombine, false}});
  ASSERT_FALSE(o.kernel.ok());
  EXPECT_EQ(o.kernel.status().code(), StatusCode::kCompileError);
  EXPECT_NE(o.diagnostics.find("T.Scope"), std::string::npos) << o.diagnostics;
  EXPECT_NE(o.diagnostics.find("TL_ASCEND_AUTO_CV_COMBINE"), std::string::npos) << o.diagnostics;
}

TEST(Switches, CvCombineWithoutCvSyncIsAnErrorOnceTheSplitCreatesAHandOff) {
  Outcome o = CompileWith(MatmulAdd(), {{kCvSync, false}});
  ASSERT_FALSE(o.kernel.ok());
  EXPECT_NE(o.diagnostics.find("TL_ASCEND_AUTO_CV_SYNC"), std::string::npos) << o.diagnostics;
}

TEST(Switches, CvSyncWithoutCvCombineHasNoEffectAndSaysSo) {
  // softmax_mixed is vector-only, so it compiles without the split either way.
  Outcome with = CompileWith(SoftmaxMixed(), {{kCvCombine, false}, {kCvSync, true}});
  Outcome without = CompileWith(SoftmaxMixed(), {{kCvCombine, false}, {kCvSync, false}});
  ASSERT_TRUE(with.kernel.ok()) << with.diagnostics;
  ASSERT_TRUE(without.kernel.ok()) << without.diagnostics;
  EXPECT_FALSE(Ran(*with.kernel, "cross_core_sync"));
  EXPECT_NE(with.diagnostics.find("warning"), std::string::npos) << with.diagnostics;
  EXPECT_EQ(with.kernel->ir_text, without.kernel->ir_text);
}

TEST(Switches, AutoSyncOffInsertsNoSyncAndVerifySyncWarnsAboutTheAuthorsHazards) {
  Outcome on = CompileWith(SoftmaxMixed(), {});
  Outcome off = CompileWith(SoftmaxMixed(), {{kAutoSync, false}});
  ASSERT_TRUE(on.kernel.ok()) << on.diagnostics;
  ASSERT_TRUE(off.kernel.ok()) << off.diagnostics;
  EXPECT_GT(Stat(*on.kernel, "sync_insert", "set_wait_pairs") +
                Stat(*on.kernel, "sync_insert", "barriers"),
            0);
  EXPECT_FALSE(Ran(*off.kernel, "sync_insert"));
  EXPECT_EQ(on.diagnostics.find("warning"), std::string::npos) << on.diagnostics;
  EXPECT_NE(off.diagnostics.find("warning"), std::string::npos) << off.diagnostics;
  EXPECT_NE(off.diagnostics.find("softmax_mixed.py:"), std::string::npos) << off.diagnostics;
}

TEST(Switches, MemoryPlanningReusesOnChipBytesWhenMultiBufferingIsOff) {
  Outcome on = CompileWith(FlashAttention(), {{kMultiBuffer, false}});
  Outcome off = CompileWith(FlashAttention(), {{kMultiBuffer, false}, {kMemoryPlanning, false}});
  ASSERT_TRUE(on.kernel.ok()) << on.diagnostics;
  ASSERT_TRUE(off.kernel.ok()) << off.diagnostics;
  EXPECT_LT(OnChipBytes(*on.kernel), OnChipBytes(*off.kernel));
}

TEST(Switches, MemoryPlanningWithoutAutoSyncPlacesSequentiallyAndWarns) {
  Outcome o = CompileWith(SoftmaxMixed(), {{kAutoSync, false}});
  ASSERT_TRUE(o.kernel.ok()) << o.diagnostics;
  EXPECT_NE(o.diagnostics.find("TL_ASCEND_AUTO_SYNC"), std::string::npos) << o.diagnostics;
}

// Four 64 KiB UB tiles used one after another: 256 KiB sequentially (UB holds 192 KiB), but
// at most two are live at once.
constexpr std::string_view kFitsOnlyWithReuse = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def chain(M, N):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_shared((M, N), "float32")
            b = T.alloc_shared((M, N), "float32")
            c = T.alloc_shared((M, N), "float32")
            d = T.alloc_shared((M, N), "float32")
            T.copy(X, a)
            T.tile.exp(b, a)
            T.tile.abs(c, b)
            T.tile.relu(d, c)
            T.copy(d, Y)

    return main
)";

frontend::FrontendRequest FitsOnlyWithReuse() {
  frontend::FrontendRequest req;
  req.source = std::string(kFitsOnlyWithReuse);
  req.file_name = "chain.py";
  req.entry = "chain";
  req.args = {Value::Int(64), Value::Int(256)};
  return req;
}

TEST(Switches, AKernelThatFitsOnlyWithReuseNeedsMemoryPlanning) {
  Outcome on = CompileWith(FitsOnlyWithReuse(), {{kAutoSync, true}, {kMemoryPlanning, true}});
  ASSERT_TRUE(on.kernel.ok()) << on.diagnostics;
  Outcome off = CompileWith(FitsOnlyWithReuse(), {{kAutoSync, true}, {kMemoryPlanning, false}});
  ASSERT_FALSE(off.kernel.ok());
  EXPECT_NE(off.diagnostics.find("ub"), std::string::npos) << off.diagnostics;
  EXPECT_NE(off.diagnostics.find("chain.py:"), std::string::npos) << off.diagnostics;
}

// The author orders the GM load before the vector op by hand; AUTO_SYNC orders the rest
// (and must avoid the author's event id).
constexpr std::string_view kManualAndAuto = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1], pass_configs={"tl.ascend_auto_sync": True})
def mixed_sync(M, N):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            x = T.alloc_ub((M // 4, N), "float32")
            y = T.alloc_ub((M // 4, N), "float32")
            row = (cid * 2 + vid) * (M // 4)
            T.copy(X[row, 0], x)
            T.set_flag("mte2", "v", 0)
            T.wait_flag("mte2", "v", 0)
            T.tile.exp(y, x)
            T.tile.add(y, y, x)
            T.copy(y, Y[row, 0])

    return main
)";

TEST(Switches, AutoSyncBesideTheAuthorsFlagsRunsRaceFree) {
  frontend::FrontendRequest req;
  req.source = std::string(kManualAndAuto);
  req.file_name = "mixed_sync.py";
  req.entry = "mixed_sync";
  req.args = {Value::Int(64), Value::Int(64)};
  Outcome o = CompileWith(req, {});
  ASSERT_TRUE(o.kernel.ok()) << o.diagnostics;
  EXPECT_EQ(o.diagnostics.find("warning"), std::string::npos) << o.diagnostics;
  runner::sim::SimDevice device;
  Result<runner::KernelId> id = device.LoadBinary(o.kernel->binary);
  ASSERT_TRUE(id.ok()) << id.status();
  std::vector<float> x(64 * 64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 17) / 16.0f - 0.5f;
  runner::NpyArray in = codegen::testing::F32({64, 64}, x);
  Result<runner::RunResult> run = runner::RunKernel(device, *id, {&in, 1}, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(run->report.findings.empty()) << codegen::testing::FindingsText(run->report);
  std::vector<float> got = codegen::testing::ToFloats(run->outputs[0]);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(got[i], std::exp(x[i]) + x[i], 1e-5) << i;
}

}  // namespace
}  // namespace tilejit::compiler
