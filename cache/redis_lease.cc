// SPDX-License-Identifier: Apache-2.0
#include "cache/redis_lease.h"

#include <utility>
#include <vector>

#include "cache/entry.h"
#include "cache/redis_store.h"

namespace tilejit::cache {
namespace {

// KEYS[1]: the lease. ARGV: owner, TTL in ms. The compare and the change run atomically on the
// server, so a lease that lapsed and was taken by another node in between is never touched.
constexpr std::string_view kExtendScript = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
)lua";

constexpr std::string_view kReleaseScript = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
)lua";

Status CheckArgs(std::string_view key, std::string_view owner) {
  if (!IsValidKey(key)) {
    return InvalidArgument("invalid cache key '" + std::string(key.substr(0, 40)) +
                           "' for a lease (expected lowercase hex)");
  }
  bool printable = !owner.empty() && owner.size() <= kMaxLeaseOwnerLength;
  for (char c : owner) printable = printable && c >= ' ' && c <= '~';
  if (!printable) {
    return InvalidArgument("lease owner must be 1-" + std::to_string(kMaxLeaseOwnerLength) +
                           " printable ASCII characters");
  }
  return Status::Ok();
}

Status CheckTtl(int64_t ttl_ms) {
  if (ttl_ms <= 0 || ttl_ms > kMaxLeaseTtlMs) {
    return InvalidArgument("lease TTL must be 1-" + std::to_string(kMaxLeaseTtlMs) + " ms");
  }
  return Status::Ok();
}

Result<bool> ScriptSaidYes(const std::vector<RedisReply>& replies) {
  if (replies[0].type != RedisReply::Type::kInteger) {
    return Unavailable("redis answered a lease script with a non-integer reply");
  }
  return replies[0].integer == 1;
}

}  // namespace

Result<std::unique_ptr<RedisLease>> RedisLease::Create(std::shared_ptr<RedisClient> client,
                                                       std::string key_namespace) {
  if (client == nullptr) return InvalidArgument("a Redis lease needs a Redis client");
  TILEJIT_RETURN_IF_ERROR(ValidateRedisNamespace(key_namespace));
  return std::unique_ptr<RedisLease>(new RedisLease(std::move(client), key_namespace + "lease:"));
}

Result<bool> RedisLease::TryAcquire(std::string_view key, std::string_view owner, int64_t ttl_ms) {
  TILEJIT_RETURN_IF_ERROR(CheckArgs(key, owner));
  TILEJIT_RETURN_IF_ERROR(CheckTtl(ttl_ms));
  const std::string lease_key = LeaseKey(key);
  const std::string ttl = std::to_string(ttl_ms);
  TILEJIT_ASSIGN_OR_RETURN(std::vector<RedisReply> replies,
                           client_->Run({{"SET", lease_key, owner, "NX", "PX", ttl}}));
  // "+OK" when set; nil when the key exists.
  if (replies[0].type == RedisReply::Type::kStatus) return true;
  if (replies[0].type == RedisReply::Type::kNil) return false;
  return Unavailable("redis answered a lease SET with an unexpected reply");
}

Result<bool> RedisLease::Extend(std::string_view key, std::string_view owner, int64_t ttl_ms) {
  TILEJIT_RETURN_IF_ERROR(CheckArgs(key, owner));
  TILEJIT_RETURN_IF_ERROR(CheckTtl(ttl_ms));
  const std::string lease_key = LeaseKey(key);
  const std::string ttl = std::to_string(ttl_ms);
  TILEJIT_ASSIGN_OR_RETURN(std::vector<RedisReply> replies,
                           client_->Run({{"EVAL", kExtendScript, "1", lease_key, owner, ttl}}));
  return ScriptSaidYes(replies);
}

Result<bool> RedisLease::Release(std::string_view key, std::string_view owner) {
  TILEJIT_RETURN_IF_ERROR(CheckArgs(key, owner));
  const std::string lease_key = LeaseKey(key);
  TILEJIT_ASSIGN_OR_RETURN(std::vector<RedisReply> replies,
                           client_->Run({{"EVAL", kReleaseScript, "1", lease_key, owner}}));
  return ScriptSaidYes(replies);
}

Result<std::optional<std::string>> RedisLease::Holder(std::string_view key) {
  TILEJIT_RETURN_IF_ERROR(CheckArgs(key, "-"));
  const std::string lease_key = LeaseKey(key);
  // GETRANGE bounds the reply even if something else wrote a huge value here.
  const std::string last = std::to_string(kMaxLeaseOwnerLength - 1);
  TILEJIT_ASSIGN_OR_RETURN(std::vector<RedisReply> replies,
                           client_->Run({{"GETRANGE", lease_key, "0", last}}));
  if (replies[0].type != RedisReply::Type::kString) {
    return Unavailable("redis answered a lease read with an unexpected reply");
  }
  if (replies[0].str.empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::move(replies[0].str));
}

}  // namespace tilejit::cache
