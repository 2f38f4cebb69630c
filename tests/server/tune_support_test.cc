// SPDX-License-Identifier: Apache-2.0
// The pure parts of Tune (tune.h, tune_tensors.h): the decision key's equalities and
// inequalities, ranking with its tie-breaks, the decision's text form, candidate requests,
// input generation and the output comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "server/tune.h"
#include "server/tune_tensors.h"

namespace tilejit::server {
namespace {

using frontend::Value;

TuneCall Call() {
  TuneCall call;
  call.request.source = "def f(M, block=1):\n  pass\n";
  call.request.entry = "f";
  call.request.args = {Value::Int(64)};
  call.configs = {{{"block", Value::Int(16)}}, {{"block", Value::Int(32)}}};
  return call;
}

runner::NpyArray Floats(std::vector<float> v, std::vector<int64_t> shape) {
  runner::NpyArray a;
  a.dtype = target::ElementType::kFloat32;
  a.shape = std::move(shape);
  a.data.resize(v.size() * 4);
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

TuneCandidate Ran(size_t index, uint64_t cycles, int64_t bytes) {
  TuneCandidate c;
  c.index = index;
  c.compiled = c.ran = true;
  c.cycles = cycles;
  c.on_chip_bytes = bytes;
  return c;
}

TEST(TuneDecisionKey, CoversConfigsArgsShapesChecksAndTarget) {
  const std::string fp = "fp";
  const std::string base = TuneDecisionKey(Call(), fp);
  EXPECT_EQ(TuneDecisionKey(Call(), fp), base);
  EXPECT_NE(TuneDecisionKey(Call(), "other"), base);
  TuneCall c = Call();
  c.configs[1] = {{"block", Value::Int(64)}};
  EXPECT_NE(TuneDecisionKey(c, fp), base);
  c = Call();
  c.request.args = {Value::Int(128)};
  EXPECT_NE(TuneDecisionKey(c, fp), base);
  c = Call();
  c.inputs = {Floats({1, 2}, {2})};
  const std::string with_inputs = TuneDecisionKey(c, fp);
  EXPECT_NE(with_inputs, base);
  c.inputs = {Floats({5, 6}, {2})};  // the same shape and dtype: the same decision
  EXPECT_EQ(TuneDecisionKey(c, fp), with_inputs);
  c.inputs = {Floats({1, 2}, {1, 2})};
  EXPECT_NE(TuneDecisionKey(c, fp), with_inputs);
  c = Call();
  c.reference = {Floats({1}, {1})};
  const std::string checked = TuneDecisionKey(c, fp);
  EXPECT_NE(checked, base);
  c.reference = {Floats({2}, {1})};  // with a check, the data decides who passes
  EXPECT_NE(TuneDecisionKey(c, fp), checked);
  c = Call();
  c.request.target = "ascend910b4";
  EXPECT_NE(TuneDecisionKey(c, fp), base);
  c = Call();
  c.request.pass_configs = {{"tl.ascend_auto_sync", Value::Bool(true)}};
  EXPECT_NE(TuneDecisionKey(c, fp), base);
}

TEST(TuneDecisionKey, CandidateRequestsEnterByTheirDigests) {
  TuneCall c = Call();
  c.candidates = {CandidateRequest(c, 0), CandidateRequest(c, 1)};
  const std::string with = TuneDecisionKey(c, "fp");
  EXPECT_NE(with, TuneDecisionKey(Call(), "fp"));
  EXPECT_EQ(CandidateRequest(c, 1).kwargs[0].second.i, 32);
  c.candidates[1].globals = {{"G", Value::Int(1)}};
  EXPECT_NE(TuneDecisionKey(c, "fp"), with);
  c.candidates.pop_back();
  EXPECT_EQ(ValidateTuneCall(c).code(), StatusCode::kInvalidArgument);
}

TEST(TuneDecisionKey, ConfigurationsAreOrderFreeWithin) {
  TuneCall a = Call(), b = Call();
  a.configs[0] = {{"x", Value::Int(1)}, {"y", Value::Int(2)}};
  b.configs[0] = {{"y", Value::Int(2)}, {"x", Value::Int(1)}};
  EXPECT_EQ(TuneDecisionKey(a, "fp"), TuneDecisionKey(b, "fp"));
}

TEST(PickBest, FewestCyclesThenSmallestFootprintThenFirst) {
  std::vector<TuneCandidate> c = {Ran(0, 100, 50), Ran(1, 90, 70), Ran(2, 90, 60), Ran(3, 90, 60)};
  EXPECT_EQ(PickBest(c), 2);
  c[2].reason = "check: wrong";
  EXPECT_EQ(PickBest(c), 3);
  c[3].ran = false;
  EXPECT_EQ(PickBest(c), 1);
  for (TuneCandidate& x : c) x.reason = "compile: no";
  EXPECT_EQ(PickBest(c), -1);
}

TEST(TuneDecision, RoundTripsAndRefusesMismatches) {
  TuneReply r;
  r.ok = true;
  r.best = 1;
  r.candidates = {Ran(0, 10, 1), Ran(1, 5, 2)};
  r.candidates[0].reason = "check: output 0 differs";
  r.candidates[1].handle = "tj1-abc";
  r.candidates[1].checked = true;
  Result<TuneReply> back = DecodeDecision(EncodeDecision(r), 2);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->best, 1);
  EXPECT_EQ(back->best_handle, "tj1-abc");
  ASSERT_EQ(back->candidates.size(), 2u);
  EXPECT_EQ(back->candidates[0].reason, r.candidates[0].reason);
  EXPECT_EQ(back->candidates[1].cycles, 5u);
  EXPECT_TRUE(back->candidates[1].checked);
  EXPECT_EQ(DecodeDecision(EncodeDecision(r), 3).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(DecodeDecision("{not json", 2).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(DecodeDecision("{\"version\": 1}", 2).status().code(), StatusCode::kCorruption);
}

TEST(CandidateRequest, ConfigValuesOverrideKwargs) {
  TuneCall call = Call();
  call.request.kwargs = {{"block", Value::Int(1)}, {"dtype", Value::Str("float16")}};
  frontend::FrontendRequest r = CandidateRequest(call, 1);
  ASSERT_EQ(r.kwargs.size(), 2u);
  EXPECT_EQ(r.kwargs[0].second.i, 32);
  EXPECT_EQ(ConfigText(call.configs[1]), "block=32");
}

TEST(ValidateTuneCall, BoundsEveryCount) {
  EXPECT_TRUE(ValidateTuneCall(Call()).ok());
  TuneCall c = Call();
  c.configs.push_back({});
  EXPECT_EQ(ValidateTuneCall(c).code(), StatusCode::kInvalidArgument);
  c = Call();
  c.inputs.resize(kMaxTuneTensors + 1);
  EXPECT_EQ(ValidateTuneCall(c).code(), StatusCode::kInvalidArgument);
  c = Call();
  c.rtol = std::nan("");
  EXPECT_EQ(ValidateTuneCall(c).code(), StatusCode::kInvalidArgument);
}

TEST(TuneTensors, GeneratedInputsAreDeterministicAndExact) {
  target::KernelMetadata m;
  auto param = [](std::string name, std::vector<int64_t> shape, target::ElementType t) {
    target::KernelParam p;
    p.name = std::move(name);
    p.shape = std::move(shape);
    p.dtype = t;
    return p;
  };
  target::KernelParam a = param("A", {4, 8}, target::ElementType::kFloat16);
  target::KernelParam b = param("B", {8}, target::ElementType::kBFloat16);
  target::KernelParam c = param("C", {4}, target::ElementType::kFloat32);
  c.role = target::ParamRole::kOutput;
  m.params = {a, b, c};
  Result<std::vector<runner::NpyArray>> x = GenerateInputs(m, 3, 1 << 20);
  Result<std::vector<runner::NpyArray>> y = GenerateInputs(m, 3, 1 << 20);
  Result<std::vector<runner::NpyArray>> z = GenerateInputs(m, 4, 1 << 20);
  ASSERT_TRUE(x.ok() && y.ok() && z.ok());
  ASSERT_EQ(x->size(), 2u);
  EXPECT_EQ((*x)[0].data, (*y)[0].data);
  EXPECT_NE((*x)[0].data, (*z)[0].data);
  for (double v : ToDoubles((*x)[0])) {
    EXPECT_LE(std::abs(v), 1.0);
    EXPECT_EQ(v * 64, std::round(v * 64));
  }
  EXPECT_EQ(GenerateInputs(m, 3, 16).status().code(), StatusCode::kInvalidArgument);
}

TEST(TuneTensors, CompareIsAllcloseAndSaysWhere) {
  const runner::NpyArray want = Floats({1, 2, 3}, {3});
  EXPECT_EQ(CompareOutputs({Floats({1, 2.01f, 3}, {3})}, {want}, 1e-2, 1e-2), "");
  const std::string why = CompareOutputs({Floats({1, 2, 4}, {3})}, {want}, 1e-2, 1e-2);
  EXPECT_NE(why.find("1 of 3"), std::string::npos) << why;
  EXPECT_NE(why.find("flat index 2"), std::string::npos) << why;
  EXPECT_NE(CompareOutputs({Floats({1, 2, NAN}, {3})}, {want}, 1, 1), "");
  EXPECT_NE(CompareOutputs({Floats({1, 2, 3}, {1, 3})}, {want}, 1, 1).find("shape"),
            std::string::npos);
  EXPECT_NE(CompareOutputs({}, {want}, 1, 1), "");
}

}  // namespace
}  // namespace tilejit::server
