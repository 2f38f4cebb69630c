// SPDX-License-Identifier: Apache-2.0
// tilejitd: the compile daemon. Wires the configuration, the kernel store, the compiler
// back end, the launch device (the simulated NPU), the gRPC server (service, health,
// reflection) and the optional metrics port, then waits for SIGTERM or SIGINT and drains
// gracefully: health turns NOT_SERVING, new compiles are refused, in-flight RPCs get
// --drain-grace-seconds, the workers finish, and the cache is closed cleanly. SIGHUP reloads
// the --auth-tokens file (a bad file keeps the tokens in force and logs the error).
//
// The signals come through a self-pipe, not sigwait: shared libraries start threads before
// main runs (OpenBLAS starts its pool from a constructor) and those threads do not block the
// signals, so a signal sent while the main thread was not in sigwait went to one of them, whose
// default action ended the process (a SIGHUP reload killed the daemon about once in six). The
// handler only write()s the signal's number; the main thread reads it and acts. The signals
// stay blocked on the threads the daemon starts itself.
#include <absl/synchronization/mutex.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cache/cluster_key.h"
#include "cache/redis_store.h"
#include "runner/sim/sim_device.h"
#include "server/auth.h"
#include "server/cache_store.h"
#include "server/cluster_signer.h"
#include "server/compiler_backend.h"
#include "server/config.h"
#include "server/grpc_server.h"
#include "server/metrics_http.h"
#include "server/redis_cluster.h"
#include "server/service.h"
#include "server/tune_store.h"

namespace tilejit::server {
namespace {

// The shared tier (--redis): the Redis store below SQLite and the cluster's leases, sharing one
// client (pool and breaker). Both null without --redis. Nothing connects yet: a node starts and
// serves locally while Redis is down.
struct SharedTier {
  std::unique_ptr<cache::RedisStore> store;
  std::unique_ptr<RedisClusterFlights> flights;
  std::shared_ptr<const EntrySigner> signer;  // signs SQLite entries and export bundles
};

Result<SharedTier> OpenSharedTier(const DaemonConfig& c) {
  if (c.redis.empty()) return SharedTier{};
  bool readable_by_others = false;
  Result<cache::ClusterKeyRing> ring =
      cache::ClusterKeyRing::LoadFile(c.cluster_key_file, &readable_by_others);
  if (!ring.ok()) return InvalidArgument("--cluster-key-file: " + ring.status().message());
  if (readable_by_others) {
    spdlog::warn(
        "--cluster-key-file {} is readable by group or others: whoever reads it can "
        "sign kernels for the whole cluster (chmod 600 it)",
        c.cluster_key_file);
  }
  auto keys = std::make_shared<const cache::ClusterKeyRing>(std::move(ring).value());
  cache::RedisStoreOptions options;
  options.client.url = c.redis;
  options.client.password_file = c.redis_password_file;
  options.client.connect_timeout_ms = c.redis_timeout_ms;
  options.client.command_timeout_ms = c.redis_timeout_ms;
  options.client.breaker.cooldown_ms = c.redis_breaker_cooldown_ms;
  options.keys = keys;
  options.ttl_ms = c.redis_ttl_seconds * 1000;
  Result<std::unique_ptr<cache::RedisStore>> store = cache::RedisStore::Open(options);
  if (!store.ok()) return InvalidArgument("--redis: " + store.status().message());
  RedisClusterOptions cluster;
  cluster.lease_ms = c.redis_lease_ms;
  cluster.error_ttl_ms = std::max<int64_t>(1, c.error_ttl_ms);
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<RedisClusterFlights> flights,
                           RedisClusterFlights::Create((*store)->client(), keys, cluster));
  spdlog::info(
      "shared tier: redis {} (plaintext, entries signed with cluster key {}, {} "
      "previous keys accepted; lease {} ms; timeout {} ms)",
      (*store)->client()->endpoint().ToString(), cache::ClusterKeyIdHex(keys->current_id()),
      keys->size() - 1, c.redis_lease_ms, c.redis_timeout_ms);
  return SharedTier{std::move(store).value(), std::move(flights),
                    std::make_shared<const ClusterSigner>(keys)};
}

// SQLite's WAL needs shared memory between the processes using the file, which network file
// systems do not give: two nodes on one NFS cache path can corrupt it.
void WarnIfNetworkFileSystem(const std::string& cache_path) {
  const size_t slash = cache_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : cache_path.substr(0, slash + 1);
  struct statfs fs {};
  if (statfs(dir.c_str(), &fs) != 0) return;
  if (std::optional<std::string_view> name = NetworkFileSystemName(fs.f_type)) {
    spdlog::warn(
        "the kernel cache {} is on a network file system ({}), where SQLite's WAL is "
        "unsafe; give --cache-path a file on a local disk (share kernels across nodes "
        "with --redis instead)",
        cache_path, *name);
  }
}

Result<std::unique_ptr<KernelStore>> OpenStore(const DaemonConfig& config,
                                               std::unique_ptr<cache::RedisStore> redis,
                                               std::shared_ptr<const EntrySigner> signer) {
  if (config.memory_only) return std::unique_ptr<KernelStore>(new MemoryKernelStore());
  CacheStoreOptions options;
  options.path = config.cache_path.empty() ? DefaultCachePath() : config.cache_path;
  options.max_bytes = config.cache_max_bytes;
  options.ttl_ms = config.cache_ttl_seconds * 1000;
  options.memory_bytes = config.memory_cache_bytes;
  options.signer = std::move(signer);
  WarnIfNetworkFileSystem(options.path);
  std::string report;
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<CacheKernelStore> store,
                           CacheKernelStore::Open(options, &report, std::move(redis)));
  if (report.starts_with("CORRUPT")) {
    spdlog::error("kernel cache: {}", report);
  } else {
    spdlog::info("kernel cache: {}", report);
  }
  return std::unique_ptr<KernelStore>(std::move(store));
}

