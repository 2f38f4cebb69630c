// SPDX-License-Identifier: Apache-2.0
// CircuitBreaker: stops calling a remote service that keeps failing, so that callers fail fast
// instead of each waiting out a timeout (the shared-tier outage that turns a 27 s build into
// 5 min; service_anchors.md pain point 13).
//
// States:
// - closed: calls go through. `failure_threshold` consecutive failures open the breaker.
// - open: Allow() is false without any I/O, for `cooldown_ms`.
// - half-open: once the cooldown has passed, exactly one caller is allowed through as a probe;
//   the others are still refused. The probe's success closes the breaker; its failure opens it
//   again for another cooldown. A probe that never reports (its caller lost track of it) is
//   replaced by a new one after another cooldown.
// Results reported while open are ignored (they come from calls allowed before it opened).
//
// Usage: `if (!breaker.Allow()) return Unavailable(...);` then exactly one of RecordSuccess()
// or RecordFailure() for the call.
//
// Threading: all methods are safe to call concurrently. The clock is read under the breaker's
// mutex and must be cheap and thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>

namespace tilejit::cache {

enum class BreakerState { kClosed, kOpen, kHalfOpen };

std::string_view BreakerStateName(BreakerState state);

// Milliseconds on a monotonic clock (std::chrono::steady_clock), for intervals.
int64_t SteadyNowMs();

struct CircuitBreakerOptions {
  int failure_threshold = 3;         // consecutive failures that open the breaker; at least 1
  int64_t cooldown_ms = 5000;        // how long it stays open before a probe
  std::function<int64_t()> clock{};  // monotonic milliseconds; default SteadyNowMs
};

struct BreakerStats {
  BreakerState state = BreakerState::kClosed;
  uint64_t opens = 0;     // times the breaker opened (from closed or from a failed probe)
  uint64_t rejected = 0;  // calls refused by Allow()
};

class CircuitBreaker {
 public:
  explicit CircuitBreaker(CircuitBreakerOptions options = {});
  CircuitBreaker(const CircuitBreaker&) = delete;
  CircuitBreaker& operator=(const CircuitBreaker&) = delete;

  // Whether a call may go ahead now. May move open to half-open (making this caller the
  // probe). A true result must be followed by RecordSuccess or RecordFailure.
  bool Allow();
  void RecordSuccess();
  void RecordFailure();

  // The current state; an open breaker whose cooldown has passed still reads kOpen until a
  // caller's Allow() makes it the probe.
  BreakerState state() const;
  BreakerStats Stats() const;

 private:
  void OpenLocked(int64_t now);

  CircuitBreakerOptions options_;
  mutable std::mutex mu_;
  BreakerState state_ = BreakerState::kClosed;  // guarded by mu_
  int consecutive_failures_ = 0;                // guarded by mu_
  int64_t opened_ms_ = 0;                       // when it opened; guarded by mu_
  int64_t probe_ms_ = 0;                        // when the probe was let through; guarded by mu_
  uint64_t opens_ = 0;                          // guarded by mu_
  uint64_t rejected_ = 0;                       // guarded by mu_
};

}  // namespace tilejit::cache
