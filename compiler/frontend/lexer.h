// SPDX-License-Identifier: Apache-2.0
// The Python tokenizer: turns one source file into a token vector with NEWLINE, INDENT and
// DEDENT tokens, implicit line joining inside brackets, backslash continuation, comments,
// every string form (prefixes r/b/f/u in any case; f-strings are kept whole), int literals
// (decimal, hex, octal, binary, underscores; values must fit int64) and floats.
//
// Errors do not stop the tokenizer: each becomes a kError token whose error_index names a
// LexError (location and message), and tokenizing resumes (an unterminated single-quoted
// string ends at its line end, an unterminated triple-quoted string at the end of the file).
// This lets the parser turn the top-level statement holding the error into an Unsupported
// statement and carry on with the rest of the file.
//
// Usage:
//   LexedFile lexed = Tokenize(sources, file_id);
//   for (const Token& t : lexed.tokens) ...   // ends with kEndOfFile
//
// Tokens view the SourceManager's text, which must outlive them. Tokenize is a pure function
// of its input; concurrent calls on the same (const) SourceManager are safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/source_loc.h"
#include "compiler/frontend/token.h"

namespace tilejit::frontend {

// Limits that keep hostile input from exhausting memory or the parser's stack.
inline constexpr uint32_t kMaxBracketDepth = 200;
inline constexpr uint32_t kMaxIndentLevels = 100;

struct LexError {
  SourceLoc loc;
  std::string message;
  bool unclosed_bracket = false;  // "'(' was never closed": explains later parse errors
  // CPython refuses the file for it too; false for literals that are valid Python but that
  // tilejit does not take (integers past int64, complex numbers), which only matter when
  // the statement holding them is used.
  bool refuses_file = true;
};

struct LexedFile {
  std::vector<Token> tokens;  // never empty; the last one is kEndOfFile
  std::vector<LexError> errors;
  std::string_view text;  // the whole file's text, which the tokens view
};

// Tokenizes file `file_id` of `sources`. REQUIRES: file_id is a registered id.
LexedFile Tokenize(const SourceManager& sources, uint32_t file_id);

// Tokenizes bytes [begin, end) of `text` (a file's whole text, as in LexedFile::text) as if
// they were inside brackets: an f-string field's expression. No NEWLINE, INDENT or DEDENT
// tokens; locations are the file's, `at` being that of byte `begin`.
LexedFile TokenizeRange(std::string_view text, uint32_t file_id, size_t begin, size_t end,
                        SourceLoc at);

}  // namespace tilejit::frontend
