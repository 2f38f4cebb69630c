// SPDX-License-Identifier: Apache-2.0
#include "cache/redis_url.h"

#include <charconv>

namespace tilejit::cache {
namespace {

constexpr std::string_view kScheme = "redis://";
constexpr std::string_view kTlsScheme = "rediss://";
constexpr size_t kMaxHostLength = 253;  // a DNS name's limit

// Parses a decimal in [lo, hi] that uses every character of `text`.
bool ParseBounded(std::string_view text, int lo, int hi, int* out) {
  if (text.empty() || text.size() > 5) return false;
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < lo || value > hi) {
    return false;
  }
  *out = value;
  return true;
}

bool IsHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

bool IsIpv6Char(char c) {
  return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || (c >= '0' && c <= '9') || c == ':' ||
         c == '.';
}

// Splits "host[:port]" (host possibly bracketed) into `endpoint`; an error message or "".
std::string ParseAuthority(std::string_view authority, RedisEndpoint* endpoint) {
  std::string_view host = authority;
  std::string_view port;
  bool has_port = false;
  bool ipv6 = false;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return "unclosed '[' in the host";
    host = authority.substr(1, close - 1);
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return "unexpected text after ']'";
    has_port = !rest.empty();
    if (has_port) port = rest.substr(1);
    ipv6 = true;
  } else if (const size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    has_port = true;
  }
  if (host.empty() || host.size() > kMaxHostLength) return "missing or overlong host";
  for (char c : host) {
    if (!(ipv6 ? IsIpv6Char(c) : IsHostChar(c))) {
      return std::string("invalid character '") + c + "' in the host";
    }
  }
  if (has_port && !ParseBounded(port, 1, 65535, &endpoint->port)) {
    return "port must be 1-65535";
  }
  endpoint->host = std::string(host);
  return {};
}

}  // namespace

std::string RedisEndpoint::ToString() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" + std::to_string(db);
}

Result<RedisEndpoint> ParseRedisUrl(std::string_view url) {
  const auto error = [&](std::string_view what) {
    return InvalidArgument("invalid Redis URL '" + std::string(url.substr(0, 200)) +
                           "': " + std::string(what) + " (expected redis://HOST[:PORT][/DB])");
  };
  if (url.substr(0, kTlsScheme.size()) == kTlsScheme) {
    return error(
        "TLS (rediss://) is not supported: this build's hiredis has no TLS; use redis:// on a "
        "trusted network only");
  }
  if (url.substr(0, kScheme.size()) != kScheme) return error("scheme must be redis://");
  std::string_view rest = url.substr(kScheme.size());
  if (rest.find('@') != std::string_view::npos) {
    return error("credentials in the URL are refused; put the password in a password file");
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return error("query and fragment are not supported");
  }
  RedisEndpoint endpoint;
  const size_t slash = rest.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view db = rest.substr(slash + 1);
    if (!db.empty() && !ParseBounded(db, 0, kMaxRedisDb, &endpoint.db)) {
      return error("database must be a number 0-" + std::to_string(kMaxRedisDb));
    }
    rest = rest.substr(0, slash);
  }
  if (std::string problem = ParseAuthority(rest, &endpoint); !problem.empty()) {
    return error(problem);
  }
  return endpoint;
}

}  // namespace tilejit::cache
