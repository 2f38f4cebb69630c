// SPDX-License-Identifier: Apache-2.0
// Decoding of one string-literal token (prefix, quotes and escapes) into its value.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tilejit::frontend {

struct StringLiteral {
  bool raw = false;      // r prefix: backslashes are kept
  bool bytes = false;    // b prefix
  bool fstring = false;  // f prefix: `value` is the template, replacement fields unevaluated
  std::string value;     // decoded bytes (UTF-8 for str literals)
};

// Decodes `text`, the full text of a kString token (e.g. `rb'\d'`, `"""doc"""`). On a bad
// escape returns false with `*error` set and `*error_offset` the escape's byte offset in
// `text`. Unknown escapes such as `\d` are kept verbatim, as Python does.
bool DecodeStringLiteral(std::string_view text, StringLiteral* out, std::string* error,
                         size_t* error_offset);

}  // namespace tilejit::frontend
