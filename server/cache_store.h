// SPDX-License-Identifier: Apache-2.0
// CacheKernelStore: the daemon's KernelStore over the kernel cache library (cache/): an
// in-process memory tier over the SQLite store, and optionally over the cluster's shared Redis
// tier below it (read-through with backfill, write-through), SHA-256-verified reads.
// Each entry holds the kernel binary plus a "metadata.json" side blob (canonical
// KernelMetadata JSON), so a hit answers exactly like a miss without decoding the ELF.
//
// Ownership: owns the SQLite store and the tiered cache. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "cache/redis_store.h"
#include "cache/sqlite_store.h"
#include "cache/tiered_cache.h"
#include "server/entry_signer.h"
#include "server/kernel_store.h"

namespace tilejit::server {

struct CacheStoreOptions {
  std::string path;                        // the SQLite file
  uint64_t max_bytes = uint64_t{2} << 30;  // SQLite size cap; 0: unlimited
  int64_t ttl_ms = 0;                      // 0: no TTL
  uint64_t memory_bytes = uint64_t{256} << 20;
  // With a signer, every entry written carries its signature and an entry read without a
  // valid one is dropped (counted as a corruption) and recompiled. Null: unsigned.
  std::shared_ptr<const EntrySigner> signer;
};

class CacheKernelStore final : public KernelStore {
 public:
  // Opens (creating, migrating or quarantining) the SQLite file; `open_report` receives the
  // store's one-line account of what it found, for the daemon's log. `redis`, when given, is
  // the shared tier below SQLite (owned from here on).
  static Result<std::unique_ptr<CacheKernelStore>> Open(
      const CacheStoreOptions& options, std::string* open_report,
      std::unique_ptr<cache::RedisStore> redis = nullptr);

  Result<StoreHit> Get(std::string_view key) override;
  Status Put(std::shared_ptr<const KernelRecord> kernel) override;
  Status Evict(std::string_view key) override;
  Status Pin(std::string_view key) override;
  Status Unpin(std::string_view key) override;
  Result<std::vector<StoreEntryInfo>> List(size_t limit) override;
  StoreStats Stats() override;

 private:
  CacheKernelStore(std::unique_ptr<cache::SqliteStore> sqlite,
                   std::unique_ptr<cache::RedisStore> redis, const CacheStoreOptions& options);
  Result<std::shared_ptr<const KernelRecord>> Decode(const std::shared_ptr<const cache::Entry>& e);

  std::unique_ptr<cache::SqliteStore> sqlite_;
  std::unique_ptr<cache::RedisStore> redis_;   // may be null
  std::shared_ptr<const EntrySigner> signer_;  // may be null
  cache::TieredCache tiered_;
  // Decoded records by key, valid while the cache hands out the same Entry object: a memory
  // hit then costs no metadata parse.
  struct Decoded {
    std::shared_ptr<const cache::Entry> entry;
    std::shared_ptr<const KernelRecord> record;
  };
  std::mutex mu_;
  std::unordered_map<std::string, Decoded> decoded_;
  uint64_t undecodable_ = 0;  // entries whose metadata failed to parse
};

// $XDG_CACHE_HOME/tilejit/kernels.sqlite, else ~/.cache/tilejit/kernels.sqlite.
std::string DefaultCachePath();

// The name of the network file system whose statfs(2) f_type is `magic` ("nfs", "cifs", ...),
// or nullopt for a local one. SQLite's WAL is unsafe on the former.
std::optional<std::string_view> NetworkFileSystemName(int64_t magic);

}  // namespace tilejit::server
