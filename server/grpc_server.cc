// SPDX-License-Identifier: Apache-2.0
#include "server/grpc_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/resource_quota.h>
#include <sys/stat.h>

namespace tilejit::server {

namespace {

// The port's credentials: plaintext, TLS, or TLS with required client certificates.
Result<std::shared_ptr<grpc::ServerCredentials>> Credentials(const TlsFiles& tls) {
  if (!tls.any()) return grpc::InsecureServerCredentials();
  TILEJIT_ASSIGN_OR_RETURN(TlsPem pem, LoadTlsFiles(tls));
  if (pem.cert.empty()) return InvalidArgument("a TLS client CA needs a certificate and key");
  grpc::SslServerCredentialsOptions ssl(
      pem.ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                     : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = pem.ca;
  ssl.pem_key_cert_pairs.push_back({pem.key, pem.cert});
  return grpc::SslServerCredentials(ssl);
}

}  // namespace

GrpcServer::GrpcServer(CompileService* core, const GrpcServerOptions& options)
    : core_(core),
      gate_(options.tokens, options.auth_health),
      service_(core, options.value_limits, &gate_) {}

GrpcServer::~GrpcServer() {
  if (!drained_) Drain(std::chrono::milliseconds(0));
}

Result<std::unique_ptr<GrpcServer>> GrpcServer::Start(CompileService* core,
                                                      const GrpcServerOptions& options) {
  if (std::vector<std::string> missing = MethodsWithoutRole(); !missing.empty()) {
    return Internal("tilejit.v1 method " + missing.front() + " has no row in kMethodRoles");
  }
  TILEJIT_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                           Credentials(options.tls));
  std::unique_ptr<GrpcServer> server(new GrpcServer(core, options));
  // Must run before the builder is made: the plugin registers itself with new builders.
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.address, credentials, &server->port_);
  if (server->gate_.gates_open_services()) {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> gates;
    gates.push_back(OpenServicesInterceptor(&server->gate_));
    builder.experimental().SetInterceptorCreators(std::move(gates));
  }
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  grpc::ResourceQuota quota("tilejitd");
  quota.SetMaxThreads(options.max_threads);
  builder.SetResourceQuota(quota);
  builder.RegisterService(&server->service_);
  builder.RegisterService(&server->health_);
  // A Unix socket is made with mode 0600: the private per-user daemon of the Python package
  // must not be reachable by other users (umask is process-wide, so only around the bind).
  const bool unix_socket = options.address.starts_with("unix:");
  const mode_t saved_umask = unix_socket ? umask(077) : 0;
  server->server_ = builder.BuildAndStart();
  if (unix_socket) {
    umask(saved_umask);
    std::string path = options.address.substr(5);  // unix:PATH or unix:///PATH
    if (path.starts_with("//")) path = path.substr(2);
    chmod(path.c_str(), 0600);
  }
  if (!server->server_ || server->port_ == 0) {
    return Unavailable("cannot listen on " + options.address +
                       " (address in use, or not a valid host:port or unix:PATH)");
  }
  using HC = grpc::health::v1::HealthCheckResponse;
  server->health_.SetStatus("", HC::SERVING);
  server->health_.SetStatus(tilejit::v1::TileJit::service_full_name(), HC::SERVING);
  return server;
}

void GrpcServer::Drain(std::chrono::milliseconds grace) {
  if (drained_) return;
  drained_ = true;
  health_.SetDraining();
  core_->StartDraining();
  server_->Shutdown(std::chrono::system_clock::now() + grace);
  core_->Shutdown();
}

void GrpcServer::Wait() { server_->Wait(); }

}  // namespace tilejit::server