// Tune decisions beside the kernel cache (null, in memory, with --no-disk-cache or when the
// file cannot be opened: a lost decision costs a tuning, not a failure).
std::shared_ptr<DecisionStore> OpenDecisions(const DaemonConfig& config) {
  if (config.memory_only) return nullptr;
  const std::string path =
      DecisionPathFor(config.cache_path.empty() ? DefaultCachePath() : config.cache_path);
  Result<std::unique_ptr<SqliteDecisionStore>> store = SqliteDecisionStore::Open(path);
  if (!store.ok()) {
    spdlog::error("tune decisions kept in memory: {}", store.status().ToString());
    return nullptr;
  }
  return std::move(store).value();
}

ServiceOptions ToServiceOptions(const DaemonConfig& c) {
  ServiceOptions o;
  o.workers = c.workers;
  o.queue_capacity = c.queue_capacity;
  o.memo_capacity = c.memo_capacity;
  o.error_ttl_ms = c.error_ttl_ms;
  o.max_launch_gm_bytes = c.max_launch_gm_bytes;
  o.max_instruction_budget = c.max_instruction_budget;
  o.max_concurrent_launches = c.max_concurrent_launches;
  o.max_launch_blocks = c.max_launch_blocks;
  o.max_launch_seconds = c.max_launch_seconds;
  o.compile_max_seconds = c.compile_max_seconds;
  o.max_calls_per_caller = c.max_calls_per_caller;
  // Work calls never take the last RPC threads, so health and stats stay answerable.
  o.max_calls = std::max(1, c.max_rpc_threads - kRpcThreadsKeptFree);
  o.frontend_limits.max_steps = c.frontend_max_steps;
  o.frontend_limits.max_memory_bytes = c.frontend_max_memory_mb << 20;
  o.frontend_limits.max_call_depth = c.frontend_max_call_depth;
  o.frontend_limits.max_seconds = c.frontend_max_seconds;
  o.test_backend_delay_ms = c.test_backend_delay_ms;
  if (o.test_backend_delay_ms > 0) {
    spdlog::warn("--test-backend-delay-ms {}: every compile is slowed down (tests only)",
                 o.test_backend_delay_ms);
  }
  return o;
}

