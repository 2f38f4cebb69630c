// SPDX-License-Identifier: Apache-2.0
// CompileService: the transport-free core of tilejitd (DESIGN.md section 6). The gRPC adapter
// converts messages into these calls and maps Status codes; tests drive it directly.
//
// Compile path:
//   digest (one SHA-256) -> error cache -> memo -> store            (a hit: no frontend)
//   memo miss: backend Specialize (frontend + key) -> memo -> store
//   store miss: single-flight by key; the leader queues Lower on the bounded worker pool,
//   joiners wait for the leader's result and take no queue slot.
// A compile error in the user's kernel is an OK Result whose reply has ok == false and located
// diagnostics; malformed requests are kInvalidArgument; a full queue is kResourceExhausted;
// a passed deadline is kDeadlineExceeded; a draining service is kUnavailable.
//
// Launch path: resolve the kernel (handle or request digest) -> caps -> a launch slot -> a
// new device from the service's runner::DeviceFactory, on a thread of its own -> LoadBinary
// -> RunKernel. tilejitd passes the simulated NPU's factory; tests pass fakes.
//
// Devices: each launch calls the factory once, on the launch's own thread, and owns the device
// it gets: it loads the kernel, runs it and destroys the device on that thread, so a device is
// never shared between launches and needs only be thread-compatible. Up to
// max_concurrent_launches threads call the factory at the same time, so it must be
// thread-safe. A launch whose caller stopped waiting (deadline, cancellation) finishes on its
// own thread, possibly after the service is destroyed: the service shares the factory with
// those threads, so it stays alive, but whatever it captures must stay valid as long (capture
// by value or by shared ownership).
//
// Ownership: the service owns its backend, store, worker pool and metrics registry, and shares
// its device factory with the launch threads.
// Threading: every method is thread-safe and may block (Compile waits for its compile).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "compiler/frontend/frontend.h"
#include "compiler/target/binary.h"
#include "runner/device.h"
#include "runner/npy.h"
#include "server/admission.h"
#include "server/backend.h"
#include "server/cluster.h"
#include "server/entry_signer.h"
#include "server/handoff.h"
#include "server/kernel_store.h"
#include "server/memo.h"
#include "server/metrics.h"
#include "server/single_flight.h"
#include "server/tune.h"
#include "server/worker_pool.h"

