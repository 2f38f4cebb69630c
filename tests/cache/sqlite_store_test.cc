// SPDX-License-Identifier: Apache-2.0
// Entry operations of the SQLite store: round trips, verification, eviction, TTL, pins,
// listing, write failures and concurrency.
#include "cache/sqlite_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cache_test_util.h"

namespace tilejit::cache {
namespace {

using testing::FakeClock;
using testing::KeyFor;
using testing::MakeEntry;
using testing::RawExec;
using testing::ScratchDir;

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteStore> OpenStore(SqliteStoreOptions options = {}) {
    options.path = path_;
    if (!options.clock) options.clock = clock_.AsClock();
    Result<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(std::move(options));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  std::vector<std::string> ListKeys(SqliteStore* store, ListOptions options) {
    Result<std::vector<EntryInfo>> infos = store->List(options);
    EXPECT_TRUE(infos.ok()) << infos.status();
    std::vector<std::string> keys;
    if (infos.ok()) {
      for (const EntryInfo& info : *infos) keys.push_back(info.key);
    }
    return keys;
  }
  StoreStats StatsOf(SqliteStore* store) {
    Result<StoreStats> stats = store->Stats();
    EXPECT_TRUE(stats.ok()) << stats.status();
    return stats.ok() ? *stats : StoreStats{};
  }

  ScratchDir dir_;
  std::string path_ = dir_.File("cache.db");
  FakeClock clock_;
};

TEST_F(SqliteStoreTest, GetReturnsExactlyWhatWasPut) {
  auto store = OpenStore();
  Entry entry = MakeEntry(1, 5000);
  entry.binary[17] = '\0';  // binaries contain NULs
  entry.side["diagnostics"] = "";
  ASSERT_TRUE(store->Put(entry).ok());
  Result<Entry> got = store->Get(entry.key);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->key, entry.key);
  EXPECT_EQ(got->binary, entry.binary);
  EXPECT_EQ(got->side, entry.side);
  EXPECT_FALSE(got->pinned);
  EXPECT_EQ(got->expires_ms, 0);
}

TEST_F(SqliteStoreTest, MissIsNotFoundAndCounted) {
  auto store = OpenStore();
  EXPECT_EQ(store->Get(KeyFor(9)).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(store->Get(KeyFor(1)).ok());
  const StoreStats stats = StatsOf(store.get());
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.puts, 1u);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, MakeEntry(1).ByteSize());
}

TEST_F(SqliteStoreTest, PutReplacesEntryAndKeepsTotalsExact) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put(MakeEntry(1, 100)).ok());
  Entry bigger = MakeEntry(1, 300);
  bigger.side.clear();
  ASSERT_TRUE(store->Put(bigger).ok());
  Result<Entry> got = store->Get(KeyFor(1));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->binary.size(), 300u);
  EXPECT_TRUE(got->side.empty());
  const StoreStats stats = StatsOf(store.get());
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, 300u);
}

TEST_F(SqliteStoreTest, RejectsInvalidKeysWithoutTouchingTheDatabase) {
  auto store = OpenStore();
  EXPECT_EQ(store->Get("NOT-HEX").status().code(), StatusCode::kInvalidArgument);
  Entry entry = MakeEntry(1);
  entry.key = "zz";
  EXPECT_EQ(store->Put(entry).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(StatsOf(store.get()).write_failures, 0u);
}

TEST_F(SqliteStoreTest, CorruptBlobIsCountedDroppedAndReportedAsMiss) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(store->Put(MakeEntry(2)).ok());
  // Damage one byte of entry 1's binary behind the store's back.
  RawExec(path_,
          "UPDATE blobs SET data = CAST(X'00' AS BLOB) || substr(data, 2) WHERE name = 'binary' "
          "AND entry_id = (SELECT id FROM entries WHERE key = '" +
              KeyFor(1) + "')");
  const Result<Entry> got = store->Get(KeyFor(1));
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_NE(got.status().message().find("SHA-256"), std::string::npos);
  StoreStats stats = StatsOf(store.get());
  EXPECT_EQ(stats.corruptions, 1u);
  EXPECT_EQ(stats.entries, 1u);  // dropped
  // The neighbour is untouched, and a recompile's Put heals the key.
  EXPECT_TRUE(store->Get(KeyFor(2)).ok());
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  EXPECT_TRUE(store->Get(KeyFor(1)).ok());
}

TEST_F(SqliteStoreTest, CorruptSideBlobDigestIsDetected) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  RawExec(path_,
          "UPDATE blobs SET sha256 = '00' || substr(sha256, 3) WHERE name = 'metadata.json'");
  EXPECT_EQ(store->Get(KeyFor(1)).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(StatsOf(store.get()).corruptions, 1u);
}

