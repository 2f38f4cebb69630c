// SPDX-License-Identifier: Apache-2.0
// The compile path of CompileService. The order of the lookups is what makes a repeated
// request cheap: the digest is one SHA-256 over the raw request, the error cache and the memo
// are hash-map lookups, and only a memo miss runs the frontend. The memo is per digest, not
// per key, because two sources with the same canonical IR (say, differing in comments) need
// their own source maps and diagnostics.
#include "server/service.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <thread>
#include <utility>

#include "common/check.h"
#include "server/handle.h"
#include "server/request_digest.h"
#include "server/utf8.h"

namespace tilejit::server {
namespace {

double MillisSince(SteadyTime t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Status CheckText(std::string_view what, std::string_view text, size_t max_bytes) {
  if (text.size() > max_bytes) {
    return InvalidArgument(std::string(what) + " is " + std::to_string(text.size()) +
                           " bytes; the limit is " + std::to_string(max_bytes));
  }
  if (auto bad = FindInvalidUtf8(text)) {
    return InvalidArgument(std::string(what) + " is not valid UTF-8 (byte offset " +
                           std::to_string(*bad) + ")");
  }
  return Status::Ok();
}

// Diagnostics computed against another request's source (the single-flight leader's) keep
// their message but lose their location, which would point into the wrong file.
std::vector<DiagnosticInfo> Unlocated(std::vector<DiagnosticInfo> diags) {
  for (DiagnosticInfo& d : diags) {
    d.file.clear();
    d.line = d.column = 0;
    d.rendered = std::string(SeverityName(d.severity)) + ": " + d.message;
    d.notes = Unlocated(std::move(d.notes));
  }
  return diags;
}

std::shared_ptr<MemoEntry> MemoFrom(const SpecializeOutcome& spec, const std::string& file_name) {
  auto entry = std::make_shared<MemoEntry>();
  entry->key = spec.key;
  entry->file_name = file_name;
  entry->source_map = spec.source_map;
  entry->file_names = spec.file_names;
  entry->diagnostics = spec.diagnostics;
  entry->ignored_config_keys = spec.ignored_config_keys;
  entry->ir_text = spec.ir_text;
  return entry;
}

std::string FirstErrorText(const std::vector<DiagnosticInfo>& diags, const Status& status) {
  for (const DiagnosticInfo& d : diags) {
    if (d.severity == Severity::kError) return d.rendered;
  }
  return status.message();
}

}  // namespace

// Times one phase into the reply and the phase histogram.
struct CompileService::Timer {
  CompileService* service;
  std::vector<PhaseTiming>* timings;
  SteadyTime t0 = std::chrono::steady_clock::now();

  void Lap(const char* phase) {
    const double ms = MillisSince(t0);
    Record(phase, ms);
    t0 = std::chrono::steady_clock::now();
  }
  void Record(const char* phase, double ms) {
    timings->push_back({phase, ms});
    service->phase_seconds_->With({phase}).Observe(ms / 1000.0);
  }
};

CompileService::CompileService(ServiceOptions options, std::unique_ptr<CompilerBackend> backend,
                               std::unique_ptr<KernelStore> store, runner::DeviceFactory devices,
                               std::unique_ptr<ClusterFlights> cluster)
    : options_(options),
      backend_(std::move(backend)),
      store_(std::move(store)),
      cluster_(std::move(cluster)),
      memo_(options.memo_capacity),
      errors_(options.error_ttl_ms, options.memo_capacity),
      pool_(options.workers < 1 ? 1 : options.workers, options.queue_capacity),
      admission_(std::max(1, options.max_calls), std::max(1, options.max_calls_per_caller)),
      devices_(std::make_shared<const runner::DeviceFactory>(std::move(devices))) {
  decisions_ = options_.decisions ? options_.decisions : std::make_shared<MemoryDecisionStore>();
  TILEJIT_CHECK(*devices_) << "CompileService needs a device factory";
  RegisterMetrics();
}

CompileService::~CompileService() { Shutdown(); }

void CompileService::Shutdown() {
  draining_.store(true);
  pool_.Shutdown();
}

Status CompileService::ValidateRequest(const frontend::FrontendRequest& request) const {
  if (draining()) return Unavailable("tilejitd is draining (shutting down); retry elsewhere");
  if (request.format == frontend::SourceFormat::kPrimFunc) {
    if (request.files.empty() || request.functions.empty()) {
      return InvalidArgument("a PRIM_FUNC request needs files and functions");
    }
    size_t bytes = 0;
    for (const frontend::SourceFile& f : request.files) bytes += f.text.size();
    if (bytes > options_.max_source_bytes) {
      return InvalidArgument("the request's files hold " + std::to_string(bytes) +
                             " bytes, over the limit of " +
                             std::to_string(options_.max_source_bytes));
    }
    return Status::Ok();
  }
  if (request.source.empty()) return InvalidArgument("source is empty");
  TILEJIT_RETURN_IF_ERROR(CheckText("source", request.source, options_.max_source_bytes));
  TILEJIT_RETURN_IF_ERROR(CheckText("entry", request.entry, 256));
  TILEJIT_RETURN_IF_ERROR(CheckText("file_name", request.file_name, 1024));
  if (request.format == frontend::SourceFormat::kTileLang && request.entry.empty()) {
    return InvalidArgument("entry is required for TileLang source (the factory to call)");
  }
  return Status::Ok();
}

// One Compile call: the steps of the compile path, each a small method.
class CompileService::CompileRun {
 public:
  CompileRun(CompileService* s, const frontend::FrontendRequest& request,
             const CompileOptions& options, const CallContext& ctx, const ProgressFn& progress)
      : s_(s), request_(request), options_(options), ctx_(ctx), progress_(progress) {
    timer_.service = s;
    timer_.timings = &reply_.timings;
  }