namespace tilejit::server {

// One entry of an Import: a kernel binary under its key, with the cluster's signature of it
// when the exporting daemon had a cluster key.
struct ImportEntry {
  ImportEntry(std::string k, std::string b, std::string s = {})
      : key(std::move(k)), binary(std::move(b)), signature(std::move(s)) {}
  std::string key;
  std::string binary;
  std::string signature;  // empty: unsigned
};

struct ServiceOptions {
  int workers = 2;                // back-end compile threads
  size_t queue_capacity = 64;     // compiles waiting for a worker
  size_t memo_capacity = 16384;   // request digests remembered
  int64_t error_ttl_ms = 30'000;  // how long a compile error is served from memory
  size_t max_source_bytes = 4 << 20;
  // Launch caps: a request may lower them, never raise them.
  uint64_t max_launch_gm_bytes = uint64_t{1} << 30;
  uint64_t default_instruction_budget = 50'000'000;
  uint64_t max_instruction_budget = 500'000'000;
  int max_concurrent_launches = 2;
  int64_t max_launch_blocks = 65536;
  int max_launch_seconds = 600;   // the deadline of a launch whose caller set none
  int compile_max_seconds = 600;  // a back-end compile past this is stopped (kDeadlineExceeded)
  // Admission: Compile/Launch calls in flight, in all and per caller (CallContext::caller);
  // past either the call is kResourceExhausted at once, so waiting work cannot hold every
  // transport thread.
  int max_calls = 240;
  int max_calls_per_caller = 64;
  frontend::HostLimits frontend_limits;  // the bounds on each request's factory run
  // With a signer, Import takes an entry whose cluster signature verifies without recompiling
  // it, and refuses one whose signature does not (entry_signer.h). Null: every entry is
  // recompiled.
  std::shared_ptr<const EntrySigner> signer;
  int launch_host_threads = 1;  // device host threads per launch (LaunchOptions::host_threads)
  // Tune: the budget of a whole tuning whose call sets none (a compile within it still has
  // compile_max_seconds), and where decisions are kept (null: in memory).
  int tune_max_seconds = 1800;
  std::shared_ptr<DecisionStore> decisions;
  // Tests only: every back-end run first sleeps this long, so that concurrent requests
  // overlap deterministically in end-to-end tests (single-flight, queueing). 0: off.
  int test_backend_delay_ms = 0;
};

// A status that says the call's deadline, cancellation or the daemon's load ended the work,
// not the kernel (kDeadlineExceeded, kCancelled, kResourceExhausted).
inline bool EndedByTheCall(const Status& s) {
  return s.code() == StatusCode::kDeadlineExceeded || s.code() == StatusCode::kCancelled ||
         s.code() == StatusCode::kResourceExhausted;
}

// Per-call context from the transport.
struct CallContext {
  std::string request_id;
  SteadyTime deadline = SteadyTime::max();
  // True once the caller has cancelled the call; a transport's own deadline expiry is not a
  // cancellation (`deadline` covers it). May be null.
  std::function<bool()> cancelled;
  // Who calls, for the per-caller limits: "token:NAME" with tokens, else "peer:ADDRESS" (the
  // peer's address without its port). Empty: one anonymous caller.
  std::string caller;
};

struct CompileOptions {
  bool include_binary = false;
  bool include_ir = false;
  bool include_source_map = false;  // CompileReply::source_map
  // Also the IR after these passes ("all": every one), from a fresh lowering that is not
  // cached (CompileReply::ir_dumps).
  std::vector<std::string> print_after;
};

struct PhaseTiming {
  std::string phase;
  double millis = 0;
};

struct CompileReply {
  bool ok = false;
  std::string error;  // first error's rendering when !ok
  std::string handle;
  std::string key;
  std::string request_digest;
  bool has_metadata = false;
  target::KernelMetadata metadata;
  std::vector<DiagnosticInfo> diagnostics;
  std::vector<std::string> ignored_config_keys;
  std::string tier;  // "memory", "sqlite", "compiled", "joined"; empty on errors
  std::vector<PhaseTiming> timings;
  std::vector<PassTiming> passes;     // when this request's compile ran or was joined
  std::string binary;                 // include_binary only
  std::string ir_text;                // include_ir only
  std::vector<SourcePos> source_map;  // include_source_map only: by canonical statement id
  std::vector<std::pair<std::string, std::string>> ir_dumps;  // print_after only
};

// Progress of a compile (CompileStream); reported on the calling thread.
struct ProgressEvent {
  enum class Kind { kQueued, kPass } kind = Kind::kQueued;
  size_t queue_position = 0;
  PassTiming pass;
};
using ProgressFn = std::function<void(const ProgressEvent&)>;

struct KernelInfo {
  std::string handle;
  std::shared_ptr<const KernelRecord> kernel;
  std::string tier;
};

struct LaunchCall {
  std::string handle;          // or
  std::string request_digest;  // (findings also in that request's source lines)
  std::vector<runner::NpyArray> inputs;
  uint64_t max_gm_bytes = 0;        // 0: the service maximum
  uint64_t instruction_budget = 0;  // 0: the service default
  runner::CheckMode mode = runner::CheckMode::kChecked;
  uint64_t seed = 1;
};

struct LaunchReply {
  bool ok = false;
  std::string error;
  std::vector<runner::NpyArray> outputs;
  runner::LaunchReport report;  // blocks, cycles, findings (messages located when possible)
  uint64_t instructions = 0;
  std::vector<PhaseTiming> timings;
};

struct ServiceStats {
  StoreStats store;
  std::vector<std::pair<std::string, uint64_t>> hits_by_tier;
  uint64_t misses = 0;
  uint64_t compiles = 0;
  uint64_t compile_errors = 0;
  uint64_t single_flight_joins = 0;
  uint64_t queue_depth = 0;
  uint64_t memo_entries = 0;
  // Cluster single-flight (zero without ClusterFlights): leases taken, compiles waited for
  // on another node, and how those waits ended.
  uint64_t cluster_leads = 0;
  uint64_t cluster_waits = 0;
  uint64_t cluster_remote_kernels = 0;
  uint64_t cluster_remote_errors = 0;
  uint64_t cluster_takeovers = 0;
  uint64_t cluster_unavailable = 0;
  uint64_t cluster_leases_lost = 0;
  // Tune: simulations run, decisions made by tuning, and calls answered by a cached decision.
  uint64_t tune_simulations = 0;
  uint64_t tune_decisions = 0;
  uint64_t tune_decisions_cached = 0;
};

class CompileService {
 public:
  // REQUIRES: `devices` is not empty. `cluster` (optional) makes compiles single-flight across
  // the nodes sharing the store's shared tier (cluster.h).
  CompileService(ServiceOptions options, std::unique_ptr<CompilerBackend> backend,
                 std::unique_ptr<KernelStore> store, runner::DeviceFactory devices,
                 std::unique_ptr<ClusterFlights> cluster = nullptr);
  ~CompileService();

  Result<CompileReply> Compile(const frontend::FrontendRequest& request,
                               const CompileOptions& options, const CallContext& ctx,
                               const ProgressFn& progress = nullptr);

