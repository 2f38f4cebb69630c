// SPDX-License-Identifier: Apache-2.0
// CompileService's compile path, driven directly (no gRPC) with a fake back end.
#include "server/service.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "tests/server/fake_backend.h"
#include "tests/server/service_fixture.h"

namespace tilejit::server {
namespace {

using testing::FakeBackend;
using testing::FakeSource;
using testing::ServiceTest;

TEST_F(ServiceTest, CompilesAndReturnsHandleDerivedFromKey) {
  Start();
  Result<CompileReply> r = Compile(Request(FakeSource("a")));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok);
  EXPECT_EQ(r->tier, "compiled");
  EXPECT_EQ(r->handle, "tj1_" + r->key);
  EXPECT_EQ(r->request_digest.size(), 64u);
  EXPECT_TRUE(r->has_metadata);
  EXPECT_EQ(r->metadata.kernel_name, "vadd");
  EXPECT_TRUE(r->binary.empty());  // only when asked
}

TEST_F(ServiceTest, RepeatedRequestIsAnsweredFromMemoWithoutFrontend) {
  Start();
  Result<CompileReply> first = Compile(Request(FakeSource("a")));
  Result<CompileReply> second = Compile(Request(FakeSource("a")));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(counters_.specialize.load(), 1);
  EXPECT_EQ(counters_.lower.load(), 1);
  EXPECT_EQ(second->tier, "memory");
  EXPECT_EQ(second->handle, first->handle);
  EXPECT_EQ(second->request_digest, first->request_digest);
  EXPECT_EQ(second->metadata, first->metadata);
}

TEST_F(ServiceTest, HitReturnsBinaryWhenAsked) {
  Start();
  ASSERT_TRUE(Compile(Request(FakeSource("a"))).ok());
  CompileOptions opts;
  opts.include_binary = true;
  opts.include_ir = true;
  Result<CompileReply> r = service_->Compile(Request(FakeSource("a")), opts, {});
  ASSERT_TRUE(r.ok());
  const std::string ir = testing::EmbeddedIr(r->binary);
  EXPECT_FALSE(ir.empty());
  const std::vector<uint8_t> expected = testing::VaddBinary(r->key, ir);
  EXPECT_EQ(r->binary, std::string(expected.begin(), expected.end()));
  EXPECT_FALSE(r->ir_text.empty());
}

TEST_F(ServiceTest, SourcesDifferingInCommentsShareKeyWithOwnLineNumbers) {
  Start();
  const std::string body = "def kernel(n):\n    x = n  # warn here\n    return x\n";
  Result<CompileReply> a = Compile(Request(body));
  Result<CompileReply> b = Compile(Request("# header\n# more header\n\n" + body));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->key, b->key);
  EXPECT_EQ(a->handle, b->handle);
  EXPECT_NE(a->request_digest, b->request_digest);
  EXPECT_EQ(counters_.lower.load(), 1);
  ASSERT_EQ(a->diagnostics.size(), 1u);
  ASSERT_EQ(b->diagnostics.size(), 1u);
  EXPECT_EQ(a->diagnostics[0].line, 2u);
  EXPECT_EQ(b->diagnostics[0].line, 5u);
  // Each keeps its own lines on a repeat, too.
  Result<CompileReply> b2 = Compile(Request("# header\n# more header\n\n" + body));
  ASSERT_TRUE(b2.ok());
  EXPECT_EQ(b2->diagnostics[0].line, 5u);
}

TEST_F(ServiceTest, ConcurrentIdenticalRequestsCompileOnce) {
  ServiceOptions options;
  options.workers = 2;
  options.queue_capacity = 4;  // far fewer slots than requests: joiners take none
  Start(options);
  backend_->Hold();
  constexpr int kRequests = 24;
  std::vector<Result<CompileReply>> replies(kRequests, Internal("not run"));
  std::vector<std::thread> threads;
  for (int i = 0; i < kRequests; ++i) {
    threads.emplace_back([&, i] { replies[i] = Compile(Request(FakeSource("same"))); });
  }
  WaitFor([&] { return service_->Stats().single_flight_joins == kRequests - 1; });
  backend_->Release();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counters_.lower.load(), 1);
  int compiled = 0;
  for (const auto& r : replies) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->handle, replies[0]->handle);
    compiled += r->tier == "compiled";
    if (r->tier != "compiled") {
      EXPECT_EQ(r->tier, "joined");
    }
  }
  EXPECT_EQ(compiled, 1);
}

