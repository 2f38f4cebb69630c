// SPDX-License-Identifier: Apache-2.0
// tilejitd's configuration: defaults, flags, the TOML file, and their precedence.
#include "server/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "compiler/frontend/host_budget.h"

namespace tilejit::server {
namespace {

Result<DaemonConfig> Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "tilejitd");
  bool exit_now = false;
  std::string help;
  return ParseDaemonConfig(static_cast<int>(args.size()), args.data(), &exit_now, &help);
}

std::string WriteToml(const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("tilejitd_config_test_" + std::to_string(getpid()) + ".toml"))
                               .string();
  std::ofstream(path) << text;
  return path;
}

TEST(DaemonConfig, DefaultsServeOnLoopbackWithoutMetrics) {
  Result<DaemonConfig> c = Parse({});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->listen, "127.0.0.1:50051");
  EXPECT_EQ(c->metrics_port, 0);
  EXPECT_TRUE(c->cache_path.empty());
  EXPECT_FALSE(c->memory_only);
}

TEST(DaemonConfig, FlagsOverrideTheFileWhichOverridesDefaults) {
  const std::string path = WriteToml(
      "listen = \"0.0.0.0:6000\"\ninsecure_listen = true\nworkers = 3\n"
      "memory_only = true\n");
  Result<DaemonConfig> c = Parse({"--config", path.c_str(), "--workers", "5"});
  std::filesystem::remove(path);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->listen, "0.0.0.0:6000");
  EXPECT_EQ(c->workers, 5);
  EXPECT_TRUE(c->memory_only);
}

TEST(DaemonConfig, UnknownOrMistypedFileKeysAreErrors) {
  const std::string typo = WriteToml("wrokers = 3\n");
  Result<DaemonConfig> c = Parse({"--config", typo.c_str()});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("unknown key 'wrokers'"), std::string::npos);
  const std::string mistyped = WriteToml("workers = \"many\"\n");
  c = Parse({"--config", mistyped.c_str()});
  std::filesystem::remove(mistyped);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("wrong type"), std::string::npos);
}

TEST(DaemonConfig, TestBackendDelayIsOffByDefaultAndSettable) {
  Result<DaemonConfig> c = Parse({});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->test_backend_delay_ms, 0);
  c = Parse({"--test-backend-delay-ms", "250"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->test_backend_delay_ms, 250);
}

TEST(DaemonConfig, BadFlagsAreErrors) {
  EXPECT_FALSE(Parse({"--workers", "0"}).ok());
  EXPECT_FALSE(Parse({"--no-such-flag"}).ok());
  EXPECT_FALSE(Parse({"--metrics-port", "70000"}).ok());
  EXPECT_FALSE(Parse({"--test-backend-delay-ms", "-1"}).ok());
  EXPECT_FALSE(Parse({"--config", "/nonexistent/tilejitd.toml"}).ok());
}

TEST(DaemonConfig, RefusesANonLoopbackListenWithoutTokensNamingBothFlags) {
  for (const char* listen : {"0.0.0.0:50051", "[::]:50051", ":50051", "10.1.2.3:50051",
                             "build-host.example:50051", "128.0.0.1:50051"}) {
    Result<DaemonConfig> c = Parse({"--listen", listen});
    ASSERT_FALSE(c.ok()) << listen;
    EXPECT_NE(c.status().message().find(listen), std::string::npos) << c.status();
    EXPECT_NE(c.status().message().find("--auth-tokens"), std::string::npos) << c.status();
    EXPECT_NE(c.status().message().find("--insecure-listen"), std::string::npos) << c.status();
  }
  EXPECT_TRUE(Parse({"--listen", "0.0.0.0:50051", "--insecure-listen"}).ok());
  EXPECT_TRUE(Parse({"--listen", "0.0.0.0:50051", "--auth-tokens", "/etc/tokens"}).ok());
}

TEST(DaemonConfig, LoopbackAddressesAndUnixSocketsNeedNoTokens) {
  for (const char* listen : {"127.0.0.1:50051", "127.8.9.10:0", "[::1]:50051", "localhost:50051",
                             "LocalHost:1", "unix:/tmp/tilejitd.sock", "unix:///tmp/t.sock"}) {
    EXPECT_TRUE(IsLoopbackListen(listen)) << listen;
    EXPECT_TRUE(Parse({"--listen", listen}).ok()) << listen;
  }
  for (const char* listen : {"0.0.0.0:1", "[::]:1", "[::ffff:10.0.0.1]:1", "::1", "localhost",
                             "[::1", "192.168.1.2:1", "localhost.evil.example:1"}) {
    EXPECT_FALSE(IsLoopbackListen(listen)) << listen;
  }
}

