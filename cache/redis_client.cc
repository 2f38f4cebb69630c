// SPDX-License-Identifier: Apache-2.0
#include "cache/redis_client.h"

#include <openssl/crypto.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <utility>

namespace tilejit::cache {
namespace {

Result<std::string> ReadPasswordFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return InvalidArgument("cannot read Redis password file '" + path +
                           "': " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return InvalidArgument("Redis password file '" + path + "' is not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxRedisPasswordFileBytes) {
    return InvalidArgument("Redis password file '" + path + "' is larger than " +
                           std::to_string(kMaxRedisPasswordFileBytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  std::string text(kMaxRedisPasswordFileBytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  const size_t begin = text.find_first_not_of(" \t\r\n");
  const size_t end = text.find_last_not_of(" \t\r\n");
  std::string password = begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
  OPENSSL_cleanse(text.data(), text.size());
  if (password.empty()) return InvalidArgument("Redis password file '" + path + "' is empty");
  return password;
}

Status CheckLimits(const RedisClientOptions& options) {
  const auto bad_timeout = [](int ms) { return ms <= 0 || ms > kMaxRedisTimeoutMs; };
  if (bad_timeout(options.connect_timeout_ms) || bad_timeout(options.command_timeout_ms)) {
    return InvalidArgument("Redis timeouts must be 1-" + std::to_string(kMaxRedisTimeoutMs) +
                           " ms");
  }
  if (options.max_connections == 0 || options.max_connections > kMaxRedisConnections) {
    return InvalidArgument("Redis connection pool size must be 1-" +
                           std::to_string(kMaxRedisConnections));
  }
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<RedisClient>> RedisClient::Create(RedisClientOptions options) {
  TILEJIT_RETURN_IF_ERROR(CheckLimits(options));
  RedisConnectionOptions connection;
  TILEJIT_ASSIGN_OR_RETURN(connection.endpoint, ParseRedisUrl(options.url));
  if (!options.password_file.empty()) {
    TILEJIT_ASSIGN_OR_RETURN(connection.password, ReadPasswordFile(options.password_file));
  }
  connection.connect_timeout_ms = options.connect_timeout_ms;
  connection.command_timeout_ms = options.command_timeout_ms;
  connection.max_reply_bytes = options.max_reply_bytes;
  return std::shared_ptr<RedisClient>(new RedisClient(std::move(options), std::move(connection)));
}

RedisClient::RedisClient(RedisClientOptions options, RedisConnectionOptions connection_options)
    : options_(std::move(options)),
      connection_options_(std::move(connection_options)),
      breaker_(options_.breaker) {}

RedisClient::~RedisClient() {
  OPENSSL_cleanse(connection_options_.password.data(), connection_options_.password.size());
}

Result<std::unique_ptr<RedisConnection>> RedisClient::Acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto wait = std::chrono::milliseconds(options_.command_timeout_ms);
  const bool free = freed_.wait_for(
      lock, wait, [this] { return !idle_.empty() || open_ < options_.max_connections; });
  if (!free) {
    return ResourceExhausted("all " + std::to_string(options_.max_connections) +
                             " connections to redis at " + endpoint().ToString() + " stayed busy");
  }
  if (!idle_.empty()) {
    std::unique_ptr<RedisConnection> connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
  }
  ++open_;  // reserves the slot; the connect runs without the lock
  lock.unlock();
  Result<std::unique_ptr<RedisConnection>> connection =
      RedisConnection::Connect(connection_options_);
  if (!connection.ok()) {
    ++connect_failures_;
    Release(nullptr);
    return connection.status();
  }
  ++connects_;
  return connection;
}

void RedisClient::Release(std::unique_ptr<RedisConnection> connection) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (connection != nullptr && !connection->broken()) {
      idle_.push_back(std::move(connection));
    } else {
      --open_;
    }
  }
  freed_.notify_one();
  // A broken connection (if any) is closed here, outside the lock.
}

void RedisClient::DropIdle() {
  std::vector<std::unique_ptr<RedisConnection>> stale;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stale.swap(idle_);
    open_ -= stale.size();
  }
  freed_.notify_all();
}

Status RedisClient::TransportFailure(const Status& status) {
  ++errors_;
  if (status.code() == StatusCode::kDeadlineExceeded) ++timeouts_;
  if (status.code() == StatusCode::kCorruption) ++protocol_errors_;
  breaker_.RecordFailure();
  DropIdle();
  return Unavailable(status.message());
}

Result<std::vector<RedisReply>> RedisClient::Run(const std::vector<RedisCommand>& commands) {
  if (!breaker_.Allow()) {
    return Unavailable("redis at " + endpoint().ToString() +
                       ": circuit breaker open after repeated failures; failing fast");
  }
  Result<std::unique_ptr<RedisConnection>> connection = Acquire();
  if (!connection.ok() && connection.status().code() == StatusCode::kResourceExhausted) {
    // Local contention says nothing about the server: not a breaker failure. (A probe lost
    // this way is replaced after a cooldown; see CircuitBreaker.)
    ++errors_;
    return Unavailable(connection.status().message());
  }
  if (!connection.ok()) return TransportFailure(connection.status());
  Result<std::vector<RedisReply>> replies = (*connection)->Run(commands);
  Release(std::move(connection).value());
  if (!replies.ok()) return TransportFailure(replies.status());
  for (const RedisReply& reply : *replies) {
    if (reply.is_error() && reply.str.rfind("WRONGTYPE", 0) != 0) {
      ++errors_;
      ++error_replies_;
      breaker_.RecordFailure();
      return Unavailable("redis at " + endpoint().ToString() +
                         " answered an error: " + reply.str.substr(0, 200));
    }
  }
  breaker_.RecordSuccess();
  ++calls_;
  return replies;
}

RedisClientStats RedisClient::Stats() const {
  RedisClientStats stats;
  stats.calls = calls_;
  stats.errors = errors_;
  stats.timeouts = timeouts_;
  stats.protocol_errors = protocol_errors_;
  stats.error_replies = error_replies_;
  stats.connects = connects_;
  stats.connect_failures = connect_failures_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats.open_connections = open_;
  }
  stats.breaker = breaker_.Stats();
  return stats;
}

}  // namespace tilejit::cache