TEST_F(SqliteStoreTest, MissingBinaryBlobIsCorruption) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  RawExec(path_, "DELETE FROM blobs WHERE name = 'binary'");
  EXPECT_EQ(store->Get(KeyFor(1)).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(StatsOf(store.get()).corruptions, 1u);
}

TEST_F(SqliteStoreTest, LruEvictionRemovesLeastRecentlyUsedAndNeverPinned) {
  // Each entry is 100 + 9 bytes; the cap holds four.
  auto store = OpenStore({.max_bytes = 4 * 109 + 50});
  for (int i = 1; i <= 4; ++i) {
    ASSERT_TRUE(store->Put(MakeEntry(i)).ok());
    clock_.Advance(10);
  }
  ASSERT_TRUE(store->Pin(KeyFor(1)).ok());  // oldest, but pinned
  ASSERT_TRUE(store->Get(KeyFor(2)).ok());  // now recently used
  clock_.Advance(10);
  ASSERT_TRUE(store->Put(MakeEntry(5)).ok());  // evicts 3, the LRU unpinned entry
  clock_.Advance(10);
  ASSERT_TRUE(store->Put(MakeEntry(6)).ok());  // evicts 4
  for (int evicted : {3, 4}) {
    EXPECT_EQ(store->Get(KeyFor(evicted)).status().code(), StatusCode::kNotFound) << evicted;
  }
  for (int kept : {1, 2, 5, 6}) EXPECT_TRUE(store->Get(KeyFor(kept)).ok()) << kept;
  const StoreStats stats = StatsOf(store.get());
  EXPECT_EQ(stats.evictions, 2u);
  EXPECT_LE(stats.bytes, 4u * 109 + 50);
  EXPECT_EQ(stats.pinned_entries, 1u);
}

TEST_F(SqliteStoreTest, StaysUnderCapAcrossManyInserts) {
  const uint64_t cap = 3000;
  auto store = OpenStore({.max_bytes = cap});
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(store->Put(MakeEntry(i, 50 + (i * 37) % 400)).ok());
    clock_.Advance(1);
    ASSERT_LE(StatsOf(store.get()).bytes, cap);
  }
  EXPECT_TRUE(store->Get(KeyFor(99)).ok());  // the newest entry survives its own insertion
}

TEST_F(SqliteStoreTest, RefusesEntryLargerThanCap) {
  auto store = OpenStore({.max_bytes = 500});
  const Status status = store->Put(MakeEntry(1, 1000));
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(StatsOf(store.get()).write_failures, 1u);
}

TEST_F(SqliteStoreTest, RefusesWriteWhenPinnedEntriesFillTheCap) {
  auto store = OpenStore({.max_bytes = 250});
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(store->Pin(KeyFor(1)).ok());
  ASSERT_TRUE(store->Put(MakeEntry(2)).ok());
  ASSERT_TRUE(store->Pin(KeyFor(2)).ok());
  const Status status = store->Put(MakeEntry(3));
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(status.message().find("pinned"), std::string::npos);
  // The refused write left nothing behind.
  const StoreStats stats = StatsOf(store.get());
  EXPECT_EQ(stats.entries, 2u);
  EXPECT_EQ(stats.write_failures, 1u);
}

TEST_F(SqliteStoreTest, ExpiredEntriesAreMissesAndRemoved) {
  auto store = OpenStore({.ttl_ms = 1000});
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  clock_.Advance(999);
  Result<Entry> got = store->Get(KeyFor(1));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->expires_ms, got->created_ms + 1000);
  clock_.Advance(1);
  EXPECT_EQ(store->Get(KeyFor(1)).status().code(), StatusCode::kNotFound);
  const StoreStats stats = StatsOf(store.get());
  EXPECT_EQ(stats.entries, 0u);
  EXPECT_EQ(stats.expirations, 1u);
}

TEST_F(SqliteStoreTest, PinnedEntriesNeverExpire) {
  auto store = OpenStore({.ttl_ms = 1000});
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(store->Pin(KeyFor(1)).ok());
  clock_.Advance(5000);
  Result<Entry> got = store->Get(KeyFor(1));
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->pinned);
  EXPECT_EQ(got->expires_ms, 0);
  ASSERT_TRUE(store->Unpin(KeyFor(1)).ok());
  EXPECT_EQ(store->Get(KeyFor(1)).status().code(), StatusCode::kNotFound);
}

TEST_F(SqliteStoreTest, PutSweepsExpiredEntries) {
  auto store = OpenStore({.ttl_ms = 1000});
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(store->Put(MakeEntry(2)).ok());
  clock_.Advance(2000);
  ASSERT_TRUE(store->Put(MakeEntry(3)).ok());
  const StoreStats stats = StatsOf(store.get());
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.expirations, 2u);
}

