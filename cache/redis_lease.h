// SPDX-License-Identifier: Apache-2.0
// RedisLease: cluster-wide single-flight for compiles. Before compiling a key that missed in
// every tier, a node tries to take the key's lease; the holder compiles and Puts, the others
// wait for the entry to appear (or for the lease to lapse, then try again). The lease is a
// Redis string `<namespace>lease:<key>` holding the owner's token, with a TTL so that a node
// that dies mid-compile cannot block the key for longer than the TTL. A long compile renews it
// (Extend) as a heartbeat. docs/redis_tier.md has the protocol.
//
// - TryAcquire: SET NX PX. True when this call took the lease; false when anyone holds it (the
//   same owner included: renew with Extend).
// - Extend: PEXPIRE only if the lease still holds `owner` (compare-and-extend, a Lua script).
//   False when the lease lapsed or another node holds it now: the caller no longer owns it.
// - Release: DEL only if the lease holds `owner` (compare-and-delete). False when it does not,
//   so a node whose lease lapsed cannot delete the next holder's.
// - Holder: who holds the lease now (for waiters' logs); nullopt when nobody does.
// Owner tokens must be unique per attempt (for example node id, process id and a counter or
// random suffix); 1..kMaxLeaseOwnerLength printable ASCII characters.
//
// Failures: InvalidArgument for a bad key, owner or TTL; Unavailable when Redis cannot answer
// (timeouts and the circuit breaker of the shared RedisClient apply). A caller that cannot
// reach Redis should compile locally: the lease is an optimisation, never a correctness need.
//
// Threading: all methods are safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cache/redis_client.h"
#include "common/result.h"

namespace tilejit::cache {

inline constexpr size_t kMaxLeaseOwnerLength = 128;
inline constexpr int64_t kMaxLeaseTtlMs = 24ll * 3600 * 1000;

class RedisLease {
 public:
  // Leases under `<key_namespace>lease:`; the namespace is validated like RedisStore's.
  static Result<std::unique_ptr<RedisLease>> Create(std::shared_ptr<RedisClient> client,
                                                    std::string key_namespace);

  Result<bool> TryAcquire(std::string_view key, std::string_view owner, int64_t ttl_ms);
  Result<bool> Extend(std::string_view key, std::string_view owner, int64_t ttl_ms);
  Result<bool> Release(std::string_view key, std::string_view owner);
  Result<std::optional<std::string>> Holder(std::string_view key);

  // The Redis key of `key`'s lease.
  std::string LeaseKey(std::string_view key) const { return prefix_ + std::string(key); }

 private:
  RedisLease(std::shared_ptr<RedisClient> client, std::string prefix)
      : client_(std::move(client)), prefix_(std::move(prefix)) {}

  std::shared_ptr<RedisClient> client_;
  std::string prefix_;  // "<namespace>lease:"
};

}  // namespace tilejit::cache
