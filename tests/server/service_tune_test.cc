// SPDX-License-Identifier: Apache-2.0
// CompileService::Tune over the real compiler and the simulated NPU, on a GEMM whose tile
// sizes are the configuration (tests/testdata/tune/gemm_tune.py): configurations that do not
// fit on chip are ruled out at compile time, a deliberately wrong one (it skips a K step, so
// it is faster) is caught by the reference, and the choice is checked against every
// configuration compiled and launched on its own. A repeated call is answered from the
// decision cache without a simulation.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "runner/sim/sim_device.h"
#include "server/compiler_backend.h"
#include "server/service.h"
#include "server/tune_tensors.h"

namespace tilejit::server {
namespace {

using frontend::Value;

constexpr int64_t kM = 256, kN = 256, kK = 256;

std::string ReadTuneKernel() {
  std::ifstream in(std::string(TILEJIT_TESTDATA_DIR) + "/tune/gemm_tune.py");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::unique_ptr<CompileService> NewService() {
  ServiceOptions options;
  options.workers = 2;
  return std::make_unique<CompileService>(options, NewCompilerBackend(),
                                          std::make_unique<MemoryKernelStore>(),
                                          runner::sim::SimDeviceFactory());
}

frontend::NamedValues Config(int64_t bm, int64_t bn, int64_t kl1, int64_t skip_k = 0) {
  frontend::NamedValues c = {
      {"block_M", Value::Int(bm)}, {"block_N", Value::Int(bn)}, {"K_L1", Value::Int(kl1)}};
  if (skip_k) c.emplace_back("skip_k", Value::Int(skip_k));
  return c;
}

// 18 configurations; those with 256 x 256 tiles (an fp32 L0C tile of 256 KiB, twice the
// 910B's L0C) cannot fit.
std::vector<frontend::NamedValues> GridConfigs() {
  std::vector<frontend::NamedValues> configs;
  for (int64_t bm : {32, 64, 128}) {
    for (int64_t bn : {64, 128, 256}) {
      for (int64_t kl1 : {64, 128}) configs.push_back(Config(bm, bn, kl1));
    }
  }
  configs[5] = Config(256, 256, 128);  // replaces (32, 256, 128)
  configs[11] = Config(256, 256, 256);
  return configs;
}

// C = A @ B in double precision, as float32.
runner::NpyArray Reference(const runner::NpyArray& a, const runner::NpyArray& b) {
  const std::vector<double> x = ToDoubles(a), y = ToDoubles(b);
  std::vector<float> c(kM * kN);
  for (int64_t i = 0; i < kM; ++i) {
    for (int64_t j = 0; j < kN; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < kK; ++k) sum += x[i * kK + k] * y[k * kN + j];
      c[i * kN + j] = static_cast<float>(sum);
    }
  }
  runner::NpyArray out;
  out.dtype = target::ElementType::kFloat32;
  out.shape = {kM, kN};
  out.data.resize(c.size() * 4);
  std::memcpy(out.data.data(), c.data(), out.data.size());
  return out;
}

class ServiceTuneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = ReadTuneKernel();
    ASSERT_FALSE(source_.empty());
    call_.request.source = source_;
    call_.request.file_name = "gemm_tune.py";
    call_.request.entry = "matmul";
    call_.request.args = {Value::Int(kM), Value::Int(kN), Value::Int(kK)};
    call_.configs = GridConfigs();
    // The inputs: seeded random fp16 of the kernel's shapes (from one plain compile).
    std::unique_ptr<CompileService> s = NewService();
    Result<CompileReply> r = s->Compile(CandidateRequest(call_, 0), {}, {});
    ASSERT_TRUE(r.ok() && r->ok) << (r.ok() ? r->error : r.status().ToString());
    Result<std::vector<runner::NpyArray>> inputs = GenerateInputs(r->metadata, 7, 1 << 24);
    ASSERT_TRUE(inputs.ok() && inputs->size() == 2) << inputs.status();
    call_.inputs = *inputs;
    call_.reference = {Reference(call_.inputs[0], call_.inputs[1])};
  }

