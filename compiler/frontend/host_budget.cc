// SPDX-License-Identifier: Apache-2.0
// The clock is read every 1024 steps, not at each: a step is a few hundred nanoseconds and a
// clock read would be a tenth of it; 1024 steps end well within a millisecond of any limit.
#include "compiler/frontend/host_budget.h"

#include <algorithm>
#include <cstdio>

namespace tilejit::frontend {
namespace {

thread_local HostBudget* g_active = nullptr;

constexpr uint64_t kClockEvery = 1024;

std::string Mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

}  // namespace

void HostMeter::Add(int64_t bytes) {
  const int64_t now = held.fetch_add(bytes) + bytes;
  int64_t p = peak.load();
  while (now > p && !peak.compare_exchange_weak(p, now)) {
  }
}

HostCharge::HostCharge(std::shared_ptr<HostMeter> meter, int64_t bytes)
    : meter_(std::move(meter)), bytes_(bytes) {
  if (meter_) meter_->Add(bytes_);
}

HostCharge::HostCharge(const HostCharge& other) : HostCharge(other.meter_, other.bytes_) {}

HostCharge::HostCharge(HostCharge&& other) noexcept
    : meter_(std::move(other.meter_)), bytes_(other.bytes_) {
  other.meter_ = nullptr;
}

HostCharge& HostCharge::operator=(HostCharge other) noexcept {
  std::swap(meter_, other.meter_);
  std::swap(bytes_, other.bytes_);
  return *this;
}

HostCharge::~HostCharge() {
  if (meter_) meter_->Add(-bytes_);
}

HostBudget::HostBudget(const HostLimits& limits, Clock::time_point deadline,
                       std::function<bool()> cancelled)
    : limits_(limits), caller_deadline_(deadline), cancelled_(std::move(cancelled)) {
  limits_.max_call_depth = std::clamp(limits_.max_call_depth, 1, HostLimits::kMaxCallDepthLimit);
  const Clock::time_point start = Clock::now();
  const auto wall = std::chrono::duration<double>(std::max(0.0, limits_.max_seconds));
  wall_deadline_ = wall < Clock::time_point::max() - start
                       ? start + std::chrono::duration_cast<Clock::duration>(wall)
                       : Clock::time_point::max();
}

// With no diagnostic engine (Tick) the message waits in pending_ for the next Step.
bool HostBudget::Fail(SourceLoc loc, DiagnosticEngine* diag, const std::string& message) {
  if (!exhausted_) {
    if (diag != nullptr) {
      diag->Error(loc) << message;
    } else {
      pending_ = message;
    }
  }
  exhausted_ = true;
  return false;
}

void HostBudget::Report(SourceLoc loc, DiagnosticEngine* diag) {
  if (pending_.empty()) return;
  diag->Error(loc) << pending_;
  pending_.clear();
}

bool HostBudget::Tick(uint64_t bytes_made) {
  if (exhausted_) return false;
  if (++steps_ > limits_.max_steps) return Fail({}, nullptr, StepMessage());
  if (bytes_made > limits_.max_memory_bytes) {
    return Fail({}, nullptr,
                "the factory made a text of over " + Mib(limits_.max_memory_bytes) +
                    ", its memory budget (a daemon setting: --frontend-max-memory-mb)");
  }
  return steps_ % kClockEvery != 0 || CheckClock({}, nullptr);
}

bool HostBudget::CheckClock(SourceLoc loc, DiagnosticEngine* diag) {
  const Clock::time_point now = Clock::now();
  std::string why;
  if (now >= wall_deadline_) {
    why = "the frontend ran past its time budget of " + Seconds(limits_.max_seconds) +
          " (a daemon setting: --frontend-max-seconds)";
  } else if (now >= caller_deadline_) {
    why = "the caller's deadline passed";
  } else if (cancelled_ && cancelled_()) {
    why = "the caller cancelled the compile";
  } else {
    return true;
  }
  stopped_by_time_ = true;
  return Fail(loc, diag, why);
}

std::string HostBudget::StepMessage() const {
  return "the factory ran past its step budget of " + std::to_string(limits_.max_steps) +
         " steps (statements, loop iterations, calls and elements walked; a daemon setting: "
         "--frontend-max-steps)";
}

bool HostBudget::Step(SourceLoc loc, DiagnosticEngine* diag) {
  if (exhausted_) {
    Report(loc, diag);
    return false;
  }
  if (++steps_ > limits_.max_steps) return Fail(loc, diag, StepMessage());
  const int64_t held = meter_->held.load(std::memory_order_relaxed);
  if (held > 0 && static_cast<uint64_t>(held) > limits_.max_memory_bytes) {
    return Fail(loc, diag,
                "the factory's values hold " + Mib(held) + ", over its memory budget of " +
                    Mib(limits_.max_memory_bytes) +
                    " (a daemon setting: --frontend-max-memory-mb)");
  }
  return steps_ % kClockEvery != 0 || CheckClock(loc, diag);
}

bool HostBudget::Reserve(uint64_t bytes, SourceLoc loc, DiagnosticEngine* diag) {
  if (exhausted_) {
    Report(loc, diag);
    return false;
  }
  const int64_t held = std::max<int64_t>(0, meter_->held.load(std::memory_order_relaxed));
  if (bytes <= limits_.max_memory_bytes - std::min<uint64_t>(held, limits_.max_memory_bytes)) {
    return true;
  }
  return Fail(loc, diag,
              "this value would take " + Mib(bytes) + " with " + Mib(held) +
                  " held, over the factory's memory budget of " + Mib(limits_.max_memory_bytes) +
                  " (a daemon setting: --frontend-max-memory-mb)");
}

bool HostBudget::EnterCall(int depth, SourceLoc loc, DiagnosticEngine* diag) {
  if (exhausted_) {
    Report(loc, diag);
    return false;
  }
  if (depth < limits_.max_call_depth) return true;
  return Fail(loc, diag,
              "call depth exceeds " + std::to_string(limits_.max_call_depth) +
                  ", the recursion limit (a daemon setting: --frontend-max-call-depth)");
}

HostBudget::Active::Active(HostBudget* budget) : previous_(g_active) { g_active = budget; }
HostBudget::Active::~Active() { g_active = previous_; }
HostBudget* HostBudget::Current() { return g_active; }

}  // namespace tilejit::frontend
