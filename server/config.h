// SPDX-License-Identifier: Apache-2.0
// tilejitd's configuration: command-line flags over an optional TOML file (--config). A flag
// given on the command line wins over the file; the file wins over the defaults. Unknown
// keys in the file are an error naming them, so a typo never silently falls back.
//
// Defaults serve on 127.0.0.1:50051 with the SQLite cache under the user's cache directory
// and no metrics port; nothing else needs to run.
//
// Security (issue 16): --auth-tokens names the token file (auth.h); --tls-cert/--tls-key turn
// TLS on, and --tls-client-ca makes client certificates required. Without --auth-tokens the
// daemon listens only on a loopback address or a Unix socket, unless --insecure-listen says
// that anyone who can reach the port may use it.
//
// Cluster (issue 17): --redis adds the shared tier below SQLite and cluster-wide single-flight;
// it needs --cluster-key-file.
//
// Plain value type; parsing is a pure function of its inputs (and of $XDG_CACHE_HOME/$HOME
// for the default cache path).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace tilejit::server {

inline constexpr int kMaxFrontendCallDepth = 48;

// RPC threads that Compile and Launch calls never take (ServiceOptions::max_calls), so that
// health checks, Stats and the admin calls are answered under any load.
inline constexpr int kRpcThreadsKeptFree = 16;  // frontend::HostLimits::kMaxCallDepthLimit

struct DaemonConfig {
  std::string listen = "127.0.0.1:50051";
  int metrics_port = 0;  // 0: off
  std::string metrics_host = "127.0.0.1";
  std::string cache_path;    // empty: DefaultCachePath()
  bool memory_only = false;  // no SQLite (kernels live until the daemon exits)
  uint64_t cache_max_bytes = uint64_t{2} << 30;
  int64_t cache_ttl_seconds = 0;
  uint64_t memory_cache_bytes = uint64_t{256} << 20;
  int workers = 2;
  uint64_t queue_capacity = 64;
  uint64_t memo_capacity = 4096;
  int max_message_bytes = 64 << 20;
  int max_rpc_threads = 256;
  int64_t error_ttl_ms = 30'000;
  uint64_t max_launch_gm_bytes = uint64_t{1} << 30;
  uint64_t max_instruction_budget = 500'000'000;
  int max_concurrent_launches = 2;
  int64_t max_launch_blocks = 65536;
  int max_launch_seconds = 600;   // a launch's deadline when its caller sets none
  int compile_max_seconds = 600;  // a back-end compile's wall-clock limit
  int max_calls_per_caller = 64;  // Compile/Launch calls in flight per token (or peer)
  int drain_grace_seconds = 30;
  int64_t idle_exit_seconds = 0;   // exit after this long with no tilejit.v1 call (0: never)
  std::string log_level = "info";  // trace, debug, info, warn, error, off
  std::string auth_tokens;         // token file (auth.h); empty: no tokens needed
  bool auth_health = false;        // health and reflection need a token too
  bool insecure_listen = false;    // allow a non-loopback listen without --auth-tokens
  std::string tls_cert;            // PEM certificate chain; with tls_key, TLS is on
  std::string tls_key;             // PEM private key of tls_cert
  std::string tls_client_ca;       // PEM CA certificates; clients must present a cert it signed
  // The shared Redis tier (issue 17; docs/redis_tier.md): off when `redis` is empty; then
  // `cluster_key_file` is required.
  std::string redis;                // redis://HOST[:PORT][/DB]
  std::string redis_password_file;  // AUTH password; empty: none
  std::string cluster_key_file;     // cache::ClusterKeyRing's file
  int redis_timeout_ms = 250;       // connect and command timeout
  int64_t redis_breaker_cooldown_ms = 5000;
  int64_t redis_ttl_seconds = 7 * 24 * 3600;
  int64_t redis_lease_ms = 30'000;
  // frontend::HostLimits with its defaults (config_test checks they agree; this library does
  // not depend on the frontend).
  uint64_t frontend_max_steps = 50'000'000;
  uint64_t frontend_max_memory_mb = 1024;
  int frontend_max_call_depth = 48;  // at most kMaxFrontendCallDepth
  int frontend_max_seconds = 120;
  int test_backend_delay_ms = 0;  // tests only (ServiceOptions::test_backend_delay_ms)
};

// Parses argv (and the --config file it names). kInvalidArgument with a readable message on
// bad flags or a bad file; `*exit_now` is set (with OK) for --help, whose text is in `*help`.
Result<DaemonConfig> ParseDaemonConfig(int argc, const char* const* argv, bool* exit_now,
                                       std::string* help);

// True when `listen` (a --listen value) is reachable from this machine only: a Unix socket
// (unix:PATH), localhost, an IPv4 address in 127.0.0.0/8 or ::1, each with a port.
bool IsLoopbackListen(std::string_view listen);

}  // namespace tilejit::server
