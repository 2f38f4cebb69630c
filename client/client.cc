// SPDX-License-Identifier: Apache-2.0
// The client is deliberately thin: requests and responses are the generated messages, so a
// field the daemon adds reaches callers without a client change. What it adds is the per-call
// deadline, one status mapping, and typed request building shared by the CLI and tests.
#include "client/client.h"

#include <arpa/inet.h>

#include <algorithm>
#include <utility>

namespace tilejit::client {
namespace {

// Runs one unary RPC and maps its status; `what` names the call in transport errors.
template <typename Response, typename Fn>
Result<Response> Unary(const std::string& address, const char* what, Fn&& fn) {
  Response response;
  grpc::Status st = fn(&response);
  if (st.ok()) return response;
  Status s = StatusFromGrpc(st);
  if (s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kDeadlineExceeded) {
    return s.WithContext(std::string(what) + " on " + address);
  }
  return s;
}

// A token must fit in a header; the daemon refuses longer ones (server/auth.h) anyway.
constexpr size_t kMaxTokenBytes = 4096;

Status CheckToken(const std::string& token) {
  if (token.size() > kMaxTokenBytes) return InvalidArgument("the token is too long");
  for (char c : token) {
    if (c < 0x21 || c > 0x7e) {
      return InvalidArgument("the token must be printable ASCII without spaces");
    }
  }
  return Status::Ok();
}

Result<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(const TlsFiles& tls) {
  if (!tls.any()) return grpc::InsecureChannelCredentials();
  TILEJIT_ASSIGN_OR_RETURN(TlsPem pem, LoadTlsFiles(tls));
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = pem.ca;
  ssl.pem_private_key = pem.key;
  ssl.pem_cert_chain = pem.cert;
  return grpc::SslCredentials(ssl);
}

void SetTypedMap(const std::vector<std::pair<std::string, v1::TypedValue>>& in,
                 google::protobuf::Map<std::string, v1::TypedValue>* out) {
  for (const auto& [name, value] : in) (*out)[name] = value;
}

}  // namespace

const char* ServingStatusName(ServingStatus s) {
  switch (s) {
    case ServingStatus::kServing:
      return "SERVING";
    case ServingStatus::kNotServing:
      return "NOT_SERVING";
    case ServingStatus::kServiceUnknown:
      return "SERVICE_UNKNOWN";
    case ServingStatus::kUnknown:
      break;
  }
  return "UNKNOWN";
}

v1::CompileRequest BuildCompileRequest(const KernelSpec& spec) {
  v1::CompileRequest r;
  r.set_source(spec.source);
  r.set_file_name(spec.file_name);
  r.set_format(spec.tile_ir ? v1::TILE_IR : v1::TILELANG);
  r.set_entry(spec.entry);
  for (const v1::TypedValue& v : spec.args) *r.add_typed_args() = v;
  SetTypedMap(spec.kwargs, r.mutable_typed_kwargs());
  SetTypedMap(spec.globals, r.mutable_typed_globals());
  SetTypedMap(spec.pass_configs, r.mutable_typed_pass_configs());
  if (spec.out_idx) {
    r.set_out_idx_set(true);
    for (int i : *spec.out_idx) r.add_out_idx(i);
  }
  if (spec.workspace_idx) {
    r.set_workspace_idx_set(true);
    for (int i : *spec.workspace_idx) r.add_workspace_idx(i);
  }
  r.set_target(spec.target);
  return r;
}

Status StatusFromGrpc(const grpc::Status& status) {
  const std::string& m = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return Status::Ok();
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return InvalidArgument(m);
    case grpc::StatusCode::NOT_FOUND:
      return NotFound(m);
    case grpc::StatusCode::ALREADY_EXISTS:
      return Status(StatusCode::kAlreadyExists, m);
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return ResourceExhausted(m);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return DeadlineExceeded(m.empty() ? "deadline exceeded" : m);
    case grpc::StatusCode::CANCELLED:
      return Cancelled(m.empty() ? "cancelled" : m);
    case grpc::StatusCode::UNAVAILABLE:
      return Unavailable(m.empty() ? "daemon unavailable" : m);
    case grpc::StatusCode::DATA_LOSS:
      return Corruption(m);
    case grpc::StatusCode::UNAUTHENTICATED:
      return Status(StatusCode::kUnauthenticated, m);
    case grpc::StatusCode::PERMISSION_DENIED:
      return Status(StatusCode::kPermissionDenied, m);
    default:
      // UNKNOWN, INTERNAL, UNIMPLEMENTED, ABORTED: keep the wire code in the text so nothing
      // is lost in the mapping.
      return Internal("gRPC code " + std::to_string(static_cast<int>(status.error_code())) + ": " +
                      m);
  }
}