  Result<KernelInfo> GetKernel(std::string_view handle);
  // Runs the kernel on a fresh device from the factory. Malformed calls and caps above the
  // daemon's are kInvalidArgument; a kernel whose tensors exceed the GM cap, a run past its
  // instruction budget, or no free launch slot is kResourceExhausted. When the deadline passes
  // (or the caller cancels) the running launch is told to stop (LaunchOptions::cancel) and the
  // call is kDeadlineExceeded (kCancelled). A failure of the factory or the device (LoadBinary,
  // a non-OK Launch) is that status, as the device gave it. Findings of a completed run are in
  // the reply, located in the request's source lines when it names a request_digest.
  Result<LaunchReply> Launch(const LaunchCall& call, const CallContext& ctx);

  // Compiles every configuration of `call`, runs each in fast mode, checks it against the
  // reference outputs, and picks the fastest (tune.h, service_tune.cc); a cached decision
  // answers at once. Malformed calls are kInvalidArgument; ruled-out candidates are in the
  // reply (ok == false when none is left). `progress` sees every candidate's stages.
  Result<TuneReply> Tune(const TuneCall& call, const CallContext& ctx,
                         const TuneProgressFn& progress = nullptr);

  ServiceStats Stats();
  Result<std::vector<StoreEntryInfo>> List(size_t limit);
  // Evicts each handle; returns how many were present. Malformed handles: kInvalidArgument.
  Result<size_t> Evict(const std::vector<std::string>& handles);
  Status Pin(std::string_view handle);
  Status Unpin(std::string_view handle);
  // The kernels of `handles` (all when empty, up to `limit`).
  Result<std::vector<std::shared_ptr<const KernelRecord>>> Export(
      const std::vector<std::string>& handles, size_t limit);
  // The same, one kernel at a time into `sink`, so an export of any size holds one kernel in
  // memory; `sink` returns false to stop early (its reader went away). How many were sent.
  using ExportSink = std::function<bool(const KernelRecord&)>;
  Result<size_t> ExportEach(const std::vector<std::string>& handles, size_t limit,
                            const ExportSink& sink);
  // Stores each entry that is new, once its cluster signature verifies or else compiling the
  // canonical IR and configs the binary embeds gives that key and exactly those bytes
  // (service_import.cc); returns
  // (imported, already present). Any entry that is malformed or fails the check refuses the
  // whole call (kInvalidArgument naming the entry, counted) and imports nothing.
  Result<std::pair<size_t, size_t>> Import(const std::vector<ImportEntry>& entries,
                                           const CallContext& ctx = {});

  // Refuse new work (kUnavailable) from now on; work in progress continues.
  void StartDraining() { draining_.store(true); }
  bool draining() const { return draining_.load(); }
  // Waits for queued and running compiles to finish and stops the workers.
  void Shutdown();

  const std::string& fingerprint() const { return backend_->Fingerprint(); }
  MetricsRegistry& metrics() { return metrics_; }
  // Counts a request the transport refused before it reached the service (a malformed
  // message), so tilejit_requests_total sees every RPC.
  void CountRejected(std::string_view method, const Status& status) {
    CountRequest(method, status);
  }
  const ServiceOptions& options() const { return options_; }

 private:
  struct Timer;
  class CompileRun;
  class TuneRun;

