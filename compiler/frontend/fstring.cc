// SPDX-License-Identifier: Apache-2.0
// One left-to-right scan of the literal's body. Literal runs are decoded with the same escape
// rules as plain strings, one run at a time, so a brace produced by an escape (`\x7b`) stays
// literal text as in CPython 3.11; the expression text is scanned for its end only (brackets
// and quotes skipped), never decoded: the parser tokenizes it from the file itself.
#include "compiler/frontend/fstring.h"

namespace tilejit::frontend {
namespace {

// CPython nests format-spec fields at most this deep (`{x:{w:{...}}}` is an error).
constexpr int kMaxSpecDepth = 2;

class Splitter {
 public:
  Splitter(std::string_view body, size_t base, const StringLiteral& flags, std::string* error,
           size_t* error_offset)
      : body_(body), base_(base), flags_(flags), error_(error), error_offset_(error_offset) {}

  // Reads pieces from `*i` to the end of the body or, in a format spec, to the `}` that ends
  // it (left unread).
  bool Pieces(size_t* i, int depth, std::vector<FStringPiece>* out) {
    const bool in_spec = depth > 0;
    size_t run = *i;  // start of the current literal run
    std::string text;
    while (*i < body_.size()) {
      const char c = body_[*i];
      if (c == '\\' && !flags_.raw) {
        const bool brace_next =
            *i + 1 < body_.size() && (body_[*i + 1] == '{' || body_[*i + 1] == '}');
        *i += brace_next ? 1 : 2;
        continue;
      }
      if (c != '{' && c != '}') {
        ++*i;
        continue;
      }
      const bool doubled = !in_spec && *i + 1 < body_.size() && body_[*i + 1] == c;
      if (!Decode(run, *i, &text)) return false;
      run = *i;
      if (doubled) {
        text.push_back(c);
        *i += 2;
        run = *i;
        continue;
      }
      if (c == '}') {
        if (in_spec) break;
        return Fail(*i, "f-string: single '}' is not allowed");
      }
      Flush(&text, out);
      if (!Field(i, depth, out)) return false;
      run = *i;
    }
    if (!Decode(run, std::min(*i, body_.size()), &text)) return false;
    Flush(&text, out);
    return true;
  }

 private:
  bool Fail(size_t at, std::string message) {
    *error_ = std::move(message);
    *error_offset_ = base_ + at;
    return false;
  }

  bool Decode(size_t begin, size_t end, std::string* text) {
    size_t at = 0;
    if (DecodeStringBody(body_.substr(begin, end - begin), flags_, text, error_, &at)) return true;
    *error_offset_ = base_ + begin + at;
    return false;
  }

  static void Flush(std::string* text, std::vector<FStringPiece>* out) {
    if (text->empty()) return;
    FStringPiece p;
    p.text = std::move(*text);
    text->clear();
    out->push_back(std::move(p));
  }

  // The replacement field whose `{` is at `*i`; leaves `*i` past its `}`.
  bool Field(size_t* i, int depth, std::vector<FStringPiece>* out) {
    const size_t open = *i;
    if (depth >= kMaxSpecDepth) {
      return Fail(open, "f-string: expressions nested too deeply");
    }
    FStringPiece p;
    p.is_field = true;
    size_t j = open + 1;
    if (!ExpressionEnd(&j, open)) return false;
    if (body_.substr(open + 1, j - open - 1).find_first_not_of(" \t\r\n\f") ==
        std::string_view::npos) {
      return Fail(j, "f-string: empty expression not allowed");
    }
    p.expr_begin = base_ + open + 1;
    p.expr_end = base_ + j;
    if (body_[j] == '=') {
      p.debug = true;
      ++j;
      while (j < body_.size() && (body_[j] == ' ' || body_[j] == '\t')) ++j;
      p.text = std::string(body_.substr(open + 1, j - open - 1));
    }
    if (j < body_.size() && body_[j] == '!') {
      if (j + 1 >= body_.size() ||
          (body_[j + 1] != 's' && body_[j + 1] != 'r' && body_[j + 1] != 'a')) {
        return Fail(j + 1, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
      }
      p.conversion = body_[j + 1];
      j += 2;
    }
    if (j < body_.size() && body_[j] == ':') {
      p.has_spec = true;
      ++j;
      if (!Pieces(&j, depth + 1, &p.spec)) return false;
    }
    if (j >= body_.size() || body_[j] != '}') return Fail(open, "f-string: expecting '}'");
    if (p.debug && p.conversion == 0 && !p.has_spec) p.conversion = 'r';  // `{x=}` is repr
    *i = j + 1;
    out->push_back(std::move(p));
    return true;
  }

  // Advances `*j` to the end of the expression that starts there (the field opened at
  // `open`): the first top-level `!`, `:`, `=` or `}` outside brackets and strings.
  bool ExpressionEnd(size_t* j, size_t open) {
    int nest = 0;
    while (*j < body_.size()) {
      const char c = body_[*j];
      const char next = *j + 1 < body_.size() ? body_[*j + 1] : '\0';
      if (c == '\\') return Fail(*j, "f-string expression part cannot include a backslash");
      if (c == '#') return Fail(*j, "f-string expression part cannot include '#'");
      if (c == '\'' || c == '"') {
        if (!SkipQuoted(j, open)) return false;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++nest;
      if (nest == 0 && (c == '}' || c == ':')) return true;
      if (c == ')' || c == ']' || c == '}') --nest;
      if (nest < 0) return Fail(*j, std::string("f-string: unmatched '") + c + "'");
      if (nest == 0 && (c == '!' || c == '=' || c == '<' || c == '>') && next == '=') {
        *j += 2;  // a comparison operator, not the end
        continue;
      }
      if (nest == 0 && (c == '!' || c == '=')) return true;
      ++*j;
    }
    return Fail(open, "f-string: expecting '}'");
  }

  // Skips the string literal (one or three quotes) at `*j` inside an expression.
  bool SkipQuoted(size_t* j, size_t open) {
    const char q = body_[*j];
    const bool triple = body_.substr(*j, 3) == std::string(3, q);
    const std::string_view close = triple ? body_.substr(*j, 3) : body_.substr(*j, 1);
    const size_t end = body_.find(close, *j + close.size());
    if (end == std::string_view::npos) return Fail(open, "f-string: expecting '}'");
    *j = end + close.size();
    return true;
  }

  std::string_view body_;
  size_t base_;  // the body's offset in the token
  StringLiteral flags_;
  std::string* error_;
  size_t* error_offset_;
};

}  // namespace

bool SplitFString(std::string_view text, std::vector<FStringPiece>* out, std::string* error,
                  size_t* error_offset) {
  StringLiteral flags;
  size_t begin = 0, size = 0;
  if (!FrameStringLiteral(text, &flags, &begin, &size)) {
    *error = "malformed string literal";
    *error_offset = 0;
    return false;
  }
  Splitter splitter(text.substr(begin, size), begin, flags, error, error_offset);
  size_t i = 0;
  return splitter.Pieces(&i, 0, out);
}

}  // namespace tilejit::frontend
