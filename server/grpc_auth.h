// SPDX-License-Identifier: Apache-2.0
// The gRPC side of tilejitd's bearer tokens (auth.h holds the file, the roles and the rules).
//
// CallGate::Check runs first in every tilejit.v1 handler (grpc_adapter.cc): it reads the
// call's `authorization` header, asks Authorize for the role kMethodRoles gives the method,
// and returns OK or the status the handler returns at once (through ToGrpcStatus, like every
// status): UNAUTHENTICATED for a missing or unknown token, PERMISSION_DENIED for a token whose
// role is too low. Without a token store
// every call passes. Every admin-role call is logged with the token's name and the peer's
// address, whether it was allowed or not.
//
// Health and reflection are not tilejit.v1 handlers (reflection is gRPC's own service), so
// when they need a token too (--auth-health) the gate is a server interceptor
// (OpenServicesInterceptor): a call without a valid token of any role is ended with
// UNAUTHENTICATED before its handler reads a request.
//
// Ownership and threading: the gate does not own the token store, which must outlive it and
// the server; both are thread-safe.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_interceptor.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/auth.h"

namespace tilejit::server {

class CallGate {
 public:
  // `tokens` null: no tokens are needed. `gate_open_services`: health and reflection need a
  // token as well (only with tokens).
  CallGate(const TokenStore* tokens, bool gate_open_services)
      : tokens_(tokens), gate_open_services_(tokens != nullptr && gate_open_services) {}

  // OK when the call of tilejit.v1 method `method` ("Evict") may run; else kUnauthenticated
  // or kPermissionDenied (kInternal for a method without a row in kMethodRoles). When OK and
  // `caller` is given, it names who calls (CallContext::caller): "token:NAME" with tokens,
  // else "peer:ADDRESS" (the peer's address without its port).
  Status Check(const grpc::ServerContext& ctx, std::string_view method,
               std::string* caller = nullptr) const;

  // A verdict on headers `metadata` of a call needing `required` (`what` names it).
  AuthVerdict Verdict(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata,
                      Role required, std::string_view what) const;

  bool enabled() const { return tokens_ != nullptr; }
  bool gates_open_services() const { return gate_open_services_; }

 private:
  const TokenStore* tokens_;
  const bool gate_open_services_;
};

// The methods of tilejit.v1.TileJit (its generated descriptor) that have no row in
// kMethodRoles; GrpcServer::Start refuses to start while there is one.
std::vector<std::string> MethodsWithoutRole();

// The interceptor that makes every call outside tilejit.v1 (health, reflection) need a token
// of any role; for ServerBuilder::experimental().SetInterceptorCreators. `gate` must outlive
// the server and gate its open services.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> OpenServicesInterceptor(
    const CallGate* gate);

}  // namespace tilejit::server
