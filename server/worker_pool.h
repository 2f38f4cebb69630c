// SPDX-License-Identifier: Apache-2.0
// WorkerPool: a fixed number of threads fed from a bounded FIFO queue. Submitting to a full
// queue fails at once with kResourceExhausted instead of blocking, so overload reaches the
// client as RESOURCE_EXHAUSTED rather than as unbounded latency.
//
// The queue counts waiting jobs only (running jobs hold a thread, not a slot).
//
// Thread-safe. Shutdown (also run by the destructor) stops accepting jobs, lets the queued
// and running ones finish and joins the threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/result.h"

namespace tilejit::server {

class WorkerPool {
 public:
  // REQUIRES: threads >= 1.
  WorkerPool(int threads, size_t queue_capacity);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `job`; returns the number of jobs ahead of it in the queue. kResourceExhausted
  // when the queue is full, kUnavailable after Shutdown.
  Result<size_t> Submit(std::function<void()> job);

  size_t queue_depth() const;
  size_t running() const;
  size_t queue_capacity() const { return capacity_; }

  void Shutdown();

 private:
  void Loop();

  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace tilejit::server
