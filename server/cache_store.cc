// SPDX-License-Identifier: Apache-2.0
#include "server/cache_store.h"

#include <cstdlib>
#include <utility>

namespace tilejit::server {
namespace {

constexpr std::string_view kMetadataBlob = "metadata.json";
constexpr size_t kMaxDecoded = 4096;  // bound on the decoded-record map

// SQLite first, then the shared tier: a Redis hit is backfilled into SQLite (and memory), so
// the node serves it locally from then on.
std::vector<cache::Store*> Tiers(cache::SqliteStore* sqlite, cache::RedisStore* redis) {
  std::vector<cache::Store*> tiers{sqlite};
  if (redis != nullptr) tiers.push_back(redis);
  return tiers;
}

}  // namespace

std::string DefaultCachePath() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/tilejit/kernels.sqlite";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.cache/tilejit/kernels.sqlite";
}

std::optional<std::string_view> NetworkFileSystemName(int64_t magic) {
  // The f_type values of linux/magic.h (and the FUSE and Lustre ones it does not list).
  static constexpr std::pair<int64_t, std::string_view> kNetworkFileSystems[] = {
      {0x6969, "nfs"},        {0xFF534D42, "cifs"}, {0xFE534D42, "smb2"}, {0x517B, "smb"},
      {0x01021997, "9p"},     {0x00C36400, "ceph"}, {0x5346414F, "afs"},  {0x65735546, "fuse"},
      {0x0BD00BD0, "lustre"}, {0x47504653, "gpfs"}, {0x01161970, "gfs2"}, {0x7461636F, "ocfs2"},
  };
  for (const auto& [value, name] : kNetworkFileSystems) {
    if (value == magic) return name;
  }
  return std::nullopt;
}

CacheKernelStore::CacheKernelStore(std::unique_ptr<cache::SqliteStore> sqlite,
                                   std::unique_ptr<cache::RedisStore> redis,
                                   const CacheStoreOptions& options)
    : sqlite_(std::move(sqlite)),
      redis_(std::move(redis)),
      signer_(options.signer),
      tiered_(cache::TieredCacheOptions{options.memory_bytes, options.ttl_ms, {}},
              Tiers(sqlite_.get(), redis_.get())) {}

Result<std::unique_ptr<CacheKernelStore>> CacheKernelStore::Open(
    const CacheStoreOptions& options, std::string* open_report,
    std::unique_ptr<cache::RedisStore> redis) {
  cache::SqliteStoreOptions so;
  so.path = options.path;
  so.max_bytes = options.max_bytes;
  so.ttl_ms = options.ttl_ms;
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<cache::SqliteStore> sqlite,
                           cache::SqliteStore::Open(so));
  if (open_report != nullptr) *open_report = sqlite->open_report().ToString();
  return std::unique_ptr<CacheKernelStore>(
      new CacheKernelStore(std::move(sqlite), std::move(redis), options));
}

Result<std::shared_ptr<const KernelRecord>> CacheKernelStore::Decode(
    const std::shared_ptr<const cache::Entry>& e) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = decoded_.find(e->key);
    if (it != decoded_.end() && it->second.entry == e) return it->second.record;
  }
  auto meta = e->side.find(kMetadataBlob);
  if (meta == e->side.end()) return Corruption("cache entry has no metadata blob");
  TILEJIT_ASSIGN_OR_RETURN(target::KernelMetadata metadata,
                           target::ParseKernelMetadata(meta->second));
  auto record = std::make_shared<KernelRecord>();
  record->key = e->key;
  record->binary = e->binary;
  record->metadata = std::move(metadata);
  if (auto sig = e->side.find(kSignatureBlob); sig != e->side.end())
    record->signature = sig->second;
  if (signer_ != nullptr && !signer_->Verify(e->key, e->binary, record->signature)) {
    return Corruption(record->signature.empty() ? "it carries no cluster signature"
                                                : "its cluster signature does not verify");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (decoded_.size() >= kMaxDecoded) decoded_.clear();
  decoded_[e->key] = Decoded{e, record};
  return std::shared_ptr<const KernelRecord>(record);
}

Result<StoreHit> CacheKernelStore::Get(std::string_view key) {
  TILEJIT_ASSIGN_OR_RETURN(cache::CacheHit hit, tiered_.Get(key));
  Result<std::shared_ptr<const KernelRecord>> record = Decode(hit.entry);
  if (!record.ok()) {
    // An entry we cannot read is as good as missing: drop it so the recompile replaces it.
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++undecodable_;
    }
    (void)tiered_.Evict(key);
    return NotFound("cache entry for " + std::string(key) +
                    " was unreadable: " + record.status().message());
  }
  return StoreHit{*record, std::string(hit.tier)};
}

Status CacheKernelStore::Put(std::shared_ptr<const KernelRecord> kernel) {
  TILEJIT_ASSIGN_OR_RETURN(std::string metadata, target::SerializeKernelMetadata(kernel->metadata));
  cache::Entry entry;
  entry.key = kernel->key;
  entry.binary = kernel->binary;
  entry.side.emplace(std::string(kMetadataBlob), std::move(metadata));
  if (signer_ != nullptr) {
    entry.side.emplace(std::string(kSignatureBlob), signer_->Sign(entry.key, entry.binary));
  }
  return tiered_.Put(std::move(entry));
}

Status CacheKernelStore::Evict(std::string_view key) { return tiered_.Evict(key); }
Status CacheKernelStore::Pin(std::string_view key) { return tiered_.Pin(key); }
Status CacheKernelStore::Unpin(std::string_view key) { return tiered_.Unpin(key); }

Result<std::vector<StoreEntryInfo>> CacheKernelStore::List(size_t limit) {
  cache::ListOptions options;
  options.limit = limit;
  TILEJIT_ASSIGN_OR_RETURN(std::vector<cache::EntryInfo> entries, sqlite_->List(options));
  std::vector<StoreEntryInfo> out;
  out.reserve(entries.size());
  for (const cache::EntryInfo& e : entries) out.push_back({e.key, e.bytes, e.pinned});
  return out;
}

StoreStats CacheKernelStore::Stats() {
  StoreStats s;
  Result<cache::StoreStats> sq = sqlite_->Stats();
  if (sq.ok()) {
    s.entries = sq->entries;
    s.bytes = sq->bytes;
    s.evictions = sq->evictions + sq->expirations;
    s.corruptions = sq->corruptions;
    s.write_failures = sq->write_failures;
  }
  s.quarantined = sqlite_->open_report().quarantined ? 1 : 0;
  if (redis_ != nullptr) {
    const cache::RedisStoreStats r = redis_->Stats();
    s.shared_tier = {{"misses", r.misses},
                     {"puts", r.puts},
                     {"signature_failures", r.signature_failures},
                     {"malformed", r.malformed},
                     {"errors", r.client.errors},
                     {"timeouts", r.client.timeouts},
                     {"breaker_opens", r.client.breaker.opens}};
    s.shared_tier_breaker = std::string(cache::BreakerStateName(r.client.breaker.state));
  }
  std::lock_guard<std::mutex> lock(mu_);
  s.corruptions += undecodable_;
  return s;
}

}  // namespace tilejit::server