TEST_F(SqliteStoreTest, RemoveExpiredReportsCount) {
  auto store = OpenStore({.ttl_ms = 1000});
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(store->Put(MakeEntry(2)).ok());
  ASSERT_TRUE(store->Pin(KeyFor(2)).ok());
  clock_.Advance(1000);
  Result<uint64_t> removed = store->RemoveExpired();
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 1u);
}

TEST_F(SqliteStoreTest, CannotPinAnExpiredEntry) {
  auto store = OpenStore({.ttl_ms = 1000});
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  clock_.Advance(1000);
  EXPECT_EQ(store->Pin(KeyFor(1)).code(), StatusCode::kNotFound);
}

TEST_F(SqliteStoreTest, EvictRemovesOneEntryAndRefusesPinned) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(store->Put(MakeEntry(2)).ok());
  ASSERT_TRUE(store->Pin(KeyFor(2)).ok());
  EXPECT_TRUE(store->Evict(KeyFor(1)).ok());
  EXPECT_EQ(store->Evict(KeyFor(1)).code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Evict(KeyFor(2)).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(store->Unpin(KeyFor(2)).ok());
  EXPECT_TRUE(store->Evict(KeyFor(2)).ok());
  EXPECT_EQ(StatsOf(store.get()).entries, 0u);
  EXPECT_EQ(StatsOf(store.get()).write_failures, 0u);
}

TEST_F(SqliteStoreTest, PinAndUnpinOfAbsentKeyIsNotFound) {
  auto store = OpenStore();
  EXPECT_EQ(store->Pin(KeyFor(1)).code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Unpin(KeyFor(1)).code(), StatusCode::kNotFound);
}

TEST_F(SqliteStoreTest, PutOverPinnedEntryKeepsThePin) {
  auto store = OpenStore();
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  ASSERT_TRUE(store->Pin(KeyFor(1)).ok());
  ASSERT_TRUE(store->Put(MakeEntry(1, 10)).ok());
  Result<Entry> got = store->Get(KeyFor(1));
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->pinned);
}

