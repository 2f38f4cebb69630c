// SPDX-License-Identifier: Apache-2.0
// tilejit::Client: the C++ client of the tilejitd daemon (DESIGN.md section 7), a thin layer
// over the generated tilejit.v1.TileJit and grpc.health.v1.Health stubs.
//
//   ClientOptions options;                 // address localhost:50051, 60 s per call
//   auto client = Client::Connect(options);
//   v1::CompileRequest req;                // or KernelSpec + BuildCompileRequest (below)
//   ...
//   Result<v1::CompileResponse> r = (*client)->Compile(req);
//   if (r.ok() && r->ok()) { /* r->handle(), r->key(), r->metadata(), r->tier() */ }
//
// Errors: every RPC failure becomes a Status, mapped from the gRPC code in one place
// (StatusFromGrpc). A kernel with compile errors is NOT an RPC failure: the response arrives
// with ok() false and located diagnostics, exactly as the daemon sends it.
//
// Deadlines: each call gets ClientOptions::deadline from the moment it starts.
//
// Security: ClientOptions::token is sent with every call (health included) as
// `authorization: Bearer TOKEN`, for a daemon started with --auth-tokens. ClientOptions::tls
// turns TLS on: `ca` names the CA certificates that signed the daemon's certificate (empty:
// the system's roots), `cert` and `key` this client's certificate for a daemon that requires
// one (mTLS). A refused token is kUnauthenticated (missing or unknown) or kPermissionDenied
// (its role is too low).
//
// Ownership and threading: a Client owns its channel; it is thread-safe (gRPC stubs are), and
// one Client may serve any number of concurrent calls.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "common/tls_files.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "tilejit/v1/tilejit.grpc.pb.h"

namespace tilejit::client {

inline constexpr char kDefaultServerAddress[] = "localhost:50051";

struct ClientOptions {
  // host:port, unix:PATH, dns:///NAME:PORT (every address the name resolves to, balanced),
  // or a comma-separated list of numeric addresses (balanced); see ChannelTargetFor.
  std::string address = kDefaultServerAddress;
  std::chrono::milliseconds deadline{60'000};  // per call
  int max_message_bytes = 64 << 20;            // both directions; the daemon's default
  std::string token;                           // bearer token; empty: none sent
  TlsFiles tls;                                // PEM files; none given: plaintext
};

// The gRPC target and load-balancing policy for a ClientOptions::address:
// - "host:port" and "unix:PATH": that one daemon (gRPC's default pick_first);
// - "dns:///NAME:PORT": every address NAME resolves to, calls spread round-robin (a headless
//   Kubernetes Service, a DNS name with several A records);
// - "ADDR:PORT,ADDR:PORT,...": those daemons, round-robin. Each ADDR must be a numeric IPv4
//   address, or each a bracketed IPv6 one ("[::1]:50051"): gRPC resolves a static list only
//   for numeric addresses; for names use dns:///.
// kInvalidArgument names the entry that is wrong. At most kMaxDaemonAddresses in a list.
inline constexpr size_t kMaxDaemonAddresses = 64;
struct ChannelTarget {
  std::string target;
  bool round_robin = false;
};
Result<ChannelTarget> ChannelTargetFor(const std::string& address);

// The daemon's reply to a health check of one service ("" is the whole server).
enum class ServingStatus { kUnknown, kServing, kNotServing, kServiceUnknown };
const char* ServingStatusName(ServingStatus s);  // "SERVING", "NOT_SERVING", ...

// A TileLang (or Tile IR) kernel named the way the CLI names it: values already typed.
struct KernelSpec {
  std::string source;
  std::string file_name;  // diagnostics' file name
  bool tile_ir = false;   // format TILE_IR instead of TILELANG
  std::string entry;
  std::vector<v1::TypedValue> args;
  std::vector<std::pair<std::string, v1::TypedValue>> kwargs, globals, pass_configs;
  std::optional<std::vector<int>> out_idx, workspace_idx;
  std::string target;  // empty: the daemon's default
};

// The CompileRequest for `spec` (typed fields, so 64 and 64.0 stay distinct).
v1::CompileRequest BuildCompileRequest(const KernelSpec& spec);

// The one place gRPC status codes become tilejit Status codes.
Status StatusFromGrpc(const grpc::Status& status);

class Client {
 public:
  // Creates the channel. Does not wait for the daemon: an unreachable address shows as
  // kUnavailable on the first call. kInvalidArgument for an empty address, a token that is
  // not printable ASCII without spaces, or TLS files LoadTlsFiles refuses.
  static Result<std::unique_ptr<Client>> Connect(const ClientOptions& options);

  Result<v1::CompileResponse> Compile(const v1::CompileRequest& request);
  Result<v1::GetKernelResponse> GetKernel(const std::string& handle, bool metadata_only = false);
  Result<v1::LaunchResponse> Launch(const v1::LaunchRequest& request);
  Result<ServingStatus> Health(const std::string& service = "");
  // Tune: `on_event` sees each candidate event as it arrives; the final `done` response is
  // returned. The call's deadline is `deadline` (the tuning's own budget, not the per-call one).
  using TuneEventFn = std::function<void(const v1::TuneEvent::Candidate&)>;
  Result<v1::TuneResponse> Tune(const v1::TuneRequest& request, const TuneEventFn& on_event,
                                std::chrono::milliseconds deadline);

  Result<v1::StatsResponse> Stats();
  Result<v1::ListResponse> List(uint32_t limit = 0);
  Result<uint32_t> Evict(const std::vector<std::string>& handles);
  Status Pin(const std::string& handle);
  Status Unpin(const std::string& handle);
  // A serialised KernelBundle of `handles` (empty: every entry).
  Result<v1::ExportResponse> Export(const std::vector<std::string>& handles);
  Result<v1::ImportResponse> Import(const std::string& bundle);
  // ExportStream: each entry of `handles` (empty: every entry) into `sink` as it arrives;
  // `sink` returns a non-OK status to stop (it is returned). How many entries came.
  // ImportStream: entries from `source` until it returns nullopt, one message each; when it
  // returns an error, the entries sent before it are still imported and the error is
  // returned, prefixed with those counts. Both are bounded by the per-call deadline as a whole:
  // give a large cache a longer one.
  using EntrySink = std::function<Status(const v1::KernelBundle::Entry&)>;
  using EntrySource = std::function<Result<std::optional<v1::KernelBundle::Entry>>()>;
  Result<uint64_t> ExportStream(const std::vector<std::string>& handles, const EntrySink& sink);
  Result<v1::ImportResponse> ImportStream(const EntrySource& source);

  const ClientOptions& options() const { return options_; }

 private:
  Client(const ClientOptions& options, std::shared_ptr<grpc::Channel> channel);
  // A context carrying this client's per-call deadline and token.
  std::unique_ptr<grpc::ClientContext> NewContext() const;

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::TileJit::Stub> stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

}  // namespace tilejit::client

namespace tilejit {
using client::Client;  // DESIGN.md names it tilejit::Client
}  // namespace tilejit
