// SPDX-License-Identifier: Apache-2.0
// Store: the interface of one persistent cache tier below the in-process memory tier. The
// SQLite store implements it today; a shared Redis store is meant to implement it too, so
// TieredCache treats every tier alike.
//
// Contract for implementations:
// - Get returns the entry with every blob's digest verified, or NotFound on a miss. A miss
//   includes an absent key, an expired entry and an entry dropped because it failed
//   verification; the caller recompiles in every case. Other codes (Unavailable, Internal)
//   mean the tier itself failed; callers treat them as a miss too but may log them.
// - Put publishes the whole entry atomically or not at all.
// - Evict removes an entry; NotFound when absent.
// - Pin exempts an entry from eviction and TTL until Unpin; both NotFound when absent.
// - All methods are safe to call concurrently from many threads.
#pragma once

#include <string_view>

#include "cache/entry.h"
#include "common/result.h"
#include "common/status.h"

namespace tilejit::cache {

class Store {
 public:
  virtual ~Store() = default;

  // The tier's name as reported with a hit ("sqlite", "redis").
  virtual std::string_view name() const = 0;

  virtual Result<Entry> Get(std::string_view key) = 0;
  virtual Status Put(const Entry& entry) = 0;
  virtual Status Evict(std::string_view key) = 0;
  virtual Status Pin(std::string_view key) = 0;
  virtual Status Unpin(std::string_view key) = 0;
  // Records that `key` was just served by a faster tier above this one, so that this tier's
  // least-recently-used order sees the use (otherwise a kernel hot in memory would look cold
  // here and be evicted first). Best effort and cheap: it may be applied later, and an absent
  // key is ignored. The default does nothing (tiers without an LRU of their own).
  virtual void Touch(std::string_view key) { (void)key; }
};

}  // namespace tilejit::cache
