// SPDX-License-Identifier: Apache-2.0
#include "server/metrics_http.h"

#include <httplib.h>

namespace tilejit::server {

MetricsHttpServer::MetricsHttpServer() : http_(std::make_unique<httplib::Server>()) {}

MetricsHttpServer::~MetricsHttpServer() { Stop(); }

Result<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(MetricsRegistry* registry,
                                                                    const std::string& host,
                                                                    int port) {
  std::unique_ptr<MetricsHttpServer> server(new MetricsHttpServer());
  server->http_->Get("/metrics", [registry](const httplib::Request&, httplib::Response& res) {
    res.set_content(registry->Render(), "text/plain; version=0.0.4; charset=utf-8");
  });
  // Bind first (synchronously) so a bad port is an error here, then serve on the thread.
  if (port == 0) {
    server->port_ = server->http_->bind_to_any_port(host);
    if (server->port_ < 0) return Unavailable("cannot bind the metrics port on " + host);
  } else {
    if (!server->http_->bind_to_port(host, port)) {
      return Unavailable("cannot bind the metrics port " + host + ":" + std::to_string(port));
    }
    server->port_ = port;
  }
  httplib::Server* http = server->http_.get();
  server->thread_ = std::thread([http] { http->listen_after_bind(); });
  return server;
}

void MetricsHttpServer::Stop() {
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace tilejit::server
