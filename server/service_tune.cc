// SPDX-License-Identifier: Apache-2.0
// Tune (tune.h): a cached decision answers at once; otherwise every configuration is compiled
// by a few helper threads through Compile (the memo, single-flight and the cache, the back
// end on the worker pool), and each compiled candidate then runs in fast mode on a fresh
// device on its helper thread (LaunchWhenFree waits for a launch slot rather than failing) and
// is compared with the reference outputs. The whole call runs under its own budget
// (TuneCall::max_seconds, else ServiceOptions::tune_max_seconds), not the single-compile
// limit. A tuning is cached only when no candidate was ruled out by the call's or the
// daemon's state (a deadline, load), which another call might not meet.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "server/service.h"
#include "server/tune_tensors.h"

namespace tilejit::server {
namespace {

constexpr auto kSlotPoll = std::chrono::milliseconds(5);

bool Transient(const Status& s) {
  return EndedByTheCall(s) || s.code() == StatusCode::kUnavailable ||
         s.code() == StatusCode::kInternal;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

int64_t OnChipBytes(const target::OnChipUsage& u) { return u.l1 + u.l0a + u.l0b + u.l0c + u.ub; }

TuneEvent::Kind KindOf(const TuneCandidate& c) {
  if (!c.reason.empty()) return TuneEvent::Kind::kRuledOut;
  return c.ran ? TuneEvent::Kind::kMeasured : TuneEvent::Kind::kCompiled;
}

}  // namespace

class CompileService::TuneRun {
 public:
  TuneRun(CompileService* s, const TuneCall& call, const CallContext& ctx,
          const TuneProgressFn& progress)
      : s_(s), call_(call), ctx_(ctx), progress_(progress) {
    const int budget = call.max_seconds > 0 ? call.max_seconds : s->options_.tune_max_seconds;
    ctx_.deadline = std::min(
        ctx.deadline, std::chrono::steady_clock::now() + std::chrono::seconds(std::max(1, budget)));
    reply_.candidates.resize(call.configs.size());
    metadata_.resize(call.configs.size());
    for (size_t i = 0; i < call.configs.size(); ++i) reply_.candidates[i].index = i;
  }

  Result<TuneReply> Run() {
    reply_.decision_key = TuneDecisionKey(call_, s_->fingerprint());
    if (FromCache()) return std::move(reply_);
    CompileAndMeasureAll();
    if (ctx_.cancelled && ctx_.cancelled()) return Cancelled("the tuning was cancelled");
    Decide();
    return std::move(reply_);
  }

 private:
  bool FromCache() {
    Result<std::optional<std::string>> hit = s_->decisions_->Get(reply_.decision_key);
    if (!hit.ok()) spdlog::warn("tune decision store: {}", hit.status().ToString());
    if (!hit.ok() || !hit->has_value()) return false;
    Result<TuneReply> decoded = DecodeDecision(**hit, call_.configs.size());
    if (!decoded.ok()) {
      spdlog::warn("tune decision {}: {}", reply_.decision_key.substr(0, 16),
                   decoded.status().ToString());
      return false;
    }
    decoded->decision_key = reply_.decision_key;
    decoded->from_cache = true;
    reply_ = std::move(*decoded);
    s_->tune_cached_->Inc();
    for (const TuneCandidate& c : reply_.candidates) Report(KindOf(c), c);
    return true;
  }

  void Report(TuneEvent::Kind kind, const TuneCandidate& c) {
    if (!progress_) return;
    std::lock_guard<std::mutex> lock(progress_mu_);
    progress_(TuneEvent{kind, c});
  }

  void RuleOut(TuneCandidate& c, const char* stage, std::string why, bool transient) {
    c.reason = std::string(stage) + ": " + std::move(why);
    c.transient = transient;
    s_->tune_ruled_out_->With({stage}).Inc();
    Report(TuneEvent::Kind::kRuledOut, c);
  }

  // One helper thread per compile worker takes the next configuration, compiles it and runs
  // it (the runs share the daemon's launch slots with every other launch).
  void CompileAndMeasureAll() {
    const size_t n = call_.configs.size();
    const size_t threads = std::min<size_t>(n, std::max(1, s_->options_.workers));
    std::atomic<size_t> next{0};
    std::vector<std::thread> helpers;
    for (size_t t = 0; t < threads; ++t) {
      helpers.emplace_back([&] {
        for (size_t i = next++; i < n; i = next++) {
          TuneCandidate& c = reply_.candidates[i];
          CompileOne(c);
          if (c.compiled && c.reason.empty()) Measure(c);
        }
      });
    }
    for (std::thread& h : helpers) h.join();
  }

  void CompileOne(TuneCandidate& c) {
    Result<CompileReply> r = s_->Compile(CandidateRequest(call_, c.index), {}, ctx_);
    if (!r.ok()) return RuleOut(c, "compile", r.status().ToString(), Transient(r.status()));
    if (!r->ok) return RuleOut(c, "compile", FirstLine(r->error), false);
    c.compiled = true;
    c.handle = r->handle;
    c.request_digest = r->request_digest;
    c.on_chip_bytes = OnChipBytes(r->metadata.on_chip);
    metadata_[c.index] = r->metadata;
    Report(TuneEvent::Kind::kCompiled, c);
  }

