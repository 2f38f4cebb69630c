// SPDX-License-Identifier: Apache-2.0
// Internal to the lexer: the scanning position shared by the tokenizer loop and the scanners
// for numbers, strings and operators (split out to keep each file to one concern).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/source_loc.h"
#include "compiler/frontend/token.h"

namespace tilejit::frontend {

// The cursor over one file's text. Scanners advance `pos` and report each newline they
// consume through NewLine so that locations stay right.
struct ScanContext {
  ScanContext(std::string_view text, uint32_t id) : src(text), file_id(id) {}

  char Peek(size_t ahead) const { return pos + ahead < src.size() ? src[pos + ahead] : '\0'; }
  SourceLoc Here() const { return {file_id, line, static_cast<uint32_t>(pos - line_begin + 1)}; }
  // Records that a line starts at byte `begin`.
  void NewLine(size_t begin) {
    ++line;
    line_begin = begin;
  }

  std::string_view src;
  uint32_t file_id;
  size_t pos = 0;
  uint32_t line = 1;
  size_t line_begin = 0;
};

struct NumberResult {
  bool is_float = false;
  int64_t int_value = 0;
  double float_value = 0.0;
  std::string error;            // non-empty: the literal is malformed (pos is past it)
  bool python_accepts = false;  // with an error: valid Python that tilejit does not take
};

// Scans the number literal at ctx->pos (a digit, or '.' followed by a digit).
NumberResult ScanNumber(ScanContext* ctx);

// Scans the string literal whose prefix (if any) is already consumed: ctx->pos is at the
// opening quote. Returns an error message (empty on success); on error the literal extends to
// the end of its line (single quotes) or of the file (triple quotes).
std::string_view ScanString(ScanContext* ctx);

// Scans the operator or delimiter at ctx->pos; returns kError (pos unchanged) if none starts
// there.
TokenKind ScanOperator(ScanContext* ctx);

}  // namespace tilejit::frontend
