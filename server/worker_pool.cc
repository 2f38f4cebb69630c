// SPDX-License-Identifier: Apache-2.0
#include "server/worker_pool.h"

#include <string>
#include <utility>

#include "common/check.h"

namespace tilejit::server {

WorkerPool::WorkerPool(int threads, size_t queue_capacity) : capacity_(queue_capacity) {
  TILEJIT_CHECK(threads >= 1) << "WorkerPool needs a thread";
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

WorkerPool::~WorkerPool() { Shutdown(); }

Result<size_t> WorkerPool::Submit(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return Unavailable("the server is shutting down");
  if (queue_.size() >= capacity_) {
    return ResourceExhausted("compile queue is full (" + std::to_string(capacity_) +
                             " waiting); retry later");
  }
  const size_t ahead = queue_.size();
  queue_.push_back(std::move(job));
  cv_.notify_one();
  return ahead;
}

size_t WorkerPool::queue_depth() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

size_t WorkerPool::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void WorkerPool::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void WorkerPool::Loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    job();
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
}

}  // namespace tilejit::server
