// SPDX-License-Identifier: Apache-2.0
// UTF-8 validation for request text (sources, names, string values): rejects overlong forms,
// surrogates, code points above U+10FFFF and truncated sequences.
//
// Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace tilejit::server {

// The byte offset of the first invalid sequence, or nullopt when `s` is valid UTF-8.
std::optional<size_t> FindInvalidUtf8(std::string_view s);

}  // namespace tilejit::server
