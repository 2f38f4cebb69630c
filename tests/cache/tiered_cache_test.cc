// SPDX-License-Identifier: Apache-2.0
// The tiered cache over a real SQLite store and an in-test store standing in for a shared
// (Redis-like) tier.
#include "cache/tiered_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "cache/sqlite_store.h"
#include "cache_test_util.h"

namespace tilejit::cache {
namespace {

using testing::FakeClock;
using testing::KeyFor;
using testing::MakeEntry;
using testing::ScratchDir;

// A map-backed Store that can be told to fail, standing in for a remote tier.
class FakeRemote final : public Store {
 public:
  std::string_view name() const override { return "remote"; }
  Result<Entry> Get(std::string_view key) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++gets;
    if (down) return Unavailable("remote down");
    auto it = entries.find(std::string(key));
    if (it == entries.end()) return NotFound("absent");
    return it->second;
  }
  Status Put(const Entry& entry) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (down) return Unavailable("remote down");
    entries[entry.key] = entry;
    return Status::Ok();
  }
  Status Evict(std::string_view key) override {
    std::lock_guard<std::mutex> lock(mu_);
    return entries.erase(std::string(key)) > 0 ? Status::Ok() : NotFound("absent");
  }
  Status Pin(std::string_view key) override { return SetPinned(key, true); }
  Status Unpin(std::string_view key) override { return SetPinned(key, false); }

  std::map<std::string, Entry> entries;
  bool down = false;
  int gets = 0;

 private:
  Status SetPinned(std::string_view key, bool pinned) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries.find(std::string(key));
    if (it == entries.end()) return NotFound("absent");
    it->second.pinned = pinned;
    return Status::Ok();
  }
  std::mutex mu_;
};

class TieredCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = SqliteStore::Open(
        {.path = dir_.File("cache.db"), .ttl_ms = kTtl, .clock = clock_.AsClock()});
    ASSERT_TRUE(store.ok()) << store.status();
    sqlite_ = std::move(store).value();
  }
  std::unique_ptr<TieredCache> MakeCache(std::vector<Store*> stores) {
    return std::make_unique<TieredCache>(
        TieredCacheOptions{.memory_bytes = 1 << 20, .ttl_ms = kTtl, .clock = clock_.AsClock()},
        std::move(stores));
  }
  std::string_view TierOf(TieredCache* cache, int n) {
    Result<CacheHit> hit = cache->Get(KeyFor(n));
    return hit.ok() ? hit->tier : std::string_view("miss");
  }

  static constexpr int64_t kTtl = 10'000;
  ScratchDir dir_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> sqlite_;
  FakeRemote remote_;
};

TEST_F(TieredCacheTest, PutThenGetIsServedFromMemory) {
  auto cache = MakeCache({sqlite_.get()});
  ASSERT_TRUE(cache->Put(MakeEntry(1)).ok());
  Result<CacheHit> hit = cache->Get(KeyFor(1));
  ASSERT_TRUE(hit.ok());
  EXPECT_EQ(hit->tier, "memory");
  EXPECT_EQ(hit->entry->binary, MakeEntry(1).binary);
  EXPECT_TRUE(sqlite_->Get(KeyFor(1)).ok()) << "write-through to SQLite";
}

TEST_F(TieredCacheTest, SqliteHitIsPromotedToMemory) {
  ASSERT_TRUE(sqlite_->Put(MakeEntry(1)).ok());  // e.g. written before a restart
  auto cache = MakeCache({sqlite_.get()});
  EXPECT_EQ(TierOf(cache.get(), 1), "sqlite");
  EXPECT_EQ(TierOf(cache.get(), 1), "memory");
  const TieredCacheStats stats = cache->Stats();
  ASSERT_EQ(stats.tiers.size(), 2u);
  EXPECT_EQ(stats.tiers[0].hits, 1u);
  EXPECT_EQ(stats.tiers[1].tier, "sqlite");
  EXPECT_EQ(stats.tiers[1].hits, 1u);
}