  Result<CompileReply> Run() {
    Result<CompileReply> reply = RunCompile();
    if (!reply.ok() || !reply->ok || options_.print_after.empty()) return reply;
    TILEJIT_RETURN_IF_ERROR(DumpIr(&*reply));
    return reply;
  }

 private:
  Result<CompileReply> RunCompile() {
    reply_.request_digest = RequestDigest(request_, s_->fingerprint());
    timer_.Lap("digest");
    if (auto error = s_->errors_.Get(reply_.request_digest)) {
      s_->error_cache_hits_->Inc();
      reply_.error = error->message;
      reply_.diagnostics = error->diagnostics;
      return std::move(reply_);
    }
    memo_ = s_->memo_.Get(reply_.request_digest);
    timer_.Lap("memo");
    if (memo_) {
      s_->memo_hits_->Inc();
    } else if (!Specialize()) {
      return Finish();
    }
    FillFromMemo();
    Result<StoreHit> hit = s_->store_->Get(memo_->key);
    timer_.Lap("store_get");
    if (hit.ok()) {
      s_->hits_->With({hit->tier}).Inc();
      reply_.tier = hit->tier;
      FillKernel(*hit->kernel);
      return std::move(reply_);
    }
    s_->misses_->Inc();
    if (!spec_.state) {
      // A memo hit joins the compile of its key in progress, if there is one; only a kernel
      // that is neither stored nor being compiled (evicted) needs the frontend again.
      SingleFlight::Joined joined = s_->flights_.JoinInFlight(memo_->key, ctx_.deadline);
      if (joined.flight) return AwaitFlight(joined);
      if (!Specialize()) return Finish();
    }
    return LowerOnce();
  }

  // The IR after the requested passes, from a fresh lowering on this thread that nothing is
  // cached from (a debugging aid: the kernel itself was served above, from wherever).
  Status DumpIr(CompileReply* reply) {
    const SpecializeOutcome spec =
        s_->SpecializeOnPool(request_, reply_.request_digest, /*remember=*/false, ctx_);
    if (EndedByTheCall(spec.status)) return spec.status;
    if (!spec.status.ok()) return Internal("the kernel compiled but does not specialise again");
    LowerOptions lower;
    lower.print_after = options_.print_after;
    LowerOutcome lowered = s_->backend_->Lower(spec, lower);
    if (!lowered.status.ok()) return lowered.status;
    reply->ir_dumps = std::move(lowered.ir_dumps);
    return Status::Ok();
  }

  // Runs the frontend; false when the reply (or error status) is final.
  bool Specialize() {
    spec_ = s_->SpecializeOnPool(request_, reply_.request_digest, /*remember=*/true, ctx_);
    timer_.Lap("frontend");
    if (!spec_.status.ok()) {
      if (spec_.status.code() == StatusCode::kCompileError) {
        SetCompileError(spec_.status, spec_.diagnostics);
      } else {
        status_ = spec_.status;
      }
      return false;
    }
    memo_ = MemoFrom(spec_, request_.file_name);  // the run has put the same in the memo
    return true;
  }

