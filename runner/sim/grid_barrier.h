// SPDX-License-Identifier: Apache-2.0
// The launch-wide rendezvous behind `sync_all` (docs/isa.md section 8): every block of a
// launch runs on its own host thread (SimDevice::Launch), and a block whose cores all wait at
// a sync_all arrives here with the simulated time of its last arrival. When every block has
// arrived, all leave with the latest of those times; a block that ends, stops or is cancelled
// instead can never arrive, which breaks the rendezvous for everyone (a deadlock on hardware).
//
// Thread safety: every member may be called from any block's thread concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

namespace tilejit::runner::sim {

class GridBarrier {
 public:
  explicit GridBarrier(int64_t blocks) : blocks_(blocks) {}

  // Blocks the calling thread until every block arrived (returns the latest arrival time) or
  // the rendezvous broke: a block left, or `cancel` became true (returns nullopt).
  std::optional<uint64_t> Arrive(uint64_t time, const std::atomic<bool>* cancel);

  // The calling block will not arrive again (it ended, faulted or was cancelled): a
  // rendezvous another block waits at, or arrives at later, is broken.
  void Leave();

 private:
  const int64_t blocks_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t arrived_ = 0;
  int64_t left_ = 0;
  uint64_t generation_ = 0;
  uint64_t latest_ = 0;       // of the generation being gathered
  uint64_t released_at_ = 0;  // of the last completed generation
  bool broken_ = false;
};

}  // namespace tilejit::runner::sim