TEST_F(ServiceTest, FullQueueIsResourceExhausted) {
  ServiceOptions options;
  options.workers = 1;
  options.queue_capacity = 1;
  Start(options);
  backend_->Hold();
  std::thread running([&] { EXPECT_TRUE(Compile(Request(FakeSource("running"))).ok()); });
  WaitFor([&] { return counters_.lower_waiting.load() == 1; });
  std::thread queued([&] { EXPECT_TRUE(Compile(Request(FakeSource("queued"))).ok()); });
  WaitFor([&] { return service_->Stats().queue_depth == 1; });
  Result<CompileReply> rejected = Compile(Request(FakeSource("rejected")));
  EXPECT_EQ(rejected.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(rejected.status().message().find("queue is full"), std::string::npos);
  backend_->Release();
  running.join();
  queued.join();
  // The rejected request did not poison its key: it compiles now.
  EXPECT_TRUE(Compile(Request(FakeSource("rejected"))).ok());
}

TEST_F(ServiceTest, QueuedRequestWhoseDeadlinePassedIsNotCompiled) {
  ServiceOptions options;
  options.workers = 1;
  Start(options);
  backend_->Hold();
  std::thread running([&] { EXPECT_TRUE(Compile(Request(FakeSource("running"))).ok()); });
  WaitFor([&] { return counters_.lower_waiting.load() == 1; });
  CallContext ctx;
  ctx.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
  Result<CompileReply> late = Compile(Request(FakeSource("late")), ctx);
  EXPECT_EQ(late.status().code(), StatusCode::kDeadlineExceeded);
  backend_->Release();
  running.join();
  service_->Shutdown();  // runs the queued job, which must skip the compile
  EXPECT_EQ(counters_.lower.load(), 1);
}

TEST_F(ServiceTest, PassedDeadlineIsRejectedBeforeAnyWork) {
  Start();
  CallContext ctx;
  ctx.deadline = std::chrono::steady_clock::now() - std::chrono::milliseconds(1);
  EXPECT_EQ(Compile(Request(FakeSource("a")), ctx).status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(counters_.specialize.load(), 0);
}

TEST_F(ServiceTest, CancelledWaiterDoesNotCancelTheCompileForOthers) {
  Start();
  backend_->Hold();
  std::atomic<bool> cancel{false};
  CallContext cancellable;
  cancellable.cancelled = [&] { return cancel.load(); };
  Result<CompileReply> first = Internal("not run");
  std::thread leader([&] { first = Compile(Request(FakeSource("x")), cancellable); });
  WaitFor([&] { return counters_.lower_waiting.load() == 1; });
  Result<CompileReply> second = Internal("not run");
  std::thread joiner([&] { second = Compile(Request(FakeSource("x"))); });
  WaitFor([&] { return service_->Stats().single_flight_joins == 1; });
  cancel = true;
  leader.join();
  EXPECT_EQ(first.status().code(), StatusCode::kCancelled);
  backend_->Release();
  joiner.join();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->ok);
  EXPECT_EQ(counters_.lower.load(), 1);
}

TEST_F(ServiceTest, CompileErrorIsOkReplyWithLocatedDiagnostics) {
  Start();
  Result<CompileReply> r = Compile(Request("def kernel(n):\n    pass\n    syntax error\n"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok);
  EXPECT_TRUE(r->handle.empty());
  ASSERT_EQ(r->diagnostics.size(), 1u);
  EXPECT_EQ(r->diagnostics[0].line, 3u);
  EXPECT_EQ(r->diagnostics[0].file, "kernel.py");
  EXPECT_NE(r->error.find("kernel.py:3:1: error"), std::string::npos);
}

TEST_F(ServiceTest, CompileErrorsAreCachedByDigest) {
  Start();
  const auto bad = Request("def kernel(n):\n    syntax error\n");
  ASSERT_TRUE(Compile(bad).ok());
  Result<CompileReply> again = Compile(bad);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->ok);
  EXPECT_EQ(again->diagnostics.size(), 1u);
  EXPECT_EQ(counters_.specialize.load(), 1);
}

TEST_F(ServiceTest, ErrorCacheCanBeDisabled) {
  ServiceOptions options;
  options.error_ttl_ms = 0;
  Start(options);
  const auto bad = Request("def kernel(n):\n    syntax error\n");
  ASSERT_TRUE(Compile(bad).ok());
  ASSERT_TRUE(Compile(bad).ok());
  EXPECT_EQ(counters_.specialize.load(), 2);
}

TEST_F(ServiceTest, BackEndCompileErrorIsOkReplyAndCached) {
  Start();
  const auto bad = Request("def kernel(n):\n    lower error\n");
  Result<CompileReply> r = Compile(bad);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->error.find("does not fit"), std::string::npos);
  ASSERT_TRUE(Compile(bad).ok());
  EXPECT_EQ(counters_.lower.load(), 1);
}