  Result<CompileReply> LowerOnce() {
    SingleFlight::Joined joined = s_->flights_.Join(memo_->key, ctx_.deadline);
    if (joined.leader) {
      // A flight for this key may have finished between our store miss and the Join; its
      // kernel is then in the store and compiling again would be waste.
      if (Result<StoreHit> hit = s_->store_->Get(memo_->key); hit.ok()) {
        FlightResult r;
        r.kernel = hit->kernel;
        s_->flights_.Finish(memo_->key, joined.flight, std::move(r));
        s_->hits_->With({hit->tier}).Inc();
        reply_.tier = hit->tier;
        FillKernel(*hit->kernel);
        return std::move(reply_);
      }
      if (!Enqueue(joined.flight)) return Finish();
    }
    return AwaitFlight(joined);
  }

  Result<CompileReply> AwaitFlight(const SingleFlight::Joined& joined) {
    if (!joined.leader) s_->joins_->Inc();
    FlightResult r = joined.flight->Wait(ctx_.deadline, ctx_.cancelled);
    timer_.Record("queue", r.queue_millis);
    timer_.Record("backend", r.backend_millis);
    if (progress_) {
      for (const PassTiming& p : r.passes) {
        progress_({ProgressEvent::Kind::kPass, 0, p});
      }
    }
    reply_.passes = r.passes;
    // The back end's diagnostics follow the frontend's, errors or warnings (a kernel whose
    // author must place syncs, say), for every request that waited for this compile; a
    // later store hit does not repeat them.
    const bool same_source = r.leader_digest == reply_.request_digest;
    for (DiagnosticInfo& d : same_source ? r.diagnostics : Unlocated(r.diagnostics)) {
      reply_.diagnostics.push_back(std::move(d));
    }
    if (!r.status.ok()) {
      if (r.status.code() != StatusCode::kCompileError) return r.status;
      SetCompileError(r.status, reply_.diagnostics);
      return Finish();
    }
    // A leader whose kernel another node compiled reports the tier it came through.
    reply_.tier = !joined.leader ? "joined" : r.tier.empty() ? "compiled" : r.tier;
    FillKernel(*r.kernel);
    return std::move(reply_);
  }

  // Queues the back-end compile of the flight this request leads; false when it cannot be.
  bool Enqueue(const std::shared_ptr<Flight>& flight) {
    const SteadyTime queued_at = std::chrono::steady_clock::now();
    auto job = [s = s_, spec = spec_, flight, queued_at, digest = reply_.request_digest] {
      FlightResult r = s->RunLower(spec, flight, queued_at);
      if (!r.remote) r.leader_digest = digest;
      s->flights_.Finish(spec.key, flight, std::move(r));
    };
    Result<size_t> position = s_->pool_.Submit(std::move(job));
    if (!position.ok()) {
      FlightResult r;
      r.status = position.status();
      s_->flights_.Finish(memo_->key, flight, r);
      status_ = position.status();
      return false;
    }
    if (progress_) progress_({ProgressEvent::Kind::kQueued, *position, {}});
    return true;
  }

  void SetCompileError(const Status& status, std::vector<DiagnosticInfo> diags) {
    auto error = std::make_shared<CachedError>();
    error->message = FirstErrorText(diags, status);
    error->diagnostics = std::move(diags);
    s_->errors_.Put(reply_.request_digest, error);
    s_->compile_errors_->Inc();
    reply_.ok = false;
    reply_.error = error->message;
    reply_.diagnostics = error->diagnostics;
    reply_.handle.clear();  // no kernel to name; the key (if known) stays for reference
    reply_.tier.clear();
  }

  Result<CompileReply> Finish() {
    if (!status_.ok()) return status_;
    return std::move(reply_);
  }

  void FillFromMemo() {
    reply_.key = memo_->key;
    reply_.handle = HandleFromKey(memo_->key);
    reply_.diagnostics = memo_->diagnostics;
    reply_.ignored_config_keys = memo_->ignored_config_keys;
    if (options_.include_ir) reply_.ir_text = memo_->ir_text;
    if (options_.include_source_map) reply_.source_map = memo_->source_map;
  }

  void FillKernel(const KernelRecord& kernel) {
    reply_.ok = true;
    reply_.has_metadata = true;
    reply_.metadata = kernel.metadata;
    if (options_.include_binary) reply_.binary = kernel.binary;
  }

