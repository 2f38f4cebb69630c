// SPDX-License-Identifier: Apache-2.0
// RedisStore against a real redis-server: round trips, misses, TTL, eviction, the key
// namespace, pins, poisoning (never served, always counted) and key rotation.
#include "cache/redis_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "cache_test_util.h"
#include "redis_test_util.h"

namespace tilejit::cache {
namespace {

using testing::FakeClock;
using testing::KeyFor;
using testing::MakeEntry;
using testing::RawRedis;
using testing::RedisServerProcess;
using testing::WaitFor;

std::shared_ptr<const ClusterKeyRing> KeyRing(std::vector<char> fills) {
  std::vector<std::string> raw;
  for (char fill : fills) raw.emplace_back(32, fill);
  Result<ClusterKeyRing> ring = ClusterKeyRing::FromKeys(raw);
  EXPECT_TRUE(ring.ok()) << ring.status();
  return std::make_shared<const ClusterKeyRing>(std::move(ring).value());
}

class RedisStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start());
    raw_ = std::make_unique<RawRedis>(server_.port());
    ASSERT_TRUE(raw_->ok());
    store_ = OpenStore(KeyRing({'a'}));
    ASSERT_NE(store_, nullptr);
  }
  std::unique_ptr<RedisStore> OpenStore(std::shared_ptr<const ClusterKeyRing> keys,
                                        RedisStoreOptions options = {}) {
    options.client.url = server_.url();
    options.client.command_timeout_ms = 2000;  // generous: the machine may be loaded
    options.client.connect_timeout_ms = 2000;
    options.keys = std::move(keys);
    options.clock = clock_.AsClock();
    Result<std::unique_ptr<RedisStore>> store = RedisStore::Open(std::move(options));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  // Asserts that Get of `key` is refused as a miss.
  void ExpectMiss(RedisStore* store, const std::string& key) {
    Result<Entry> got = store->Get(key);
    ASSERT_FALSE(got.ok()) << "a refused value was served";
    EXPECT_EQ(got.status().code(), StatusCode::kNotFound) << got.status();
  }
  std::string RawValue(const std::string& key) {
    return raw_->Command({"GET", store_->RedisKey(key)}).str;
  }

  RedisServerProcess server_;
  std::unique_ptr<RawRedis> raw_;
  FakeClock clock_;
  std::unique_ptr<RedisStore> store_;
};

TEST_F(RedisStoreTest, GetReturnsExactlyWhatWasPut) {
  Entry entry = MakeEntry(1, 70'000);
  entry.binary[5] = '\0';
  entry.side["diagnostics"] = "";
  entry.side["raw"] = std::string("\0\r\n\xff", 4);
  ASSERT_TRUE(store_->Put(entry).ok());
  clock_.Advance(10);
  Result<Entry> got = store_->Get(entry.key);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->key, entry.key);
  EXPECT_EQ(got->binary, entry.binary);
  EXPECT_EQ(got->side, entry.side);
  EXPECT_EQ(got->created_ms, clock_.AsClock()() - 10);
  EXPECT_FALSE(got->pinned);
  EXPECT_GT(got->expires_ms, clock_.AsClock()());
  const RedisStoreStats stats = store_->Stats();
  EXPECT_EQ(stats.puts, 1u);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.client.errors, 0u);
}