namespace {

// The family of one "ADDR:PORT" list entry: 4 (numeric IPv4), 6 (bracketed IPv6) or 0.
int NumericFamily(std::string_view entry) {
  const bool v6 = entry.starts_with("[");
  const size_t end = v6 ? entry.find("]:") : entry.rfind(':');
  if (end == std::string_view::npos) return 0;
  const std::string host(v6 ? entry.substr(1, end - 1) : entry.substr(0, end));
  const std::string_view port = entry.substr(end + (v6 ? 2 : 1));
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos) {
    return 0;
  }
  unsigned char buf[16];
  if (v6) return inet_pton(AF_INET6, host.c_str(), buf) == 1 ? 6 : 0;
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ? 4 : 0;
}

}  // namespace

Result<ChannelTarget> ChannelTargetFor(const std::string& address) {
  if (address.empty()) return InvalidArgument("empty daemon address");
  if (address.starts_with("dns:")) return ChannelTarget{address, true};
  if (address.find(',') == std::string::npos) return ChannelTarget{address, false};
  std::vector<std::string_view> entries;
  for (size_t start = 0; start <= address.size();) {
    const size_t comma = std::min(address.find(',', start), address.size());
    entries.push_back(std::string_view(address).substr(start, comma - start));
    start = comma + 1;
  }
  if (entries.size() > kMaxDaemonAddresses) {
    return InvalidArgument("at most " + std::to_string(kMaxDaemonAddresses) +
                           " daemon addresses in a list");
  }
  const int family = NumericFamily(entries.front());
  for (std::string_view entry : entries) {
    if (NumericFamily(entry) == 0 || NumericFamily(entry) != family) {
      return InvalidArgument("daemon address list entry '" + std::string(entry) +
                             "': a list takes numeric addresses of one family (IPv4 ADDR:PORT or "
                             "[IPv6]:PORT); for host names use dns:///NAME:PORT");
    }
  }
  return ChannelTarget{(family == 4 ? "ipv4:" : "ipv6:") + address, true};
}

Result<std::unique_ptr<Client>> Client::Connect(const ClientOptions& options) {
  TILEJIT_ASSIGN_OR_RETURN(ChannelTarget target, ChannelTargetFor(options.address));
  TILEJIT_RETURN_IF_ERROR(CheckToken(options.token));
  TILEJIT_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials,
                           ChannelCredentials(options.tls));
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_message_bytes);
  args.SetMaxSendMessageSize(options.max_message_bytes);
  if (target.round_robin) args.SetLoadBalancingPolicyName("round_robin");
  auto channel = grpc::CreateCustomChannel(target.target, credentials, args);
  return std::unique_ptr<Client>(new Client(options, std::move(channel)));
}

Client::Client(const ClientOptions& options, std::shared_ptr<grpc::Channel> channel)
    : options_(options),
      channel_(std::move(channel)),
      stub_(v1::TileJit::NewStub(channel_)),
      health_(grpc::health::v1::Health::NewStub(channel_)) {}

std::unique_ptr<grpc::ClientContext> Client::NewContext() const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + options_.deadline);
  if (!options_.token.empty()) ctx->AddMetadata("authorization", "Bearer " + options_.token);
  return ctx;
}

Result<v1::CompileResponse> Client::Compile(const v1::CompileRequest& request) {
  return Unary<v1::CompileResponse>(options_.address, "Compile", [&](auto* out) {
    return stub_->Compile(NewContext().get(), request, out);
  });
}

Result<v1::GetKernelResponse> Client::GetKernel(const std::string& handle, bool metadata_only) {
  v1::GetKernelRequest req;
  req.set_handle(handle);
  req.set_metadata_only(metadata_only);
  return Unary<v1::GetKernelResponse>(options_.address, "GetKernel", [&](auto* out) {
    return stub_->GetKernel(NewContext().get(), req, out);
  });
}

Result<v1::LaunchResponse> Client::Launch(const v1::LaunchRequest& request) {
  return Unary<v1::LaunchResponse>(options_.address, "Launch", [&](auto* out) {
    return stub_->Launch(NewContext().get(), request, out);
  });
}

Result<v1::TuneResponse> Client::Tune(const v1::TuneRequest& request, const TuneEventFn& on_event,
                                      std::chrono::milliseconds deadline) {
  std::unique_ptr<grpc::ClientContext> ctx = NewContext();
  ctx->set_deadline(std::chrono::system_clock::now() + deadline);
  std::unique_ptr<grpc::ClientReader<v1::TuneEvent>> reader = stub_->Tune(ctx.get(), request);
  std::optional<v1::TuneResponse> done;
  v1::TuneEvent event;
  while (reader->Read(&event)) {
    if (event.has_done()) {
      done = event.done();
    } else if (event.has_candidate() && on_event) {
      on_event(event.candidate());
    }
  }
  if (grpc::Status st = reader->Finish(); !st.ok()) {
    return StatusFromGrpc(st).WithContext("Tune on " + options_.address);
  }
  if (!done) return Internal("Tune on " + options_.address + " ended without a decision");
  return *std::move(done);
}

