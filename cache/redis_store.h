// SPDX-License-Identifier: Apache-2.0
// RedisStore: the cluster's shared cache tier, one signed Redis string per entry
// (cache/redis_value.h) under `<namespace><key>`, by default "tilejit:v1:<key>".
// docs/redis_tier.md describes the layout and the failure policy for operators.
//
// What it guarantees:
// - Signed entries only: a store needs a cluster key ring (Open refuses without one). Put
//   signs with the current key; Get serves only values that verify under a key of the ring,
//   claim the key asked for, and pass every blob's SHA-256. Anything else (garbage, an unsigned
//   value, a bad MAC, a key no longer in the ring, a value copied from another key) is a miss
//   (NotFound), counted in Stats() as a signature failure or as malformed. The bad value is
//   left in Redis: during a key rotation it may be valid for nodes that already have the new
//   key, and this node's recompile overwrites it with its own Put.
// - Bounded: values above `max_value_bytes` are refused on Put (ResourceExhausted); Get reads
//   at most one byte more than the cap (GETRANGE) and refuses a longer value as malformed;
//   every call is bounded by the client's timeouts.
// - Fail fast, fail open: network trouble, timeouts, garbage replies and an open breaker are
//   Unavailable, which TieredCache treats as a miss, so the daemon keeps serving locally.
// - TTL: every Put sets PX `ttl_ms` (counted from the write, as in SqliteStore); Redis expires
//   the entry. Run Redis with a `volatile-*` maxmemory policy, so that under memory pressure it
//   evicts entries with a TTL and never pinned ones.
// - Pins, in a shared tier: Pin removes the entry's TTL (PERSIST), cluster-wide; Unpin gives it
//   a full TTL again from now. A Put keeps an existing pin. Evict refuses a pinned entry
//   (InvalidArgument, as SqliteStore does). With `ttl_ms` 0 nothing expires, so Pin and Unpin
//   only check that the entry exists.
// - Touch does nothing: the TTL counts from the write, and Redis's own LRU sees the reads of
//   every node; a round trip per memory-tier hit would cost more than it tells.
//
// Threading: all methods are safe to call concurrently. The store shares its RedisClient (pool
// and breaker) with anyone holding client(), such as a RedisLease.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cache/clock.h"
#include "cache/cluster_key.h"
#include "cache/entry.h"
#include "cache/redis_client.h"
#include "cache/redis_value.h"
#include "cache/store.h"
#include "common/result.h"
#include "common/status.h"

namespace tilejit::cache {

inline constexpr std::string_view kDefaultRedisNamespace = "tilejit:v1:";
inline constexpr size_t kMaxRedisNamespaceLength = 64;
inline constexpr int64_t kDefaultRedisTtlMs = 7ll * 24 * 3600 * 1000;

struct RedisStoreOptions {
  RedisClientOptions client{};                   // ignored when Open is given a client
  std::shared_ptr<const ClusterKeyRing> keys{};  // required
  int64_t ttl_ms = kDefaultRedisTtlMs;           // PX on every write; 0: entries never expire
  uint64_t max_value_bytes = kDefaultMaxRedisValueBytes;
  // Prefix of every Redis key the tier writes; printable ASCII without spaces.
  std::string key_namespace = std::string(kDefaultRedisNamespace);
  Clock clock{};  // Unix milliseconds (created_ms, expires_ms); default SystemNowMs
};

struct RedisStoreStats {
  uint64_t hits = 0;
  uint64_t misses = 0;              // Gets that returned NotFound (absent or refused values)
  uint64_t puts = 0;                // successful Puts
  uint64_t signature_failures = 0;  // values unsigned, with a bad MAC or for another key
  uint64_t malformed = 0;           // values that are not well-formed entries
  uint64_t oversize = 0;            // Puts refused for exceeding max_value_bytes
  RedisClientStats client;          // errors, timeouts, breaker state and opens
};

class RedisStore final : public Store {
 public:
  // A store over `client`, or over a new client made from `options.client` when null. A given
  // client must accept replies of max_value_bytes plus 1 KiB of framing. InvalidArgument
  // without a key ring, or for bad options. Does not connect.
  static Result<std::unique_ptr<RedisStore>> Open(RedisStoreOptions options,
                                                  std::shared_ptr<RedisClient> client = nullptr);
  RedisStore(const RedisStore&) = delete;
  RedisStore& operator=(const RedisStore&) = delete;

  std::string_view name() const override { return "redis"; }

  // The verified entry (pinned and expires_ms from its TTL); NotFound on a miss or a refused
  // value; Unavailable when Redis cannot answer.
  Result<Entry> Get(std::string_view key) override;
  // Encodes, signs and SETs the entry with PX ttl_ms (no expiry if pinned or already pinned).
  Status Put(const Entry& entry) override;
  // DEL; NotFound when absent; InvalidArgument when pinned.
  Status Evict(std::string_view key) override;
  Status Pin(std::string_view key) override;
  Status Unpin(std::string_view key) override;

  RedisStoreStats Stats() const;
  const std::shared_ptr<RedisClient>& client() const { return client_; }
  // The Redis key holding `key`'s entry.
  std::string RedisKey(std::string_view key) const {
    return options_.key_namespace + std::string(key);
  }

 private:
  RedisStore(RedisStoreOptions options, std::shared_ptr<RedisClient> client);
  Result<Entry> Refuse(const DecodedValue& decoded, std::string_view key);
  Result<long long> RunScript(std::string_view script, std::string_view key, std::string_view arg);

  RedisStoreOptions options_;
  std::shared_ptr<RedisClient> client_;
  std::atomic<uint64_t> hits_{0}, misses_{0}, puts_{0}, signature_failures_{0}, malformed_{0},
      oversize_{0};
};

// OK when `prefix` is usable as a Redis key namespace: 1..kMaxRedisNamespaceLength printable
// ASCII characters without spaces.
Status ValidateRedisNamespace(std::string_view prefix);

}  // namespace tilejit::cache
