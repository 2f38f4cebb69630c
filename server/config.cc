// SPDX-License-Identifier: Apache-2.0
// Flags and file share one table of settings so that the two can never disagree on names:
// each row binds a name to a DaemonConfig field, and both the CLI11 option and the TOML key
// are made from it.
#include "server/config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <toml++/toml.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <functional>
#include <sstream>
#include <string_view>
#include <vector>

namespace tilejit::server {
namespace {

struct Setting {
  const char* name;  // flag --name, TOML key name (with '_' for '-')
  const char* help;
  std::function<CLI::Option*(CLI::App&, DaemonConfig&)> flag;
  std::function<bool(const toml::node&, DaemonConfig&)> from_toml;  // false: wrong type
};

template <typename T>
Setting Row(const char* name, const char* help, T DaemonConfig::*field) {
  Setting s{name, help, nullptr, nullptr};
  s.flag = [name, help, field](CLI::App& app, DaemonConfig& c) -> CLI::Option* {
    if constexpr (std::is_same_v<T, bool>) {
      return app.add_flag(std::string("--") + name, c.*field, help);
    } else {
      return app.add_option(std::string("--") + name, c.*field, help)->capture_default_str();
    }
  };
  s.from_toml = [field](const toml::node& node, DaemonConfig& c) {
    if constexpr (std::is_same_v<T, bool>) {
      if (auto v = node.value<bool>()) return c.*field = *v, true;
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (auto v = node.value<std::string>()) return c.*field = *v, true;
    } else {
      if (auto v = node.value<int64_t>(); v && *v >= 0) {
        return c.*field = static_cast<T>(*v), true;
      }
    }
    return false;
  };
  return s;
}

std::vector<Setting> Settings() {
  using C = DaemonConfig;
  return {
      Row("listen", "gRPC address host:port (port 0: any free port) or unix:PATH (mode 0600)",
          &C::listen),
      Row("metrics-port", "Prometheus /metrics HTTP port (0: off)", &C::metrics_port),
      Row("metrics-host", "Address the metrics port binds", &C::metrics_host),
      Row("cache-path", "SQLite cache file (default: $XDG_CACHE_HOME/tilejit/kernels.sqlite)",
          &C::cache_path),
      Row("memory-only", "Keep kernels in memory only (no SQLite)", &C::memory_only),
      Row("cache-max-bytes", "SQLite cache size cap (LRU eviction)", &C::cache_max_bytes),
      Row("cache-ttl-seconds", "Cache entry lifetime (0: none)", &C::cache_ttl_seconds),
      Row("memory-cache-bytes", "In-process cache tier budget", &C::memory_cache_bytes),
      Row("workers", "Back-end compile threads", &C::workers),
      Row("queue-capacity", "Compiles that may wait for a worker", &C::queue_capacity),
      Row("memo-capacity", "Request digests remembered (repeat requests skip the frontend)",
          &C::memo_capacity),
      Row("max-message-bytes", "gRPC message size limit (both directions)", &C::max_message_bytes),
      Row("max-rpc-threads", "Concurrent RPCs before gRPC refuses calls", &C::max_rpc_threads),
      Row("error-ttl-ms", "How long kernel compile errors are served from memory",
          &C::error_ttl_ms),
      Row("max-launch-gm-bytes", "Cap on a Launch's GM tensors", &C::max_launch_gm_bytes),
      Row("max-instruction-budget", "Cap on a Launch's instruction budget",
          &C::max_instruction_budget),
      Row("max-concurrent-launches", "Simulations running at once", &C::max_concurrent_launches),
      Row("max-launch-blocks", "Cap on a launched kernel's grid (blocks)", &C::max_launch_blocks),
      Row("max-launch-seconds", "A launch's deadline when its caller gives none",
          &C::max_launch_seconds),
      Row("compile-max-seconds", "Wall-clock limit of one back-end compile",
          &C::compile_max_seconds),
      Row("max-calls-per-caller",
          "Compile and Launch calls one caller (token, or peer address without tokens) may have "
          "in flight",
          &C::max_calls_per_caller),
      Row("drain-grace-seconds", "On SIGTERM, how long in-flight RPCs may finish",
          &C::drain_grace_seconds),
      Row("idle-exit-seconds",
          "Drain and exit after this long without a tilejit.v1 call (0: never; health checks "
          "do not count)",
          &C::idle_exit_seconds),
      Row("log-level", "trace, debug, info, warn, error or off", &C::log_level),
      Row("auth-tokens",
          "Token file: lines 'ROLE SHA256HEX [NAME]' (roles read < compile < admin); every "
          "tilejit.v1 call then needs 'authorization: Bearer TOKEN'; reloaded on SIGHUP",
          &C::auth_tokens),
      Row("auth-health", "Health checks and reflection need a token too (with --auth-tokens)",
          &C::auth_health),
      Row("insecure-listen",
          "Allow a --listen address other than loopback or unix: without --auth-tokens",
          &C::insecure_listen),
      Row("tls-cert", "PEM certificate chain: serve TLS (with --tls-key)", &C::tls_cert),
      Row("tls-key", "PEM private key of --tls-cert", &C::tls_key),
      Row("tls-client-ca",
          "PEM CA certificates: clients must present a certificate they signed (mTLS)",
          &C::tls_client_ca),
      Row("redis",
          "Shared Redis tier redis://HOST[:PORT][/DB] below the SQLite cache (plaintext: a "
          "trusted network only; needs --cluster-key-file)",
          &C::redis),
      Row("redis-password-file", "File holding the Redis AUTH password", &C::redis_password_file),
      Row("cluster-key-file",
          "Cluster keys signing the shared tier: lines of 64-128 hex digits, the first current, "
          "the others still accepted (rotation)",
          &C::cluster_key_file),
      Row("redis-timeout-ms", "Timeout of each Redis connect and command (fail open past it)",
          &C::redis_timeout_ms),
      Row("redis-breaker-cooldown-ms",
          "After 3 failed Redis calls in a row, how long the tier is skipped before a probe",
          &C::redis_breaker_cooldown_ms),
      Row("redis-ttl-seconds", "Lifetime of an entry in the Redis tier (0: none)",
          &C::redis_ttl_seconds),
      Row("redis-lease-ms",
          "Cluster single-flight lease TTL, renewed while compiling; a dead holder's lease "
          "lapses after it",
          &C::redis_lease_ms),
      Row("frontend-max-steps",
          "Steps a kernel factory may take (statements, loop iterations, calls, elements walked)",
          &C::frontend_max_steps),
      Row("frontend-max-memory-mb", "MiB a kernel factory's host values may hold",
          &C::frontend_max_memory_mb),
      Row("frontend-max-call-depth", "Nested calls a kernel factory may make (1 to 48)",
          &C::frontend_max_call_depth),
      Row("frontend-max-seconds", "Wall-clock seconds a kernel factory may run",
          &C::frontend_max_seconds),
      Row("test-backend-delay-ms",
          "Tests only: each back-end compile sleeps this long first (makes requests overlap)",
          &C::test_backend_delay_ms),
  };
}

std::string TomlKey(const char* name) {
  std::string key(name);
  for (char& c : key) c = c == '-' ? '_' : c;
  return key;
}

Status ApplyToml(const std::string& path, const std::vector<Setting>& settings,
                 DaemonConfig* config) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << path << ":" << e.source().begin.line << ":" << e.source().begin.column << ": "
       << e.description();
    return InvalidArgument("bad config file: " + os.str());
  }
  for (const auto& [key, node] : table) {
    const Setting* match = nullptr;
    for (const Setting& s : settings) {
      if (TomlKey(s.name) == key.str()) match = &s;
    }
    if (match == nullptr) {
      return InvalidArgument("config file " + path + ": unknown key '" + std::string(key.str()) +
                             "'");
    }
    if (!match->from_toml(node, *config)) {
      return InvalidArgument("config file " + path + ": key '" + std::string(key.str()) +
                             "' has the wrong type");
    }
  }
  return Status::Ok();
}

