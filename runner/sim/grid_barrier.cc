// SPDX-License-Identifier: Apache-2.0
// A generation counter tells a woken thread whether its own rendezvous completed (the count
// alone cannot: the next rendezvous may already be gathering). Waits poll the cancellation
// flag, since a cancelled block's thread leaves without notifying through the barrier.
#include "runner/sim/grid_barrier.h"

#include <algorithm>
#include <chrono>

namespace tilejit::runner::sim {

std::optional<uint64_t> GridBarrier::Arrive(uint64_t time, const std::atomic<bool>* cancel) {
  std::unique_lock<std::mutex> lock(mu_);
  if (broken_ || left_ > 0) {
    broken_ = true;
    cv_.notify_all();
    return std::nullopt;
  }
  latest_ = std::max(latest_, time);
  if (++arrived_ == blocks_) {
    released_at_ = latest_;
    arrived_ = 0;
    latest_ = 0;
    ++generation_;
    cv_.notify_all();
    return released_at_;
  }
  const uint64_t mine = generation_;
  while (generation_ == mine && !broken_) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
      broken_ = true;
      cv_.notify_all();
      break;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(20));
  }
  if (generation_ != mine) return released_at_;
  return std::nullopt;
}

void GridBarrier::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  ++left_;
  if (arrived_ > 0) {
    broken_ = true;
    cv_.notify_all();
  }
}

}  // namespace tilejit::runner::sim
