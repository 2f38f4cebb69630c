// SPDX-License-Identifier: Apache-2.0
#include "cache/tiered_cache.h"

#include <utility>

namespace tilejit::cache {

TieredCache::TieredCache(TieredCacheOptions options, std::vector<Store*> stores)
    : options_(std::move(options)),
      stores_(std::move(stores)),
      memory_(options_.memory_bytes),
      hits_(new std::atomic<uint64_t>[stores_.size() + 1]),
      errors_(new std::atomic<uint64_t>[stores_.size() + 1]) {
  if (!options_.clock) options_.clock = SystemNowMs;
  for (size_t i = 0; i <= stores_.size(); ++i) {
    hits_[i] = 0;
    errors_[i] = 0;
  }
}

Result<CacheHit> TieredCache::Get(std::string_view key) {
  const int64_t now = options_.clock();
  if (std::shared_ptr<const Entry> entry = memory_.Get(key)) {
    // The memory copy carries the expiry it was stored with; past it, ask the stores, which
    // decide (a pinned entry there is still valid and comes back fresh).
    if (entry->expires_ms == 0 || now < entry->expires_ms) {
      for (Store* store : stores_) store->Touch(key);
      ++hits_[0];
      return CacheHit{std::move(entry), kMemoryTierName};
    }
    memory_.Erase(key);
  }
  for (size_t i = 0; i < stores_.size(); ++i) {
    Result<Entry> found = stores_[i]->Get(key);
    if (!found.ok()) {
      if (found.status().code() != StatusCode::kNotFound) ++errors_[i + 1];
      continue;
    }
    auto entry = std::make_shared<const Entry>(std::move(found).value());
    Backfill(i, entry);
    memory_.Put(entry);
    ++hits_[i + 1];
    return CacheHit{std::move(entry), stores_[i]->name()};
  }
  ++misses_;
  return NotFound("no cache entry " + std::string(key));
}

void TieredCache::Backfill(size_t below, const std::shared_ptr<const Entry>& entry) {
  for (size_t j = 0; j < below; ++j) {
    if (!stores_[j]->Put(*entry).ok()) ++errors_[j + 1];
  }
}

Status TieredCache::Put(Entry entry) {
  TILEJIT_RETURN_IF_ERROR(ValidateEntry(entry));
  const int64_t now = options_.clock();
  entry.created_ms = now;
  entry.last_access_ms = now;
  entry.expires_ms = (options_.ttl_ms > 0 && !entry.pinned) ? now + options_.ttl_ms : 0;
  auto shared = std::make_shared<const Entry>(std::move(entry));
  Status first_failure;
  for (size_t i = 0; i < stores_.size(); ++i) {
    Status status = stores_[i]->Put(*shared);
    if (!status.ok()) {
      ++errors_[i + 1];
      if (first_failure.ok()) first_failure = std::move(status);
    }
  }
  // Kept in memory even when a store failed: a full disk then still serves repeats.
  memory_.Put(std::move(shared));
  return first_failure;
}

Status TieredCache::Evict(std::string_view key) {
  bool found = memory_.Erase(key);
  for (Store* store : stores_) {
    Status status = store->Evict(key);
    if (status.ok()) {
      found = true;
    } else if (status.code() != StatusCode::kNotFound) {
      return status;
    }
  }
  return found ? Status::Ok() : NotFound("no cache entry " + std::string(key));
}

Status TieredCache::ApplyPin(std::string_view key, PinOp op) {
  // The memory copy's expiry was computed under the old pin state; drop it so the next Get
  // takes the store's current view.
  memory_.Erase(key);
  bool found = false;
  for (Store* store : stores_) {
    Status status = op == PinOp::kPin ? store->Pin(key) : store->Unpin(key);
    if (status.ok()) {
      found = true;
    } else if (status.code() != StatusCode::kNotFound) {
      return status;
    }
  }
  return found ? Status::Ok() : NotFound("no cache entry " + std::string(key));
}

Status TieredCache::Pin(std::string_view key) { return ApplyPin(key, PinOp::kPin); }
Status TieredCache::Unpin(std::string_view key) { return ApplyPin(key, PinOp::kUnpin); }

TieredCacheStats TieredCache::Stats() const {
  TieredCacheStats stats;
  stats.memory = memory_.Stats();
  stats.tiers.push_back({std::string(kMemoryTierName), hits_[0], errors_[0]});
  for (size_t i = 0; i < stores_.size(); ++i) {
    stats.tiers.push_back({std::string(stores_[i]->name()), hits_[i + 1], errors_[i + 1]});
  }
  stats.misses = misses_;
  return stats;
}

}  // namespace tilejit::cache
