// SPDX-License-Identifier: Apache-2.0
// TileJit.Tune: the request converted (proto_tune.h), the core's tuning with one stream event
// per candidate stage, then `done`. The core reports progress serialised but possibly from its
// compile helpers' threads; the writer is only ever used by one thread at a time (the core's
// lock, then this handler after Tune returns).
#include "server/grpc_adapter.h"
#include "server/proto_tune.h"

namespace tilejit::server {

grpc::Status TileJitGrpcService::Tune(grpc::ServerContext* ctx, const v1::TuneRequest* request,
                                      grpc::ServerWriter<v1::TuneEvent>* writer) {
  std::string caller;
  if (Status denied = gate_->Check(*ctx, "Tune", &caller); !denied.ok()) {
    return Rejected("Tune", denied);
  }
  const ActiveCall active(&activity_);
  Result<TuneCall> call = TuneFromProto(*request, limits_);
  if (!call.ok()) return Rejected("Tune", call.status());
  TuneProgressFn progress = [writer](const TuneEvent& e) {
    v1::TuneEvent event;
    TuneEventToProto(e, &event);
    writer->Write(event);
  };
  Result<TuneReply> reply = core_->Tune(*call, MakeContext(ctx, std::move(caller)), progress);
  if (!reply.ok()) return ToGrpcStatus(reply.status());
  v1::TuneEvent done;
  TuneReplyToProto(*reply, done.mutable_done());
  writer->Write(done);
  return grpc::Status::OK;
}

}  // namespace tilejit::server
