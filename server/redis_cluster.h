// SPDX-License-Identifier: Apache-2.0
// RedisClusterFlights: ClusterFlights (cluster.h) over the shared Redis tier. A compile's lease
// is a cache::RedisLease on the key; one heartbeat thread renews every lease this node holds
// every third of the lease TTL, so a live holder keeps its lease however long it compiles and a
// dead one loses it within one TTL. A compile error is shared as a signed value under
// `<namespace>error:<key>` (a cache::RedisStore of its own, whose TTL is the daemon's error
// TTL), so waiting nodes report the error instead of compiling the kernel again.
//
// Owner tokens are "<host>:<pid>:<counter>", unique per lease taken.
//
// Ownership: shares the RedisClient (pool and breaker) with the daemon's RedisStore; owns its
// heartbeat thread, which the destructor stops after releasing nothing (a lease outliving the
// object lapses on its own). Every ClusterLease must be destroyed before this object.
// Threading: all methods are safe to call concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "cache/cluster_key.h"
#include "cache/redis_client.h"
#include "cache/redis_lease.h"
#include "cache/redis_store.h"
#include "server/cluster.h"
#include "server/metrics.h"

namespace tilejit::server {

struct RedisClusterOptions {
  int64_t lease_ms = 30'000;      // lease TTL; renewed every lease_ms / 3 while held
  int64_t error_ttl_ms = 30'000;  // how long a shared compile error is served
  std::string key_namespace = std::string(cache::kDefaultRedisNamespace);
  std::string node_id;  // owner token prefix; empty: "<hostname>:<pid>"
};

// Bound on one shared compile error's encoded value.
inline constexpr uint64_t kMaxSharedErrorBytes = 1 << 20;

class RedisClusterFlights final : public ClusterFlights {
 public:
  static Result<std::unique_ptr<RedisClusterFlights>> Create(
      std::shared_ptr<cache::RedisClient> client, std::shared_ptr<const cache::ClusterKeyRing> keys,
      RedisClusterOptions options);
  ~RedisClusterFlights() override;

  Result<std::unique_ptr<ClusterLease>> TryLead(const std::string& key) override;
  std::optional<SharedError> FindError(const std::string& key) override;
  std::string Holder(const std::string& key) override;
  size_t held() const override;
  uint64_t leases_lost() const override { return leases_lost_.load(); }

 private:
  class Lease;
  struct Held {
    std::string key;
    std::string owner;
    std::atomic<bool> lost{false};
  };

  RedisClusterFlights(std::unique_ptr<cache::RedisLease> leases,
                      std::unique_ptr<cache::RedisStore> errors, RedisClusterOptions options);
  void ShareError(const std::string& key, const SharedError& error);
  void Drop(const std::shared_ptr<Held>& held);
  void Heartbeat();

  std::unique_ptr<cache::RedisLease> leases_;
  std::unique_ptr<cache::RedisStore> errors_;
  RedisClusterOptions options_;
  std::atomic<uint64_t> next_owner_{0};
  std::atomic<uint64_t> leases_lost_{0};

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;                 // guarded by mu_
  std::set<std::shared_ptr<Held>> held_;  // guarded by mu_
  std::thread heartbeat_;
};

// Encodes a shared compile error as JSON, and back. Decoding is bounded: notes nest at most
// kMaxSharedNoteDepth deep; anything malformed is nullopt.
inline constexpr int kMaxSharedNoteDepth = 4;
std::string EncodeSharedError(const SharedError& error);
std::optional<SharedError> DecodeSharedError(std::string_view json);

// The Redis tier's counters and breaker state as metrics (tilejit_redis_*), sampled from
// `store` at scrape time. `store` must outlive `registry`'s rendering.
void RegisterRedisMetrics(MetricsRegistry* registry, const cache::RedisStore* store);

}  // namespace tilejit::server