  void Measure(TuneCandidate& c) {
    LaunchCall launch;
    launch.handle = c.handle;
    launch.mode = runner::CheckMode::kFast;
    launch.instruction_budget = call_.instruction_budget;
    if (call_.inputs.empty()) {
      Result<std::vector<runner::NpyArray>> inputs =
          GenerateInputs(metadata_[c.index], call_.seed, s_->options_.max_launch_gm_bytes);
      if (!inputs.ok()) return RuleOut(c, "run", inputs.status().message(), false);
      launch.inputs = std::move(*inputs);
    } else {
      launch.inputs = call_.inputs;
    }
    Result<LaunchReply> ran = s_->LaunchWhenFree(launch, ctx_);
    if (!ran.ok()) return RuleOut(c, "run", ran.status().ToString(), Transient(ran.status()));
    s_->tune_simulations_->Inc();
    if (!ran->ok) return RuleOut(c, "run", FirstLine(ran->error), false);
    c.ran = true;
    c.cycles = ran->report.kernel_cycles;
    if (!call_.reference.empty()) {
      c.checked = true;
      std::string why = CompareOutputs(ran->outputs, call_.reference, call_.atol, call_.rtol);
      if (!why.empty()) return RuleOut(c, "check", std::move(why), false);
    }
    Report(TuneEvent::Kind::kMeasured, c);
  }

  void Decide() {
    reply_.best = PickBest(reply_.candidates);
    reply_.ok = reply_.best >= 0;
    if (reply_.ok) {
      reply_.best_handle = reply_.candidates[reply_.best].handle;
    } else {
      reply_.error = "no configuration is left of " + std::to_string(reply_.candidates.size());
      if (!reply_.candidates.empty())
        reply_.error += "; configs[0]: " + reply_.candidates[0].reason;
    }
    const bool transient = std::any_of(reply_.candidates.begin(), reply_.candidates.end(),
                                       [](const TuneCandidate& c) { return c.transient; });
    if (transient) return;
    s_->tune_decisions_->Inc();
    if (Status put = s_->decisions_->Put(reply_.decision_key, EncodeDecision(reply_)); !put.ok()) {
      spdlog::warn("tune decision store: {}", put.ToString());
    }
  }

  CompileService* s_;
  const TuneCall& call_;
  CallContext ctx_;
  const TuneProgressFn& progress_;
  std::mutex progress_mu_;
  TuneReply reply_;
  std::vector<target::KernelMetadata> metadata_;  // by index, of compiled candidates
};

void CompileService::RegisterTuneMetrics() {
  auto single = [this](const char* name, const char* help) {
    return &metrics_.AddCounter(name, help, {})->With({});
  };
  tune_simulations_ = single("tilejit_tune_simulations_total",
                             "Candidate runs on the simulated device made by Tune calls");
  tune_decisions_ = single("tilejit_tune_decisions_total", "Tune decisions made by tuning");
  tune_cached_ = single("tilejit_tune_decisions_cached_total",
                        "Tune calls answered by a cached decision (no compile, no simulation)");
  tune_ruled_out_ = metrics_.AddCounter("tilejit_tune_ruled_out_total",
                                        "Tune candidates ruled out, by stage", {"stage"});
}

Result<LaunchReply> CompileService::LaunchWhenFree(const LaunchCall& call, const CallContext& ctx) {
  for (;;) {
    Result<LaunchReply> r = LaunchImpl(call, ctx);
    const bool no_slot = r.status().code() == StatusCode::kResourceExhausted &&
                         r.status().message().starts_with("too many launches");
    if (!no_slot) return r;
    if (ctx.cancelled && ctx.cancelled()) return Cancelled("the tuning was cancelled");
    if (std::chrono::steady_clock::now() + kSlotPoll >= ctx.deadline) {
      return DeadlineExceeded("the tuning's budget ran out waiting for a launch slot");
    }
    std::this_thread::sleep_for(kSlotPoll);
  }
}

Result<TuneReply> CompileService::Tune(const TuneCall& call, const CallContext& ctx,
                                       const TuneProgressFn& progress) {
  const SteadyTime t0 = std::chrono::steady_clock::now();
  auto run = [&]() -> Result<TuneReply> {
    if (draining()) return Unavailable("tilejitd is draining (shutting down); retry elsewhere");
    TILEJIT_RETURN_IF_ERROR(ValidateTuneCall(call));
    if (call.candidates.empty()) TILEJIT_RETURN_IF_ERROR(ValidateRequest(call.request));
    for (const frontend::FrontendRequest& r : call.candidates) {
      TILEJIT_RETURN_IF_ERROR(ValidateRequest(r));
    }
    TILEJIT_ASSIGN_OR_RETURN(Admission::Ticket admitted, Admit(ctx));
    return TuneRun(this, call, ctx, progress).Run();
  };
  Result<TuneReply> reply = run();
  CountRequest("Tune", reply.status());
  phase_seconds_->With({"tune"}).Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (reply.ok()) {
    spdlog::info("tune id={} decision={} cached={} best={}", ctx.request_id,
                 reply->decision_key.substr(0, 16), reply->from_cache, reply->best);
  }
  return reply;
}

}  // namespace tilejit::server
