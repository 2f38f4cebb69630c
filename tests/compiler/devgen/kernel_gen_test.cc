// SPDX-License-Identifier: Apache-2.0
// The generator: deterministic per seed, every kernel parses, verifies, covers the shapes the
// brief asks for across seeds, and runs in the host interpreter without reading anything it
// never wrote (the generator's legality promise, checked by an independent reader).
#include "kernel_gen.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "compiler/ir/ir_parser.h"
#include "compiler/ir/verifier.h"
#include "tile_interp.h"

namespace tilejit::devgen {
namespace {

constexpr int kSeeds = 200;

std::vector<HostTensor> Inputs(const GeneratedKernel& k) {
  std::vector<std::vector<float>> values = GenerateInputValues(k, k.seed);
  std::vector<HostTensor> out;
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    out.push_back({k.inputs[i].dtype, k.inputs[i].shape,
                   std::vector<double>(values[i].begin(), values[i].end())});
  }
  return out;
}

TEST(KernelGen, SameSeedGivesTheSameText) {
  for (uint64_t seed : {1u, 7u, 1234u}) {
    EXPECT_EQ(GenerateKernel(seed).ir_text, GenerateKernel(seed).ir_text) << seed;
  }
  EXPECT_NE(GenerateKernel(1).ir_text, GenerateKernel(2).ir_text);
}

TEST(KernelGen, EveryKernelParsesVerifiesAndInterpretsCleanly) {
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const GeneratedKernel k = GenerateKernel(seed);
    Result<ir::Kernel> parsed = ir::ParseTileIrString(k.ir_text);
    ASSERT_TRUE(parsed.ok()) << k.Summary() << "\n" << parsed.status() << "\n" << k.ir_text;
    Status v = ir::Verify(*parsed);
    ASSERT_TRUE(v.ok()) << k.Summary() << "\n" << v << "\n" << k.ir_text;
    Result<std::vector<HostTensor>> outs = Interpret(*parsed, Inputs(k));
    ASSERT_TRUE(outs.ok()) << k.Summary() << "\n" << outs.status() << "\n" << k.ir_text;
    ASSERT_FALSE(outs->empty()) << k.ir_text;
    for (const HostTensor& t : *outs) {
      for (double x : t.data) ASSERT_TRUE(std::isfinite(x)) << k.Summary() << "\n" << k.ir_text;
    }
  }
}

TEST(KernelGen, CoversTheRequiredFeaturesAcrossSeeds) {
  std::set<std::string> seen;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const GeneratedKernel k = GenerateKernel(seed);
    const std::string& t = k.ir_text;
    seen.insert("threads=" + std::to_string(k.threads));
    if (k.has_cube && !k.has_vector) seen.insert("cube-only");
    if (!k.has_cube && k.has_vector) seen.insert("vector-only");
    for (const char* f : {"gemm_v0(", "% 3 + 1)", "serial(0, 2)", "if %cid", "} else {",
                          "reduce_sum(", "reduce_max(", "exp(", "cast(", "transpose_B=true",
                          "transpose_A=true", "init=%i", "init=false", "clear=false"}) {
      if (t.find(f) != std::string::npos) seen.insert(f);
    }
    // a nested loop: a `for` line indented below another one
    if (t.find("\n    for ") != std::string::npos) seen.insert("nested loop");
    if (k.handoffs > 0) seen.insert("handoff");
  }
  for (const char* f :
       {"threads=1",   "threads=2",    "cube-only",   "vector-only",      "gemm_v0(",
        "% 3 + 1)",    "serial(0, 2)", "if %cid",     "} else {",         "reduce_sum(",
        "reduce_max(", "exp(",         "cast(",       "transpose_B=true", "transpose_A=true",
        "init=%i",     "init=false",   "clear=false", "nested loop",      "handoff"}) {
    EXPECT_TRUE(seen.contains(f)) << "no kernel in " << kSeeds << " seeds has " << f;
  }
}

TEST(KernelGen, MixedKernelsHandOffBetweenCores) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const GeneratedKernel k = GenerateKernel(seed, {.mix = KernelMix::kMixed});
    EXPECT_GT(k.handoffs, 0) << k.ir_text;
    EXPECT_NE(k.ir_text.find("fragment"), std::string::npos);
  }
}

TEST(KernelGen, InputValuesAreExactInHalfPrecision) {
  const GeneratedKernel k = GenerateKernel(3);
  for (const std::vector<float>& v : GenerateInputValues(k, 3)) {
    for (float x : v) {
      EXPECT_EQ(RoundTo(ir::DType::kFloat16, x), x);
      EXPECT_LE(std::fabs(x), 1.0f);
    }
  }
}

}  // namespace
}  // namespace tilejit::devgen
