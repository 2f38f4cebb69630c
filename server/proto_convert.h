// SPDX-License-Identifier: Apache-2.0
// Conversions between tilejit.v1 messages and the transport-free core types (service.h).
// Request conversions validate (kInvalidArgument naming the field); response conversions
// cannot fail.
//
// Pure functions; thread-safe.
#pragma once

#include "common/result.h"
#include "compiler/frontend/frontend.h"
#include "server/proto_values.h"
#include "server/service.h"
#include "tilejit/v1/tilejit.pb.h"

namespace tilejit::server {

namespace v1 = ::tilejit::v1;

Result<frontend::FrontendRequest> RequestFromProto(const v1::CompileRequest& in,
                                                   const ValueLimits& limits,
                                                   CompileOptions* options);
void ReplyToProto(const CompileReply& in, v1::CompileResponse* out);
void MetadataToProto(const target::KernelMetadata& in, v1::KernelMetadata* out);
void DiagnosticToProto(const DiagnosticInfo& in, v1::Diagnostic* out);

Result<runner::NpyArray> TensorFromProto(const v1::Tensor& in, std::string_view where);
void TensorToProto(const runner::NpyArray& in, v1::Tensor* out);
Result<LaunchCall> LaunchFromProto(const v1::LaunchRequest& in);
void LaunchReplyToProto(const LaunchReply& in, v1::LaunchResponse* out);

}  // namespace tilejit::server
