// SPDX-License-Identifier: Apache-2.0
// Cluster single-flight leases against a real redis-server: exclusivity, owner-checked extend
// and release, expiry, and sharing the store's client (pool and breaker).
#include "cache/redis_lease.h"

#include <gtest/gtest.h>

#include <string>

#include "cache/redis_store.h"
#include "cache_test_util.h"
#include "redis_test_util.h"

namespace tilejit::cache {
namespace {

using testing::KeyFor;
using testing::RawRedis;
using testing::RedisServerProcess;
using testing::WaitFor;

class RedisLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start());
    raw_ = std::make_unique<RawRedis>(server_.port());
    RedisClientOptions options;
    options.url = server_.url();
    options.command_timeout_ms = 2000;
    options.connect_timeout_ms = 2000;
    Result<std::shared_ptr<RedisClient>> client = RedisClient::Create(options);
    ASSERT_TRUE(client.ok()) << client.status();
    Result<std::unique_ptr<RedisLease>> lease =
        RedisLease::Create(*client, std::string(kDefaultRedisNamespace));
    ASSERT_TRUE(lease.ok()) << lease.status();
    lease_ = std::move(lease).value();
  }
  bool Acquire(const std::string& owner, int64_t ttl_ms = 10'000) {
    Result<bool> held = lease_->TryAcquire(key_, owner, ttl_ms);
    EXPECT_TRUE(held.ok()) << held.status();
    return held.ok() && *held;
  }
  std::optional<std::string> HolderNow() {
    Result<std::optional<std::string>> holder = lease_->Holder(key_);
    EXPECT_TRUE(holder.ok()) << holder.status();
    return holder.ok() ? *holder : std::nullopt;
  }

  RedisServerProcess server_;
  std::unique_ptr<RawRedis> raw_;
  std::unique_ptr<RedisLease> lease_;
  std::string key_ = KeyFor(1);
};

TEST_F(RedisLeaseTest, OnlyOneOwnerAcquires) {
  EXPECT_EQ(HolderNow(), std::nullopt);
  EXPECT_TRUE(Acquire("node-a/1"));
  EXPECT_FALSE(Acquire("node-b/1"));
  EXPECT_FALSE(Acquire("node-a/1")) << "re-acquiring is Extend's job";
  EXPECT_EQ(HolderNow(), "node-a/1");
  EXPECT_EQ(raw_->Command({"GET", "tilejit:v1:lease:" + key_}).str, "node-a/1");
  EXPECT_TRUE(lease_->TryAcquire(KeyFor(2), "node-b/1", 10'000).value()) << "other keys are free";
}

TEST_F(RedisLeaseTest, OnlyTheOwnerReleases) {
  ASSERT_TRUE(Acquire("node-a/1"));
  EXPECT_FALSE(lease_->Release(key_, "node-b/1").value());
  EXPECT_EQ(HolderNow(), "node-a/1");
  EXPECT_TRUE(lease_->Release(key_, "node-a/1").value());
  EXPECT_EQ(HolderNow(), std::nullopt);
  EXPECT_FALSE(lease_->Release(key_, "node-a/1").value()) << "already released";
  EXPECT_TRUE(Acquire("node-b/1"));
}

TEST_F(RedisLeaseTest, OnlyTheOwnerExtends) {
  ASSERT_TRUE(Acquire("node-a/1", 1000));
  EXPECT_FALSE(lease_->Extend(key_, "node-b/1", 60'000).value());
  EXPECT_LE(raw_->Command({"PTTL", lease_->LeaseKey(key_)}).integer, 1000);
  EXPECT_TRUE(lease_->Extend(key_, "node-a/1", 60'000).value());
  EXPECT_GT(raw_->Command({"PTTL", lease_->LeaseKey(key_)}).integer, 1000);
}

TEST_F(RedisLeaseTest, LeaseLapsesAfterItsTtl) {
  ASSERT_TRUE(Acquire("node-a/1", 100));
  EXPECT_FALSE(Acquire("node-b/1"));
  EXPECT_TRUE(WaitFor([&] { return Acquire("node-b/1"); }, 5000));
  EXPECT_EQ(HolderNow(), "node-b/1");
  // The first owner's lease is gone: it can neither renew nor delete the new holder's.
  EXPECT_FALSE(lease_->Extend(key_, "node-a/1", 10'000).value());
  EXPECT_FALSE(lease_->Release(key_, "node-a/1").value());
  EXPECT_EQ(HolderNow(), "node-b/1");
}

TEST_F(RedisLeaseTest, RefusesBadArguments) {
  EXPECT_EQ(lease_->TryAcquire("XYZ", "a", 100).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(lease_->TryAcquire(key_, "", 100).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(lease_->TryAcquire(key_, "a\nb", 100).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(lease_->TryAcquire(key_, "a", 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(lease_->Extend(key_, "a", -5).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(RedisLease::Create(nullptr, "x:").ok());
}

TEST_F(RedisLeaseTest, SharesTheStoresClientAndItsBreaker) {
  Result<ClusterKeyRing> ring = ClusterKeyRing::FromKeys({std::string(32, 'l')});
  ASSERT_TRUE(ring.ok());
  RedisStoreOptions options;
  options.client.url = server_.url();
  options.client.command_timeout_ms = 500;
  options.client.breaker.failure_threshold = 1;
  options.client.breaker.cooldown_ms = 60'000;
  options.keys = std::make_shared<const ClusterKeyRing>(std::move(ring).value());
  Result<std::unique_ptr<RedisStore>> store = RedisStore::Open(std::move(options));
  ASSERT_TRUE(store.ok()) << store.status();
  Result<std::unique_ptr<RedisLease>> lease =
      RedisLease::Create((*store)->client(), std::string(kDefaultRedisNamespace));
  ASSERT_TRUE(lease.ok());
  EXPECT_TRUE((*lease)->TryAcquire(key_, "node-a/1", 10'000).value());
  server_.Stop();
  EXPECT_EQ((*store)->Get(key_).status().code(), StatusCode::kUnavailable);
  // The breaker opened on the store's failure; the lease fails fast through it.
  const uint64_t rejected = (*store)->Stats().client.breaker.rejected;
  EXPECT_EQ((*lease)->Release(key_, "node-a/1").status().code(), StatusCode::kUnavailable);
  EXPECT_EQ((*store)->Stats().client.breaker.rejected, rejected + 1);
}

}  // namespace
}  // namespace tilejit::cache
