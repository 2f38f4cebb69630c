// SPDX-License-Identifier: Apache-2.0
// Kernel handles: what clients hold to name a compiled kernel. A handle is "tj1_" followed by
// the 64 hex digits of the cache key, so a handle names a key (DESIGN.md section 6) and stays
// fetchable until the entry is evicted, while the version prefix leaves room to change the
// scheme.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace tilejit::server {

std::string HandleFromKey(std::string_view key);

// The key a handle names; kInvalidArgument for anything that is not a well-formed handle.
Result<std::string> KeyFromHandle(std::string_view handle);

// True for 64 lower-case hex digits (a cache key or request digest).
bool IsHexDigest(std::string_view s);

}  // namespace tilejit::server