  Status ValidateRequest(const frontend::FrontendRequest& request) const;
  // A place for a Compile or Launch call of ctx.caller (refusals counted and logged).
  Result<Admission::Ticket> Admit(const CallContext& ctx);
  // Runs the frontend on the compile pool, so that a hostile factory holds a bounded worker,
  // not a transport thread, and waits for it until the caller's deadline or cancellation.
  // Concurrent requests with the same digest share one run, which stops (bounded by
  // options_.frontend_limits) once every one of them has given up. With `remember`, a
  // successful run puts its memo entry under `digest`. A full queue is kResourceExhausted.
  SpecializeOutcome SpecializeOnPool(frontend::FrontendRequest request, const std::string& digest,
                                     bool remember, const CallContext& ctx);
  void StartFrontend(frontend::FrontendRequest request, const std::string& digest, bool remember,
                     const std::shared_ptr<Handoff<SpecializeOutcome>>& run);
  FlightResult RunLower(const SpecializeOutcome& specialized, const std::shared_ptr<Flight>& flight,
                        SteadyTime queued_at);
  // Cluster single-flight (service_cluster.cc): either a lease to compile under, or the
  // flight's result from another node (its kernel or compile error), or the flight's end
  // (deadline, abandoned); neither when the shared tier is down (compile locally).
  struct ClusterTurn {
    std::unique_ptr<ClusterLease> lease;
    std::optional<FlightResult> done;
  };
  ClusterTurn AwaitClusterTurn(const std::string& key, const std::shared_ptr<Flight>& flight);
  std::optional<FlightResult> RemoteResult(const std::string& key);
  LowerOutcome LowerTimed(const SpecializeOutcome& specialized,
                          const std::shared_ptr<Flight>& flight);
  Result<size_t> EvictKeys(const std::vector<std::string>& handles);
  Result<size_t> ExportKernels(const std::vector<std::string>& handles, size_t limit,
                               const ExportSink& sink);
  Result<std::pair<size_t, size_t>> ImportKernels(const std::vector<ImportEntry>& entries,
                                                  const CallContext& ctx);
  Status VerifyByRecompiling(const std::string& key, const std::string& binary,
                             const target::KernelSource& source,
                             const target::KernelMetadata& metadata, const CallContext& ctx);
  // kInvalidArgument for a refused import entry (counted and logged).
  Status Refused(const std::string& key, const std::string& why);
  // The back end on the compile pool for one caller (no single-flight, nothing cached).
  LowerOutcome LowerOnPool(const SpecializeOutcome& spec, const CallContext& ctx);
  Result<LaunchReply> LaunchImpl(const LaunchCall& call, const CallContext& ctx);
  // LaunchImpl, waiting (until ctx's deadline) for a launch slot instead of refusing.
  Result<LaunchReply> LaunchWhenFree(const LaunchCall& call, const CallContext& ctx);
  Status CheckLaunchCaps(const LaunchCall& call, const KernelRecord& kernel) const;
  Result<std::shared_ptr<const KernelRecord>> ResolveLaunchKernel(
      const LaunchCall& call, std::shared_ptr<const MemoEntry>* memo);
  void RegisterMetrics();
  void RegisterTuneMetrics();  // service_tune.cc
  void CountRequest(std::string_view method, const Status& status);
  // Counts `result` (a Status or a Result) as one `method` request and returns it.
  template <typename R>
  R Counted(std::string_view method, R result) {
    if constexpr (std::is_same_v<R, Status>) {
      CountRequest(method, result);
    } else {
      CountRequest(method, result.status());
    }
    return result;
  }

  ServiceOptions options_;
  std::unique_ptr<CompilerBackend> backend_;
  std::unique_ptr<KernelStore> store_;
  std::unique_ptr<ClusterFlights> cluster_;  // may be null
  RequestMemo memo_;
  ErrorCache errors_;
  SingleFlight flights_;
  WorkerPool pool_;
  Admission admission_;
  std::mutex frontend_mu_;  // guards frontend_flights_
  // The frontend run in progress per request digest (SpecializeOnPool).
  std::unordered_map<std::string, std::shared_ptr<Handoff<SpecializeOutcome>>> frontend_flights_;
  std::atomic<bool> draining_{false};
  // Shared with the launch threads, which may outlive a call (and the service).
  std::shared_ptr<const runner::DeviceFactory> devices_;
  // Launches holding a slot; shared with the launch threads like `devices_`.
  std::shared_ptr<std::atomic<int>> launch_slots_ = std::make_shared<std::atomic<int>>(0);

  MetricsRegistry metrics_;
  CounterFamily* requests_ = nullptr;         // method, code
  HistogramFamily* phase_seconds_ = nullptr;  // phase
  CounterFamily* hits_ = nullptr;             // tier
  Counter* misses_ = nullptr;
  Counter* backend_runs_ = nullptr;
  Counter* compile_errors_ = nullptr;
  Counter* joins_ = nullptr;
  Counter* memo_hits_ = nullptr;
  Counter* error_cache_hits_ = nullptr;
  Counter* frontend_runs_ = nullptr;
  Counter* stopped_compiles_ = nullptr;     // back-end runs stopped because nobody waited
  CounterFamily* refused_calls_ = nullptr;  // limit: "caller" or "all"
  Counter* import_refusals_ = nullptr;
  Counter* signed_imports_ = nullptr;
  Counter* cluster_leads_ = nullptr;
  Counter* cluster_waits_ = nullptr;
  Counter* cluster_remote_kernels_ = nullptr;
  Counter* cluster_remote_errors_ = nullptr;
  Counter* cluster_takeovers_ = nullptr;
  Counter* cluster_unavailable_ = nullptr;
  std::shared_ptr<DecisionStore> decisions_;
  Counter* tune_simulations_ = nullptr;
  Counter* tune_decisions_ = nullptr;
  Counter* tune_cached_ = nullptr;
  CounterFamily* tune_ruled_out_ = nullptr;  // stage: "compile", "run", "check"
};

}  // namespace tilejit::server
