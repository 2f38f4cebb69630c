// SPDX-License-Identifier: Apache-2.0
// The service's building blocks: handles, UTF-8 checks, the request digest, the memo and
// error cache, the worker pool and the metrics registry.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "server/handle.h"
#include "server/memo.h"
#include "server/metrics.h"
#include "server/request_digest.h"
#include "server/utf8.h"
#include "server/worker_pool.h"

namespace tilejit::server {
namespace {

const std::string kKey(64, 'a');

TEST(Handle, RoundTripsThroughKey) {
  Result<std::string> key = KeyFromHandle(HandleFromKey(kKey));
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(*key, kKey);
}

TEST(Handle, RejectsMalformedHandlesWithReadableMessage) {
  for (std::string bad : {std::string(""), std::string("tj1_abc"), "tj2_" + kKey, kKey,
                          "tj1_" + std::string(64, 'G'), std::string("tj1_\xff\x01zz")}) {
    Result<std::string> key = KeyFromHandle(bad);
    ASSERT_FALSE(key.ok()) << bad;
    EXPECT_EQ(key.status().code(), StatusCode::kInvalidArgument);
    for (char c : key.status().message()) {
      EXPECT_TRUE(c >= 0x20 && c <= 0x7e) << "unprintable byte in message";
    }
  }
}

TEST(Utf8, AcceptsValidAndFindsFirstInvalidByte) {
  EXPECT_FALSE(FindInvalidUtf8("plain ascii"));
  EXPECT_FALSE(FindInvalidUtf8("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_EQ(FindInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(FindInvalidUtf8("a\xc0\x80"), 1u);         // overlong NUL
  EXPECT_EQ(FindInvalidUtf8("a\xed\xa0\x80"), 1u);     // surrogate
  EXPECT_EQ(FindInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("ok\xe2\x82"), 2u);        // truncated
}

frontend::FrontendRequest BaseRequest() {
  frontend::FrontendRequest r;
  r.source = "def f(n): pass\n";
  r.entry = "f";
  r.args = {frontend::Value::Int(64)};
  return r;
}

TEST(RequestDigest, EqualRequestsHaveEqualDigests) {
  EXPECT_EQ(RequestDigest(BaseRequest(), "fp"), RequestDigest(BaseRequest(), "fp"));
}

TEST(RequestDigest, EveryFieldAndTheFingerprintChangeIt) {
  const std::string base = RequestDigest(BaseRequest(), "fp");
  EXPECT_NE(RequestDigest(BaseRequest(), "fp2"), base);
  auto changed = [&](auto mutate) {
    frontend::FrontendRequest r = BaseRequest();
    mutate(r);
    return RequestDigest(r, "fp");
  };
  EXPECT_NE(changed([](auto& r) { r.source += " "; }), base);
  EXPECT_NE(changed([](auto& r) { r.file_name = "k.py"; }), base);
  EXPECT_NE(changed([](auto& r) { r.format = frontend::SourceFormat::kTileIr; }), base);
  EXPECT_NE(changed([](auto& r) { r.entry = "g"; }), base);
  EXPECT_NE(changed([](auto& r) { r.args = {frontend::Value::Float(64.0)}; }), base);
  EXPECT_NE(changed([](auto& r) { r.args = {frontend::Value::Str("64")}; }), base);
  EXPECT_NE(changed([](auto& r) { r.kwargs = {{"n", frontend::Value::Int(1)}}; }), base);
  EXPECT_NE(changed([](auto& r) { r.globals = {{"N", frontend::Value::Int(1)}}; }), base);
  EXPECT_NE(changed([](auto& r) {
              r.pass_configs = {{"tl.ascend_auto_sync", frontend::Value::Bool(true)}};
            }),
            base);
  EXPECT_NE(changed([](auto& r) { r.out_idx = std::vector<int>{-1}; }), base);
  EXPECT_NE(changed([](auto& r) { r.out_idx = std::vector<int>{}; }), base);
  EXPECT_NE(changed([](auto& r) { r.workspace_idx = std::vector<int>{1}; }), base);
  EXPECT_NE(changed([](auto& r) { r.target = "ascend910b4"; }), base);
}

TEST(RequestDigest, KwargOrderDoesNotMatter) {
  frontend::FrontendRequest a = BaseRequest(), b = BaseRequest();
  a.kwargs = {{"x", frontend::Value::Int(1)}, {"y", frontend::Value::Int(2)}};
  b.kwargs = {{"y", frontend::Value::Int(2)}, {"x", frontend::Value::Int(1)}};
  EXPECT_EQ(RequestDigest(a, "fp"), RequestDigest(b, "fp"));
}

TEST(RequestMemo, EvictsLeastRecentlyUsed) {
  RequestMemo memo(2);
  auto entry = [](std::string key) {
    auto e = std::make_shared<MemoEntry>();
    e->key = std::move(key);
    return e;
  };
  memo.Put("a", entry("ka"));
  memo.Put("b", entry("kb"));
  ASSERT_NE(memo.Get("a"), nullptr);  // a is now the most recent
  memo.Put("c", entry("kc"));
  EXPECT_NE(memo.Get("a"), nullptr);
  EXPECT_EQ(memo.Get("b"), nullptr);
  EXPECT_NE(memo.Get("c"), nullptr);
  EXPECT_EQ(memo.size(), 2u);
}

TEST(ErrorCache, ServesErrorsUntilTheirTtlEnds) {
  int64_t now = 1000;
  ErrorCache cache(500, 16, [&] { return now; });
  auto error = std::make_shared<CachedError>();
  error->message = "boom";
  cache.Put("d", error);
  now = 1499;
  ASSERT_NE(cache.Get("d"), nullptr);
  EXPECT_EQ(cache.Get("d")->message, "boom");
  now = 1500;
  EXPECT_EQ(cache.Get("d"), nullptr);
}

TEST(WorkerPool, RejectsWhenQueueIsFullAndRunsEverythingAccepted) {
  WorkerPool pool(1, 2);
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  auto job = [&] {
    while (!release) std::this_thread::yield();
    ++ran;
  };
  ASSERT_TRUE(pool.Submit(job).ok());
  while (pool.running() != 1) std::this_thread::yield();
  EXPECT_EQ(*pool.Submit(job), 0u);
  EXPECT_EQ(*pool.Submit(job), 1u);
  Result<size_t> full = pool.Submit(job);
  EXPECT_EQ(full.status().code(), StatusCode::kResourceExhausted);
  release = true;
  pool.Shutdown();
  EXPECT_EQ(ran.load(), 3);
  EXPECT_EQ(pool.Submit(job).status().code(), StatusCode::kUnavailable);
}

TEST(Metrics, RendersCountersHistogramsAndCallbacksInPrometheusText) {
  MetricsRegistry registry;
  registry.AddCounter("t_requests_total", "Requests", {"method"})->With({"Compile"}).Inc(3);
  registry.AddHistogram("t_seconds", "Latency", {"phase"}, {0.1, 1})
      ->With({"frontend"})
      .Observe(0.5);
  registry.AddCallback("t_depth", "Depth", "gauge", [] { return 7.0; });
  const std::string text = registry.Render();
  EXPECT_NE(text.find("# TYPE t_requests_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("t_requests_total{method=\"Compile\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("t_seconds_bucket{phase=\"frontend\",le=\"0.1\"} 0\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("t_seconds_bucket{phase=\"frontend\",le=\"1\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("t_seconds_bucket{phase=\"frontend\",le=\"+Inf\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("t_seconds_count{phase=\"frontend\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("t_depth 7\n"), std::string::npos);
}

}  // namespace
}  // namespace tilejit::server
