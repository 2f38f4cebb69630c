// SPDX-License-Identifier: Apache-2.0
// The gRPC face of CompileService: tilejit.v1.TileJit on the synchronous gRPC API. Each
// method first asks the CallGate whether the caller's token may call it (grpc_auth.h), then
// converts its request (proto_convert.h), calls the core with the call's deadline,
// cancellation and request id, and converts back. Status codes are mapped in exactly one
// place, ToGrpcStatus (authorisation refusals included).
//
// The adapter holds no state of its own beyond the core and gate pointers; thread-safe as the
// core is.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "common/status.h"
#include "server/activity.h"
#include "server/grpc_auth.h"
#include "server/proto_values.h"
#include "server/service.h"
#include "tilejit/v1/tilejit.grpc.pb.h"

namespace tilejit::server {

// The one mapping from tilejit Status codes to gRPC status codes.
grpc::Status ToGrpcStatus(const Status& status);

// Bound on the handles one Evict or Export call names, and on the entries a unary Export
// returns; InvalidArgument past it.
inline constexpr size_t kMaxHandlesPerCall = 10000;
Status CheckHandleCount(int n);
// Bound on the entries one ExportStream of every entry sends (keys are listed up front).
inline constexpr size_t kMaxStreamedExport = size_t{1} << 22;

class TileJitGrpcService final : public tilejit::v1::TileJit::Service {
 public:
  // `core` and `gate` must outlive the adapter.
  TileJitGrpcService(CompileService* core, ValueLimits limits, const CallGate* gate)
      : core_(core), gate_(gate), limits_(limits) {}

  // Every tilejit.v1 call counts here (health and reflection do not).
  const Activity& activity() const { return activity_; }

  grpc::Status Compile(grpc::ServerContext* ctx, const v1::CompileRequest* request,
                       v1::CompileResponse* response) override;
  grpc::Status CompileStream(grpc::ServerContext* ctx, const v1::CompileRequest* request,
                             grpc::ServerWriter<v1::CompileEvent>* writer) override;
  grpc::Status BatchCompile(grpc::ServerContext* ctx, const v1::BatchCompileRequest* request,
                            v1::BatchCompileResponse* response) override;
  grpc::Status GetKernel(grpc::ServerContext* ctx, const v1::GetKernelRequest* request,
                         v1::GetKernelResponse* response) override;
  grpc::Status Launch(grpc::ServerContext* ctx, const v1::LaunchRequest* request,
                      v1::LaunchResponse* response) override;
  // grpc_tune.cc.
  grpc::Status Tune(grpc::ServerContext* ctx, const v1::TuneRequest* request,
                    grpc::ServerWriter<v1::TuneEvent>* writer) override;
  grpc::Status Stats(grpc::ServerContext* ctx, const v1::StatsRequest* request,
                     v1::StatsResponse* response) override;
  grpc::Status List(grpc::ServerContext* ctx, const v1::ListRequest* request,
                    v1::ListResponse* response) override;
  grpc::Status Evict(grpc::ServerContext* ctx, const v1::EvictRequest* request,
                     v1::EvictResponse* response) override;
  grpc::Status Pin(grpc::ServerContext* ctx, const v1::PinRequest* request,
                   v1::PinResponse* response) override;
  grpc::Status Unpin(grpc::ServerContext* ctx, const v1::PinRequest* request,
                     v1::PinResponse* response) override;
  grpc::Status Export(grpc::ServerContext* ctx, const v1::ExportRequest* request,
                      v1::ExportResponse* response) override;
  grpc::Status Import(grpc::ServerContext* ctx, const v1::ImportRequest* request,
                      v1::ImportResponse* response) override;
  // grpc_bundle.cc, with Export and Import.
  grpc::Status ExportStream(grpc::ServerContext* ctx, const v1::ExportRequest* request,
                            grpc::ServerWriter<v1::BundleEntries>* writer) override;
  grpc::Status ImportStream(grpc::ServerContext* ctx, grpc::ServerReader<v1::BundleEntries>* reader,
                            v1::ImportResponse* response) override;

 private:
  // `caller` as CallGate::Check named it.
  CallContext MakeContext(grpc::ServerContext* ctx, std::string caller);
  // Counts a request refused before it reached the core, and maps its status.
  grpc::Status Rejected(std::string_view method, const Status& status);
  Result<CompileReply> CompileOne(grpc::ServerContext* ctx, const std::string& caller,
                                  const v1::CompileRequest& request, const ProgressFn& progress);

  CompileService* core_;
  const CallGate* gate_;
  ValueLimits limits_;
  std::atomic<uint64_t> next_request_id_{1};
  Activity activity_;
};

}  // namespace tilejit::server
