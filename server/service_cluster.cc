// SPDX-License-Identifier: Apache-2.0
// Cluster-wide single-flight (cluster.h), on the worker about to compile a key that missed in
// every tier.
//
// Why on the worker and not on the request's thread: a node holds a key's lease only while a
// worker of its own is running that compile. Were leases taken when a compile is queued, node A
// could hold K1 with its workers waiting for K2 held by node B, whose workers wait for K1: a
// cycle only deadlines would break. Taken by a running worker, every lease belongs to a compile
// that is making progress, so every wait ends. The cost is a worker idle while another node
// compiles; the flight's deadline (the latest of its callers) bounds that, and so does an
// abandoned flight, whose wait stops at once.
//
// Why poll: the waiting node looks in its own store (memory, SQLite, then the shared tier),
// which is where the holder publishes, so no second channel can disagree with it. The poll is
// per flight, not per request: local callers of the same key join the one flight.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "server/service.h"

namespace tilejit::server {
namespace {

constexpr std::chrono::milliseconds kFirstPoll{10};
constexpr std::chrono::milliseconds kMaxPoll{200};

}  // namespace

CompileService::ClusterTurn CompileService::AwaitClusterTurn(
    const std::string& key, const std::shared_ptr<Flight>& flight) {
  ClusterTurn turn;
  bool waited = false;
  std::chrono::milliseconds poll = kFirstPoll;
  while (true) {
    if (flight->abandoned()) {
      turn.done = FlightResult{};
      turn.done->status = Cancelled("every caller gave up while another node compiled the kernel");
      return turn;
    }
    const SteadyTime now = std::chrono::steady_clock::now();
    if (now >= flight->deadline()) {
      turn.done = FlightResult{};
      turn.done->status = DeadlineExceeded(
          "the deadline passed while another node of the cluster compiled the kernel");
      return turn;
    }
    Result<std::unique_ptr<ClusterLease>> lead = cluster_->TryLead(key);
    if (!lead.ok()) {
      // Fail open: without the shared tier, compile here.
      cluster_unavailable_->Inc();
      spdlog::warn("cluster lease for key={} unavailable ({}); compiling locally",
                   key.substr(0, 16), lead.status().message());
      return turn;
    }
    if (*lead != nullptr) {
      // The holder before us may have published just before it let go.
      if (std::optional<FlightResult> done = RemoteResult(key)) {
        turn.done = std::move(done);
        return turn;
      }
      if (waited) cluster_takeovers_->Inc();
      cluster_leads_->Inc();
      turn.lease = std::move(lead).value();
      return turn;
    }
    if (!waited) {
      waited = true;
      cluster_waits_->Inc();
      spdlog::info("key={} is being compiled by {}; waiting for it", key.substr(0, 16),
                   cluster_->Holder(key));
    }
    if (std::optional<FlightResult> done = RemoteResult(key)) {
      turn.done = std::move(done);
      return turn;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(flight->deadline() - now);
    std::this_thread::sleep_for(std::max(std::chrono::milliseconds(1), std::min(poll, left)));
    poll = std::min(poll * 2, kMaxPoll);
  }
}

std::optional<FlightResult> CompileService::RemoteResult(const std::string& key) {
  if (Result<StoreHit> hit = store_->Get(key); hit.ok()) {
    cluster_remote_kernels_->Inc();
    FlightResult r;
    r.remote = true;
    r.kernel = hit->kernel;
    r.tier = hit->tier;
    return r;
  }
  if (std::optional<SharedError> error = cluster_->FindError(key)) {
    cluster_remote_errors_->Inc();
    FlightResult r;
    r.remote = true;
    r.status = CompileError(error->message);
    r.diagnostics = std::move(error->diagnostics);
    return r;
  }
  return std::nullopt;
}

}  // namespace tilejit::server
