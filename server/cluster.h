// SPDX-License-Identifier: Apache-2.0
// ClusterFlights: cluster-wide single-flight, the hook CompileService uses when a kernel missed
// in every tier of its store. SingleFlight (single_flight.h) makes one compile per key in this
// process; ClusterFlights makes one per key across the nodes that share a cache tier. The
// daemon's implementation takes a Redis lease per key (redis_cluster.h); the service only sees
// this interface, so its core stays free of any transport.
//
// Protocol, as the service drives it (service_cluster.cc), on the worker that would compile:
//   loop until the flight's deadline:
//     TryLead(key): a lease -> look in the store once more (the previous holder may just have
//                   published), then compile, ShareError on a compile error, drop the lease;
//                   null -> another node compiles: the store is polled for its kernel and
//                   FindError for its compile error, with backoff;
//                   Unavailable -> the tier is down: compile locally (fail open).
// A lease is renewed by the implementation while it is held (a heartbeat) and released when
// the ClusterLease is destroyed. A holder that dies stops renewing, its lease lapses, and the
// next TryLead of another node succeeds.
//
// Threading: implementations are safe to call concurrently; a ClusterLease is used by one
// thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "server/backend.h"

namespace tilejit::server {

// A compile error one node shares with the others for the error TTL.
struct SharedError {
  std::string message;
  std::vector<DiagnosticInfo> diagnostics;
};

class ClusterLease {
 public:
  virtual ~ClusterLease() = default;  // releases the lease (compare-and-delete)
  // Publishes the compile error of the key this lease is for; best effort.
  virtual void ShareError(const SharedError& error) = 0;
};

class ClusterFlights {
 public:
  virtual ~ClusterFlights() = default;

  // A lease on `key` when this node may compile it; null when another node holds it;
  // Unavailable when the shared tier cannot answer.
  virtual Result<std::unique_ptr<ClusterLease>> TryLead(const std::string& key) = 0;
  // The compile error another node shared for `key`, if any (a failure to look is none).
  virtual std::optional<SharedError> FindError(const std::string& key) = 0;
  // Who holds the lease on `key` now, for logs; empty when nobody or unknown.
  virtual std::string Holder(const std::string& key) = 0;
  // How many leases this node holds now.
  virtual size_t held() const = 0;
  // Leases lost while held (lapsed or taken over), counted by the heartbeat.
  virtual uint64_t leases_lost() const = 0;
};

}  // namespace tilejit::server
