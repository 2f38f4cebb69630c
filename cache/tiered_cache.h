// SPDX-License-Identifier: Apache-2.0
// TieredCache: the cache the daemon talks to. An in-process MemoryTier sits over an ordered
// list of persistent Stores (today the SQLite store; a shared Redis store is meant to go after
// it). Reads go through the tiers in order; a hit in a slower tier is copied into every faster
// one (promotion/backfill). Writes go to the memory tier and every store (write-through).
// A hit in a faster tier is reported to the slower ones (Store::Touch), so their LRU eviction
// follows real use. Every hit says which tier served it ("memory", or the store's name), for the
// response and for per-tier metrics.
//
// Failure policy (fail open): a store that errors on Get is skipped like a miss, and a failing
// Put still writes the other tiers, so a broken or unreachable tier degrades speed, never
// answers. Failures are counted in Stats().
//
// Ownership and threading: the stores are not owned and must outlive the cache. All methods
// are safe to call concurrently from many threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cache/clock.h"
#include "cache/entry.h"
#include "cache/memory_tier.h"
#include "cache/store.h"
#include "common/result.h"
#include "common/status.h"

namespace tilejit::cache {

inline constexpr std::string_view kMemoryTierName = "memory";

struct TieredCacheOptions {
  uint64_t memory_bytes = 256ull << 20;  // the memory tier's budget; 0 disables it
  // The entry lifetime configured for the stores, applied to entries that the memory tier takes
  // from a Put (entries promoted from a store carry the store's own expiry). 0: no TTL.
  int64_t ttl_ms = 0;
  Clock clock{};  // Unix milliseconds; default SystemNowMs
};

struct CacheHit {
  std::shared_ptr<const Entry> entry;
  std::string_view tier;  // kMemoryTierName or a store's name(); static storage
};

struct TierCounters {
  std::string tier;
  uint64_t hits = 0;
  uint64_t errors = 0;  // Get/Put failures other than a miss
};

struct TieredCacheStats {
  MemoryTierStats memory;
  std::vector<TierCounters> tiers;  // memory first, then each store in order
  uint64_t misses = 0;              // Gets that no tier could answer
};

class TieredCache {
 public:
  // `stores` ordered fastest first; may be empty (memory only).
  TieredCache(TieredCacheOptions options, std::vector<Store*> stores);
  TieredCache(const TieredCache&) = delete;
  TieredCache& operator=(const TieredCache&) = delete;

  // The entry and the tier that served it; NotFound when no tier has a valid entry.
  Result<CacheHit> Get(std::string_view key);
  // Writes `entry` to the memory tier and every store. Returns OK when every store took it,
  // else the first store's failure (the other tiers are still written).
  Status Put(Entry entry);
  // Removes `key` from every tier. NotFound when no tier had it; a store's refusal (a pinned
  // entry) is returned as is.
  Status Evict(std::string_view key);
  // Pins or unpins `key` in every store that holds it; NotFound when none does.
  Status Pin(std::string_view key);
  Status Unpin(std::string_view key);

  TieredCacheStats Stats() const;

 private:
  enum class PinOp { kPin, kUnpin };
  Status ApplyPin(std::string_view key, PinOp op);
  void Backfill(size_t below, const std::shared_ptr<const Entry>& entry);

  TieredCacheOptions options_;
  std::vector<Store*> stores_;
  MemoryTier memory_;
  // Index 0 is the memory tier, i + 1 is stores_[i].
  std::unique_ptr<std::atomic<uint64_t>[]> hits_;
  std::unique_ptr<std::atomic<uint64_t>[]> errors_;
  std::atomic<uint64_t> misses_{0};
};

}  // namespace tilejit::cache
