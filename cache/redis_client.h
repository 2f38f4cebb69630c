// SPDX-License-Identifier: Apache-2.0
// RedisClient: the Redis tier's way to the server. A bounded pool of RedisConnections behind a
// CircuitBreaker, shared by RedisStore (entries) and RedisLease (cluster single-flight).
//
// Policy:
// - Lazy: Create() parses the URL and reads the password file but does not connect, so a
//   daemon starts (and serves from its local tiers) while Redis is down. Connections are
//   opened on demand, up to `max_connections`; a caller waits at most one command timeout for
//   a free one.
// - Every call is bounded by the connect and command timeouts (cache/redis_connection.h).
// - A call that fails on the transport (refused, reset, timeout, garbage) drops its
//   connection and every idle one: they lead to the same server, so after a restart they are
//   all stale, and dropping them costs one failed call instead of one per connection. The
//   next call reconnects.
// - The breaker counts consecutive failed calls (transport failures, failed connects and error
//   replies); while it is open, Run fails fast with Unavailable and touches no socket.
// - Error replies are failures (Unavailable naming Redis's message), except WRONGTYPE, which
//   is a property of the data under a key, not of the server: it is returned as a reply.
//
// Threading: all methods are safe to call concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cache/circuit_breaker.h"
#include "cache/redis_connection.h"
#include "cache/redis_url.h"
#include "common/result.h"

namespace tilejit::cache {

inline constexpr size_t kMaxRedisConnections = 64;
inline constexpr int kMaxRedisTimeoutMs = 60'000;
// A password file larger than this is refused.
inline constexpr size_t kMaxRedisPasswordFileBytes = 1024;

struct RedisClientOptions {
  std::string url = "redis://127.0.0.1:6379";  // see cache/redis_url.h
  // A file holding the password for AUTH (surrounding whitespace and a trailing newline are
  // dropped); empty: no AUTH.
  std::string password_file{};
  int connect_timeout_ms = 200;
  int command_timeout_ms = 200;
  size_t max_connections = 4;
  uint64_t max_reply_bytes = 64ull << 20;  // RedisStore sets this from its value cap
  CircuitBreakerOptions breaker{};
};

struct RedisClientStats {
  uint64_t calls = 0;            // Run calls that got every reply
  uint64_t errors = 0;           // Run calls that failed for any reason but the breaker
  uint64_t timeouts = 0;         // ... of which: a connect or command timeout
  uint64_t protocol_errors = 0;  // ... of which: garbage, oversized or unexpected replies
  uint64_t error_replies = 0;    // ... of which: Redis answered with an error
  uint64_t connects = 0;         // connections opened
  uint64_t connect_failures = 0;
  uint64_t open_connections = 0;
  BreakerStats breaker;  // breaker.rejected: calls that failed fast
};

class RedisClient {
 public:
  // InvalidArgument for a bad URL, bad limits, or an unreadable or empty password file.
  static Result<std::shared_ptr<RedisClient>> Create(RedisClientOptions options);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Runs `commands` (at least one) as one pipeline on a pooled connection; one reply each.
  // Unavailable for every failure (the message says which: breaker open, timeout, network,
  // garbage, error reply, no free connection).
  Result<std::vector<RedisReply>> Run(const std::vector<RedisCommand>& commands);

  const RedisEndpoint& endpoint() const { return connection_options_.endpoint; }
  uint64_t max_reply_bytes() const { return connection_options_.max_reply_bytes; }
  RedisClientStats Stats() const;

 private:
  explicit RedisClient(RedisClientOptions options, RedisConnectionOptions connection_options);
  Result<std::unique_ptr<RedisConnection>> Acquire();
  void Release(std::unique_ptr<RedisConnection> connection);
  void DropIdle();
  Status TransportFailure(const Status& status);

  RedisClientOptions options_;
  RedisConnectionOptions connection_options_;
  CircuitBreaker breaker_;

  mutable std::mutex mu_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<RedisConnection>> idle_;  // guarded by mu_
  size_t open_ = 0;  // connections idle or in use (or being opened); guarded by mu_

  std::atomic<uint64_t> calls_{0}, errors_{0}, timeouts_{0}, protocol_errors_{0}, error_replies_{0},
      connects_{0}, connect_failures_{0};
};

}  // namespace tilejit::cache