int g_signal_pipe[2] = {-1, -1};

extern "C" void OnStopSignal(int sig) {
  const int saved = errno;
  const unsigned char byte = static_cast<unsigned char>(sig);
  [[maybe_unused]] ssize_t n = write(g_signal_pipe[1], &byte, 1);
  errno = saved;
}

// The handler for each of `signals`, writing into the self-pipe.
bool InstallSignalPipe(const sigset_t& signals) {
  if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  action.sa_flags = SA_RESTART;
  sigfillset(&action.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    if (sigismember(&signals, sig) == 1 && sigaction(sig, &action, nullptr) != 0) return false;
  }
  return true;
}

// The next signal taken, or 0 when none came within `timeout_ms` (-1: wait without end).
int NextSignal(int timeout_ms) {
  pollfd fd{g_signal_pipe[0], POLLIN, 0};
  if (poll(&fd, 1, timeout_ms) <= 0) return 0;
  unsigned char byte = 0;
  return read(g_signal_pipe[0], &byte, 1) == 1 ? byte : 0;
}

void ReloadTokens(TokenStore* tokens) {
  if (tokens == nullptr) {
    spdlog::info("SIGHUP: no --auth-tokens file to reload");
    return;
  }
  if (Status s = tokens->Reload(); !s.ok()) {
    spdlog::error("SIGHUP: {}; the {} tokens loaded before stay in force", s.message(),
                  tokens->table()->size());
    return;
  }
  spdlog::info("SIGHUP: reloaded {}: {} tokens", tokens->path(), tokens->table()->size());
}

// Waits for SIGTERM/SIGINT, or (idle_exit_seconds > 0) until no tilejit.v1 call has run for
// that long; true when it was the idleness. SIGHUP reloads the tokens and waits on.
bool WaitForStop(const sigset_t& signals, int64_t idle_exit_seconds, const GrpcServer& server,
                 TokenStore* tokens) {
  pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);  // the main thread takes them from here on
  while (true) {
    const int sig = NextSignal(idle_exit_seconds > 0 ? 1000 : -1);
    if (sig == SIGHUP) {
      ReloadTokens(tokens);
    } else if (sig > 0) {
      spdlog::info("signal {}: draining", sig);
      return false;
    }
    if (idle_exit_seconds > 0 &&
        server.activity().IdleSeconds() >= static_cast<double>(idle_exit_seconds)) {
      return true;
    }
  }
}

// The --auth-tokens file's tokens; null without the flag.
Result<std::unique_ptr<TokenStore>> OpenTokens(const DaemonConfig& config) {
  if (config.auth_tokens.empty()) return std::unique_ptr<TokenStore>();
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<TokenStore> tokens,
                           TokenStore::Open(config.auth_tokens));
  spdlog::info("--auth-tokens {}: {} tokens", tokens->path(), tokens->table()->size());
  return tokens;
}

// The start-up line: where, how the port is protected, which compiler; and a warning when
// nothing protects a port others can reach (--insecure-listen).
void LogServing(const DaemonConfig& c, int port, const std::string& fingerprint) {
  const char* transport = c.tls_cert.empty()        ? "plaintext"
                          : c.tls_client_ca.empty() ? "TLS"
                                                    : "TLS, client certificates required";
  spdlog::info("tilejitd serving on {} (port {}; {}; {}), compiler {}", c.listen, port, transport,
               c.auth_tokens.empty() ? "no tokens" : "tokens required", fingerprint);
  if (c.auth_tokens.empty() && !IsLoopbackListen(c.listen)) {
    spdlog::warn("--insecure-listen: anyone who can reach {} may compile, evict and import",
                 c.listen);
  }
}

