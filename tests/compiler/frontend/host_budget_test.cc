// SPDX-License-Identifier: Apache-2.0
// The frontend's budgets (host_budget.h): each one, set small, ends a factory that exceeds it
// with a diagnostic located at the step that did and naming the budget and its daemon
// setting; the same factory within the budget compiles.
#include "compiler/frontend/host_budget.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/compiler/frontend/frontend_test_util.h"

namespace tilejit::frontend {
namespace {

// A vector kernel whose factory first runs `work` (indented into the factory's body).
std::string Factory(const std::string& work) {
  return "import tilelang\n"
         "import tilelang.language as T\n"
         "@tilelang.jit(out_idx=[1])\n"
         "def kernel(M, N):\n" +
         work +
         "    @T.prim_func\n"
         "    def main(A: T.Tensor((M, N), 'float32'), B: T.Tensor((M, N), 'float32')):\n"
         "        with T.Kernel(1, is_npu=True) as (cid, vid):\n"
         "            a = T.alloc_ub((M, N), 'float32')\n"
         "            T.copy(A, a)\n"
         "            T.copy(a, B)\n"
         "    return main\n";
}

struct Outcome {
  bool ok = false;
  std::string diags;
};

Outcome RunFactory(const std::string& work, const HostLimits& limits,
                   std::function<bool()> cancelled = nullptr,
                   HostBudget::Clock::time_point deadline = HostBudget::Clock::time_point::max()) {
  FrontendRequest req =
      fetest::SourceRequest(Factory(work), "kernel", {Value::Int(16), Value::Int(64)});
  req.limits = limits;
  req.cancelled = std::move(cancelled);
  req.deadline = deadline;
  Outcome o;
  o.ok = fetest::RunRequest(req, &o.diags).ok();
  return o;
}

bool Has(const Outcome& o, const std::string& text) {
  return o.diags.find(text) != std::string::npos;
}

constexpr char kNestedLoops[] =
    "    s = 0\n"
    "    for i in range(100):\n"
    "        for j in range(100):\n"
    "            s += 1\n";

TEST(HostBudget, StepsCountLoopIterationsAcrossNesting) {
  HostLimits limits;
  limits.max_steps = 5000;  // the loops take about 2 * 100 * 100
  Outcome o = RunFactory(kNestedLoops, limits);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "test.py:8:13: error: the factory ran past its step budget of 5000 steps"))
      << o.diags;
  EXPECT_TRUE(Has(o, "--frontend-max-steps")) << o.diags;
  limits.max_steps = 50000;
  EXPECT_TRUE(RunFactory(kNestedLoops, limits).ok);
}

TEST(HostBudget, AHugeRangeIsNotMaterialised) {
  HostLimits limits;
  limits.max_steps = 1000;
  limits.max_memory_bytes = 1 << 20;
  Outcome o = RunFactory("    for i in range(2 ** 40):\n        pass\n", limits);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "step budget of 1000 steps")) << o.diags;
}

TEST(HostBudget, AnEndlessWhileEndsAtTheStepBudget) {
  HostLimits limits;
  limits.max_steps = 1000;
  Outcome o = RunFactory("    while True:\n        pass\n", limits);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "step budget of 1000 steps")) << o.diags;
  EXPECT_TRUE(RunFactory("    n = 0\n    while n < 100:\n        n += 1\n", limits).ok);
}

// Each element kept is reserved before it is made; a generator expression is a list here.
TEST(HostBudget, AComprehensionStopsAtTheMemoryBudget) {
  HostLimits limits;
  limits.max_memory_bytes = 1 << 20;
  for (const char* work :
       {"    x = [0 for _ in range(2 ** 40)]\n", "    x = {i: i for i in range(2 ** 40)}\n",
        "    x = max(i for i in range(2 ** 40))\n"}) {
    Outcome o = RunFactory(work, limits);
    EXPECT_FALSE(o.ok);
    EXPECT_TRUE(Has(o, "test.py:5:")) << o.diags;  // at the comprehension
    EXPECT_TRUE(Has(o, "over the factory's memory budget of 1.0 MiB")) << o.diags;
  }
  EXPECT_TRUE(RunFactory("    x = [i for i in range(1000)]\n", limits).ok);
}

