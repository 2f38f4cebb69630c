// SPDX-License-Identifier: Apache-2.0
// Parsing of the Redis tier's URL.
#include "cache/redis_url.h"

#include <gtest/gtest.h>

#include <string>

namespace tilejit::cache {
namespace {

RedisEndpoint Parsed(const std::string& url) {
  Result<RedisEndpoint> endpoint = ParseRedisUrl(url);
  EXPECT_TRUE(endpoint.ok()) << url << ": " << endpoint.status();
  return endpoint.ok() ? *endpoint : RedisEndpoint{};
}

void ExpectRefused(const std::string& url, const std::string& needle) {
  Result<RedisEndpoint> endpoint = ParseRedisUrl(url);
  ASSERT_FALSE(endpoint.ok()) << url;
  EXPECT_EQ(endpoint.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(endpoint.status().message().find(needle), std::string::npos) << endpoint.status();
}

TEST(ParseRedisUrl, ReadsHostPortAndDatabase) {
  const RedisEndpoint e = Parsed("redis://cache.internal:6380/3");
  EXPECT_EQ(e.host, "cache.internal");
  EXPECT_EQ(e.port, 6380);
  EXPECT_EQ(e.db, 3);
  EXPECT_EQ(e.ToString(), "cache.internal:6380/3");
}

TEST(ParseRedisUrl, DefaultsPortAndDatabase) {
  const RedisEndpoint e = Parsed("redis://10.0.0.7");
  EXPECT_EQ(e.port, kDefaultRedisPort);
  EXPECT_EQ(e.db, 0);
  EXPECT_EQ(Parsed("redis://10.0.0.7/").db, 0);
}

TEST(ParseRedisUrl, ReadsBracketedIpv6) {
  const RedisEndpoint e = Parsed("redis://[::1]:7000/1");
  EXPECT_EQ(e.host, "::1");
  EXPECT_EQ(e.port, 7000);
  EXPECT_EQ(e.ToString(), "[::1]:7000/1");
  EXPECT_EQ(Parsed("redis://[fe80::2]").port, kDefaultRedisPort);
}

TEST(ParseRedisUrl, RefusesTlsWithTheReason) {
  ExpectRefused("rediss://cache:6380", "hiredis has no TLS");
}

TEST(ParseRedisUrl, RefusesCredentialsInTheUrl) {
  ExpectRefused("redis://:secret@cache:6379", "password file");
  ExpectRefused("redis://user:secret@cache", "password file");
}

TEST(ParseRedisUrl, RefusesMalformedUrls) {
  ExpectRefused("http://cache:6379", "scheme");
  ExpectRefused("cache:6379", "scheme");
  ExpectRefused("redis://", "host");
  ExpectRefused("redis://:6379", "host");
  ExpectRefused("redis://cache:0", "port");
  ExpectRefused("redis://cache:65536", "port");
  ExpectRefused("redis://cache:63x9", "port");
  ExpectRefused("redis://cache:", "port");
  ExpectRefused("redis://cache/1024", "database");
  ExpectRefused("redis://cache/x", "database");
  ExpectRefused("redis://cache?db=1", "query");
  ExpectRefused("redis://ca che", "invalid character");
  ExpectRefused("redis://[::1", "unclosed");
  ExpectRefused("redis://[::1]x", "after ']'");
}

}  // namespace
}  // namespace tilejit::cache