  // Each configuration compiled and launched on a service of its own: its cycles, or
  // nullopt when it does not compile; `correct` says whether its output matched.
  struct Separate {
    std::optional<uint64_t> cycles;
    bool correct = false;
  };
  std::vector<Separate> MeasureSeparately(const TuneCall& call) {
    std::unique_ptr<CompileService> s = NewService();
    std::vector<Separate> out(call.configs.size());
    for (size_t i = 0; i < call.configs.size(); ++i) {
      Result<CompileReply> r = s->Compile(CandidateRequest(call, i), {}, {});
      EXPECT_TRUE(r.ok()) << r.status();
      if (!r.ok() || !r->ok) continue;
      LaunchCall launch;
      launch.handle = r->handle;
      launch.inputs = call.inputs;
      launch.mode = runner::CheckMode::kFast;
      Result<LaunchReply> ran = s->Launch(launch, {});
      EXPECT_TRUE(ran.ok() && ran->ok) << ran.status() << " config " << i;
      if (!ran.ok() || !ran->ok) continue;
      out[i].cycles = ran->report.kernel_cycles;
      out[i].correct = CompareOutputs(ran->outputs, call.reference, call.atol, call.rtol).empty();
    }
    return out;
  }

  std::string source_;
  TuneCall call_;
};

TEST_F(ServiceTuneTest, PicksTheFastestCorrectConfigurationAndCachesTheDecision) {
  // The fastest correct configuration, then a wrong copy of it that skips a K step (faster).
  std::vector<Separate> grid = MeasureSeparately(call_);
  int fastest = -1;
  for (size_t i = 0; i < grid.size(); ++i) {
    ASSERT_EQ(grid[i].cycles.has_value(), grid[i].correct) << "config " << i;
    if (grid[i].cycles && (fastest < 0 || *grid[i].cycles < *grid[fastest].cycles)) fastest = i;
  }
  ASSERT_GE(fastest, 0);
  frontend::NamedValues wrong = call_.configs[fastest];
  wrong.emplace_back("skip_k", Value::Int(1));
  call_.configs.insert(call_.configs.begin() + 3, wrong);
  const std::vector<Separate> all = MeasureSeparately(call_);
  ASSERT_TRUE(all[3].cycles.has_value());
  EXPECT_FALSE(all[3].correct);
  EXPECT_LT(*all[3].cycles, *grid[fastest].cycles) << "the wrong one must be the fastest";

  std::unique_ptr<CompileService> s = NewService();
  std::map<TuneEvent::Kind, int> events;
  Result<TuneReply> r = s->Tune(call_, {}, [&](const TuneEvent& e) { ++events[e.kind]; });
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->ok) << r->error;
  EXPECT_FALSE(r->from_cache);
  ASSERT_EQ(r->candidates.size(), call_.configs.size());
  ASSERT_GE(r->candidates.size(), 12u);
  int not_fitting = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const TuneCandidate& c = r->candidates[i];
    EXPECT_EQ(c.compiled, all[i].cycles.has_value()) << i << ": " << c.reason;
    if (!c.compiled) ++not_fitting;
    if (c.ran) {
      EXPECT_EQ(c.cycles, *all[i].cycles) << "config " << i;
    }
    EXPECT_EQ(c.eligible(), all[i].correct) << "config " << i << ": " << c.reason;
  }
  EXPECT_GE(not_fitting, 2);
  EXPECT_EQ(r->candidates[3].reason.rfind("check: ", 0), 0u) << r->candidates[3].reason;
  EXPECT_EQ(r->best, fastest < 3 ? fastest : fastest + 1);
  EXPECT_EQ(r->best_handle, r->candidates[r->best].handle);
  EXPECT_EQ(events[TuneEvent::Kind::kRuledOut], not_fitting + 1);
  EXPECT_EQ(events[TuneEvent::Kind::kCompiled], static_cast<int>(all.size()) - not_fitting);

  const ServiceStats before = s->Stats();
  EXPECT_EQ(before.tune_simulations, all.size() - not_fitting);
  Result<TuneReply> again = s->Tune(call_, {});
  ASSERT_TRUE(again.ok() && again->ok);
  EXPECT_TRUE(again->from_cache);
  EXPECT_EQ(again->best, r->best);
  EXPECT_EQ(again->decision_key, r->decision_key);
  const ServiceStats after = s->Stats();
  EXPECT_EQ(after.tune_simulations, before.tune_simulations);
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.tune_decisions_cached, before.tune_decisions_cached + 1);
  EXPECT_NE(s->metrics().Render().find("tilejit_tune_decisions_cached_total 1"), std::string::npos);
}

