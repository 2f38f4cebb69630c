// SPDX-License-Identifier: Apache-2.0
// MetricsHttpServer: serves a MetricsRegistry as Prometheus text at GET /metrics on its own
// port (separate from gRPC, so scrapes never compete with compile traffic for gRPC threads).
// Runs cpp-httplib on one background thread.
//
// Ownership: does not own the registry, which must outlive it. Thread-safe; Stop is idempotent
// and run by the destructor.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "common/result.h"
#include "server/metrics.h"

namespace httplib {
class Server;
}

namespace tilejit::server {

class MetricsHttpServer {
 public:
  // Binds host:port (port 0 picks a free one) and starts serving.
  static Result<std::unique_ptr<MetricsHttpServer>> Start(MetricsRegistry* registry,
                                                          const std::string& host, int port);
  ~MetricsHttpServer();

  int port() const { return port_; }
  void Stop();

 private:
  MetricsHttpServer();

  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace tilejit::server
