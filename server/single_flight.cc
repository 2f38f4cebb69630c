// SPDX-License-Identifier: Apache-2.0
#include "server/single_flight.h"

#include <algorithm>
#include <utility>

namespace tilejit::server {
namespace {

// How often a waiter checks its cancellation callback. gRPC exposes cancellation as a poll
// (ServerContext::IsCancelled), so waiting in short slices is what lets a cancelled client
// free its thread promptly.
constexpr auto kCancelPoll = std::chrono::milliseconds(20);

}  // namespace

FlightResult Flight::Wait(SteadyTime deadline, const std::function<bool()>& cancelled) {
  std::unique_lock<std::mutex> lock(mu_);
  struct Leave {  // on every return, with mu_ held
    int* waiters;
    ~Leave() { --*waiters; }
  } leave{&waiters_};
  while (!done_) {
    const SteadyTime now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      FlightResult r;
      r.status = DeadlineExceeded("deadline exceeded while waiting for the compile");
      return r;
    }
    if (cancelled && cancelled()) {
      FlightResult r;
      r.status = Cancelled("the request was cancelled");
      return r;
    }
    cv_.wait_until(lock, std::min(deadline, now + kCancelPoll));
  }
  return result_;
}

void Flight::Complete(FlightResult result) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_) return;
    result_ = std::move(result);
    done_ = true;
  }
  cv_.notify_all();
}

bool Flight::done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

SteadyTime Flight::deadline() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deadline_;
}

void Flight::AddWaiter(SteadyTime deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  deadline_ = std::max(deadline_, deadline);
  ++waiters_;
}

bool Flight::abandoned() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !done_ && waiters_ <= 0;
}

SingleFlight::Joined SingleFlight::JoinLocked(const std::string& key, SteadyTime deadline) {
  auto it = flights_.find(key);
  if (it == flights_.end()) return {};
  it->second->AddWaiter(deadline);
  return {it->second, false};
}

SingleFlight::Joined SingleFlight::Join(const std::string& key, SteadyTime deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Joined joined = JoinLocked(key, deadline); joined.flight) return joined;
  auto flight = std::make_shared<Flight>();
  flight->AddWaiter(deadline);
  flights_.emplace(key, flight);
  return {flight, true};
}

SingleFlight::Joined SingleFlight::JoinInFlight(const std::string& key, SteadyTime deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  return JoinLocked(key, deadline);
}

void SingleFlight::Finish(const std::string& key, const std::shared_ptr<Flight>& flight,
                          FlightResult result) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = flights_.find(key);
    if (it != flights_.end() && it->second == flight) flights_.erase(it);
  }
  flight->Complete(std::move(result));
}

size_t SingleFlight::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return flights_.size();
}

}  // namespace tilejit::server
