// SPDX-License-Identifier: Apache-2.0
// RedisConnection: one blocking hiredis connection with hard bounds on time and memory.
// Internal to the Redis tier (RedisClient pools these); hiredis types stay in the .cc.
//
// What it guarantees:
// - Connect, AUTH and SELECT finish within the connect and command timeouts or fail.
// - Run sends a pipeline of commands and reads one reply per command within one command
//   timeout, measured with poll() against a deadline, so a server that stalls (or drips bytes)
//   cannot hold a caller longer. A large write that stalls midway is bounded by the socket's
//   send timeout (the same value), so the worst case is about twice the command timeout.
// - Replies are bounded: buffered reply bytes may not exceed `max_reply_bytes`, and arrays (no
//   command of the tier returns one) are refused before hiredis allocates their elements.
// - A peer that closed the socket yields an error, never SIGPIPE (blocked for the write).
// - After any failure the connection is broken() and must be discarded: a late reply would
//   otherwise be taken as the answer to the next command. Error replies ("-ERR ...") are
//   ordinary replies and leave the connection usable.
//
// Failure codes: DeadlineExceeded (a timeout), Corruption (bytes that are not a valid or
// acceptable reply), Unavailable (everything else: refused, reset, closed, AUTH refused).
//
// Threading: one thread at a time (the pool hands a connection to one caller).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cache/redis_url.h"
#include "common/result.h"

struct redisContext;

namespace tilejit::cache {

// Arrays in replies are refused above this many elements (the tier expects none).
inline constexpr int kMaxRedisReplyElements = 16;

// One reply, copied out of hiredis.
struct RedisReply {
  enum class Type { kNil, kString, kStatus, kInteger, kError };
  Type type = Type::kNil;
  std::string str;        // kString, kStatus and kError
  long long integer = 0;  // kInteger

  bool is_error() const { return type == Type::kError; }
};

// One command's arguments; the bytes must stay alive during Run.
using RedisCommand = std::vector<std::string_view>;

struct RedisConnectionOptions {
  RedisEndpoint endpoint;
  std::string password;  // empty: no AUTH
  int connect_timeout_ms = 200;
  int command_timeout_ms = 200;
  uint64_t max_reply_bytes = 64ull << 20;
};

class RedisConnection {
 public:
  static Result<std::unique_ptr<RedisConnection>> Connect(const RedisConnectionOptions& options);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends `commands` (at least one) as one pipeline and returns their replies in order.
  Result<std::vector<RedisReply>> Run(const std::vector<RedisCommand>& commands);

  bool broken() const { return broken_; }

 private:
  RedisConnection(redisContext* context, RedisConnectionOptions options);
  Status Send(const std::vector<RedisCommand>& commands, int64_t deadline_ms);
  Result<RedisReply> Receive(int64_t deadline_ms);
  Status WaitReady(short events, int64_t deadline_ms);
  Status IoFailure(std::string_view what, int saved_errno);
  Status Handshake();

  redisContext* context_;           // owned
  std::string where_;               // "redis at host:port/db", for messages
  RedisConnectionOptions options_;  // the password is wiped after the handshake
  bool broken_ = false;
};

}  // namespace tilejit::cache
