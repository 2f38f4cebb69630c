// SPDX-License-Identifier: Apache-2.0
// The Redis tier under faults, with short timeouts: a killed server, a paused (SIGSTOP) server,
// nothing listening, and fake servers answering garbage or hanging up. Every call must come
// back Unavailable within its timeouts, be counted, open the breaker after repeated failures,
// and recover once the server is back.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "cache/redis_store.h"
#include "cache_test_util.h"
#include "redis_test_util.h"

namespace tilejit::cache {
namespace {

using testing::FakeClock;
using testing::FakeRedisServer;
using testing::FakeSteadyClock;
using testing::KeyFor;
using testing::MakeEntry;
using testing::RedisServerProcess;

constexpr int kTimeoutMs = 150;
constexpr int64_t kCooldownMs = 10'000;  // on the fake steady clock: only Advance ends it
// Far above the timeouts: a call slower than this hung. (Not a performance assertion.)
constexpr auto kHangBound = std::chrono::seconds(5);

class RedisFaultsTest : public ::testing::Test {
 protected:
  std::unique_ptr<RedisStore> OpenStore(const std::string& url,
                                        uint64_t max_value_bytes = 1 << 20) {
    Result<ClusterKeyRing> ring = ClusterKeyRing::FromKeys({std::string(32, 'f')});
    EXPECT_TRUE(ring.ok());
    RedisStoreOptions options;
    options.client.url = url;
    options.client.connect_timeout_ms = kTimeoutMs;
    options.client.command_timeout_ms = kTimeoutMs;
    options.client.breaker = {
        .failure_threshold = 2, .cooldown_ms = kCooldownMs, .clock = steady_.AsFunction()};
    options.keys = std::make_shared<const ClusterKeyRing>(std::move(ring).value());
    options.max_value_bytes = max_value_bytes;
    options.clock = clock_.AsClock();
    Result<std::unique_ptr<RedisStore>> store = RedisStore::Open(std::move(options));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  // Runs a Get and checks it failed as Unavailable without hanging.
  void ExpectUnavailableGet(RedisStore* store, int n = 1) {
    const auto start = std::chrono::steady_clock::now();
    Result<Entry> got = store->Get(KeyFor(n));
    EXPECT_LT(std::chrono::steady_clock::now() - start, kHangBound);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kUnavailable) << got.status();
  }