TEST(HostBudget, ListDoublingStopsAtTheMemoryBudget) {
  const std::string work =
      "    x = [1, 2]\n"
      "    for i in range(40):\n"
      "        x = x + x\n";
  HostLimits limits;
  limits.max_memory_bytes = 1 << 20;
  Outcome o = RunFactory(work, limits);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "test.py:7:13: error: this value would take")) << o.diags;
  EXPECT_TRUE(Has(o, "over the factory's memory budget of 1.0 MiB")) << o.diags;
  EXPECT_TRUE(Has(o, "--frontend-max-memory-mb")) << o.diags;
  EXPECT_TRUE(RunFactory("    x = [1, 2]\n    for i in range(8):\n        x = x + x\n", limits).ok);
}

TEST(HostBudget, RepetitionIsReservedBeforeItIsMade) {
  HostLimits limits;
  limits.max_memory_bytes = 1 << 20;
  Outcome o = RunFactory("    x = 'ab' * (2 ** 30)\n", limits);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "this value would take 2048.0 MiB")) << o.diags;
  EXPECT_FALSE(RunFactory("    x = [0] * (2 ** 30)\n", limits).ok);
}

TEST(HostBudget, StringsHeldInVariablesCount) {
  // Each string is under the budget; the ones kept alive together are not.
  const std::string work =
      "    a = 'x' * 600000\n"
      "    b = a + 'y'\n";
  HostLimits limits;
  limits.max_memory_bytes = 1 << 20;
  Outcome o = RunFactory(work, limits);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "memory budget of 1.0 MiB")) << o.diags;
  const std::string doubling =
      "    x = 'ab'\n"
      "    for i in range(40):\n"
      "        x = x + x\n";
  o = RunFactory(doubling, limits);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "memory budget of 1.0 MiB")) << o.diags;
}

TEST(HostBudget, WalksOverASharedNestedValueAreSteps) {
  // 2^64 leaves in 64 small lists: repr and == walk them one element at a time.
  const std::string build =
      "    x = [0]\n"
      "    for i in range(64):\n"
      "        x = [x, x]\n";
  HostLimits limits;
  limits.max_steps = 100000;
  for (const char* use : {"    s = str(x)\n", "    s = x == x\n"}) {
    Outcome o = RunFactory(build + use, limits);
    EXPECT_FALSE(o.ok);
    EXPECT_TRUE(Has(o, "step budget of 100000 steps")) << o.diags;
  }
}

TEST(HostBudget, RecursionStopsAtTheCallDepthLimit) {
  const std::string helper =
      "    def f(n):\n"
      "        return f(n - 1) + 1 if n > 0 else 0\n";
  HostLimits limits;
  limits.max_call_depth = 8;
  Outcome o = RunFactory(helper + "    d = f(20)\n", limits);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "call depth exceeds 8, the recursion limit")) << o.diags;
  EXPECT_TRUE(Has(o, "--frontend-max-call-depth")) << o.diags;
  EXPECT_TRUE(RunFactory(helper + "    d = f(5)\n", limits).ok);
}

TEST(HostBudget, TheWallClockEndsALongFactory) {
  HostLimits limits;
  limits.max_seconds = 0.05;
  Outcome o = RunFactory("    for i in range(2 ** 40):\n        pass\n", limits);
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "the frontend ran past its time budget of 0.05 s")) << o.diags;
  EXPECT_TRUE(Has(o, "--frontend-max-seconds")) << o.diags;
}

TEST(HostBudget, TheCallersCancelAndDeadlineEndTheRun) {
  const std::string spin = "    for i in range(2 ** 40):\n        pass\n";
  Outcome o = RunFactory(spin, HostLimits{}, [] { return true; });
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "the caller cancelled the compile")) << o.diags;
  o = RunFactory(spin, HostLimits{}, nullptr, HostBudget::Clock::now());
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(Has(o, "the caller's deadline passed")) << o.diags;
}

TEST(HostBudget, ChargesAreReleasedWhenValuesDie) {
  HostBudget budget(HostLimits{});
  {
    HostBudget::Active active(&budget);
    Value list = Value::List(std::vector<Value>(1000, Value::Int(1)));
    Value text = Value::Str(std::string(1 << 16, 'x'));
    Value copy = text;
    EXPECT_GE(budget.meter()->held.load(), 1000 * int64_t{sizeof(Value)} + 2 * (1 << 16));
  }
  EXPECT_EQ(budget.meter()->held.load(), 0);
  EXPECT_GE(budget.peak_bytes(), 2 * (1 << 16));
}

}  // namespace
}  // namespace tilejit::frontend
