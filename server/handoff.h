// SPDX-License-Identifier: Apache-2.0
// Handoff<T>: one result passed from a worker thread to the callers waiting for it, each of
// which may stop waiting.
//
//   auto h = std::make_shared<Handoff<Outcome>>();   // the first waiter is counted
//   pool.Submit([h] { h->Put(Work(/*stop when*/ h->abandoned())); });
//   Outcome out;
//   Status waited = h->Wait(ctx.deadline, ctx.cancelled, "the frontend", &out);
//
// More waiters Join before the result is in. A waiter whose deadline passes (or who is
// cancelled) gets kDeadlineExceeded (kCancelled) at once; once every waiter has gone the
// handoff is abandoned, which the work polls to stop early (its result is then dropped).
// Shared ownership lets either side finish last.
//
// Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/result.h"

namespace tilejit::server {

template <typename T>
class Handoff {
 public:
  using Clock = std::chrono::steady_clock;

  void Put(T value) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      value_.emplace(std::move(value));
    }
    cv_.notify_all();
  }

  // Counts one more waiter; false (nothing counted) when the handoff is already abandoned or
  // done, so the caller must start work of its own.
  bool Join() {
    std::lock_guard<std::mutex> lock(mu_);
    if (value_ || waiters_ == 0) return false;
    ++waiters_;
    return true;
  }

  // OK with the value in `*out` once Put; kDeadlineExceeded or kCancelled ("`what` did not
  // finish ...") when this waiter gives up first. `cancelled` may be null; it is polled every
  // 20 ms. Each counted waiter calls it once.
  Status Wait(Clock::time_point deadline, const std::function<bool()>& cancelled,
              std::string_view what, T* out) {
    std::unique_lock<std::mutex> lock(mu_);
    Status gave_up;
    while (!value_ && gave_up.ok()) {
      const Clock::time_point now = Clock::now();
      if (now >= deadline) {
        gave_up = DeadlineExceeded(std::string(what) + " did not finish before the deadline");
      } else if (cancelled && cancelled()) {
        gave_up = Cancelled(std::string(what) + " was cancelled by the caller");
      } else {
        cv_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(20)));
      }
    }
    const bool last = --waiters_ == 0;
    if (!gave_up.ok()) {
      if (last) abandoned_.store(true);
      return gave_up;
    }
    *out = last ? std::move(*value_) : *value_;  // nobody can join a handoff that is done
    return Status::Ok();
  }

  // True once every waiter stopped waiting before the result was in; the work may stop early.
  bool abandoned() const { return abandoned_.load(std::memory_order_relaxed); }
  const std::atomic<bool>* abandoned_flag() const { return &abandoned_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<T> value_;
  int waiters_ = 1;
  std::atomic<bool> abandoned_{false};
};

}  // namespace tilejit::server
