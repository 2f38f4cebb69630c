// SPDX-License-Identifier: Apache-2.0
// Where the shared Redis tier lives: `redis://HOST[:PORT][/DB]`, parsed strictly.
//
// - HOST is a name, an IPv4 address or a bracketed IPv6 address ("[::1]").
// - PORT defaults to 6379; DB, the SELECT index (0..kMaxRedisDb), defaults to 0.
// - `rediss://` is refused: Debian 12's hiredis (0.14) has no TLS. Use plaintext Redis only
//   on a trusted network; the entries are signed (cache/redis_value.h) but not encrypted.
// - A password in the URL (`redis://:secret@host`) is refused: URLs end up in process lists
//   and logs. Give the password in a file (RedisClientOptions::password_file).
// - No query parameters, no path beyond the database number.
//
// Threading: free functions and plain values.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace tilejit::cache {

inline constexpr int kDefaultRedisPort = 6379;
inline constexpr int kMaxRedisDb = 1023;

struct RedisEndpoint {
  std::string host;  // without brackets for IPv6
  int port = kDefaultRedisPort;
  int db = 0;

  // "host:port/db", for messages (IPv6 hosts bracketed).
  std::string ToString() const;
};

// The endpoint `url` names, or InvalidArgument saying what is wrong with it.
Result<RedisEndpoint> ParseRedisUrl(std::string_view url);

}  // namespace tilejit::cache
