// SPDX-License-Identifier: Apache-2.0
// grpc.health.v1.Health served from the code generated from grpc-proto's health.proto, so
// the service's descriptor is in the generated pool and reflection clients (grpcurl) can call
// it. (gRPC's built-in EnableDefaultHealthCheckService registers no descriptor.)
//
// Status is per service name: "" (the whole server) and each registered service. Check on an
// unknown name is NOT_FOUND; Watch streams the current status and every change until the
// client goes away or the server shuts down. SetDraining flips every service to NOT_SERVING.
//
// Thread-safe.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "grpc/health/v1/health.grpc.pb.h"

namespace tilejit::server {

class HealthService final : public grpc::health::v1::Health::Service {
 public:
  using ServingStatus = grpc::health::v1::HealthCheckResponse::ServingStatus;

  void SetStatus(const std::string& service, ServingStatus status);
  // Every known service to NOT_SERVING; Watch streams end soon after.
  void SetDraining();

  grpc::Status Check(grpc::ServerContext* context,
                     const grpc::health::v1::HealthCheckRequest* request,
                     grpc::health::v1::HealthCheckResponse* response) override;
  grpc::Status Watch(grpc::ServerContext* context,
                     const grpc::health::v1::HealthCheckRequest* request,
                     grpc::ServerWriter<grpc::health::v1::HealthCheckResponse>* writer) override;

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, ServingStatus> statuses_;
  bool shutting_down_ = false;
};

}  // namespace tilejit::server
