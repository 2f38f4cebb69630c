// SPDX-License-Identifier: Apache-2.0
// KernelStore: where the compile service keeps compiled kernels, by cache key. The daemon
// uses the tiered cache (cache_store.h: in-process LRU over SQLite); tests use
// MemoryKernelStore. The service never sees tiers beyond the name reported with a hit.
//
// Contract: Get returns NotFound on a miss (absent, expired, or dropped because its bytes
// failed verification: the service recompiles in every case). Put publishes a whole entry or
// nothing. Every method is safe to call concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "compiler/target/kernel_metadata.h"

namespace tilejit::server {

// One compiled kernel. Immutable once built; shared between requests.
struct KernelRecord {
  std::string key;
  std::string binary;  // ELF bytes
  target::KernelMetadata metadata;
  std::string signature;  // the cluster's (entry_signer.h); empty when unsigned
};

struct StoreHit {
  std::shared_ptr<const KernelRecord> kernel;
  std::string tier;  // "memory", "sqlite", ...
};

struct StoreEntryInfo {
  std::string key;
  uint64_t bytes = 0;
  bool pinned = false;
};

// Counters of the store itself (tiers, integrity, eviction).
struct StoreStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t evictions = 0;
  uint64_t corruptions = 0;
  uint64_t write_failures = 0;
  uint64_t quarantined = 0;  // corrupt database files moved aside when the store opened
  // The shared tier below the local ones (empty without one): its counters by name
  // ("misses", "puts", "signature_failures", "malformed", "errors", "timeouts",
  // "breaker_opens") and its circuit breaker's state ("closed", "open", "half-open").
  std::vector<std::pair<std::string, uint64_t>> shared_tier;
  std::string shared_tier_breaker;
};

class KernelStore {
 public:
  virtual ~KernelStore() = default;

  virtual Result<StoreHit> Get(std::string_view key) = 0;
  virtual Status Put(std::shared_ptr<const KernelRecord> kernel) = 0;
  virtual Status Evict(std::string_view key) = 0;
  virtual Status Pin(std::string_view key) = 0;
  virtual Status Unpin(std::string_view key) = 0;
  virtual Result<std::vector<StoreEntryInfo>> List(size_t limit) = 0;
  virtual StoreStats Stats() = 0;
};

// An unbounded in-memory store (tier "memory"): tests, and a daemon run with --no-disk-cache.
class MemoryKernelStore final : public KernelStore {
 public:
  Result<StoreHit> Get(std::string_view key) override;
  Status Put(std::shared_ptr<const KernelRecord> kernel) override;
  Status Evict(std::string_view key) override;
  Status Pin(std::string_view key) override;
  Status Unpin(std::string_view key) override;
  Result<std::vector<StoreEntryInfo>> List(size_t limit) override;
  StoreStats Stats() override;

 private:
  struct Slot {
    std::shared_ptr<const KernelRecord> kernel;
    bool pinned = false;
  };
  std::mutex mu_;
  std::map<std::string, Slot, std::less<>> slots_;
  uint64_t evictions_ = 0;
};

}  // namespace tilejit::server
