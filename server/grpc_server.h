// SPDX-License-Identifier: Apache-2.0
// GrpcServer: a running gRPC server around a CompileService, with tilejit.v1.TileJit,
// grpc.health.v1.Health (health_service.h) and server reflection (so grpcurl and other
// reflection clients need no proto files). Used by tilejitd and by the in-process gRPC test.
// With a token store, calls need bearer tokens (grpc_auth.h); with a certificate and key, the
// port speaks TLS only, and with a client CA as well, clients must present a certificate it
// signed (mTLS).
//
//   auto server = GrpcServer::Start(&core, {.address = "127.0.0.1:0"});
//   int port = (*server)->port();
//   ...
//   (*server)->Drain(std::chrono::seconds(30));   // NOT_SERVING, refuse new work, finish, stop
//
// Ownership: the server does not own the core, which must outlive it. Thread-safe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "common/result.h"
#include "common/tls_files.h"
#include "server/auth.h"
#include "server/grpc_adapter.h"
#include "server/grpc_auth.h"
#include "server/health_service.h"
#include "server/service.h"

namespace tilejit::server {

struct GrpcServerOptions {
  // host:port (port 0 picks a free one), or unix:PATH (a socket only its user may use: 0600)
  std::string address = "127.0.0.1:50051";
  int max_message_bytes = 64 << 20;  // both directions
  ValueLimits value_limits;
  int max_threads = 256;  // sync-server threads (in-flight RPCs) before gRPC refuses calls
  const TokenStore* tokens = nullptr;  // null: no tokens needed; else must outlive the server
  bool auth_health = false;            // health and reflection need a token too
  // TLS: cert and key (PEM files) turn it on; ca (client CAs) requires client certificates.
  TlsFiles tls;
};

class GrpcServer {
 public:
  static Result<std::unique_ptr<GrpcServer>> Start(CompileService* core,
                                                   const GrpcServerOptions& options);
  ~GrpcServer();

  int port() const { return port_; }
  const Activity& activity() const { return service_.activity(); }
  HealthService& health() { return health_; }

  // Graceful drain: health NOT_SERVING, the core refuses new compiles, in-flight RPCs get up
  // to `grace` to finish, then the server stops and the core's workers finish.
  void Drain(std::chrono::milliseconds grace);
  // Blocks until the server has shut down.
  void Wait();

 private:
  GrpcServer(CompileService* core, const GrpcServerOptions& options);

  CompileService* core_;
  CallGate gate_;
  TileJitGrpcService service_;
  HealthService health_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  bool drained_ = false;
};

}  // namespace tilejit::server
