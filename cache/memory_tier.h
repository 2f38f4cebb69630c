// SPDX-License-Identifier: Apache-2.0
// MemoryTier: the in-process LRU of recently used cache entries, bounded by bytes. It serves
// repeated hits without touching SQLite. Entries are immutable and shared: Get hands out the
// same std::shared_ptr<const Entry> to every caller, so a hit copies no kernel bytes.
//
// Threading: all methods are safe to call concurrently (one internal mutex, held only for
// list and map updates).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cache/entry.h"

namespace tilejit::cache {

struct MemoryTierStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;  // sum of Charge() over held entries
  uint64_t max_bytes = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;  // entries dropped to stay under max_bytes
};

class MemoryTier {
 public:
  // `max_bytes` 0 disables the tier (every Get misses, Put keeps nothing).
  explicit MemoryTier(uint64_t max_bytes) : max_bytes_(max_bytes) {}
  MemoryTier(const MemoryTier&) = delete;
  MemoryTier& operator=(const MemoryTier&) = delete;

  // The entry, now the most recently used; nullptr on a miss.
  std::shared_ptr<const Entry> Get(std::string_view key);
  // Inserts or replaces `entry` as the most recently used, evicting from the cold end until the
  // tier fits. An entry larger than the whole tier is not kept (and replaces nothing).
  void Put(std::shared_ptr<const Entry> entry);
  // Removes `key`; true when it was present.
  bool Erase(std::string_view key);
  void Clear();

  MemoryTierStats Stats() const;

  // The bytes an entry is charged: its blobs plus its key.
  static uint64_t Charge(const Entry& entry) { return entry.ByteSize() + entry.key.size(); }

 private:
  using List = std::list<std::shared_ptr<const Entry>>;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };

  void RemoveLocked(List::iterator it);

  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  List lru_;  // most recently used first; guarded by mu_
  std::unordered_map<std::string, List::iterator, Hash, std::equal_to<>> index_;  // guarded
  uint64_t bytes_ = 0, hits_ = 0, misses_ = 0, evictions_ = 0;                    // guarded
};

}  // namespace tilejit::cache