TEST_F(ServiceTuneTest, GeneratedInputsWithoutAReferenceStillRank) {
  call_.inputs.clear();
  call_.reference.clear();
  call_.configs = {Config(64, 64, 64), Config(256, 256, 256), Config(128, 128, 128)};
  std::unique_ptr<CompileService> s = NewService();
  Result<TuneReply> r = s->Tune(call_, {});
  ASSERT_TRUE(r.ok() && r->ok) << r.status();
  EXPECT_FALSE(r->candidates[1].compiled);
  EXPECT_EQ(r->candidates[1].reason.rfind("compile: ", 0), 0u);
  EXPECT_TRUE(r->candidates[0].ran && r->candidates[2].ran);
  EXPECT_FALSE(r->candidates[0].checked);
  EXPECT_EQ(r->best, r->candidates[0].cycles <= r->candidates[2].cycles ? 0 : 2);
}

TEST_F(ServiceTuneTest, NoConfigurationLeftIsAFailedReplyNotAFailedCall) {
  call_.configs = {Config(256, 256, 256), Config(256, 256, 128)};
  std::unique_ptr<CompileService> s = NewService();
  Result<TuneReply> r = s->Tune(call_, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->best, -1);
  EXPECT_NE(r->error.find("no configuration is left"), std::string::npos) << r->error;
}

// A candidate ruled out by the call's own deadline says so and the tuning is not cached: the
// next call, with time, tunes for real.
TEST_F(ServiceTuneTest, ATuningCutShortByItsDeadlineIsNotCached) {
  call_.configs = {Config(64, 64, 64), Config(128, 128, 64)};
  std::unique_ptr<CompileService> s = NewService();
  CallContext late;
  late.deadline = std::chrono::steady_clock::now();
  Result<TuneReply> r = s->Tune(call_, late);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok);
  for (const TuneCandidate& c : r->candidates) {
    EXPECT_TRUE(c.transient) << c.reason;
    EXPECT_NE(c.reason.find("DEADLINE"), std::string::npos) << c.reason;
  }
  Result<TuneReply> again = s->Tune(call_, {});
  ASSERT_TRUE(again.ok() && again->ok) << again.status();
  EXPECT_FALSE(again->from_cache);
  EXPECT_EQ(s->Stats().tune_decisions, 1u);
}

TEST_F(ServiceTuneTest, MalformedCallsAreInvalidArgument) {
  std::unique_ptr<CompileService> s = NewService();
  TuneCall none = call_;
  none.configs.clear();
  EXPECT_EQ(s->Tune(none, {}).status().code(), StatusCode::kInvalidArgument);
  TuneCall many = call_;
  many.configs.assign(kMaxTuneConfigs + 1, Config(64, 64, 64));
  EXPECT_EQ(s->Tune(many, {}).status().code(), StatusCode::kInvalidArgument);
  TuneCall tol = call_;
  tol.atol = -1;
  EXPECT_EQ(s->Tune(tol, {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s->Stats().tune_simulations, 0u);
}

}  // namespace
}  // namespace tilejit::server