TEST_F(RedisStoreTest, AbsentKeyIsAMiss) {
  ExpectMiss(store_.get(), KeyFor(9));
  EXPECT_EQ(store_->Stats().misses, 1u);
  EXPECT_EQ(store_->Stats().malformed, 0u);
  Result<Entry> bad = store_->Get("not a key");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(RedisStoreTest, EntriesExpireAfterTheirTtl) {
  auto store = OpenStore(KeyRing({'a'}), {.ttl_ms = 150});
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  const long long pttl = raw_->Command({"PTTL", store->RedisKey(KeyFor(1))}).integer;
  EXPECT_GT(pttl, 0);
  EXPECT_LE(pttl, 150);
  EXPECT_TRUE(WaitFor([&] { return !store->Get(KeyFor(1)).ok(); }, 5000));
  ExpectMiss(store.get(), KeyFor(1));
}

TEST_F(RedisStoreTest, EvictRemovesTheEntry) {
  ASSERT_TRUE(store_->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(store_->Evict(KeyFor(1)).ok());
  ExpectMiss(store_.get(), KeyFor(1));
  EXPECT_EQ(raw_->Command({"EXISTS", store_->RedisKey(KeyFor(1))}).integer, 0);
  EXPECT_EQ(store_->Evict(KeyFor(1)).code(), StatusCode::kNotFound);
}

TEST_F(RedisStoreTest, KeysLiveUnderTheNamespace) {
  ASSERT_TRUE(store_->Put(MakeEntry(1)).ok());
  EXPECT_EQ(raw_->Command({"EXISTS", "tilejit:v1:" + KeyFor(1)}).integer, 1);
  auto tenant = OpenStore(KeyRing({'a'}), {.key_namespace = "tenant-7:"});
  ASSERT_TRUE(tenant->Put(MakeEntry(2)).ok());
  EXPECT_EQ(raw_->Command({"EXISTS", "tenant-7:" + KeyFor(2)}).integer, 1);
  ExpectMiss(store_.get(), KeyFor(2));
  ExpectMiss(tenant.get(), KeyFor(1));
}

TEST_F(RedisStoreTest, PinRemovesTheTtlAndUnpinRestoresIt) {
  ASSERT_TRUE(store_->Put(MakeEntry(1)).ok());
  const std::string redis_key = store_->RedisKey(KeyFor(1));
  ASSERT_TRUE(store_->Pin(KeyFor(1)).ok());
  EXPECT_EQ(raw_->Command({"PTTL", redis_key}).integer, -1);
  Result<Entry> got = store_->Get(KeyFor(1));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(got->pinned);
  EXPECT_EQ(got->expires_ms, 0);
  EXPECT_EQ(store_->Evict(KeyFor(1)).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(store_->Put(MakeEntry(1)).ok());
  EXPECT_EQ(raw_->Command({"PTTL", redis_key}).integer, -1) << "a Put keeps the pin";
  ASSERT_TRUE(store_->Unpin(KeyFor(1)).ok());
  EXPECT_GT(raw_->Command({"PTTL", redis_key}).integer, 0);
  EXPECT_TRUE(store_->Evict(KeyFor(1)).ok());
  EXPECT_EQ(store_->Pin(KeyFor(1)).code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Unpin(KeyFor(1)).code(), StatusCode::kNotFound);
}

TEST_F(RedisStoreTest, PutPinnedStoresWithoutTtl) {
  Entry entry = MakeEntry(3);
  entry.pinned = true;
  ASSERT_TRUE(store_->Put(entry).ok());
  EXPECT_EQ(raw_->Command({"PTTL", store_->RedisKey(entry.key)}).integer, -1);
}

TEST_F(RedisStoreTest, GarbageIsNeverServed) {
  const std::string key = KeyFor(1);
  raw_->Command({"SET", store_->RedisKey(key), "definitely not a tilejit value"});
  ExpectMiss(store_.get(), key);
  raw_->Command({"DEL", store_->RedisKey(key)});
  raw_->Command({"RPUSH", store_->RedisKey(key), "a list"});  // WRONGTYPE for string reads
  ExpectMiss(store_.get(), key);
  const RedisStoreStats stats = store_->Stats();
  EXPECT_EQ(stats.malformed, 2u);
  EXPECT_EQ(stats.hits, 0u);
  EXPECT_EQ(stats.client.breaker.state, BreakerState::kClosed);
  ASSERT_TRUE(store_->Put(MakeEntry(1)).ok()) << "a Put replaces a poisoned value";
  EXPECT_TRUE(store_->Get(key).ok());
}

TEST_F(RedisStoreTest, ValueWithABadSignatureIsNeverServed) {
  ASSERT_TRUE(store_->Put(MakeEntry(1, 500)).ok());
  std::string value = RawValue(KeyFor(1));
  value[100] ^= 0x20;  // inside the binary
  raw_->Command({"SET", store_->RedisKey(KeyFor(1)), value});
  ExpectMiss(store_.get(), KeyFor(1));
  EXPECT_EQ(store_->Stats().signature_failures, 1u);
  EXPECT_EQ(RawValue(KeyFor(1)), value) << "a refused value is left in place";
}

TEST_F(RedisStoreTest, ValidValueCopiedUnderAnotherKeyIsNeverServed) {
  ASSERT_TRUE(store_->Put(MakeEntry(1)).ok());
  raw_->Command({"SET", store_->RedisKey(KeyFor(2)), RawValue(KeyFor(1))});
  ExpectMiss(store_.get(), KeyFor(2));
  EXPECT_EQ(store_->Stats().signature_failures, 1u);
  EXPECT_TRUE(store_->Get(KeyFor(1)).ok());
}

TEST_F(RedisStoreTest, ValueSignedWithAKeyOutsideTheRingIsNeverServed) {
  auto outsider = OpenStore(KeyRing({'z'}));
  ASSERT_TRUE(outsider->Put(MakeEntry(1)).ok());
  ExpectMiss(store_.get(), KeyFor(1));
  EXPECT_EQ(store_->Stats().signature_failures, 1u);
}

TEST_F(RedisStoreTest, OversizedValueIsRefusedWithoutFailingTheConnection) {
  auto store = OpenStore(KeyRing({'a'}), {.max_value_bytes = 4096});
  raw_->Command({"SET", store->RedisKey(KeyFor(1)), std::string(100'000, 'x')});
  ExpectMiss(store.get(), KeyFor(1));
  EXPECT_EQ(store->Stats().malformed, 1u);
  EXPECT_EQ(store->Stats().client.errors, 0u);
  EXPECT_EQ(store->Put(MakeEntry(2, 5000)).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(store->Stats().oversize, 1u);
  EXPECT_TRUE(store->Put(MakeEntry(3, 100)).ok());
}

TEST_F(RedisStoreTest, RotationKeepsOldEntriesValidUntilTheKeyIsDropped) {
  auto old_node = OpenStore(KeyRing({'a'}));
  auto rotated_node = OpenStore(KeyRing({'b', 'a'}));
  auto new_only_node = OpenStore(KeyRing({'b'}));
  ASSERT_TRUE(old_node->Put(MakeEntry(1)).ok());
  EXPECT_TRUE(rotated_node->Get(KeyFor(1)).ok()) << "the old key is still listed";
  ExpectMiss(new_only_node.get(), KeyFor(1));
  ASSERT_TRUE(rotated_node->Put(MakeEntry(2)).ok());
  EXPECT_TRUE(new_only_node->Get(KeyFor(2)).ok()) << "written with the new current key";
  ExpectMiss(old_node.get(), KeyFor(2));
}

TEST_F(RedisStoreTest, OpenRequiresAKeyRingAndAPlaintextUrl) {
  Result<std::unique_ptr<RedisStore>> unsigned_store = RedisStore::Open({});
  ASSERT_FALSE(unsigned_store.ok());
  EXPECT_NE(unsigned_store.status().message().find("cluster key"), std::string::npos);
  RedisStoreOptions options;
  options.keys = KeyRing({'a'});
  options.client.url = "rediss://127.0.0.1:6380";
  Result<std::unique_ptr<RedisStore>> tls = RedisStore::Open(options);
  ASSERT_FALSE(tls.ok());
  EXPECT_NE(tls.status().message().find("TLS"), std::string::npos);
  options.client.url = server_.url();
  options.key_namespace = "has space";
  EXPECT_FALSE(RedisStore::Open(options).ok());
}

TEST_F(RedisStoreTest, RefusesASharedClientThatCannotCarryItsValues) {
  Result<std::shared_ptr<RedisClient>> client =
      RedisClient::Create({.url = server_.url(), .max_reply_bytes = 1 << 20});
  ASSERT_TRUE(client.ok()) << client.status();
  RedisStoreOptions options;
  options.keys = KeyRing({'a'});
  options.max_value_bytes = 2 << 20;
  EXPECT_EQ(RedisStore::Open(options, *client).status().code(), StatusCode::kInvalidArgument);
  options.max_value_bytes = 512 << 10;
  EXPECT_TRUE(RedisStore::Open(options, *client).ok());
}

TEST_F(RedisStoreTest, ManyThreadsShareABoundedPool) {
  RedisStoreOptions options;
  options.client.max_connections = 2;
  auto store = OpenStore(KeyRing({'a'}), options);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 30; ++i) {
        const Entry entry = MakeEntry(t * 100 + i, 2000);
        Result<Entry> got =
            store->Put(entry).ok() ? store->Get(entry.key) : Result<Entry>(Internal("put"));
        if (!got.ok() || got->binary != entry.binary) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(store->Stats().client.open_connections, 2u);
  EXPECT_LE(store->Stats().client.connects, 2u);
}

}  // namespace
}  // namespace tilejit::cache