int Run(const DaemonConfig& config, const sigset_t& signals) {
  Result<std::unique_ptr<TokenStore>> tokens = OpenTokens(config);
  if (!tokens.ok()) {
    spdlog::critical("--auth-tokens: {}", tokens.status().message());
    return 1;
  }
  Result<SharedTier> shared = OpenSharedTier(config);
  if (!shared.ok()) {
    spdlog::critical("{}", shared.status().message());
    return 1;
  }
  const cache::RedisStore* redis = shared->store.get();
  Result<std::unique_ptr<KernelStore>> store =
      OpenStore(config, std::move(shared->store), shared->signer);
  if (!store.ok()) {
    spdlog::critical("cannot open the kernel cache: {}", store.status().ToString());
    return 1;
  }
  ServiceOptions service_options = ToServiceOptions(config);
  service_options.signer = shared->signer;
  service_options.decisions = OpenDecisions(config);
  CompileService core(std::move(service_options), NewCompilerBackend(), std::move(store).value(),
                      runner::sim::SimDeviceFactory(), std::move(shared->flights));
  if (redis != nullptr) RegisterRedisMetrics(&core.metrics(), redis);
  GrpcServerOptions grpc_options;
  grpc_options.address = config.listen;
  grpc_options.max_message_bytes = config.max_message_bytes;
  grpc_options.max_threads = config.max_rpc_threads;
  grpc_options.tokens = tokens->get();
  grpc_options.auth_health = config.auth_health;
  grpc_options.tls = {config.tls_client_ca, config.tls_cert, config.tls_key};
  Result<std::unique_ptr<GrpcServer>> server = GrpcServer::Start(&core, grpc_options);
  if (!server.ok()) {
    spdlog::critical("{}", server.status().message());
    return 1;
  }
  std::unique_ptr<MetricsHttpServer> metrics;
  if (config.metrics_port != 0) {
    auto m = MetricsHttpServer::Start(&core.metrics(), config.metrics_host, config.metrics_port);
    if (!m.ok()) {
      spdlog::critical("{}", m.status().message());
      return 1;
    }
    metrics = std::move(m).value();
    spdlog::info("metrics on http://{}:{}/metrics", config.metrics_host, metrics->port());
  }
  // One machine-readable line on stdout (tests and scripts read the chosen port from it).
  std::printf("tilejitd listening on port %d\n", (*server)->port());
  std::fflush(stdout);
  LogServing(config, (*server)->port(), core.fingerprint());
  if (WaitForStop(signals, config.idle_exit_seconds, **server, tokens->get())) {
    spdlog::info("idle for {} s: draining (grace {} s)", config.idle_exit_seconds,
                 config.drain_grace_seconds);
  }
  (*server)->Drain(std::chrono::seconds(config.drain_grace_seconds));
  if (metrics) metrics->Stop();
  spdlog::info("tilejitd stopped");
  return 0;
}

}  // namespace
}  // namespace tilejit::server

int main(int argc, char** argv) {
  // Debian's abseil is built with Mutex deadlock detection on: every lock and every Mutex
  // destroyed inside gRPC walked a lock graph (about 3% of a busy daemon's CPU in
  // bench/service). Our own locks are std::mutex; the detector is a debugging aid.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  if (!tilejit::server::InstallSignalPipe(signals)) {
    std::perror("tilejitd: signal handlers");
    return 1;
  }

  bool exit_now = false;
  std::string help;
  auto config = tilejit::server::ParseDaemonConfig(argc, argv, &exit_now, &help);
  if (!config.ok()) {
    std::cerr << "tilejitd: " << config.status().message() << "\n";
    return 2;
  }
  if (exit_now) {
    std::cout << help;
    return 0;
  }
  spdlog::set_level(spdlog::level::from_str(config->log_level));
  return tilejit::server::Run(*config, signals);
}
