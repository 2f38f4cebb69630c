// SPDX-License-Identifier: Apache-2.0
// Acceptance 2 of issue #5: race freedom by construction. A fixed number of seeded random
// Developer kernels (kShards x kPerShard = 500) each compile with the four Developer switches,
// run in checked mode with no finding, match the host interpreter, and match again in
// perturbed mode (one perturbation seed per kernel, cycling 1..3). Failures print the stage,
// the seed and the IR text; a summary counts failures per stage.
//
// DEVGEN_SEED=<n> runs just that seed (all stages, perturb seeds 1..3) for reproduction;
// with DEVGEN_REDUCE=1 a failure is also shrunk to a minimal reproducer (reduce.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>

#include "devgen_check.h"
#include "kernel_gen.h"
#include "reduce.h"

namespace tilejit::devgen {
namespace {

constexpr int kShards = 10;
constexpr int kPerShard = 50;
constexpr uint64_t kBaseSeed = 50000;
constexpr int kReportedPerShard = 3;  // full reproducers printed per shard

class DeveloperRandom : public ::testing::TestWithParam<int> {};

TEST_P(DeveloperRandom, KernelsAreRaceFreeAndMatchTheInterpreter) {
  std::map<Stage, int> stages;
  int failures = 0;
  for (int i = 0; i < kPerShard; ++i) {
    const uint64_t seed = kBaseSeed + static_cast<uint64_t>(GetParam() * kPerShard + i);
    const GeneratedKernel k = GenerateKernel(seed);
    const CheckOutcome out = CheckGeneratedKernel(k, seed % 3 + 1);
    ++stages[out.stage];
    if (out.stage == Stage::kOk) continue;
    std::cout << "[devgen] seed " << seed << " " << StageName(out.stage) << ": "
              << out.first_line.substr(0, 300) << "\n";
    if (++failures > kReportedPerShard) continue;
    if (std::getenv("DEVGEN_REDUCE") == nullptr) {
      ADD_FAILURE() << out.report;
    } else {
      ADD_FAILURE() << "reduced:\n" << ReduceKernel(k, seed % 3 + 1, out.stage).outcome.report;
    }
  }
  std::string summary;
  for (const auto& [stage, n] : stages) {
    summary += std::string(StageName(stage)) + "=" + std::to_string(n) + " ";
  }
  std::cout << "[devgen] shard " << GetParam() << ": " << summary << "\n";
  EXPECT_EQ(failures, 0) << summary;
}

INSTANTIATE_TEST_SUITE_P(Shards, DeveloperRandom, ::testing::Range(0, kShards));

TEST(DeveloperRandomRepro, OneSeedFromTheEnvironment) {
  const char* env = std::getenv("DEVGEN_SEED");
  if (env == nullptr) GTEST_SKIP() << "set DEVGEN_SEED=<n> to reproduce one generated kernel";
  const GeneratedKernel k = GenerateKernel(std::strtoull(env, nullptr, 10));
  std::cout << k.ir_text;
  for (uint64_t p = 1; p <= 3; ++p) {
    const CheckOutcome out = CheckGeneratedKernel(k, p);
    EXPECT_EQ(out.stage, Stage::kOk) << out.report;
    if (out.stage == Stage::kOk || std::getenv("DEVGEN_REDUCE") == nullptr) continue;
    const Reduced r = ReduceKernel(k, p, out.stage);
    std::cout << "[devgen] reduced in " << r.attempts << " attempts:\n" << r.outcome.report;
    break;
  }
}

}  // namespace
}  // namespace tilejit::devgen