TEST_F(SqliteStoreTest, ListOrdersLimitsAndFilters) {
  auto store = OpenStore();
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(store->Put(MakeEntry(i, 100 * i)).ok());
    clock_.Advance(10);
  }
  ASSERT_TRUE(store->Get(KeyFor(2)).ok());  // most recently used now
  ASSERT_TRUE(store->Get(KeyFor(2)).ok());

  std::vector<std::string> recent = ListKeys(store.get(), {.limit = 2});
  EXPECT_EQ(recent, (std::vector<std::string>{KeyFor(2), KeyFor(5)}));
  std::vector<std::string> lru = ListKeys(store.get(), {.order = ListOrder::kLastAccessAsc});
  EXPECT_EQ(lru.front(), KeyFor(1));
  EXPECT_EQ(ListKeys(store.get(), {.order = ListOrder::kBytesDesc}).front(), KeyFor(5));
  EXPECT_EQ(ListKeys(store.get(), {.order = ListOrder::kCreatedDesc}).front(), KeyFor(5));
  std::vector<std::string> by_key = ListKeys(store.get(), {.order = ListOrder::kKey, .limit = 0});
  ASSERT_EQ(by_key.size(), 5u);
  EXPECT_TRUE(std::is_sorted(by_key.begin(), by_key.end()));

  const std::string prefix = KeyFor(3).substr(0, 6);
  EXPECT_EQ(ListKeys(store.get(), {.prefix = prefix}), std::vector<std::string>{KeyFor(3)});
  EXPECT_EQ(store->List({.prefix = "XYZ"}).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SqliteStoreTest, ListDescribesBlobsAndAccessCounts) {
  auto store = OpenStore({.ttl_ms = 60'000});
  const Entry entry = MakeEntry(1, 10);
  ASSERT_TRUE(store->Put(entry).ok());
  ASSERT_TRUE(store->Get(entry.key).ok());
  ASSERT_TRUE(store->Get(entry.key).ok());
  Result<std::vector<EntryInfo>> infos = store->List({});
  ASSERT_TRUE(infos.ok());
  ASSERT_EQ(infos->size(), 1u);
  const EntryInfo& info = (*infos)[0];
  EXPECT_EQ(info.access_count, 2u);
  EXPECT_EQ(info.bytes, entry.ByteSize());
  EXPECT_EQ(info.expires_ms, info.created_ms + 60'000);
  ASSERT_EQ(info.blobs.size(), 2u);
  EXPECT_EQ(info.blobs[0].name, "binary");
  EXPECT_EQ(info.blobs[0].size, 10u);
  EXPECT_EQ(info.blobs[0].sha256, Sha256Hex(entry.binary));
  EXPECT_EQ(info.blobs[1].name, "metadata.json");
}

TEST_F(SqliteStoreTest, DiskFullFailsWritesWithCounterWhileReadsContinue) {
  // A page limit stands in for a full disk: SQLite reports SQLITE_FULL either way.
  auto store = OpenStore({.max_db_pages = 16});
  ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  Status status;
  int i = 2;
  for (; i < 200 && status.ok(); ++i) status = store->Put(MakeEntry(i, 2000));
  ASSERT_FALSE(status.ok()) << "the page limit was never reached";
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status;
  EXPECT_GE(StatsOf(store.get()).write_failures, 1u);
  EXPECT_TRUE(store->Get(KeyFor(1)).ok());
  EXPECT_EQ(store->Get(KeyFor(i - 1)).status().code(), StatusCode::kNotFound);  // no half entry
  EXPECT_TRUE(store->CheckIntegrity(/*full=*/true).ok());
}

TEST_F(SqliteStoreTest, ReadOnlyStoreServesReadsAndCountsRefusedWrites) {
  {
    auto writer = OpenStore();
    ASSERT_TRUE(writer->Put(MakeEntry(1)).ok());
  }
  auto store = OpenStore({.read_only = true});
  EXPECT_TRUE(store->open_report().read_only);
  EXPECT_TRUE(store->Get(KeyFor(1)).ok());
  EXPECT_EQ(store->Put(MakeEntry(2)).code(), StatusCode::kUnavailable);
  EXPECT_EQ(store->Pin(KeyFor(1)).code(), StatusCode::kUnavailable);
  EXPECT_EQ(StatsOf(store.get()).write_failures, 2u);
}

TEST_F(SqliteStoreTest, HitTimesReachTheDatabaseWithoutAWrite) {
  // More distinct hits than the pending-touch bound makes a Get write them out itself.
  auto store = OpenStore();
  constexpr int kEntries = 300;
  for (int i = 0; i < kEntries; ++i) ASSERT_TRUE(store->Put(MakeEntry(i, 10)).ok());
  clock_.Advance(5000);
  for (int i = 0; i < kEntries; ++i) ASSERT_TRUE(store->Get(KeyFor(i)).ok());
  const int64_t touched =
      testing::RawQueryInt(path_, "SELECT COUNT(*) FROM entries WHERE access_count = 1");
  EXPECT_GE(touched, 256);
}

TEST_F(SqliteStoreTest, PendingHitTimesArePersistedOnClose) {
  {
    auto store = OpenStore();
    ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
    clock_.Advance(5000);
    ASSERT_TRUE(store->Get(KeyFor(1)).ok());
  }
  EXPECT_EQ(testing::RawQueryInt(path_, "SELECT access_count FROM entries"), 1);
  EXPECT_EQ(testing::RawQueryInt(path_, "SELECT last_access_ms - created_ms FROM entries"), 5000);
}

TEST_F(SqliteStoreTest, UnwritableDirectoryFallsBackToReadOnly) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores file permissions";
  {
    auto store = OpenStore();
    ASSERT_TRUE(store->Put(MakeEntry(1)).ok());
  }
  std::filesystem::permissions(
      dir_.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  std::filesystem::permissions(path_, std::filesystem::perms::owner_read);
  auto store = OpenStore();
  std::filesystem::permissions(dir_.path(), std::filesystem::perms::owner_all);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->open_report().read_only) << store->open_report().ToString();
  EXPECT_TRUE(store->Get(KeyFor(1)).ok());
  EXPECT_EQ(store->Put(MakeEntry(2)).code(), StatusCode::kUnavailable);
  EXPECT_EQ(StatsOf(store.get()).write_failures, 1u);
}

TEST_F(SqliteStoreTest, ConcurrentPutAndGetFromEightThreads) {
  auto store = OpenStore();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 40;
  constexpr int kHot = 999'999;  // a key no thread owns
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Each thread writes its own keys and also reads and rewrites a shared hot key.
        const int n = t * 1000 + i;
        if (!store->Put(MakeEntry(n)).ok()) ++bad;
        Result<Entry> mine = store->Get(KeyFor(n));
        if (!mine.ok() || mine->binary != MakeEntry(n).binary) ++bad;
        if (!store->Put(MakeEntry(kHot, 64)).ok()) ++bad;
        Result<Entry> hot = store->Get(KeyFor(kHot));
        if (!hot.ok() || hot->binary != MakeEntry(kHot, 64).binary) ++bad;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  const StoreStats stats = StatsOf(store.get());
  EXPECT_EQ(stats.entries, static_cast<uint64_t>(kThreads * kPerThread + 1));
  EXPECT_EQ(stats.corruptions, 0u);
  EXPECT_EQ(stats.write_failures, 0u);
  EXPECT_TRUE(store->CheckIntegrity(/*full=*/true).ok());
}

}  // namespace
}  // namespace tilejit::cache
