// SPDX-License-Identifier: Apache-2.0
// When the daemon last worked for a client: the tilejit.v1 calls in flight and the end of the
// last one, so tilejitd --idle-exit-seconds can stop a private daemon nobody uses. Health
// checks and reflection are not activity (a client polling health must not keep it alive).
//
//   ActiveCall call(&activity);   // first statement of an RPC handler
//
// Thread-safe: every member may be used from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace tilejit::server {

class Activity {
 public:
  Activity() : last_end_ms_(NowMs()) {}

  void Enter() { in_flight_.fetch_add(1); }
  void Exit() {
    last_end_ms_.store(NowMs());
    in_flight_.fetch_sub(1);
  }
  // Seconds since the last call ended (or since start), 0 while any call runs.
  double IdleSeconds() const {
    if (in_flight_.load() > 0) return 0;
    return static_cast<double>(NowMs() - last_end_ms_.load()) / 1000.0;
  }

 private:
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  std::atomic<int> in_flight_{0};
  std::atomic<int64_t> last_end_ms_;
};

// Marks one call in flight for its lifetime.
class ActiveCall {
 public:
  explicit ActiveCall(Activity* a) : a_(a) { a_->Enter(); }
  ~ActiveCall() { a_->Exit(); }
  ActiveCall(const ActiveCall&) = delete;
  ActiveCall& operator=(const ActiveCall&) = delete;

 private:
  Activity* a_;
};

}  // namespace tilejit::server