Result<ServingStatus> Client::Health(const std::string& service) {
  grpc::health::v1::HealthCheckRequest req;
  req.set_service(service);
  using Response = grpc::health::v1::HealthCheckResponse;
  Result<Response> r = Unary<Response>(options_.address, "Health/Check", [&](auto* out) {
    return health_->Check(NewContext().get(), req, out);
  });
  if (!r.ok()) return r.status();
  switch (r->status()) {
    case Response::SERVING:
      return ServingStatus::kServing;
    case Response::NOT_SERVING:
      return ServingStatus::kNotServing;
    case Response::SERVICE_UNKNOWN:
      return ServingStatus::kServiceUnknown;
    default:
      return ServingStatus::kUnknown;
  }
}

Result<v1::StatsResponse> Client::Stats() {
  return Unary<v1::StatsResponse>(options_.address, "Stats", [&](auto* out) {
    return stub_->Stats(NewContext().get(), v1::StatsRequest(), out);
  });
}

Result<v1::ListResponse> Client::List(uint32_t limit) {
  v1::ListRequest req;
  req.set_limit(limit);
  return Unary<v1::ListResponse>(options_.address, "List", [&](auto* out) {
    return stub_->List(NewContext().get(), req, out);
  });
}

Result<uint32_t> Client::Evict(const std::vector<std::string>& handles) {
  v1::EvictRequest req;
  for (const std::string& h : handles) req.add_handles(h);
  Result<v1::EvictResponse> r = Unary<v1::EvictResponse>(options_.address, "Evict", [&](auto* out) {
    return stub_->Evict(NewContext().get(), req, out);
  });
  if (!r.ok()) return r.status();
  return r->evicted();
}

Status Client::Pin(const std::string& handle) {
  v1::PinRequest req;
  req.set_handle(handle);
  return Unary<v1::PinResponse>(options_.address, "Pin",
                                [&](auto* out) { return stub_->Pin(NewContext().get(), req, out); })
      .status();
}

Status Client::Unpin(const std::string& handle) {
  v1::PinRequest req;
  req.set_handle(handle);
  return Unary<v1::PinResponse>(
             options_.address, "Unpin",
             [&](auto* out) { return stub_->Unpin(NewContext().get(), req, out); })
      .status();
}

Result<v1::ExportResponse> Client::Export(const std::vector<std::string>& handles) {
  v1::ExportRequest req;
  for (const std::string& h : handles) req.add_handles(h);
  return Unary<v1::ExportResponse>(options_.address, "Export", [&](auto* out) {
    return stub_->Export(NewContext().get(), req, out);
  });
}

Result<v1::ImportResponse> Client::Import(const std::string& bundle) {
  v1::ImportRequest req;
  req.set_bundle(bundle);
  return Unary<v1::ImportResponse>(options_.address, "Import", [&](auto* out) {
    return stub_->Import(NewContext().get(), req, out);
  });
}

Result<uint64_t> Client::ExportStream(const std::vector<std::string>& handles,
                                      const EntrySink& sink) {
  v1::ExportRequest req;
  for (const std::string& h : handles) req.add_handles(h);
  std::unique_ptr<grpc::ClientContext> ctx = NewContext();
  std::unique_ptr<grpc::ClientReader<v1::BundleEntries>> reader =
      stub_->ExportStream(ctx.get(), req);
  uint64_t count = 0;
  v1::BundleEntries message;
  while (reader->Read(&message)) {
    for (const v1::KernelBundle::Entry& e : message.entries()) {
      if (Status s = sink(e); !s.ok()) {
        ctx->TryCancel();
        (void)reader->Finish();
        return s;
      }
      ++count;
    }
  }
  if (grpc::Status st = reader->Finish(); !st.ok()) {
    return StatusFromGrpc(st).WithContext("ExportStream on " + options_.address);
  }
  return count;
}

Result<v1::ImportResponse> Client::ImportStream(const EntrySource& source) {
  std::unique_ptr<grpc::ClientContext> ctx = NewContext();
  v1::ImportResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::BundleEntries>> writer =
      stub_->ImportStream(ctx.get(), &response);
  while (true) {
    Result<std::optional<v1::KernelBundle::Entry>> next = source();
    if (!next.ok()) {
      // End the stream cleanly rather than cancel it: the daemon then imports every entry
      // already sent (a cancelled call drops those still in flight), so a bad entry stops the
      // import after the entries before it, whatever the timing.
      writer->WritesDone();
      const grpc::Status st = writer->Finish();
      if (!st.ok()) return next.status();
      return next.status().WithContext("after " + std::to_string(response.imported()) +
                                       " imported and " + std::to_string(response.skipped()) +
                                       " skipped");
    }
    if (!next->has_value()) break;
    v1::BundleEntries message;
    *message.add_entries() = std::move(**next);
    if (!writer->Write(message)) break;  // the daemon ended the call: Finish says why
  }
  writer->WritesDone();
  if (grpc::Status st = writer->Finish(); !st.ok()) {
    return StatusFromGrpc(st).WithContext("ImportStream on " + options_.address);
  }
  return response;
}

}  // namespace tilejit::client