  FakeClock clock_;
  FakeSteadyClock steady_;
};

TEST_F(RedisFaultsTest, KilledServerFailsFastOpensTheBreakerAndRecoversAfterRestart) {
  RedisServerProcess server;
  ASSERT_TRUE(server.Start());
  auto store = OpenStore(server.url());
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  server.Stop();
  ExpectUnavailableGet(store.get());
  EXPECT_EQ(store->Put(MakeEntry(2)).code(), StatusCode::kUnavailable);
  RedisStoreStats stats = store->Stats();
  EXPECT_EQ(stats.client.breaker.state, BreakerState::kOpen);
  EXPECT_EQ(stats.client.breaker.opens, 1u);
  EXPECT_EQ(stats.client.errors, 2u);
  // While open: refused without touching the network (no new errors, no connect attempts).
  ExpectUnavailableGet(store.get());
  stats = store->Stats();
  EXPECT_EQ(stats.client.errors, 2u);
  EXPECT_EQ(stats.client.breaker.rejected, 1u);

  ASSERT_TRUE(server.Start(server.port()));
  ExpectUnavailableGet(store.get());  // still cooling down
  steady_.Advance(kCooldownMs);
  Result<Entry> probe = store->Get(KeyFor(1));  // the new server is empty: a clean miss
  EXPECT_EQ(probe.status().code(), StatusCode::kNotFound) << probe.status();
  EXPECT_EQ(store->Stats().client.breaker.state, BreakerState::kClosed);
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  EXPECT_TRUE(store->Get(KeyFor(1)).ok());
}

TEST_F(RedisFaultsTest, FailedProbeReopensTheBreaker) {
  RedisServerProcess server;
  ASSERT_TRUE(server.Start());
  auto store = OpenStore(server.url());
  server.Stop();
  ExpectUnavailableGet(store.get());
  ExpectUnavailableGet(store.get());
  ASSERT_EQ(store->Stats().client.breaker.state, BreakerState::kOpen);
  steady_.Advance(kCooldownMs);
  ExpectUnavailableGet(store.get());  // the probe, against a dead server
  EXPECT_EQ(store->Stats().client.breaker.state, BreakerState::kOpen);
  EXPECT_EQ(store->Stats().client.breaker.opens, 2u);
}

TEST_F(RedisFaultsTest, PausedServerTimesOutInsteadOfHanging) {
  RedisServerProcess server;
  ASSERT_TRUE(server.Start());
  auto store = OpenStore(server.url());
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  server.Pause();
  ExpectUnavailableGet(store.get());
  EXPECT_EQ(store->Put(MakeEntry(2)).code(), StatusCode::kUnavailable);
  const RedisStoreStats stats = store->Stats();
  EXPECT_EQ(stats.client.timeouts, 2u);
  EXPECT_EQ(stats.client.breaker.state, BreakerState::kOpen);
  server.Resume();
  steady_.Advance(kCooldownMs);
  Result<Entry> got = store->Get(KeyFor(1));
  EXPECT_TRUE(got.ok()) << got.status();
  // server's destructor resumes (SIGCONT) before killing, should an assertion fail above.
}

TEST_F(RedisFaultsTest, NothingListeningIsUnavailable) {
  auto store = OpenStore("redis://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort()));
  ExpectUnavailableGet(store.get());
  EXPECT_EQ(store->Stats().client.connect_failures, 1u);
}

TEST_F(RedisFaultsTest, GarbageRepliesAreCountedNotCrashing) {
  std::string nested;
  for (int i = 0; i < 12; ++i) nested += "*3\r\n";
  const std::string replies[] = {"this is not RESP\r\n", "*2000000000\r\n", "$-7\r\n:x\r\n", nested,
                                 std::string("\x00\x01\x02\xff\r\n", 6)};
  for (const std::string& garbage : replies) {
    FakeRedisServer fake(garbage);
    auto store = OpenStore(fake.url());
    Result<Entry> got = store->Get(KeyFor(1));
    ASSERT_FALSE(got.ok()) << ::testing::PrintToString(garbage);
    const RedisStoreStats stats = store->Stats();
    EXPECT_EQ(stats.hits, 0u);
    EXPECT_EQ(stats.client.errors + stats.malformed, 1u) << ::testing::PrintToString(garbage);
    EXPECT_EQ(stats.client.protocol_errors + stats.client.timeouts + stats.malformed, 1u)
        << ::testing::PrintToString(garbage);
  }
}

TEST_F(RedisFaultsTest, StatusReplyInPlaceOfAValueIsMalformed) {
  FakeRedisServer fake("+OK\r\n:-1\r\n");  // a status for GETRANGE, then PTTL
  auto store = OpenStore(fake.url());
  Result<Entry> got = store->Get(KeyFor(1));
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound) << got.status();
  EXPECT_EQ(store->Stats().malformed, 1u);
}

TEST_F(RedisFaultsTest, EndlessReplyIsCutAtTheCap) {
  FakeRedisServer fake("$100000000000\r\n" + std::string(16384, 'x'), /*stream_forever=*/true);
  auto store = OpenStore(fake.url(), /*max_value_bytes=*/64 * 1024);
  ExpectUnavailableGet(store.get());
  const RedisStoreStats stats = store->Stats();
  EXPECT_EQ(stats.client.protocol_errors + stats.client.timeouts, 1u);
}

TEST_F(RedisFaultsTest, ServerHangingUpDuringALargeWriteDoesNotRaiseSigpipe) {
  FakeRedisServer fake("");  // accepts, then closes at once
  auto store = OpenStore(fake.url());
  // A write this large cannot fit in the socket buffers, so it hits the closed peer (EPIPE,
  // which would be SIGPIPE and the end of this process without the guard).
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(store->Put(MakeEntry(i, 900'000)).code(), StatusCode::kUnavailable);
    steady_.Advance(kCooldownMs);
  }
  EXPECT_GE(fake.connections(), 1);
}

}  // namespace
}  // namespace tilejit::cache
