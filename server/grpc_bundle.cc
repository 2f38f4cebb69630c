// SPDX-License-Identifier: Apache-2.0
// Export and Import, unary and streamed. Both directions check every entry's SHA-256 at the
// transport, before the core sees it; the core's Import then recompiles what it takes
// (service_import.cc). The streamed calls exist so that a cache of any size moves through
// messages of one kernel's size: the unary ones carry the whole bundle in one message, which
// --max-message-bytes bounds.
#include <string>
#include <utility>
#include <vector>

#include "common/sha256.h"
#include "server/grpc_adapter.h"

namespace tilejit::server {
namespace {

void AddEntry(const KernelRecord& k, v1::KernelBundle::Entry* e) {
  e->set_key(k.key);
  e->set_binary(k.binary);
  e->set_sha256(Sha256Hex(k.binary));
  e->set_signature(k.signature);
}

using ImportEntries = std::vector<ImportEntry>;

// `entries` for CompileService::Import; InvalidArgument naming the first whose bytes do not
// match its digest.
template <typename Entries>
Result<ImportEntries> CheckedEntries(const Entries& entries) {
  ImportEntries out;
  for (const v1::KernelBundle::Entry& e : entries) {
    if (Sha256Hex(e.binary()) != e.sha256()) {
      return InvalidArgument("bundle entry " + e.key().substr(0, 16) + " fails its SHA-256 check");
    }
    out.push_back({e.key(), e.binary(), e.signature()});
  }
  return out;
}

}  // namespace

grpc::Status TileJitGrpcService::Export(grpc::ServerContext* ctx, const v1::ExportRequest* request,
                                        v1::ExportResponse* response) {
  if (Status denied = gate_->Check(*ctx, "Export"); !denied.ok()) return Rejected("Export", denied);
  const ActiveCall active(&activity_);
  if (Status s = CheckHandleCount(request->handles_size()); !s.ok()) return Rejected("Export", s);
  auto kernels =
      core_->Export({request->handles().begin(), request->handles().end()}, kMaxHandlesPerCall);
  if (!kernels.ok()) return ToGrpcStatus(kernels.status());
  v1::KernelBundle bundle;
  bundle.set_version(1);
  for (const auto& k : *kernels) AddEntry(*k, bundle.add_entries());
  response->set_count(static_cast<uint32_t>(bundle.entries_size()));
  bundle.SerializeToString(response->mutable_bundle());
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::ExportStream(grpc::ServerContext* ctx,
                                              const v1::ExportRequest* request,
                                              grpc::ServerWriter<v1::BundleEntries>* writer) {
  if (Status denied = gate_->Check(*ctx, "ExportStream"); !denied.ok()) {
    return Rejected("ExportStream", denied);
  }
  const ActiveCall active(&activity_);
  if (Status s = CheckHandleCount(request->handles_size()); !s.ok()) {
    return Rejected("ExportStream", s);
  }
  bool reader_gone = false;
  Result<size_t> sent = core_->ExportEach({request->handles().begin(), request->handles().end()},
                                          kMaxStreamedExport, [&](const KernelRecord& k) {
                                            v1::BundleEntries message;
                                            AddEntry(k, message.add_entries());
                                            reader_gone =
                                                ctx->IsCancelled() || !writer->Write(message);
                                            return !reader_gone;
                                          });
  if (!sent.ok()) return ToGrpcStatus(sent.status());
  if (reader_gone) return grpc::Status(grpc::StatusCode::CANCELLED, "the reader went away");
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::Import(grpc::ServerContext* ctx, const v1::ImportRequest* request,
                                        v1::ImportResponse* response) {
  if (Status denied = gate_->Check(*ctx, "Import"); !denied.ok()) return Rejected("Import", denied);
  const ActiveCall active(&activity_);
  v1::KernelBundle bundle;
  if (!bundle.ParseFromString(request->bundle())) {
    return Rejected("Import",
                    InvalidArgument("bundle is not a serialised tilejit.v1.KernelBundle"));
  }
  if (bundle.version() != 1) {
    return Rejected("Import", InvalidArgument("bundle version " + std::to_string(bundle.version()) +
                                              " is not supported (1)"));
  }
  Result<ImportEntries> entries = CheckedEntries(bundle.entries());
  if (!entries.ok()) return Rejected("Import", entries.status());
  auto counts = core_->Import(*entries, MakeContext(ctx, ""));
  if (!counts.ok()) return ToGrpcStatus(counts.status());
  response->set_imported(static_cast<uint32_t>(counts->first));
  response->set_skipped(static_cast<uint32_t>(counts->second));
  return grpc::Status::OK;
}

grpc::Status TileJitGrpcService::ImportStream(grpc::ServerContext* ctx,
                                              grpc::ServerReader<v1::BundleEntries>* reader,
                                              v1::ImportResponse* response) {
  if (Status denied = gate_->Check(*ctx, "ImportStream"); !denied.ok()) {
    return Rejected("ImportStream", denied);
  }
  const ActiveCall active(&activity_);
  const CallContext call = MakeContext(ctx, "");
  uint64_t imported = 0, skipped = 0;
  v1::BundleEntries message;
  while (reader->Read(&message)) {
    Result<ImportEntries> entries = CheckedEntries(message.entries());
    if (!entries.ok()) return Rejected("ImportStream", entries.status());
    Result<std::pair<size_t, size_t>> counts = core_->Import(*entries, call);
    if (!counts.ok()) {
      const Status& s = counts.status();
      return ToGrpcStatus(Status(s.code(), s.message() + " (after " + std::to_string(imported) +
                                               " imported and " + std::to_string(skipped) +
                                               " already present in earlier messages)"));
    }
    imported += counts->first;
    skipped += counts->second;
  }
  response->set_imported(static_cast<uint32_t>(imported));
  response->set_skipped(static_cast<uint32_t>(skipped));
  return grpc::Status::OK;
}

}  // namespace tilejit::server
