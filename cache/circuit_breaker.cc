// SPDX-License-Identifier: Apache-2.0
#include "cache/circuit_breaker.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace tilejit::cache {

std::string_view BreakerStateName(BreakerState state) {
  switch (state) {
    case BreakerState::kClosed:
      return "closed";
    case BreakerState::kOpen:
      return "open";
    case BreakerState::kHalfOpen:
      return "half-open";
  }
  return "unknown";
}

int64_t SteadyNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

CircuitBreaker::CircuitBreaker(CircuitBreakerOptions options) : options_(std::move(options)) {
  if (!options_.clock) options_.clock = SteadyNowMs;
  options_.failure_threshold = std::max(options_.failure_threshold, 1);
  options_.cooldown_ms = std::max<int64_t>(options_.cooldown_ms, 0);
}

bool CircuitBreaker::Allow() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == BreakerState::kClosed) return true;
  const int64_t now = options_.clock();
  if (state_ == BreakerState::kOpen && now - opened_ms_ >= options_.cooldown_ms) {
    state_ = BreakerState::kHalfOpen;
    probe_ms_ = now;
    return true;
  }
  // A probe whose caller never reported must not keep the breaker half-open forever.
  if (state_ == BreakerState::kHalfOpen && now - probe_ms_ >= options_.cooldown_ms) {
    probe_ms_ = now;
    return true;
  }
  ++rejected_;
  return false;
}

void CircuitBreaker::RecordSuccess() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == BreakerState::kOpen) return;
  state_ = BreakerState::kClosed;
  consecutive_failures_ = 0;
}

void CircuitBreaker::RecordFailure() {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t now = options_.clock();
  switch (state_) {
    case BreakerState::kOpen:
      return;
    case BreakerState::kHalfOpen:
      OpenLocked(now);
      return;
    case BreakerState::kClosed:
      if (++consecutive_failures_ >= options_.failure_threshold) OpenLocked(now);
      return;
  }
}

void CircuitBreaker::OpenLocked(int64_t now) {
  state_ = BreakerState::kOpen;
  opened_ms_ = now;
  consecutive_failures_ = 0;
  ++opens_;
}

BreakerState CircuitBreaker::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

BreakerStats CircuitBreaker::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return BreakerStats{state_, opens_, rejected_};
}

}  // namespace tilejit::cache
