// SPDX-License-Identifier: Apache-2.0
// The request digest (DESIGN.md section 6): SHA-256 over every field of a compile request
// that can change its outcome or its diagnostics (source, file name, format, entry, typed
// args, kwargs, globals, pass configs, out/workspace indices, target) and the compiler
// fingerprint. Equal digests mean "the same request from the same compiler", which is what
// lets the memo answer a repeat without running the frontend.
//
// Values enter typed (frontend::TypedText), so 64, 64.0 and "64" differ. kwargs and globals
// are order-free (sorted by name); pass configs keep their order, since a later duplicate
// wins.
//
// Pure function; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "compiler/frontend/frontend.h"

namespace tilejit::server {

// Lower-case hex SHA-256.
std::string RequestDigest(const frontend::FrontendRequest& request,
                          std::string_view compiler_fingerprint);

}  // namespace tilejit::server