Status ValidateSecurity(const DaemonConfig& c) {
  if (c.tls_cert.empty() != c.tls_key.empty()) {
    return InvalidArgument("--tls-cert and --tls-key go together");
  }
  if (!c.tls_client_ca.empty() && c.tls_cert.empty()) {
    return InvalidArgument("--tls-client-ca needs --tls-cert and --tls-key");
  }
  if (c.auth_health && c.auth_tokens.empty()) {
    return InvalidArgument("--auth-health needs --auth-tokens");
  }
  if (c.auth_tokens.empty() && !c.insecure_listen && !IsLoopbackListen(c.listen)) {
    return InvalidArgument("refusing to listen on " + c.listen +
                           " without tokens: anyone who can reach it could compile, evict and "
                           "import; give --auth-tokens FILE, or --insecure-listen to serve it "
                           "without tokens anyway");
  }
  return Status::Ok();
}

Status ValidateRedis(const DaemonConfig& c) {
  if (c.redis.empty()) {
    if (!c.cluster_key_file.empty() || !c.redis_password_file.empty()) {
      return InvalidArgument("--cluster-key-file and --redis-password-file need --redis");
    }
    return Status::Ok();
  }
  if (c.cluster_key_file.empty()) {
    return InvalidArgument(
        "--redis needs --cluster-key-file: the shared tier serves only entries signed with the "
        "cluster's key (create one with: openssl rand -hex 32 > FILE)");
  }
  if (c.memory_only) return InvalidArgument("--redis is a tier below SQLite; drop --memory-only");
  if (c.redis_timeout_ms < 1 || c.redis_timeout_ms > 60'000) {
    return InvalidArgument("--redis-timeout-ms must be 1..60000");
  }
  if (c.redis_breaker_cooldown_ms < 1 || c.redis_breaker_cooldown_ms > 3'600'000) {
    return InvalidArgument("--redis-breaker-cooldown-ms must be 1..3600000");
  }
  if (c.redis_lease_ms < 30 || c.redis_lease_ms > 86'400'000) {
    return InvalidArgument("--redis-lease-ms must be 30..86400000");
  }
  if (c.redis_ttl_seconds < 0 || c.redis_ttl_seconds > (int64_t{1} << 40)) {
    return InvalidArgument("--redis-ttl-seconds must be 0..2^40");
  }
  return Status::Ok();
}