TEST(DaemonConfig, SecurityFlagsComeFromFlagsOrTheFileAndMustAgree) {
  const std::string path = WriteToml(
      "auth_tokens = \"/etc/tilejit/tokens\"\nauth_health = true\ntls_cert = \"c.pem\"\n"
      "tls_key = \"k.pem\"\ntls_client_ca = \"ca.pem\"\n");
  Result<DaemonConfig> c = Parse({"--config", path.c_str()});
  std::filesystem::remove(path);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->auth_tokens, "/etc/tilejit/tokens");
  EXPECT_TRUE(c->auth_health);
  EXPECT_EQ(c->tls_cert, "c.pem");
  EXPECT_EQ(c->tls_key, "k.pem");
  EXPECT_EQ(c->tls_client_ca, "ca.pem");
  auto error = [](std::vector<const char*> args) {
    Result<DaemonConfig> r = Parse(std::move(args));
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error({"--tls-cert", "c.pem"}), "--tls-cert and --tls-key go together");
  EXPECT_EQ(error({"--tls-key", "k.pem"}), "--tls-cert and --tls-key go together");
  EXPECT_EQ(error({"--tls-client-ca", "ca.pem"}), "--tls-client-ca needs --tls-cert and --tls-key");
  EXPECT_EQ(error({"--auth-health"}), "--auth-health needs --auth-tokens");
}

// The daemon's --frontend-max-* defaults are the frontend's own (config.h keeps copies so
// that this library does not depend on the frontend).
TEST(DaemonConfig, FrontendBudgetDefaultsAreTheFrontendsOwn) {
  const DaemonConfig c;
  const frontend::HostLimits limits;
  EXPECT_EQ(c.frontend_max_steps, limits.max_steps);
  EXPECT_EQ(c.frontend_max_memory_mb << 20, limits.max_memory_bytes);
  EXPECT_EQ(c.frontend_max_call_depth, limits.max_call_depth);
  EXPECT_EQ(c.frontend_max_seconds, limits.max_seconds);
  EXPECT_EQ(kMaxFrontendCallDepth, frontend::HostLimits::kMaxCallDepthLimit);
}

TEST(DaemonConfig, RedisNeedsAClusterKeyAndTheSqliteTier) {
  Result<DaemonConfig> unsigned_tier = Parse({"--redis", "redis://127.0.0.1:6379"});
  ASSERT_FALSE(unsigned_tier.ok());
  EXPECT_NE(unsigned_tier.status().message().find("--cluster-key-file"), std::string::npos);
  EXPECT_FALSE(
      Parse({"--redis", "redis://r:6379", "--cluster-key-file", "/k", "--memory-only"}).ok());
  EXPECT_FALSE(Parse({"--cluster-key-file", "/k"}).ok()) << "a key file without --redis";
  EXPECT_FALSE(
      Parse({"--redis", "redis://r", "--cluster-key-file", "/k", "--redis-lease-ms", "5"}).ok());
  EXPECT_FALSE(
      Parse({"--redis", "redis://r", "--cluster-key-file", "/k", "--redis-timeout-ms", "0"}).ok());
  Result<DaemonConfig> c = Parse({"--redis", "redis://r:6380/2", "--cluster-key-file", "/k",
                                  "--redis-lease-ms", "1000", "--redis-breaker-cooldown-ms", "50"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->redis, "redis://r:6380/2");
  EXPECT_EQ(c->cluster_key_file, "/k");
  EXPECT_EQ(c->redis_lease_ms, 1000);
  EXPECT_EQ(c->redis_breaker_cooldown_ms, 50);
  EXPECT_EQ(c->redis_timeout_ms, 250);
  EXPECT_EQ(c->redis_ttl_seconds, 7 * 24 * 3600);
}

TEST(DaemonConfig, RedisSettingsComeFromTheFileToo) {
  Result<DaemonConfig> c = Parse({"--config", WriteToml("redis = \"redis://cache:6379\"\n"
                                                        "cluster_key_file = \"/etc/k\"\n"
                                                        "redis_ttl_seconds = 60\n")
                                                  .c_str()});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->redis, "redis://cache:6379");
  EXPECT_EQ(c->redis_ttl_seconds, 60);
}

}  // namespace
}  // namespace tilejit::server