TEST_F(TieredCacheTest, MemoryHitCountsAsUseInSqliteLru) {
  // Room for three ~110-byte entries: the fourth Put evicts the least recently used one.
  auto capped = SqliteStore::Open(
      {.path = dir_.File("capped.db"), .max_bytes = 350, .clock = clock_.AsClock()});
  ASSERT_TRUE(capped.ok()) << capped.status();
  auto cache = MakeCache({capped->get()});
  for (int n = 1; n <= 3; ++n) {
    ASSERT_TRUE(cache->Put(MakeEntry(n)).ok());
    clock_.Advance(10);
  }
  EXPECT_EQ(TierOf(cache.get(), 1), "memory");  // SQLite itself is not read
  clock_.Advance(10);
  ASSERT_TRUE(cache->Put(MakeEntry(4)).ok());
  EXPECT_TRUE((*capped)->Get(KeyFor(1)).ok()) << "used through memory, so not the LRU victim";
  EXPECT_EQ((*capped)->Get(KeyFor(2)).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE((*capped)->Get(KeyFor(3)).ok());
}

TEST_F(TieredCacheTest, RemoteHitBackfillsSqliteAndMemory) {
  remote_.entries[KeyFor(1)] = MakeEntry(1);
  auto cache = MakeCache({sqlite_.get(), &remote_});
  EXPECT_EQ(TierOf(cache.get(), 1), "remote");
  EXPECT_TRUE(sqlite_->Get(KeyFor(1)).ok());
  EXPECT_EQ(TierOf(cache.get(), 1), "memory");
  EXPECT_EQ(remote_.gets, 1);
}

TEST_F(TieredCacheTest, MissEverywhereIsNotFound) {
  auto cache = MakeCache({sqlite_.get(), &remote_});
  EXPECT_EQ(cache->Get(KeyFor(1)).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(cache->Stats().misses, 1u);
}

TEST_F(TieredCacheTest, DownRemoteDegradesToLocalTiers) {
  remote_.down = true;
  auto cache = MakeCache({sqlite_.get(), &remote_});
  const Status put = cache->Put(MakeEntry(1));
  EXPECT_EQ(put.code(), StatusCode::kUnavailable);  // reported, but local tiers took it
  EXPECT_TRUE(sqlite_->Get(KeyFor(1)).ok());
  EXPECT_EQ(TierOf(cache.get(), 1), "memory");
  EXPECT_EQ(cache->Get(KeyFor(2)).status().code(), StatusCode::kNotFound);
  const TieredCacheStats stats = cache->Stats();
  EXPECT_EQ(stats.tiers[2].errors, 2u);  // the failed Put and the failed Get
}

TEST_F(TieredCacheTest, ExpiredMemoryCopyIsNotServed) {
  auto cache = MakeCache({sqlite_.get()});
  ASSERT_TRUE(cache->Put(MakeEntry(1)).ok());
  clock_.Advance(kTtl);
  EXPECT_EQ(TierOf(cache.get(), 1), "miss");
}

TEST_F(TieredCacheTest, PinnedEntrySurvivesTtlThroughTheTiers) {
  auto cache = MakeCache({sqlite_.get()});
  ASSERT_TRUE(cache->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(cache->Pin(KeyFor(1)).ok());
  clock_.Advance(2 * kTtl);
  EXPECT_EQ(TierOf(cache.get(), 1), "sqlite");
  EXPECT_EQ(TierOf(cache.get(), 1), "memory");
  ASSERT_TRUE(cache->Unpin(KeyFor(1)).ok());
  EXPECT_EQ(TierOf(cache.get(), 1), "miss");  // the unpinned entry is long expired
}

TEST_F(TieredCacheTest, EvictRemovesFromEveryTier) {
  auto cache = MakeCache({sqlite_.get(), &remote_});
  ASSERT_TRUE(cache->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(cache->Evict(KeyFor(1)).ok());
  EXPECT_EQ(TierOf(cache.get(), 1), "miss");
  EXPECT_TRUE(remote_.entries.empty());
  EXPECT_EQ(cache->Evict(KeyFor(1)).code(), StatusCode::kNotFound);
}

TEST_F(TieredCacheTest, EvictOfPinnedEntryIsRefused) {
  auto cache = MakeCache({sqlite_.get()});
  ASSERT_TRUE(cache->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(cache->Pin(KeyFor(1)).ok());
  EXPECT_EQ(cache->Evict(KeyFor(1)).code(), StatusCode::kInvalidArgument);
  EXPECT_NE(TierOf(cache.get(), 1), "miss");
}

TEST_F(TieredCacheTest, PinOfUnknownKeyIsNotFound) {
  auto cache = MakeCache({sqlite_.get(), &remote_});
  EXPECT_EQ(cache->Pin(KeyFor(5)).code(), StatusCode::kNotFound);
}

TEST_F(TieredCacheTest, SqliteCorruptionFallsThroughToRemote) {
  auto cache = MakeCache({sqlite_.get(), &remote_});
  ASSERT_TRUE(sqlite_->Put(MakeEntry(1)).ok());
  remote_.entries[KeyFor(1)] = MakeEntry(1);
  testing::RawExec(dir_.File("cache.db"), "UPDATE blobs SET data = CAST('bad' AS BLOB)");
  EXPECT_EQ(TierOf(cache.get(), 1), "remote");
  EXPECT_EQ(sqlite_->Stats()->corruptions, 1u);
  EXPECT_TRUE(sqlite_->Get(KeyFor(1)).ok()) << "backfill healed the local copy";
}

TEST_F(TieredCacheTest, ConcurrentPutAndGetFromEightThreadsWithMemoryPressure) {
  // A memory tier that holds about ten entries, so promotions and evictions interleave.
  TieredCache cache(TieredCacheOptions{.memory_bytes = 10 * MemoryTier::Charge(MakeEntry(0)),
                                       .ttl_ms = 0,
                                       .clock = clock_.AsClock()},
                    {sqlite_.get()});
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 30; ++i) {
        const int n = (t * 7 + i) % 40;  // keys shared between threads
        if (!cache.Put(MakeEntry(n)).ok()) ++bad;
        Result<CacheHit> hit = cache.Get(KeyFor(n));
        if (!hit.ok() || hit->entry->binary != MakeEntry(n).binary) ++bad;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_LE(cache.Stats().memory.bytes, 10 * MemoryTier::Charge(MakeEntry(0)));
}

TEST_F(TieredCacheTest, MemoryOnlyCacheWorksWithoutStores) {
  auto cache = MakeCache({});
  ASSERT_TRUE(cache->Put(MakeEntry(1)).ok());
  EXPECT_EQ(TierOf(cache.get(), 1), "memory");
}

}  // namespace
}  // namespace tilejit::cache