TEST_F(ServiceTest, EvictedKernelIsRecompiledFromMemo) {
  Start();
  Result<CompileReply> r = Compile(Request(FakeSource("a")));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(*service_->Evict({r->handle}), 1u);
  Result<CompileReply> again = Compile(Request(FakeSource("a")));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->tier, "compiled");
  EXPECT_EQ(again->handle, r->handle);
  EXPECT_EQ(counters_.lower.load(), 2);
}

TEST_F(ServiceTest, MalformedRequestsAreInvalidArgument) {
  Start();
  auto code = [&](frontend::FrontendRequest r) { return Compile(r).status().code(); };
  EXPECT_EQ(code(Request("")), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Request("def kernel():\n  x = '\xff\xfe'\n")), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Request(std::string(5 << 20, 'a'))), StatusCode::kInvalidArgument);
  auto no_entry = Request(FakeSource("a"));
  no_entry.entry.clear();
  EXPECT_EQ(code(no_entry), StatusCode::kInvalidArgument);
  EXPECT_EQ(counters_.specialize.load(), 0);
}

TEST_F(ServiceTest, DrainingServiceRefusesNewWork) {
  Start();
  service_->StartDraining();
  EXPECT_EQ(Compile(Request(FakeSource("a"))).status().code(), StatusCode::kUnavailable);
}

TEST_F(ServiceTest, StreamingProgressReportsQueuedAndPasses) {
  Start();
  std::vector<ProgressEvent> events;
  Result<CompileReply> r = service_->Compile(Request(FakeSource("s")), {}, {},
                                             [&](const ProgressEvent& e) { events.push_back(e); });
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, ProgressEvent::Kind::kQueued);
  EXPECT_EQ(events[1].kind, ProgressEvent::Kind::kPass);
  EXPECT_EQ(events[1].pass.pass, "fake_lower");
}

TEST_F(ServiceTest, MetricsCountHitsJoinsAndBackEndRuns) {
  Start();
  ASSERT_TRUE(Compile(Request(FakeSource("a"))).ok());
  ASSERT_TRUE(Compile(Request(FakeSource("a"))).ok());
  const std::string text = service_->metrics().Render();
  EXPECT_NE(text.find("tilejit_backend_compiles_total 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("tilejit_cache_hits_total{tier=\"memory\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("tilejit_requests_total{method=\"Compile\",code=\"OK\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("tilejit_phase_seconds_bucket{phase=\"digest\""), std::string::npos);
  EXPECT_NE(text.find("tilejit_queue_depth 0\n"), std::string::npos);
}

}  // namespace
}  // namespace tilejit::server
