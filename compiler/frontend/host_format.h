// SPDX-License-Identifier: Apache-2.0
// Python's format(value, spec) on host values, for f-string fields: the format-spec
// mini-language ([[fill]align][sign][z][#][0][width][,|_][.precision][type]) of ints, bools,
// floats and strings, with CPython's results and its error messages. Widths and precisions
// are bounded (kMaxFormatWidth) so that a spec cannot ask for an unbounded string.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "compiler/frontend/value.h"

namespace tilejit::frontend {

inline constexpr int64_t kMaxFormatWidth = 1 << 20;

// `v` formatted by `spec`; nullopt with the message in `*error` when Python would raise (or a
// width or precision is past kMaxFormatWidth). An empty spec gives str(v).
std::optional<std::string> FormatHostValue(const Value& v, std::string_view spec,
                                           std::string* error);

}  // namespace tilejit::frontend
