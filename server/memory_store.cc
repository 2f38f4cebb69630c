// SPDX-License-Identifier: Apache-2.0
#include <utility>

#include "server/kernel_store.h"

namespace tilejit::server {

Result<StoreHit> MemoryKernelStore::Get(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return NotFound("no kernel with key " + std::string(key));
  return StoreHit{it->second.kernel, "memory"};
}

Status MemoryKernelStore::Put(std::shared_ptr<const KernelRecord> kernel) {
  std::lock_guard<std::mutex> lock(mu_);
  Slot& slot = slots_[kernel->key];
  slot.kernel = std::move(kernel);
  return Status::Ok();
}

Status MemoryKernelStore::Evict(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return NotFound("no kernel with key " + std::string(key));
  slots_.erase(it);
  ++evictions_;
  return Status::Ok();
}

Status MemoryKernelStore::Pin(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return NotFound("no kernel with key " + std::string(key));
  it->second.pinned = true;
  return Status::Ok();
}

Status MemoryKernelStore::Unpin(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return NotFound("no kernel with key " + std::string(key));
  it->second.pinned = false;
  return Status::Ok();
}

Result<std::vector<StoreEntryInfo>> MemoryKernelStore::List(size_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<StoreEntryInfo> out;
  for (const auto& [key, slot] : slots_) {
    if (out.size() >= limit) break;
    out.push_back({key, slot.kernel->binary.size(), slot.pinned});
  }
  return out;
}

StoreStats MemoryKernelStore::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  StoreStats s;
  s.entries = slots_.size();
  for (const auto& [key, slot] : slots_) s.bytes += slot.kernel->binary.size();
  s.evictions = evictions_;
  return s;
}

}  // namespace tilejit::server
