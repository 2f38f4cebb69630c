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

// The two halves of DecodeStringLiteral, for f-strings (fstring.h), whose literal parts are
// decoded piece by piece. FrameStringLiteral sets the prefix flags in `flags` and where the
// body between the quotes lies in `text`; false for a malformed token. DecodeStringBody
// appends the decoded `body` to `*out`; on a bad escape, false with `*error_offset` its
// offset in `body`.
bool FrameStringLiteral(std::string_view text, StringLiteral* flags, size_t* body_begin,
                        size_t* body_size);
bool DecodeStringBody(std::string_view body, const StringLiteral& flags, std::string* out,
                      std::string* error, size_t* error_offset);

}  // namespace tilejit::frontend
