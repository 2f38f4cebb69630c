// SPDX-License-Identifier: Apache-2.0
#include "cache/redis_store.h"

#include <utility>
#include <vector>

namespace tilejit::cache {
namespace {

// Lua scripts run atomically on the server, so a pin cannot slip in between a check and the
// write it guards. Each returns an integer. KEYS[1] is the entry's Redis key.

// ARGV: value, TTL in ms ("0": none), "1" to pin. A key without an expiry while TTLs are on is
// pinned (PTTL -1; an absent key reads -2), and stays pinned.
constexpr std::string_view kPutScript = R"lua(
if ARGV[2] == '0' or ARGV[3] == '1' or redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('SET', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1
)lua";

// ARGV: TTL in ms. Returns 0 when absent, -1 when pinned (refused), 1 when deleted.
constexpr std::string_view kEvictScript = R"lua(
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
if ARGV[1] ~= '0' and ttl == -1 then return -1 end
redis.call('DEL', KEYS[1])
return 1
)lua";

// Returns 0 when absent, 1 when pinned.
constexpr std::string_view kPinScript = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('PERSIST', KEYS[1])
return 1
)lua";

// ARGV: TTL in ms. Returns 0 when absent, 1 when unpinned (a full TTL from now).
constexpr std::string_view kUnpinScript = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] ~= '0' and redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 1
)lua";

// Room for the RESP framing around the largest value a Get may return.
constexpr uint64_t kReplyOverheadBytes = 1024;

Status KeyError(std::string_view key) {
  return InvalidArgument("invalid cache key '" + std::string(key.substr(0, 40)) +
                         "' (expected lowercase hex)");
}

Result<long long> IntegerReply(const RedisReply& reply, std::string_view what) {
  if (reply.type != RedisReply::Type::kInteger) {
    return Unavailable("redis answered " + std::string(what) + " with a non-integer reply");
  }
  return reply.integer;
}

}  // namespace