Status Validate(const DaemonConfig& c) {
  if (c.workers < 1 || c.workers > 256) return InvalidArgument("--workers must be 1..256");
  if (c.queue_capacity > 1'000'000) return InvalidArgument("--queue-capacity is too large");
  if (c.max_message_bytes < 1024) return InvalidArgument("--max-message-bytes is too small");
  if (c.metrics_port < 0 || c.metrics_port > 65535) {
    return InvalidArgument("--metrics-port must be 0..65535");
  }
  constexpr int kMaxDepth = kMaxFrontendCallDepth;
  if (c.frontend_max_call_depth < 1 || c.frontend_max_call_depth > kMaxDepth) {
    return InvalidArgument("--frontend-max-call-depth must be 1 to " + std::to_string(kMaxDepth));
  }
  if (c.frontend_max_steps == 0 || c.frontend_max_memory_mb == 0 || c.frontend_max_seconds < 1) {
    return InvalidArgument("the --frontend-max-* budgets must be positive");
  }
  if (c.frontend_max_memory_mb > (uint64_t{1} << 30)) {
    return InvalidArgument("--frontend-max-memory-mb must be at most 2^30");
  }
  if (c.max_rpc_threads < 2) return InvalidArgument("--max-rpc-threads must be at least 2");
  if (c.test_backend_delay_ms < 0 || c.test_backend_delay_ms > 600'000) {
    return InvalidArgument("--test-backend-delay-ms must be 0..600000");
  }
  if (c.idle_exit_seconds < 0) return InvalidArgument("--idle-exit-seconds must be >= 0");
  if (c.max_concurrent_launches < 1) {
    return InvalidArgument("--max-concurrent-launches must be at least 1");
  }
  if (c.max_launch_blocks < 1 || c.max_launch_blocks > (int64_t{1} << 31)) {
    return InvalidArgument("--max-launch-blocks must be 1 to 2^31");
  }
  if (c.max_launch_seconds < 1 || c.compile_max_seconds < 1 || c.max_calls_per_caller < 1) {
    return InvalidArgument(
        "--max-launch-seconds, --compile-max-seconds and --max-calls-per-caller must be positive");
  }
  TILEJIT_RETURN_IF_ERROR(ValidateRedis(c));
  return ValidateSecurity(c);
}

}  // namespace

bool IsLoopbackListen(std::string_view listen) {
  if (listen.starts_with("unix:")) return true;
  std::string host;
  if (listen.starts_with("[")) {
    const size_t close = listen.find(']');
    if (close == std::string_view::npos) return false;
    host = std::string(listen.substr(1, close - 1));
  } else {
    const size_t colon = listen.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = std::string(listen.substr(0, colon));
  }
  for (char& ch : host) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

Result<DaemonConfig> ParseDaemonConfig(int argc, const char* const* argv, bool* exit_now,
                                       std::string* help) {
  *exit_now = false;
  const std::vector<Setting> settings = Settings();
  DaemonConfig config;
  // The file first (found by a pre-scan), so that flags parsed afterwards override it.
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string path;
    if (arg == "--config" && i + 1 < argc) path = argv[i + 1];
    if (arg.starts_with("--config=")) path = std::string(arg.substr(9));
    if (!path.empty()) TILEJIT_RETURN_IF_ERROR(ApplyToml(path, settings, &config));
  }
  CLI::App app("tilejitd: the tilejit kernel compile service (gRPC)", "tilejitd");
  std::string config_path;
  app.add_option("--config", config_path, "TOML file with the same settings (keys use '_')");
  for (const Setting& s : settings) s.flag(app, config);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    *exit_now = true;
    *help = app.help();
    return config;
  } catch (const CLI::ParseError& e) {
    return InvalidArgument(e.what());
  }
  TILEJIT_RETURN_IF_ERROR(Validate(config));
  return config;
}

}  // namespace tilejit::server
