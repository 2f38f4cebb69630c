// SPDX-License-Identifier: Apache-2.0
// tilejit.v1 is checked in its handlers rather than in an interceptor: gRPC 1.51's server
// interceptors cannot end a call before its handler runs, so a refused Evict would still
// evict. The open services' handlers do nothing a refused caller could misuse once the call
// is over (a health status, reflection's replies go nowhere), so there an interceptor that
// ends the call with UNAUTHENTICATED is enough, and it reaches reflection, which is gRPC's
// own code.
#include "server/grpc_auth.h"

#include <google/protobuf/descriptor.h>
#include <grpc/grpc.h>
#include <spdlog/spdlog.h>

#include <string>

#include "server/grpc_adapter.h"
#include "tilejit/v1/tilejit.grpc.pb.h"

namespace tilejit::server {
namespace {

constexpr std::string_view kTileJitPrefix = "/tilejit.v1.TileJit/";

class OpenServiceInterceptor final : public grpc::experimental::Interceptor {
 public:
  OpenServiceInterceptor(const CallGate* gate, grpc::experimental::ServerRpcInfo* info)
      : gate_(gate), info_(info) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      const AuthVerdict v =
          gate_->Verdict(*methods->GetRecvInitialMetadata(), Role::kRead, info_->method());
      if (!v.allowed()) {
        const grpc::Status status = ToGrpcStatus(ToStatus(v));
        grpc_call_cancel_with_status(info_->server_context()->c_call(),
                                     static_cast<grpc_status_code>(status.error_code()),
                                     status.error_message().c_str(), nullptr);
      }
    }
    methods->Proceed();
  }

 private:
  const CallGate* gate_;
  grpc::experimental::ServerRpcInfo* info_;
};

class OpenServiceInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit OpenServiceInterceptorFactory(const CallGate* gate) : gate_(gate) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    if (std::string_view(info->method()).starts_with(kTileJitPrefix)) return nullptr;
    return new OpenServiceInterceptor(gate_, info);
  }

 private:
  const CallGate* gate_;
};

}  // namespace

AuthVerdict CallGate::Verdict(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata,
                              Role required, std::string_view what) const {
  if (tokens_ == nullptr) return AuthVerdict{};
  std::optional<std::string_view> header;
  auto it = metadata.find("authorization");
  if (it != metadata.end()) header = std::string_view(it->second.data(), it->second.size());
  return Authorize(*tokens_->table(), header, required, what);
}

// "ipv4:10.0.0.7:5123" -> "ipv4:10.0.0.7", "ipv6:[::1]:5123" -> "ipv6:[::1]"; a peer
// without a port ("unix:...") stays whole.
std::string PeerHost(const std::string& peer) {
  if (peer.starts_with("unix:")) return peer;
  const size_t colon = peer.rfind(':');
  const size_t scheme = peer.find(':');
  return colon != std::string::npos && colon != scheme ? peer.substr(0, colon) : peer;
}

Status CallGate::Check(const grpc::ServerContext& ctx, std::string_view method,
                       std::string* caller) const {
  const std::optional<Role> required = RequiredRole(method);
  if (!required) {  // fail closed: a method without a row in kMethodRoles never runs
    return Internal("no role is defined for " + std::string(method) + " (server/auth.h)");
  }
  const AuthVerdict v = Verdict(ctx.client_metadata(), *required, method);
  if (*required == Role::kAdmin) {
    const std::string who = !enabled()             ? "(no --auth-tokens)"
                            : v.token_name.empty() ? "(no valid token)"
                                                   : "token '" + v.token_name + "'";
    if (v.allowed()) {
      spdlog::info("admin call {} by {} from {}", method, who, ctx.peer());
    } else {
      spdlog::warn("admin call {} by {} from {} refused: {}", method, who, ctx.peer(), v.message);
    }
  }
  if (caller != nullptr && v.allowed()) {
    *caller = enabled() ? "token:" + v.token_name : "peer:" + PeerHost(ctx.peer());
  }
  return ToStatus(v);
}

std::vector<std::string> MethodsWithoutRole() {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          v1::TileJit::service_full_name());
  std::vector<std::string> missing;
  for (int i = 0; service != nullptr && i < service->method_count(); ++i) {
    if (!RequiredRole(service->method(i)->name())) missing.push_back(service->method(i)->name());
  }
  if (service == nullptr) missing.push_back(v1::TileJit::service_full_name());
  return missing;
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> OpenServicesInterceptor(
    const CallGate* gate) {
  return std::make_unique<OpenServiceInterceptorFactory>(gate);
}

}  // namespace tilejit::server