Status ValidateRedisNamespace(std::string_view prefix) {
  if (prefix.empty() || prefix.size() > kMaxRedisNamespaceLength) {
    return InvalidArgument("Redis key namespace must be 1-" +
                           std::to_string(kMaxRedisNamespaceLength) + " characters");
  }
  for (char c : prefix) {
    if (c <= ' ' || c > '~') {
      return InvalidArgument("Redis key namespace must be printable ASCII without spaces");
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<RedisStore>> RedisStore::Open(RedisStoreOptions options,
                                                     std::shared_ptr<RedisClient> client) {
  if (options.keys == nullptr) {
    return InvalidArgument(
        "the Redis cache tier requires a cluster key (--cluster-key-file): entries in a shared "
        "tier are signed so that a node never runs a binary it cannot authenticate");
  }
  TILEJIT_RETURN_IF_ERROR(ValidateRedisNamespace(options.key_namespace));
  if (options.ttl_ms < 0) return InvalidArgument("Redis TTL must not be negative");
  if (options.max_value_bytes < kRedisValueHeaderBytes + kRedisValueTrailerBytes) {
    return InvalidArgument("Redis value cap is too small");
  }
  if (!options.clock) options.clock = SystemNowMs;
  const uint64_t reply_bytes = options.max_value_bytes + kReplyOverheadBytes;
  if (client == nullptr) {
    options.client.max_reply_bytes = reply_bytes;
    TILEJIT_ASSIGN_OR_RETURN(client, RedisClient::Create(options.client));
  } else if (client->max_reply_bytes() < reply_bytes) {
    return InvalidArgument(
        "the shared Redis client caps replies at " + std::to_string(client->max_reply_bytes()) +
        " bytes, below the store's value cap plus framing (" + std::to_string(reply_bytes) + ")");
  }
  return std::unique_ptr<RedisStore>(new RedisStore(std::move(options), std::move(client)));
}

RedisStore::RedisStore(RedisStoreOptions options, std::shared_ptr<RedisClient> client)
    : options_(std::move(options)), client_(std::move(client)) {}

Result<Entry> RedisStore::Get(std::string_view key) {
  if (!IsValidKey(key)) return KeyError(key);
  const std::string redis_key = RedisKey(key);
  // GETRANGE instead of GET: it returns at most one byte more than the cap, so a hostile
  // oversized value costs a bounded read and a "malformed" count, not a failed connection. It
  // answers "" for an absent key; no valid value is empty.
  const std::string last = std::to_string(options_.max_value_bytes);
  TILEJIT_ASSIGN_OR_RETURN(std::vector<RedisReply> replies,
                           client_->Run({{"GETRANGE", redis_key, "0", last}, {"PTTL", redis_key}}));
  const RedisReply& value = replies[0];
  if (value.type == RedisReply::Type::kString && value.str.empty()) {
    ++misses_;
    return NotFound("no redis entry " + std::string(key));
  }
  if (value.type != RedisReply::Type::kString) {  // WRONGTYPE: someone stored a non-string
    ++malformed_;
    ++misses_;
    return NotFound("redis entry " + std::string(key) + " is not a string; ignored");
  }
  DecodedValue decoded = DecodeRedisValue(value.str, key, *options_.keys, options_.max_value_bytes);
  if (decoded.verdict != ValueVerdict::kOk) return Refuse(decoded, key);
  const int64_t now = options_.clock();
  const RedisReply& pttl = replies[1];
  const long long ttl = pttl.type == RedisReply::Type::kInteger ? pttl.integer : -2;
  decoded.entry.pinned = options_.ttl_ms > 0 && ttl == -1;
  decoded.entry.expires_ms = ttl > 0 ? now + ttl : 0;
  decoded.entry.last_access_ms = now;
  ++hits_;
  return std::move(decoded.entry);
}

Result<Entry> RedisStore::Refuse(const DecodedValue& decoded, std::string_view key) {
  ++misses_;
  if (decoded.verdict == ValueVerdict::kMalformed) {
    ++malformed_;
  } else {
    ++signature_failures_;
  }
  return NotFound("redis entry " + std::string(key) + " refused (" +
                  std::string(ValueVerdictName(decoded.verdict)) + ": " + decoded.problem + ")");
}

Status RedisStore::Put(const Entry& entry) {
  Result<std::string> value =
      EncodeRedisValue(entry, options_.clock(), *options_.keys, options_.max_value_bytes);
  if (!value.ok()) {
    if (value.status().code() == StatusCode::kResourceExhausted) ++oversize_;
    return value.status();
  }
  const std::string redis_key = RedisKey(entry.key);
  const std::string ttl = std::to_string(options_.ttl_ms);
  TILEJIT_ASSIGN_OR_RETURN(
      std::vector<RedisReply> replies,
      client_->Run({{"EVAL", kPutScript, "1", redis_key, *value, ttl, entry.pinned ? "1" : "0"}}));
  TILEJIT_RETURN_IF_ERROR(IntegerReply(replies[0], "a put"));
  ++puts_;
  return Status::Ok();
}

Result<long long> RedisStore::RunScript(std::string_view script, std::string_view key,
                                        std::string_view arg) {
  if (!IsValidKey(key)) return KeyError(key);
  const std::string redis_key = RedisKey(key);
  RedisCommand command = {"EVAL", script, "1", redis_key};
  if (!arg.empty()) command.push_back(arg);
  TILEJIT_ASSIGN_OR_RETURN(std::vector<RedisReply> replies, client_->Run({command}));
  return IntegerReply(replies[0], "a script");
}

Status RedisStore::Evict(std::string_view key) {
  TILEJIT_ASSIGN_OR_RETURN(const long long result,
                           RunScript(kEvictScript, key, std::to_string(options_.ttl_ms)));
  if (result == 0) return NotFound("no redis entry " + std::string(key));
  if (result < 0) {
    return InvalidArgument("redis entry " + std::string(key) + " is pinned; unpin it first");
  }
  return Status::Ok();
}

Status RedisStore::Pin(std::string_view key) {
  TILEJIT_ASSIGN_OR_RETURN(const long long result, RunScript(kPinScript, key, {}));
  return result == 0 ? NotFound("no redis entry " + std::string(key)) : Status::Ok();
}

Status RedisStore::Unpin(std::string_view key) {
  TILEJIT_ASSIGN_OR_RETURN(const long long result,
                           RunScript(kUnpinScript, key, std::to_string(options_.ttl_ms)));
  return result == 0 ? NotFound("no redis entry " + std::string(key)) : Status::Ok();
}

RedisStoreStats RedisStore::Stats() const {
  RedisStoreStats stats;
  stats.hits = hits_;
  stats.misses = misses_;
  stats.puts = puts_;
  stats.signature_failures = signature_failures_;
  stats.malformed = malformed_;
  stats.oversize = oversize_;
  stats.client = client_->Stats();
  return stats;
}

}  // namespace tilejit::cache
