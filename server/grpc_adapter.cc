// SPDX-License-Identifier: Apache-2.0
#include "server/grpc_adapter.h"

#include <chrono>
#include <string>
#include <utility>

#include "common/sha256.h"
#include "server/handle.h"
#include "server/proto_convert.h"

namespace tilejit::server {
namespace {

constexpr int kMaxBatch = 256;
// How close to its deadline a cancelled call counts as having run out of time (see MakeContext).
constexpr std::chrono::milliseconds kDeadlineSlack{250};

}  // namespace

Status CheckHandleCount(int n) {
  if (static_cast<size_t>(n) > kMaxHandlesPerCall) {
    return InvalidArgument("at most " + std::to_string(kMaxHandlesPerCall) + " handles per call");
  }
  return Status::Ok();
}

grpc::Status ToGrpcStatus(const Status& status) {
  using G = grpc::StatusCode;
  G code = G::UNKNOWN;
  switch (status.code()) {
    case StatusCode::kOk:
      return grpc::Status::OK;
    case StatusCode::kInvalidArgument:
    case StatusCode::kCompileError:  // only reaches here outside Compile (e.g. a bad bundle)
      code = G::INVALID_ARGUMENT;
      break;
    case StatusCode::kNotFound:
      code = G::NOT_FOUND;
      break;
    case StatusCode::kAlreadyExists:
      code = G::ALREADY_EXISTS;
      break;
    case StatusCode::kResourceExhausted:
      code = G::RESOURCE_EXHAUSTED;
      break;
    case StatusCode::kDeadlineExceeded:
      code = G::DEADLINE_EXCEEDED;
      break;
    case StatusCode::kCancelled:
      code = G::CANCELLED;
      break;
    case StatusCode::kUnavailable:
      code = G::UNAVAILABLE;
      break;
    case StatusCode::kCorruption:
      code = G::DATA_LOSS;
      break;
    case StatusCode::kInternal:
      code = G::INTERNAL;
      break;
    case StatusCode::kUnauthenticated:
      code = G::UNAUTHENTICATED;
      break;
    case StatusCode::kPermissionDenied:
      code = G::PERMISSION_DENIED;
      break;
  }
  return grpc::Status(code, status.message());
}

grpc::Status TileJitGrpcService::Rejected(std::string_view method, const Status& status) {
  core_->CountRejected(method, status);
  return ToGrpcStatus(status);
}

CallContext TileJitGrpcService::MakeContext(grpc::ServerContext* ctx, std::string caller) {
  CallContext call;
  call.caller = std::move(caller);
  const auto& md = ctx->client_metadata();
  auto it = md.find("x-request-id");
  if (it != md.end() && it->second.size() <= 64) {
    call.request_id = std::string(it->second.data(), it->second.size());
  } else {
    call.request_id = "r" + std::to_string(next_request_id_.fetch_add(1));
  }
  // gRPC gives an absolute system-clock deadline (far future when none was set); the core
  // works in steady time.
  const auto system_now = std::chrono::system_clock::now();
  const auto remaining = ctx->deadline() - system_now;
  if (remaining < std::chrono::hours(24 * 365)) {
    call.deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(remaining);
  }
  // gRPC marks a call cancelled both when its caller cancels and when its deadline passes, and
  // a client whose own deadline expires resets the stream a little before the server's copy of
  // that deadline passes. A cancellation that close to the deadline is the deadline's: it reads
  // as not cancelled here, and the deadline check (at most kDeadlineSlack later) reports it.
  call.cancelled = [ctx, deadline = call.deadline] {
    return ctx->IsCancelled() && std::chrono::steady_clock::now() + kDeadlineSlack < deadline;
  };
  return call;
}

Result<CompileReply> TileJitGrpcService::CompileOne(grpc::ServerContext* ctx,
                                                    const std::string& caller,
                                                    const v1::CompileRequest& request,
                                                    const ProgressFn& progress) {
  CompileOptions options;
  Result<frontend::FrontendRequest> req = RequestFromProto(request, limits_, &options);
  if (!req.ok()) {
    core_->CountRejected("Compile", req.status());
    return req.status();
  }
  return core_->Compile(*req, options, MakeContext(ctx, caller), progress);
}

grpc::Status TileJitGrpcService::Compile(grpc::ServerContext* ctx,
                                         const v1::CompileRequest* request,
                                         v1::CompileResponse* response) {
  std::string caller;
  if (Status denied = gate_->Check(*ctx, "Compile", &caller); !denied.ok())
    return Rejected("Compile", denied);
  const ActiveCall active(&activity_);
  Result<CompileReply> reply = CompileOne(ctx, caller, *request, nullptr);
  if (!reply.ok()) return ToGrpcStatus(reply.status());
  ReplyToProto(*reply, response);
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::CompileStream(grpc::ServerContext* ctx,
                                               const v1::CompileRequest* request,
                                               grpc::ServerWriter<v1::CompileEvent>* writer) {
  std::string caller;
  if (Status denied = gate_->Check(*ctx, "CompileStream", &caller); !denied.ok())
    return Rejected("CompileStream", denied);
  const ActiveCall active(&activity_);
  // Progress arrives on this thread (service.h), so the writer is used by one thread only.
  ProgressFn progress = [writer](const ProgressEvent& e) {
    v1::CompileEvent event;
    if (e.kind == ProgressEvent::Kind::kQueued) {
      event.mutable_queued()->set_position(static_cast<int32_t>(e.queue_position));
    } else {
      event.mutable_pass()->set_pass(e.pass.pass);
      event.mutable_pass()->set_millis(e.pass.millis);
    }
    writer->Write(event);
  };
  Result<CompileReply> reply = CompileOne(ctx, caller, *request, progress);
  if (!reply.ok()) return ToGrpcStatus(reply.status());
  v1::CompileEvent done;
  ReplyToProto(*reply, done.mutable_done());
  writer->Write(done);
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::BatchCompile(grpc::ServerContext* ctx,
                                              const v1::BatchCompileRequest* request,
                                              v1::BatchCompileResponse* response) {
  std::string caller;
  if (Status denied = gate_->Check(*ctx, "BatchCompile", &caller); !denied.ok())
    return Rejected("BatchCompile", denied);
  const ActiveCall active(&activity_);
  if (request->requests_size() > kMaxBatch) {
    return Rejected("BatchCompile", InvalidArgument("a batch holds at most " +
                                                    std::to_string(kMaxBatch) + " requests"));
  }
  for (const v1::CompileRequest& item : request->requests()) {
    v1::BatchCompileResponse::Item* out = response->add_items();
    Result<CompileReply> reply = CompileOne(ctx, caller, item, nullptr);
    const grpc::Status status = ToGrpcStatus(reply.status());
    out->mutable_status()->set_code(status.error_code());
    out->mutable_status()->set_message(status.error_message());
    if (reply.ok()) ReplyToProto(*reply, out->mutable_response());
  }
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::GetKernel(grpc::ServerContext* ctx,
                                           const v1::GetKernelRequest* request,
                                           v1::GetKernelResponse* response) {
  if (Status denied = gate_->Check(*ctx, "GetKernel"); !denied.ok())
    return Rejected("GetKernel", denied);
  const ActiveCall active(&activity_);
  Result<KernelInfo> info = core_->GetKernel(request->handle());
  if (!info.ok()) return ToGrpcStatus(info.status());
  response->set_handle(info->handle);
  response->set_key(info->kernel->key);
  MetadataToProto(info->kernel->metadata, response->mutable_metadata());
  if (!request->metadata_only()) response->set_binary(info->kernel->binary);
  response->set_size_bytes(info->kernel->binary.size());
  response->set_tier(info->tier);
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::Launch(grpc::ServerContext* ctx, const v1::LaunchRequest* request,
                                        v1::LaunchResponse* response) {
  std::string caller;
  if (Status denied = gate_->Check(*ctx, "Launch", &caller); !denied.ok())
    return Rejected("Launch", denied);
  const ActiveCall active(&activity_);
  Result<LaunchCall> call = LaunchFromProto(*request);
  if (!call.ok()) return Rejected("Launch", call.status());
  Result<LaunchReply> reply = core_->Launch(*call, MakeContext(ctx, std::move(caller)));
  if (!reply.ok()) return ToGrpcStatus(reply.status());
  LaunchReplyToProto(*reply, response);
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::Stats(grpc::ServerContext* ctx, const v1::StatsRequest*,
                                       v1::StatsResponse* response) {
  if (Status denied = gate_->Check(*ctx, "Stats"); !denied.ok()) return Rejected("Stats", denied);
  const ActiveCall active(&activity_);
  ServiceStats s = core_->Stats();
  response->set_entries(s.store.entries);
  response->set_bytes(s.store.bytes);
  for (const auto& [tier, hits] : s.hits_by_tier) (*response->mutable_hits_by_tier())[tier] = hits;
  response->set_misses(s.misses);
  response->set_compiles(s.compiles);
  response->set_compile_errors(s.compile_errors);
  response->set_single_flight_joins(s.single_flight_joins);
  response->set_evictions(s.store.evictions);
  response->set_corruptions(s.store.corruptions);
  response->set_write_failures(s.store.write_failures);
  response->set_queue_depth(s.queue_depth);
  response->set_memo_entries(s.memo_entries);
  response->set_compiler_fingerprint(core_->fingerprint());
  for (const auto& [name, n] : s.store.shared_tier) (*response->mutable_shared_tier())[name] = n;
  response->set_shared_tier_breaker(s.store.shared_tier_breaker);
  if (!s.store.shared_tier.empty()) {
    auto& cluster = *response->mutable_cluster();
    cluster["leases"] = s.cluster_leads;
    cluster["lease_waits"] = s.cluster_waits;
    cluster["remote_kernels"] = s.cluster_remote_kernels;
    cluster["remote_errors"] = s.cluster_remote_errors;
    cluster["takeovers"] = s.cluster_takeovers;
    cluster["unavailable"] = s.cluster_unavailable;
    cluster["leases_lost"] = s.cluster_leases_lost;
  }
  auto& tune = *response->mutable_tune();
  tune["simulations"] = s.tune_simulations;
  tune["decisions"] = s.tune_decisions;
  tune["decisions_cached"] = s.tune_decisions_cached;
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::List(grpc::ServerContext* ctx, const v1::ListRequest* request,
                                      v1::ListResponse* response) {
  if (Status denied = gate_->Check(*ctx, "List"); !denied.ok()) return Rejected("List", denied);
  const ActiveCall active(&activity_);
  Result<std::vector<StoreEntryInfo>> entries = core_->List(request->limit());
  if (!entries.ok()) return ToGrpcStatus(entries.status());
  for (const StoreEntryInfo& e : *entries) {
    v1::CacheEntry* out = response->add_entries();
    out->set_handle(HandleFromKey(e.key));
    out->set_key(e.key);
    out->set_size_bytes(e.bytes);
    out->set_pinned(e.pinned);
  }
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::Evict(grpc::ServerContext* ctx, const v1::EvictRequest* request,
                                       v1::EvictResponse* response) {
  if (Status denied = gate_->Check(*ctx, "Evict"); !denied.ok()) return Rejected("Evict", denied);
  const ActiveCall active(&activity_);
  if (Status s = CheckHandleCount(request->handles_size()); !s.ok()) return Rejected("Evict", s);
  Result<size_t> evicted = core_->Evict({request->handles().begin(), request->handles().end()});
  if (!evicted.ok()) return ToGrpcStatus(evicted.status());
  response->set_evicted(static_cast<uint32_t>(*evicted));
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::Pin(grpc::ServerContext* ctx, const v1::PinRequest* request,
                                     v1::PinResponse*) {
  if (Status denied = gate_->Check(*ctx, "Pin"); !denied.ok()) return Rejected("Pin", denied);
  const ActiveCall active(&activity_);
  return ToGrpcStatus(core_->Pin(request->handle()));
}

grpc::Status TileJitGrpcService::Unpin(grpc::ServerContext* ctx, const v1::PinRequest* request,
                                       v1::PinResponse*) {
  if (Status denied = gate_->Check(*ctx, "Unpin"); !denied.ok()) return Rejected("Unpin", denied);
  const ActiveCall active(&activity_);
  return ToGrpcStatus(core_->Unpin(request->handle()));
}

}  // namespace tilejit::server
