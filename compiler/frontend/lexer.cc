// SPDX-License-Identifier: Apache-2.0
// One pass over the bytes; tokens view the source text, so the only allocations are the token
// vector and error messages. Indentation follows CPython: a stack of columns (tabs to the next
// multiple of 8) and a second stack with tabs as one column; when the two orders disagree the
// indentation depends on the tab size, which is reported as inconsistent tabs and spaces.
#include "compiler/frontend/lexer.h"

#include <cstdio>
#include <string_view>

#include "compiler/frontend/lexer_scanners.h"

namespace tilejit::frontend {
namespace {

bool IsIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsIdentChar(unsigned char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// True if `s` is a valid string prefix: r, u, b, f, br, rb, fr, rf in any case.
bool IsStringPrefix(std::string_view s) {
  auto lower = [](char c) { return static_cast<char>(c | 0x20); };
  if (s.size() == 1) {
    char c = lower(s[0]);
    return c == 'r' || c == 'u' || c == 'b' || c == 'f';
  }
  if (s.size() == 2) {
    char a = lower(s[0]), b = lower(s[1]);
    if (a == 'r') std::swap(a, b);
    return b == 'r' && (a == 'b' || a == 'f');
  }
  return false;
}

TokenKind KeywordKind(std::string_view s) {
  if (s.size() < 2 || s.size() > 8) return TokenKind::kName;
#define TILEJIT_X(kind, spelling) \
  if (s == spelling) return TokenKind::kind;
  switch (s[0]) {
    case 'F':
    case 'N':
    case 'T':
    case 'a':
    case 'b':
    case 'c':
    case 'd':
    case 'e':
    case 'f':
    case 'g':
    case 'i':
    case 'l':
    case 'n':
    case 'o':
    case 'p':
    case 'r':
    case 't':
    case 'w':
    case 'y':
      TILEJIT_PY_KEYWORDS(TILEJIT_X)
      break;
    default:
      break;
  }
#undef TILEJIT_X
  return TokenKind::kName;
}

class Lexer : public ScanContext {
 public:
  Lexer(std::string_view text, uint32_t file_id, LexedFile* out) : ScanContext(text, file_id) {
    out_ = out;
  }

  // Starts at byte `begin`, located at `at`, inside an implicit bracket that never closes.
  void StartInsideBrackets(size_t begin, SourceLoc at) {
    pos = begin;
    line = at.line;
    line_begin = begin - (at.column - 1);
    at_line_begin_ = false;
    brackets_.push_back({'(', at});
    implicit_bracket_ = true;
  }

  void Run() {
    out_->tokens.reserve((src.size() - pos) / 3 + 16);  // pos > 0 for an f-string field
    while (true) {
      if (at_line_begin_ && brackets_.empty() && !HandleIndentation()) continue;
      SkipBlanks();
      if (pos >= src.size()) break;
      unsigned char c = src[pos];
      if (c == '#') {
        while (pos < src.size() && src[pos] != '\n') ++pos;
      } else if (c == '\n' || (c == '\r' && Peek(1) == '\n')) {
        EndPhysicalLine();
      } else if (c == '\\') {
        Continuation();
      } else {
        LexToken();
      }
    }
    Finish();
  }

 private:
  void SkipBlanks() {
    while (pos < src.size()) {
      char c = src[pos];
      if (c == ' ' || c == '\t' || c == '\f' || (c == '\r' && Peek(1) != '\n')) {
        ++pos;
      } else {
        break;
      }
    }
  }

  void EndPhysicalLine() {
    if (brackets_.empty() && line_has_tokens_) {
      Token& t = Push(TokenKind::kNewline, Here(), pos);
      t.end = t.loc;
      line_has_tokens_ = false;
    }
    if (brackets_.empty()) at_line_begin_ = true;
    pos += src[pos] == '\r' ? 2 : 1;
    NewLine(pos);
  }

  void Continuation() {
    SourceLoc loc = Here();
    size_t start = pos++;
    if (pos < src.size() && (src[pos] == '\n' || (src[pos] == '\r' && Peek(1) == '\n'))) {
      pos += src[pos] == '\r' ? 2 : 1;
      NewLine(pos);
      return;
    }
    Error(loc, start,
          pos >= src.size() ? "unexpected end of file after line continuation character"
                            : "unexpected character after line continuation character");
  }

  // At the start of a physical line outside brackets: measures the indentation and emits
  // INDENT/DEDENT tokens. Returns false if the line was blank (consumed up to its end).
  bool HandleIndentation() {
    uint32_t col = 0, alt = 0;
    size_t p = pos;
    while (p < src.size()) {
      char c = src[p];
      if (c == ' ') {
        ++col, ++alt;
      } else if (c == '\t') {
        col = (col / 8 + 1) * 8, ++alt;
      } else if (c == '\f') {
        col = alt = 0;
      } else {
        break;
      }
      ++p;
    }
    pos = p;
    if (p >= src.size() || src[p] == '#' || src[p] == '\n' || (src[p] == '\r' && Peek(1) == '\n') ||
        (src[p] == '\\' && Peek(1) == '\n')) {
      // Blank, comment-only or continued-empty lines do not affect indentation.
      if (p < src.size() && src[p] == '\\') {
        pos += 2;
        NewLine(pos);
        return false;
      }
      return true;  // the main loop skips the comment, newline or end of file
    }
    at_line_begin_ = false;
    pending_line_start_ = true;
    SourceLoc loc = Here();
    if (col > indents_.back()) {
      if (alt <= alt_indents_.back()) TabError(loc);
      if (indents_.size() > kMaxIndentLevels) {
        Error(loc, pos, "too many levels of indentation (limit 100)");
      }
      indents_.push_back(col);
      alt_indents_.push_back(alt);
      Push(TokenKind::kIndent, loc, pos).end = loc;
      return true;
    }
    while (col < indents_.back()) {
      indents_.pop_back();
      alt_indents_.pop_back();
      Push(TokenKind::kDedent, loc, pos).end = loc;
    }
    if (col != indents_.back()) {
      Error(loc, pos, "unindent does not match any outer indentation level");
    } else if (alt != alt_indents_.back()) {
      TabError(loc);
    }
    return true;
  }

  void TabError(SourceLoc loc) {
    Error(loc, pos, "inconsistent use of tabs and spaces in indentation");
  }

  void Finish() {
    SourceLoc eof = Here();
    if (implicit_bracket_) {
      brackets_.erase(brackets_.begin());
      line_has_tokens_ = false;  // no NEWLINE: the range is one expression
    }
    if (!brackets_.empty()) {
      const Bracket& open = brackets_.back();
      char msg[64];
      std::snprintf(msg, sizeof(msg), "'%c' was never closed", open.ch);
      out_->errors.push_back({open.loc, msg, true});
      Token& t = Push(TokenKind::kError, eof, pos);
      t.error_index = static_cast<uint32_t>(out_->errors.size() - 1);
      line_has_tokens_ = true;
    }
    if (line_has_tokens_) Push(TokenKind::kNewline, eof, pos).end = eof;
    for (size_t i = 1; i < indents_.size(); ++i) Push(TokenKind::kDedent, eof, pos).end = eof;
    Push(TokenKind::kEndOfFile, eof, pos).end = eof;
  }

  void LexToken() {
    SourceLoc loc = Here();
    size_t start = pos;
    unsigned char c = src[pos];
    if (IsIdentStart(c)) {
      while (pos < src.size() && IsIdentChar(src[pos])) ++pos;
      std::string_view word = src.substr(start, pos - start);
      if (pos < src.size() && (src[pos] == '\'' || src[pos] == '"') && IsStringPrefix(word)) {
        LexString(loc, start);
        return;
      }
      Push(KeywordKind(word), loc, start);
      return;
    }
    if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) {
      NumberResult n = ScanNumber(this);
      if (!n.error.empty()) {
        Error(loc, start, n.error);
        out_->errors.back().refuses_file = !n.python_accepts;
        return;
      }
      Token& t = Push(n.is_float ? TokenKind::kFloat : TokenKind::kInt, loc, start);
      t.int_value = n.int_value;
      t.float_value = n.float_value;
      return;
    }
    if (c == '\'' || c == '"') {
      LexString(loc, start);
      return;
    }
    LexOperator(loc, start);
  }

  void LexString(SourceLoc loc, size_t start) {
    SourceLoc quote_loc = Here();
    std::string_view error = ScanString(this);
    if (!error.empty()) {
      Error(quote_loc, start, std::string(error));
      return;
    }
    Push(TokenKind::kString, loc, start);
  }

  void LexOperator(SourceLoc loc, size_t start) {
    TokenKind kind = ScanOperator(this);
    if (kind == TokenKind::kError) {
      unsigned char c = src[pos];
      char msg[64];
      if (c == 0) {
        std::snprintf(msg, sizeof(msg), "source contains a null byte");
      } else if (c < 0x20 || c == 0x7f) {
        std::snprintf(msg, sizeof(msg), "unexpected character '\\x%02x'", c);
      } else {
        std::snprintf(msg, sizeof(msg), "unexpected character '%c'", c);
      }
      ++pos;
      Error(loc, start, msg);
      return;
    }
    switch (kind) {
      case TokenKind::kLPar:
      case TokenKind::kLSqb:
      case TokenKind::kLBrace:
        OpenBracket(loc, start, kind);
        return;
      case TokenKind::kRPar:
      case TokenKind::kRSqb:
      case TokenKind::kRBrace:
        CloseBracket(loc, start, kind);
        return;
      default:
        Push(kind, loc, start);
    }
  }

  void OpenBracket(SourceLoc loc, size_t start, TokenKind kind) {
    if (brackets_.size() == kMaxBracketDepth) {
      Error(loc, start, "too many nested parentheses (limit 200)");
    }
    brackets_.push_back({src[start], loc});
    Push(kind, loc, start);
  }

  void CloseBracket(SourceLoc loc, size_t start, TokenKind kind) {
    char c = src[start];
    char want = c == ')' ? '(' : c == ']' ? '[' : '{';
    char msg[96];
    if (brackets_.empty()) {
      std::snprintf(msg, sizeof(msg), "unmatched '%c'", c);
      Error(loc, start, msg);
      return;
    }
    char open = brackets_.back().ch;
    brackets_.pop_back();
    if (open != want) {
      std::snprintf(msg, sizeof(msg), "closing parenthesis '%c' does not match opening '%c'", c,
                    open);
      Error(loc, start, msg);
      return;
    }
    Push(kind, loc, start);
  }

  Token& Push(TokenKind kind, SourceLoc loc, size_t start) {
    Token& t = out_->tokens.emplace_back();
    t.kind = kind;
    t.loc = loc;
    t.end = Here();
    t.text = src.substr(start, pos - start);
    if (kind != TokenKind::kNewline && kind != TokenKind::kIndent && kind != TokenKind::kDedent &&
        kind != TokenKind::kEndOfFile) {
      t.line_start = pending_line_start_;
      pending_line_start_ = false;
      line_has_tokens_ = true;
    }
    return t;
  }

  void Error(SourceLoc loc, size_t start, std::string message) {
    out_->errors.push_back({loc, std::move(message), false});
    Token& t = Push(TokenKind::kError, loc, start);
    t.error_index = static_cast<uint32_t>(out_->errors.size() - 1);
  }

  struct Bracket {
    char ch;
    SourceLoc loc;
  };

  LexedFile* out_;
  bool implicit_bracket_ = false;
  std::vector<uint32_t> indents_{0};
  std::vector<uint32_t> alt_indents_{0};
  std::vector<Bracket> brackets_;
  bool at_line_begin_ = true;
  bool line_has_tokens_ = false;
  bool pending_line_start_ = false;
};

}  // namespace

LexedFile Tokenize(const SourceManager& sources, uint32_t file_id) {
  LexedFile out;
  out.text = sources.text(file_id);
  Lexer lexer(out.text, file_id, &out);
  lexer.Run();
  return out;
}

LexedFile TokenizeRange(std::string_view text, uint32_t file_id, size_t begin, size_t end,
                        SourceLoc at) {
  LexedFile out;
  out.text = text;
  Lexer lexer(text.substr(0, end), file_id, &out);
  lexer.StartInsideBrackets(begin, at);
  lexer.Run();
  return out;
}

}  // namespace tilejit::frontend
