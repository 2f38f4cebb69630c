// SPDX-License-Identifier: Apache-2.0
// Heavy: the benchmark's 1024^3 fp16 GEMM (bench/sim/gemm_program.h, 32 blocks in 2 waves) in
// every mode, checked against a float64 reference on sampled elements, race- and finding-free.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bench/sim/gemm_program.h"
#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT

TEST(SimHeavy, Gemm1024MatchesReferenceInEveryModeWithoutFindings) {
  constexpr int kN = 1024;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(kN * kN), b(kN * kN);
  for (float& v : a) v = HalfToFloat(FloatToHalf(dist(rng)));
  for (float& v : b) v = HalfToFloat(FloatToHalf(dist(rng)));
  for (CheckMode mode : {CheckMode::kFast, CheckMode::kChecked, CheckMode::kPerturbed}) {
    SimDevice dev;
    Tensor ta = Input(dev, target::ElementType::kFloat16, {kN, kN}, HalfBytes(a), "A");
    Tensor tb = Input(dev, target::ElementType::kFloat16, {kN, kN}, HalfBytes(b), "B");
    Tensor tc = Output(dev, target::ElementType::kFloat32, {kN, kN}, "C");
    KernelImage image =
        Image(target::CoreMix::kCubeOnly, 0, 32, bench::GemmAicProgram(kN, kN, kN), "");
    auto id = dev.LoadImage(std::move(image));
    ASSERT_TRUE(id.ok()) << id.status();
    LaunchOptions opt;
    opt.mode = mode;
    const uint64_t args[] = {ta.addr, tb.addr, tc.addr};
    auto r = dev.Launch(*id, args, opt);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->status.ok()) << AllFindings(*r);
    EXPECT_EQ(r->waves, 2);
    const std::vector<float> c = FromF32(Read(dev, tc));
    for (int s = 0; s < 300; ++s) {
      const int i = static_cast<int>(rng() % kN), j = static_cast<int>(rng() % kN);
      double ref = 0;
      for (int p = 0; p < kN; ++p) ref += double{a[i * kN + p]} * b[p * kN + j];
      ASSERT_NEAR(c[i * kN + j], ref, 1e-3 + 1e-4 * std::fabs(ref)) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace tilejit::runner::sim
