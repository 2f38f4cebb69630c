// SPDX-License-Identifier: Apache-2.0
// Splitting one f-string token into its literal text and its replacement fields, by the
// rules of CPython 3.11's f-string tokenizer (Python/Parser/string_parser.c):
//   - `{{` and `}}` are literal braces; a lone `}` is an error;
//   - a field is `{expression[=][!conversion][:format_spec]}`; the expression ends at the
//     first `!` (not `!=`), `:`, `=` (not part of `==`, `!=`, `<=`, `>=`) or `}` outside
//     brackets and strings, and may not hold a backslash or a `#`;
//   - the format spec is literal text with fields of its own, nested at most two deep.
// Only the split is done here: the parser parses each field's expression from its byte
// range, so diagnostics point into the user's file.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/frontend/string_literal.h"

namespace tilejit::frontend {

struct FStringPiece {
  bool is_field = false;
  std::string text;  // literal: the decoded text; field with `=`: the text before the `=` too
  // Field: the expression's byte range [expr_begin, expr_end) in the token's text.
  size_t expr_begin = 0, expr_end = 0;
  char conversion = 0;             // 's', 'r', 'a' or 0 (none)
  bool debug = false;              // `{x=}`: the text is printed before the value
  std::vector<FStringPiece> spec;  // the format spec's pieces; empty: no spec
  bool has_spec = false;
};

// Splits the f-string token `text` (prefix and quotes included). On an error, false with
// CPython's message and its byte offset in `text`.
bool SplitFString(std::string_view text, std::vector<FStringPiece>* out, std::string* error,
                  size_t* error_offset);

}  // namespace tilejit::frontend
