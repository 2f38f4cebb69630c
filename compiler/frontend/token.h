// SPDX-License-Identifier: Apache-2.0
// Tokens of the Python subset the frontend reads (see lexer.h for the tokenizer).
//
// A Token is a small value type. Its `text` views the SourceManager's copy of the file, so a
// token is valid only while that SourceManager lives. Keywords have their own kinds; soft
// keywords (match, case, type, _) are plain names.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/source_loc.h"

namespace tilejit::frontend {

// X(kind, spelling) for every operator and delimiter, longest spellings matter only to the
// lexer (which matches greedily); the spelling is used in messages and dumps.
#define TILEJIT_PY_OPERATORS(X) \
  X(kLPar, "(")                 \
  X(kRPar, ")")                 \
  X(kLSqb, "[")                 \
  X(kRSqb, "]")                 \
  X(kLBrace, "{")               \
  X(kRBrace, "}")               \
  X(kColon, ":")                \
  X(kComma, ",")                \
  X(kSemi, ";")                 \
  X(kPlus, "+")                 \
  X(kMinus, "-")                \
  X(kStar, "*")                 \
  X(kSlash, "/")                \
  X(kVBar, "|")                 \
  X(kAmper, "&")                \
  X(kLess, "<")                 \
  X(kGreater, ">")              \
  X(kEqual, "=")                \
  X(kDot, ".")                  \
  X(kPercent, "%")              \
  X(kEqEqual, "==")             \
  X(kNotEqual, "!=")            \
  X(kLessEqual, "<=")           \
  X(kGreaterEqual, ">=")        \
  X(kTilde, "~")                \
  X(kCircumflex, "^")           \
  X(kLeftShift, "<<")           \
  X(kRightShift, ">>")          \
  X(kDoubleStar, "**")          \
  X(kPlusEqual, "+=")           \
  X(kMinEqual, "-=")            \
  X(kStarEqual, "*=")           \
  X(kSlashEqual, "/=")          \
  X(kPercentEqual, "%=")        \
  X(kAmperEqual, "&=")          \
  X(kVBarEqual, "|=")           \
  X(kCircumflexEqual, "^=")     \
  X(kLeftShiftEqual, "<<=")     \
  X(kRightShiftEqual, ">>=")    \
  X(kDoubleStarEqual, "**=")    \
  X(kDoubleSlash, "//")         \
  X(kDoubleSlashEqual, "//=")   \
  X(kAt, "@")                   \
  X(kAtEqual, "@=")             \
  X(kRArrow, "->")              \
  X(kEllipsis, "...")           \
  X(kColonEqual, ":=")

// X(kind, spelling) for every hard keyword.
#define TILEJIT_PY_KEYWORDS(X) \
  X(kKwFalse, "False")         \
  X(kKwNone, "None")           \
  X(kKwTrue, "True")           \
  X(kKwAnd, "and")             \
  X(kKwAs, "as")               \
  X(kKwAssert, "assert")       \
  X(kKwAsync, "async")         \
  X(kKwAwait, "await")         \
  X(kKwBreak, "break")         \
  X(kKwClass, "class")         \
  X(kKwContinue, "continue")   \
  X(kKwDef, "def")             \
  X(kKwDel, "del")             \
  X(kKwElif, "elif")           \
  X(kKwElse, "else")           \
  X(kKwExcept, "except")       \
  X(kKwFinally, "finally")     \
  X(kKwFor, "for")             \
  X(kKwFrom, "from")           \
  X(kKwGlobal, "global")       \
  X(kKwIf, "if")               \
  X(kKwImport, "import")       \
  X(kKwIn, "in")               \
  X(kKwIs, "is")               \
  X(kKwLambda, "lambda")       \
  X(kKwNonlocal, "nonlocal")   \
  X(kKwNot, "not")             \
  X(kKwOr, "or")               \
  X(kKwPass, "pass")           \
  X(kKwRaise, "raise")         \
  X(kKwReturn, "return")       \
  X(kKwTry, "try")             \
  X(kKwWhile, "while")         \
  X(kKwWith, "with")           \
  X(kKwYield, "yield")

enum class TokenKind : uint8_t {
  kEndOfFile,
  kNewline,  // end of a logical line
  kIndent,
  kDedent,
  kName,
  kInt,     // int_value holds the value
  kFloat,   // float_value holds the value
  kString,  // text is the whole literal incl. prefix and quotes; see string_literal.h
  kError,   // a lexical error; error_index names it in Lexer::errors()
#define TILEJIT_X(kind, spelling) kind,
  TILEJIT_PY_OPERATORS(TILEJIT_X) TILEJIT_PY_KEYWORDS(TILEJIT_X)
#undef TILEJIT_X
};

// The spelling of an operator or keyword ("(", "def"), or a description ("name", "newline").
std::string_view TokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEndOfFile;
  // True for the first token of a logical line (INDENT/DEDENT tokens excluded); with
  // loc.column == 1 it marks the start of a top-level statement.
  bool line_start = false;
  uint32_t error_index = 0;  // kError only
  SourceLoc loc;             // first byte
  SourceLoc end;             // one past the last byte (line/column)
  std::string_view text;     // the source bytes (empty for NEWLINE/INDENT/DEDENT/EOF)
  int64_t int_value = 0;     // kInt
  double float_value = 0.0;  // kFloat
};

}  // namespace tilejit::frontend
