// SPDX-License-Identifier: Apache-2.0
#include "server/memo.h"

#include <chrono>
#include <utility>

namespace tilejit::server {

RequestMemo::RequestMemo(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

std::shared_ptr<const MemoEntry> RequestMemo::Get(std::string_view digest) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(std::string(digest));
  if (it == slots_.end()) return nullptr;
  // Move to the front: splice keeps the iterator valid.
  order_.splice(order_.begin(), order_, it->second.position);
  return it->second.entry;
}

void RequestMemo::Put(std::string digest, std::shared_ptr<const MemoEntry> entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(digest);
  if (it != slots_.end()) {
    it->second.entry = std::move(entry);
    order_.splice(order_.begin(), order_, it->second.position);
    return;
  }
  order_.push_front(digest);
  slots_.emplace(std::move(digest), Slot{std::move(entry), order_.begin()});
  while (slots_.size() > capacity_) {
    slots_.erase(order_.back());
    order_.pop_back();
  }
}

size_t RequestMemo::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return slots_.size();
}

ErrorCache::ErrorCache(int64_t ttl_ms, size_t capacity, NowMs now_ms)
    : ttl_ms_(ttl_ms), capacity_(capacity == 0 ? 1 : capacity), now_ms_(std::move(now_ms)) {
  if (!now_ms_) {
    now_ms_ = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
}

std::shared_ptr<const CachedError> ErrorCache::Get(std::string_view digest) {
  if (ttl_ms_ <= 0) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(std::string(digest));
  if (it == slots_.end()) return nullptr;
  if (now_ms_() >= it->second.expires_ms) {
    slots_.erase(it);
    return nullptr;
  }
  return it->second.error;
}

void ErrorCache::Put(std::string digest, std::shared_ptr<const CachedError> error) {
  if (ttl_ms_ <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t now = now_ms_();
  if (slots_.size() >= capacity_) EvictExpiredLocked(now);
  // Still full of live errors: drop everything rather than track order; errors are cheap to
  // recompute and this only happens under a flood of distinct broken kernels.
  if (slots_.size() >= capacity_) slots_.clear();
  slots_[std::move(digest)] = Slot{std::move(error), now + ttl_ms_};
}

void ErrorCache::EvictExpiredLocked(int64_t now) {
  std::erase_if(slots_, [now](const auto& kv) { return now >= kv.second.expires_ms; });
}

}  // namespace tilejit::server