  CompileService* s_;
  const frontend::FrontendRequest& request_;
  const CompileOptions& options_;
  const CallContext& ctx_;
  const ProgressFn& progress_;
  CompileReply reply_;
  Timer timer_;
  Status status_;  // a non-OK status ends the call with it
  std::shared_ptr<const MemoEntry> memo_;
  SpecializeOutcome spec_;
};

Result<CompileReply> CompileService::Compile(const frontend::FrontendRequest& request,
                                             const CompileOptions& options, const CallContext& ctx,
                                             const ProgressFn& progress) {
  const SteadyTime start = std::chrono::steady_clock::now();
  Status valid = ValidateRequest(request);
  if (valid.ok() && start >= ctx.deadline) {
    valid = DeadlineExceeded("the deadline passed before the compile started");
  }
  if (!valid.ok()) {
    CountRequest("Compile", valid);
    return valid;
  }
  Result<Admission::Ticket> admitted = Admit(ctx);
  if (!admitted.ok()) {
    CountRequest("Compile", admitted.status());
    return admitted.status();
  }
  CompileRun run(this, request, options, ctx, progress);
  Result<CompileReply> reply = run.Run();
  CountRequest("Compile", reply.status());
  if (reply.ok()) {
    phase_seconds_->With({"total"}).Observe(MillisSince(start) / 1000.0);
    reply->timings.push_back({"total", MillisSince(start)});
    // A hit is the hot path and says nothing new: a log write per hit cost about 4% of the
    // hit throughput in bench/service. Compiles, joins and failures stay at info.
    const bool hit = reply->tier == "memory" || reply->tier == "sqlite";
    spdlog::log(hit ? spdlog::level::debug : spdlog::level::info,
                "compile id={} key={} tier={} ok={} total_ms={:.3f}", ctx.request_id,
                std::string_view(reply->key).substr(0, 16), reply->tier, reply->ok,
                reply->timings.back().millis);
  } else {
    spdlog::info("compile id={} status={}", ctx.request_id, reply.status().ToString());
  }
  return reply;
}

Result<Admission::Ticket> CompileService::Admit(const CallContext& ctx) {
  const char* limit = "";
  Result<Admission::Ticket> ticket = admission_.Enter(ctx.caller, &limit);
  if (!ticket.ok()) {
    refused_calls_->With({limit}).Inc();
    spdlog::warn("call id={} from {} refused: {}", ctx.request_id, ctx.caller,
                 ticket.status().message());
  }
  return ticket;
}

SpecializeOutcome CompileService::SpecializeOnPool(frontend::FrontendRequest request,
                                                   const std::string& digest, bool remember,
                                                   const CallContext& ctx) {
  std::shared_ptr<Handoff<SpecializeOutcome>> run;
  bool leader = false;
  {
    std::lock_guard<std::mutex> lock(frontend_mu_);
    std::shared_ptr<Handoff<SpecializeOutcome>>& slot = frontend_flights_[digest];
    if (slot == nullptr || !slot->Join()) {
      slot = std::make_shared<Handoff<SpecializeOutcome>>();
      leader = true;
    }
    run = slot;
  }
  if (leader) StartFrontend(std::move(request), digest, remember, run);
  SpecializeOutcome out;
  if (Status waited = run->Wait(ctx.deadline, ctx.cancelled, "the frontend", &out); !waited.ok()) {
    out = SpecializeOutcome{};
    out.status = std::move(waited);
  }
  return out;
}

void CompileService::StartFrontend(frontend::FrontendRequest request, const std::string& digest,
                                   bool remember,
                                   const std::shared_ptr<Handoff<SpecializeOutcome>>& run) {
  frontend_runs_->Inc();
  request.limits = options_.frontend_limits;
  // No deadline: the run serves every waiter, and stops when the last one gives up (or at its
  // own time budget). Not ctx.cancelled: the run may outlive the call and its transport.
  request.deadline = frontend::HostBudget::Clock::time_point::max();
  request.cancelled = [run] { return run->abandoned(); };
  // The memo is filled before the run leaves frontend_flights_, so that a request with this
  // digest finds one or the other, never neither (and never runs the frontend again).
  auto finish = [this, digest, run, remember,
                 file_name = request.file_name](SpecializeOutcome out) {
    if (remember && out.status.ok()) memo_.Put(digest, MemoFrom(out, file_name));
    {
      std::lock_guard<std::mutex> lock(frontend_mu_);
      auto it = frontend_flights_.find(digest);
      if (it != frontend_flights_.end() && it->second == run) frontend_flights_.erase(it);
    }
    run->Put(std::move(out));
  };
  auto job = [backend = backend_.get(), finish, request = std::move(request)]() mutable {
    SpecializeOutcome out;
    try {
      out = backend->Specialize(std::move(request));
    } catch (const std::exception& e) {
      out.status = Internal(std::string("frontend failed: ") + e.what());
    }
    finish(std::move(out));
  };
  if (Result<size_t> queued = pool_.Submit(std::move(job)); !queued.ok()) {
    SpecializeOutcome refused;
    refused.status = queued.status();
    finish(std::move(refused));
  }
}

FlightResult CompileService::RunLower(const SpecializeOutcome& specialized,
                                      const std::shared_ptr<Flight>& flight, SteadyTime queued_at) {
  FlightResult r;
  r.queue_millis = MillisSince(queued_at);
  if (flight->abandoned() || std::chrono::steady_clock::now() >= flight->deadline()) {
    r.status = DeadlineExceeded("every caller gave up while the compile was queued; not compiled");
    return r;
  }
  // Held until this function returns, after the Put: a node waiting for the key then finds
  // the kernel (or the shared error) as soon as it can take the lease.
  std::unique_ptr<ClusterLease> lease;
  if (cluster_ != nullptr) {
    const SteadyTime wait_start = std::chrono::steady_clock::now();
    ClusterTurn turn = AwaitClusterTurn(specialized.key, flight);
    r.queue_millis += MillisSince(wait_start);
    if (turn.done) {
      turn.done->queue_millis = r.queue_millis;
      return std::move(*turn.done);
    }
    lease = std::move(turn.lease);
  }
  const SteadyTime t0 = std::chrono::steady_clock::now();
  LowerOutcome lowered = LowerTimed(specialized, flight);
  r.backend_millis = MillisSince(t0);
  r.diagnostics = std::move(lowered.diagnostics);
  r.passes = std::move(lowered.passes);
  if (!lowered.status.ok()) {
    if (lease != nullptr && lowered.status.code() == StatusCode::kCompileError) {
      lease->ShareError({lowered.status.message(), r.diagnostics});
    }
    r.status = lowered.status;
    return r;
  }
  auto kernel = std::make_shared<KernelRecord>();
  kernel->key = specialized.key;
  kernel->binary.assign(lowered.binary.begin(), lowered.binary.end());
  kernel->metadata = std::move(lowered.metadata);
  // Published before the flight finishes, so a request arriving after the flight is gone
  // finds the kernel in the store instead of compiling it again.
  const SteadyTime put_start = std::chrono::steady_clock::now();
  Status put = store_->Put(kernel);
  phase_seconds_->With({"store_put"}).Observe(MillisSince(put_start) / 1000.0);
  if (!put.ok()) spdlog::warn("cache put key={} failed: {}", kernel->key, put.ToString());
  r.kernel = std::move(kernel);
  return r;
}

// One back-end run, stopped when nobody waits for it any more or at the daemon's time limit.
LowerOutcome CompileService::LowerTimed(const SpecializeOutcome& specialized,
                                        const std::shared_ptr<Flight>& flight) {
  backend_runs_->Inc();
  const SteadyTime t0 = std::chrono::steady_clock::now();
  if (options_.test_backend_delay_ms > 0) {  // counted as back-end time: a slow back end
    std::this_thread::sleep_for(std::chrono::milliseconds(options_.test_backend_delay_ms));
  }
  LowerOptions lower;
  // Work nobody waits for any more is stopped; joiners keep a compile alive.
  lower.interrupt = [this, flight,
                     limit = t0 + std::chrono::seconds(options_.compile_max_seconds)] {
    if (flight->abandoned()) {
      return Cancelled("every caller waiting for this compile gave up; it was stopped");
    }
    if (std::chrono::steady_clock::now() >= limit) {
      return DeadlineExceeded("the compile ran longer than the daemon's limit of " +
                              std::to_string(options_.compile_max_seconds) +
                              " s (--compile-max-seconds); it was stopped");
    }
    return Status::Ok();
  };
  LowerOutcome lowered;
  try {
    lowered = backend_->Lower(specialized, lower);
  } catch (const std::exception& e) {
    lowered.status = Internal(std::string("back end failed: ") + e.what());
  }
  if (lowered.status.code() == StatusCode::kCancelled) stopped_compiles_->Inc();
  return lowered;
}

void CompileService::CountRequest(std::string_view method, const Status& status) {
  requests_->With({std::string(method), std::string(StatusCodeName(status.code()))}).Inc();
}

}  // namespace tilejit::server
