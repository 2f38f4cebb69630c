// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for request conversion (server/proto_convert.h): arbitrary bytes decoded as
// a tilejit.v1 CompileRequest and LaunchRequest, then converted as the daemon converts every
// call. Oracles (trap on violation): conversion returns OK or kInvalidArgument only; an
// accepted compile request has a request digest; every accepted launch tensor holds exactly
// the bytes its shape and dtype need.
#include <cstddef>
#include <cstdint>

#include "server/proto_convert.h"
#include "server/request_digest.h"

namespace {

using namespace tilejit;  // NOLINT

void CheckStatus(const Status& s) {
  if (!s.ok() && s.code() != StatusCode::kInvalidArgument) __builtin_trap();
}

void CompileRequest(const uint8_t* data, size_t size) {
  v1::CompileRequest proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return;
  server::CompileOptions options;
  Result<frontend::FrontendRequest> r = server::RequestFromProto(proto, {}, &options);
  CheckStatus(r.status());
  if (r.ok() && server::RequestDigest(*r, "fuzz").size() != 64) __builtin_trap();
}

void LaunchRequest(const uint8_t* data, size_t size) {
  v1::LaunchRequest proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return;
  Result<server::LaunchCall> call = server::LaunchFromProto(proto);
  CheckStatus(call.status());
  if (!call.ok()) return;
  for (const runner::NpyArray& t : call->inputs) {
    const auto bytes = static_cast<uint64_t>(t.ElementCount()) *
                       static_cast<uint64_t>(target::ElementTypeBytes(t.dtype));
    if (bytes != t.data.size()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CompileRequest(data, size);
  LaunchRequest(data, size);
  return 0;
}
