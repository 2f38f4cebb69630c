// SPDX-License-Identifier: Apache-2.0
#include "server/health_service.h"

#include <chrono>

namespace tilejit::server {

using grpc::health::v1::HealthCheckResponse;

void HealthService::SetStatus(const std::string& service, ServingStatus status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    statuses_[service] = status;
  }
  changed_.notify_all();
}

void HealthService::SetDraining() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [name, status] : statuses_) status = HealthCheckResponse::NOT_SERVING;
    shutting_down_ = true;
  }
  changed_.notify_all();
}

grpc::Status HealthService::Check(grpc::ServerContext*,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  HealthCheckResponse* response) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = statuses_.find(request->service());
  if (it == statuses_.end()) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "unknown service '" + request->service().substr(0, 128) + "'");
  }
  response->set_status(it->second);
  return grpc::Status::OK;
}

grpc::Status HealthService::Watch(grpc::ServerContext* context,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  grpc::ServerWriter<HealthCheckResponse>* writer) {
  // Watch never ends on its own; it wakes periodically to notice a cancelled client, since
  // gRPC reports cancellation only by polling.
  std::unique_lock<std::mutex> lock(mu_);
  bool first = true;
  ServingStatus last = HealthCheckResponse::UNKNOWN;
  for (;;) {
    auto it = statuses_.find(request->service());
    const ServingStatus now =
        it == statuses_.end() ? HealthCheckResponse::SERVICE_UNKNOWN : it->second;
    if (first || now != last) {
      HealthCheckResponse response;
      response.set_status(now);
      lock.unlock();
      if (!writer->Write(response)) return grpc::Status::OK;
      lock.lock();
      first = false;
      last = now;
    }
    if (shutting_down_ || context->IsCancelled()) return grpc::Status::OK;
    changed_.wait_for(lock, std::chrono::milliseconds(200));
  }
}

}  // namespace tilejit::server
