// SPDX-License-Identifier: Apache-2.0
// Typed values from command-line text (DESIGN.md section 2): `64` is an int, `64.0` and
// `1e-5` are floats, `true`/`false` (any case) are bools, `none` is None, anything else is a
// string. `NAME=VALUE` pairs split at the first '='. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "compiler/frontend/value.h"

namespace tilejit::client {

frontend::Value ParseCliValue(std::string_view text);

// Splits "NAME=VALUE"; nullopt when there is no '=' or the name is empty.
std::optional<std::pair<std::string, frontend::Value>> ParseNamedValue(std::string_view text);

}  // namespace tilejit::client
