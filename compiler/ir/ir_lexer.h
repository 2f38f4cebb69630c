// SPDX-License-Identifier: Apache-2.0
// Tokenizer for the Tile IR text format (internal to ir_parser.cc). Newlines are tokens
// because statements end at a line end; `#` starts a comment that runs to the line end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilejit::ir {

enum class TokKind : uint8_t {
  kIdent,   // launch, float16, copy, true, inf, ...
  kName,    // %p0, %ub_1, %v3 (text keeps the '%')
  kInt,     // 123 (unsigned; a sign is a separate token)
  kFloat,   // 1.5, 1e-05
  kString,  // "..." (text holds the decoded bytes)
  kPunct,   // ( ) [ ] { } , : = + - * / // % == != < <= > >= @
  kNewline,
  kEnd,
  kError,  // text holds the message
};

struct Token {
  TokKind kind;
  std::string text;
  uint32_t line;
  uint32_t column;
};

// Always ends with a kEnd token, or stops at the first kError token.
std::vector<Token> LexTileIr(std::string_view text);

}  // namespace tilejit::ir
