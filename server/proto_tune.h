// SPDX-License-Identifier: Apache-2.0
// Conversions between the Tune messages (tilejit.v1.TuneRequest, TuneEvent) and the core's
// TuneCall / TuneReply (tune.h). The request conversion validates (kInvalidArgument naming
// the field); ValidateTuneCall bounds the counts. Pure functions; thread-safe.
#pragma once

#include "common/result.h"
#include "server/proto_values.h"
#include "server/tune.h"
#include "tilejit/v1/tilejit.pb.h"

namespace tilejit::server {

Result<TuneCall> TuneFromProto(const tilejit::v1::TuneRequest& in, const ValueLimits& limits);
void TuneCandidateToProto(const TuneCandidate& in, tilejit::v1::TuneCandidate* out);
void TuneReplyToProto(const TuneReply& in, tilejit::v1::TuneResponse* out);
void TuneEventToProto(const TuneEvent& in, tilejit::v1::TuneEvent* out);

}  // namespace tilejit::server
