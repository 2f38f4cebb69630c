// SPDX-License-Identifier: Apache-2.0
#include "server/single_flight.h"

#include <algorithm>
#include <utility>

namespace tilejit::server {

FlightResult Flight::Wait(SteadyTime deadline, const std::function<bool()>& cancelled) {
  FlightResult r;  // left as is when the wait ends first
  if (Status waited = result_.Wait(deadline, cancelled, "the compile", &r); !waited.ok()) {
    r.status = std::move(waited);
  }
  return r;
}

SteadyTime Flight::deadline() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deadline_;
}

bool Flight::AddWaiter(SteadyTime deadline) {
  if (!result_.Join()) return false;
  std::lock_guard<std::mutex> lock(mu_);
  deadline_ = std::max(deadline_, deadline);
  return true;
}

SingleFlight::Joined SingleFlight::JoinLocked(const std::string& key, SteadyTime deadline) {
  auto it = flights_.find(key);
  if (it == flights_.end() || !it->second->AddWaiter(deadline)) return {};
  return {it->second, false};
}

SingleFlight::Joined SingleFlight::Join(const std::string& key, SteadyTime deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Joined joined = JoinLocked(key, deadline); joined.flight) return joined;
  auto flight = std::make_shared<Flight>(deadline);
  flights_.insert_or_assign(key, flight);  // replaces an abandoned flight
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
