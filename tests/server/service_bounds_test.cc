// SPDX-License-Identifier: Apache-2.0
// The bounds on what one call can hold in CompileService: the frontend runs on the compile
// pool (not the caller's thread), a compile nobody waits for any more is stopped while a
// joiner keeps it alive, a compile past the daemon's time limit is stopped, and admission caps
// the calls in progress per caller and in all.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/server/service_fixture.h"

namespace tilejit::server {
namespace {

using testing::FakeSource;
using testing::ServiceTest;

constexpr auto kShort = std::chrono::milliseconds(100);

CallContext Until(std::chrono::steady_clock::duration d, std::string caller = "") {
  CallContext ctx;
  ctx.deadline = std::chrono::steady_clock::now() + d;
  ctx.caller = std::move(caller);
  return ctx;
}

TEST_F(ServiceTest, TheFrontendWaitsForAWorkerInsteadOfRunningOnTheCallersThread) {
  ServiceOptions options;
  options.workers = 1;
  Start(options);
  backend_->Hold();
  std::thread running([&] { EXPECT_TRUE(Compile(Request(FakeSource("running"))).ok()); });
  WaitFor([&] { return counters_.lower_waiting.load() == 1; });
  const int before = counters_.specialize.load();
  // The only worker is busy, so this request's frontend cannot run before its deadline.
  Result<CompileReply> late = Compile(Request(FakeSource("late")), Until(kShort));
  EXPECT_EQ(late.status().code(), StatusCode::kDeadlineExceeded) << late.status();
  EXPECT_NE(late.status().message().find("the frontend did not finish"), std::string::npos);
  EXPECT_EQ(counters_.specialize.load(), before);
  backend_->Release();
  running.join();
}

TEST_F(ServiceTest, ACompileEveryCallerGaveUpOnIsStopped) {
  Start();
  backend_->Hold();
  Result<CompileReply> r = Compile(Request(FakeSource("alone")), Until(kShort));
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status();
  WaitFor([&] { return counters_.lower_interrupted.load() == 1; });  // while still held
  EXPECT_EQ(service_->metrics().Render().find("tilejit_stopped_compiles_total 0"),
            std::string::npos);
  // Nothing was cached from the stopped compile: the next request compiles again.
  backend_->Release();
  Result<CompileReply> again = Compile(Request(FakeSource("alone")));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->tier, "compiled");
}

TEST_F(ServiceTest, AJoinerKeepsTheCompileAliveAfterTheLeaderGivesUp) {
  Start();
  backend_->Hold();
  Result<CompileReply> joiner = Internal("not run");
  std::thread patient([&] {
    WaitFor([&] { return counters_.lower_waiting.load() == 1; });
    joiner = Compile(Request(FakeSource("shared")));
  });
  Result<CompileReply> leader = Compile(Request(FakeSource("shared")), Until(kShort * 3));
  EXPECT_EQ(leader.status().code(), StatusCode::kDeadlineExceeded) << leader.status();
  std::this_thread::sleep_for(kShort);  // many interrupt polls: the compile must stay alive
  EXPECT_EQ(counters_.lower_interrupted.load(), 0);
  backend_->Release();
  patient.join();
  ASSERT_TRUE(joiner.ok()) << joiner.status();
  EXPECT_TRUE(joiner->ok);
  EXPECT_EQ(counters_.lower.load(), 1);
}

TEST_F(ServiceTest, ACompilePastTheDaemonsLimitIsStoppedForEveryWaiter) {
  ServiceOptions options;
  options.compile_max_seconds = 1;
  Start(options);
  backend_->Hold();  // never released: only the limit ends this compile
  Result<CompileReply> r = Compile(Request(FakeSource("slow")));
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_NE(r.status().message().find("limit of 1 s (--compile-max-seconds)"), std::string::npos)
      << r.status();
  EXPECT_EQ(counters_.lower_interrupted.load(), 1);
}

TEST_F(ServiceTest, AdmissionCapsCallsPerCallerAndInAll) {
  ServiceOptions options;
  options.workers = 4;
  options.max_calls_per_caller = 1;
  options.max_calls = 2;
  Start(options);
  backend_->Hold();
  std::thread a(
      [&] { EXPECT_TRUE(Compile(Request(FakeSource("a")), Until(kShort * 50, "x")).ok()); });
  WaitFor([&] { return counters_.lower_waiting.load() == 1; });
  Result<CompileReply> same = Compile(Request(FakeSource("b")), Until(kShort, "x"));
  EXPECT_EQ(same.status().code(), StatusCode::kResourceExhausted) << same.status();
  EXPECT_NE(same.status().message().find("--max-calls-per-caller"), std::string::npos);
  std::thread b(
      [&] { EXPECT_TRUE(Compile(Request(FakeSource("c")), Until(kShort * 50, "y")).ok()); });
  WaitFor([&] { return counters_.lower_waiting.load() == 2; });
  Result<CompileReply> third = Compile(Request(FakeSource("d")), Until(kShort, "z"));
  EXPECT_EQ(third.status().code(), StatusCode::kResourceExhausted) << third.status();
  EXPECT_NE(third.status().message().find("the daemon already has 2"), std::string::npos);
  backend_->Release();
  a.join();
  b.join();
  // Places are given back: the refused caller gets in now.
  EXPECT_TRUE(Compile(Request(FakeSource("b")), Until(kShort * 50, "x")).ok());
  const std::string metrics = service_->metrics().Render();
  EXPECT_NE(metrics.find("tilejit_admission_refusals_total{limit=\"caller\"} 1"), std::string::npos)
      << metrics;
}

}  // namespace
}  // namespace tilejit::server
