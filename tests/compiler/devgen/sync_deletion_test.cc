// SPDX-License-Identifier: Apache-2.0
// Acceptance 3 of issue #5: deleting any one compiler-made sync of the shared Developer
// kernels and of 20 generated kernels either makes a launch report a race (or compute
// different numbers under perturbation), or verify_sync proves it redundant: a sync_insert
// inefficiency, counted and printed; the target is zero and the test holds it there. A
// deletion verify_sync flags but no launch notices fails the test, unless the launch never
// executes the deleted statements (under a condition or trip count on cid that the grid does
// not reach): those are printed as unexercised.
#include "sync_deletion.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "devgen_harness.h"
#include "kernel_gen.h"
#include "rng.h"

namespace tilejit::devgen {
namespace {

using frontend::Value;

constexpr int kGeneratedKernels = 20;
constexpr uint64_t kBaseSeed = 90000;

void Check(const std::string& name, Result<compiler::Specialized> sp,
           const std::vector<runner::NpyArray>& inputs, const std::string& ir_text) {
  ASSERT_TRUE(sp.ok()) << name << ": " << sp.status();
  Result<DeletionReport> r = RunSyncDeletion(*sp, inputs);
  ASSERT_TRUE(r.ok()) << name << ": " << r.status() << "\n" << ir_text;
  std::cout << "[sync-deletion] " << name << ": " << r->Summary() << "\n";
  for (const std::string& w : r->redundant_what) std::cout << "    redundant: " << w << "\n";
  for (const std::string& w : r->unexercised_what) std::cout << "    unexercised: " << w << "\n";
  ::testing::Test::RecordProperty(name + "_redundant", r->redundant);
  EXPECT_EQ(r->redundant, 0) << name << ": sync_insert kept syncs verify_sync proves redundant";
  std::string uncaught;
  for (size_t i = 0; i < r->uncaught.size() && i < 3; ++i) uncaught += r->uncaught[i] + "\n";
  EXPECT_TRUE(r->uncaught.empty()) << name << ": " << r->uncaught.size() << " uncaught, first:\n"
                                   << uncaught << "--- source ---\n"
                                   << ir_text << "--- after sync_insert ---\n"
                                   << r->program;
}

Result<compiler::Specialized> Specialize(frontend::FrontendRequest req) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  compiler::CompileRequest creq{std::move(req), {}};
  Result<compiler::Specialized> sp = compiler::Specialize(creq, &sources, &diag);
  if (!sp.ok()) return Status(sp.status().code(), diag.RenderAll());
  return sp;
}

struct SharedCase {
  const char* file;
  const char* entry;
  std::vector<int64_t> args;
  std::vector<std::pair<ir::DType, std::vector<int64_t>>> inputs;
};

// The Developer and mixed-mode cases of /work/shared/kernels/cases.json (the smaller shape
// where a file has two).
const std::vector<SharedCase>& SharedCases() {
  static const auto* cases = new std::vector<SharedCase>{
      {"gemm_developer.py",
       "matmul",
       {256, 512, 384, 128, 256, 64},
       {{ir::DType::kFloat16, {256, 384}}, {ir::DType::kFloat16, {384, 512}}}},
      {"softmax_mixed.py", "softmax", {256, 1024, 16}, {{ir::DType::kFloat32, {256, 1024}}}},
      {"layernorm_mixed.py",
       "layer_norm",
       {128, 512, 16},
       {{ir::DType::kFloat32, {128, 512}},
        {ir::DType::kFloat32, {512}},
        {ir::DType::kFloat32, {512}}}},
      {"matmul_add_developer.py",
       "matmul_add",
       {256, 256, 256, 64, 128, 64},
       {{ir::DType::kFloat16, {256, 256}},
        {ir::DType::kFloat16, {256, 256}},
        {ir::DType::kFloat32, {256, 256}}}},
      {"flash_attn_developer.py",
       "flash_attention",
       {1, 2, 256, 128, 64, 64},
       {{ir::DType::kFloat16, {1, 2, 256, 128}},
        {ir::DType::kFloat16, {1, 2, 256, 128}},
        {ir::DType::kFloat16, {1, 2, 256, 128}}}},
  };
  return *cases;
}

class SharedDeveloperKernels : public ::testing::TestWithParam<size_t> {};

TEST_P(SharedDeveloperKernels, EveryCompilerSyncIsNeededOrProvedRedundant) {
  const SharedCase& c = SharedCases()[GetParam()];
  const std::string path = (std::filesystem::path(TILEJIT_SHARED_KERNELS_DIR) / c.file).string();
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::ostringstream text;
  text << in.rdbuf();
  frontend::FrontendRequest req;
  req.source = text.str();
  req.file_name = path;
  req.entry = c.entry;
  for (int64_t a : c.args) req.args.push_back(Value::Int(a));
  Rng rng(7);
  std::vector<runner::NpyArray> inputs;
  for (const auto& [dtype, shape] : c.inputs) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = static_cast<float>(rng.Uniform(-16, 16)) / 16.0f;
    inputs.push_back(ToNpy(dtype, shape, v));
  }
  Check(c.file, Specialize(req), inputs, "");
}

INSTANTIATE_TEST_SUITE_P(Cases, SharedDeveloperKernels, ::testing::Range<size_t>(0, 5));

TEST(GeneratedDeveloperKernels, EveryCompilerSyncIsNeededOrProvedRedundant) {
  for (int i = 0; i < kGeneratedKernels; ++i) {
    // Mixed kernels carry the most syncs (both cores, hand-offs); every fourth is any mix.
    // Six blocks, so every combination of runtime trip counts (cid % 3 + 1, cid % 2 + 1) and
    // both sides of every `if` on cid run: a needed sync has a path on which its deletion shows.
    const GeneratedKernel k = GenerateKernel(
        kBaseSeed + i, {.mix = i % 4 == 3 ? KernelMix::kAny : KernelMix::kMixed, .min_grid = 6});
    frontend::FrontendRequest req;
    req.source = k.ir_text;
    req.file_name = "generated.tir";
    req.format = frontend::SourceFormat::kTileIr;
    req.pass_configs = DeveloperPassConfigs();
    const std::vector<std::vector<float>> values = GenerateInputValues(k, k.seed);
    std::vector<runner::NpyArray> inputs;
    for (size_t j = 0; j < k.inputs.size(); ++j) {
      inputs.push_back(ToNpy(k.inputs[j].dtype, k.inputs[j].shape, values[j]));
    }
    Check("seed " + std::to_string(k.seed), Specialize(req), inputs, k.ir_text);
  }
}

}  // namespace
}  // namespace tilejit::devgen
