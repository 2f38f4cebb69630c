// SPDX-License-Identifier: Apache-2.0
#include "cache/memory_tier.h"

#include <utility>

namespace tilejit::cache {

std::shared_ptr<const Entry> MemoryTier::Get(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);  // iterators stay valid across splice
  return *it->second;
}

void MemoryTier::RemoveLocked(List::iterator it) {
  bytes_ -= Charge(**it);
  index_.erase((*it)->key);
  lru_.erase(it);
}

void MemoryTier::Put(std::shared_ptr<const Entry> entry) {
  if (entry == nullptr) return;
  const uint64_t charge = Charge(*entry);
  if (charge > max_bytes_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(entry->key); it != index_.end()) RemoveLocked(it->second);
  while (bytes_ + charge > max_bytes_ && !lru_.empty()) {
    RemoveLocked(std::prev(lru_.end()));
    ++evictions_;
  }
  lru_.push_front(std::move(entry));
  index_.emplace(lru_.front()->key, lru_.begin());
  bytes_ += charge;
}

bool MemoryTier::Erase(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return false;
  RemoveLocked(it->second);
  return true;
}

void MemoryTier::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  index_.clear();
  lru_.clear();
  bytes_ = 0;
}

MemoryTierStats MemoryTier::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return MemoryTierStats{index_.size(), bytes_, max_bytes_, hits_, misses_, evictions_};
}

}  // namespace tilejit::cache
