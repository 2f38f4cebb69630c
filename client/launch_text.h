// SPDX-License-Identifier: Apache-2.0
// The text of a daemon Launch, in the shape of runner/report_text.h's FormatLaunchReport (the
// offline `tilejit run` output) as far as the wire response carries it: status, the symbols
// bound (kernels with T.symbolic dims), cycles and waves, instructions, then one
// "<kind>: <message>" line per finding (their source lines are already resolved by the
// daemon when the launch named a request digest).
//
// Pure function; thread-safe.
#pragma once

#include <string>

#include "tilejit/v1/tilejit.pb.h"

namespace tilejit::client {

std::string FormatLaunchResponse(const v1::LaunchResponse& response);

}  // namespace tilejit::client
