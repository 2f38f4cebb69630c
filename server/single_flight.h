// SPDX-License-Identifier: Apache-2.0
// SingleFlight: at most one back-end compile per cache key at a time. The first request for a
// key leads (it queues the compile); concurrent requests for the same key join and wait for
// the leader's result without taking a queue slot. A waiter that gives up (deadline or
// cancellation) stops waiting, but the compile runs on for everyone else and its result
// still reaches the cache.
//
// A flight carries the latest deadline among its waiters and counts them: a compile whose
// every waiter has given up is abandoned (not run if still queued; told to stop if running).
//
// Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "server/backend.h"
#include "server/handoff.h"
#include "server/kernel_store.h"

namespace tilejit::server {

using SteadyTime = std::chrono::steady_clock::time_point;

// The outcome of one back-end compile, shared by the leader and every joiner.
struct FlightResult {
  Status status;                               // OK, kCompileError, kDeadlineExceeded, ...
  std::shared_ptr<const KernelRecord> kernel;  // OK only
  std::vector<DiagnosticInfo> diagnostics;     // back-end diagnostics (in the leader's source)
  std::vector<PassTiming> passes;
  double queue_millis = 0;
  double backend_millis = 0;
  // Request digest of the leader (whose source located diagnostics); empty for another node's
  // result, whose diagnostics point into a request this node never saw.
  std::string leader_digest;
  // Where the kernel came from when another node compiled it (the store tier that served it
  // once it appeared, e.g. "redis"); empty when this node compiled it.
  std::string tier;
  bool remote = false;  // another node's kernel or compile error
};

// One compile's result slot (a Handoff) and the latest deadline among its waiters.
class Flight {
 public:
  // The flight is created for its leader, who is its first waiter.
  explicit Flight(SteadyTime leader_deadline) : deadline_(leader_deadline) {}

  // Blocks until the result is in, `deadline` passes (kDeadlineExceeded) or `cancelled`
  // returns true (kCancelled; polled every 20 ms). `cancelled` may be null. Each counted
  // waiter (the leader, and each caller SingleFlight::Join joined) calls it once.
  FlightResult Wait(SteadyTime deadline, const std::function<bool()>& cancelled);

  // Once, by SingleFlight::Finish.
  void Complete(FlightResult result) { result_.Put(std::move(result)); }

  // The latest deadline of any waiter (extended as waiters join).
  SteadyTime deadline() const;
  // Every waiter stopped waiting before the result was in. Final: such a flight takes no
  // more waiters (SingleFlight::Join starts a new one), so its compile may stop.
  bool abandoned() const { return result_.abandoned(); }

 private:
  friend class SingleFlight;
  // Counts a waiter and extends the deadline; false when the flight is done or abandoned.
  bool AddWaiter(SteadyTime deadline);

  Handoff<FlightResult> result_;  // counts the leader from the start
  mutable std::mutex mu_;         // guards deadline_
  SteadyTime deadline_;
};

class SingleFlight {
 public:
  struct Joined {
    std::shared_ptr<Flight> flight;
    bool leader = false;
  };

  // The flight in progress for `key` (extending its deadline), or a new one led by the caller
  // when there is none or the one there was abandoned (it winds down on its own).
  Joined Join(const std::string& key, SteadyTime deadline);

  // The flight in progress for `key` joined as above; a null flight when there is none (or
  // it was abandoned).
  Joined JoinInFlight(const std::string& key, SteadyTime deadline);

  // Completes `flight` and forgets it, so the next request for `key` starts afresh.
  void Finish(const std::string& key, const std::shared_ptr<Flight>& flight, FlightResult result);

  size_t in_flight() const;

 private:
  Joined JoinLocked(const std::string& key, SteadyTime deadline);  // REQUIRES: mu_ held

  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Flight>> flights_;
};

}  // namespace tilejit::server
