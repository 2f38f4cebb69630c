// SPDX-License-Identifier: Apache-2.0
// Number, string and operator scanners. Numbers are converted while scanning (integers with an
// overflow check, floats with std::from_chars on the digits with underscores removed), so the
// parser never re-reads their text.
#include "compiler/frontend/lexer_scanners.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace tilejit::frontend {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80 || IsDigit(c);
}

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// Consumes the rest of a malformed literal so that one error covers it.
void SkipLiteralTail(ScanContext* ctx) {
  while (ctx->pos < ctx->src.size() && IsIdentChar(ctx->src[ctx->pos])) ++ctx->pos;
}

// Scans digits of `radix` with single underscores between them (and, for prefixed literals,
// one right after the prefix). Appends the digits to `out` if non-null. Returns false on a
// misplaced underscore.
bool ScanDigits(ScanContext* ctx, int radix, bool allow_leading_underscore, std::string* out,
                size_t* count) {
  bool prev_underscore = allow_leading_underscore;  // acts as "a digit may follow"
  bool need_digit = false;
  *count = 0;
  std::string_view s = ctx->src;
  while (ctx->pos < s.size()) {
    char c = s[ctx->pos];
    if (c == '_') {
      if (need_digit || (*count == 0 && !prev_underscore)) return false;
      need_digit = true;
      ++ctx->pos;
      continue;
    }
    if (DigitValue(c) >= radix || (radix <= 10 && !IsDigit(c))) break;
    if (out) out->push_back(c);
    need_digit = false;
    ++*count;
    ++ctx->pos;
  }
  return !need_digit;
}

NumberResult RadixNumber(ScanContext* ctx, int radix, const char* name) {
  NumberResult r;
  ctx->pos += 2;
  size_t begin = ctx->pos;
  size_t count = 0;
  if (!ScanDigits(ctx, radix, true, nullptr, &count) || count == 0) {
    SkipLiteralTail(ctx);
    r.error = std::string("invalid ") + name + " literal";
    return r;
  }
  size_t end = ctx->pos;
  if (ctx->pos < ctx->src.size() && IsIdentChar(ctx->src[ctx->pos])) {
    char bad = ctx->src[ctx->pos];
    SkipLiteralTail(ctx);
    if (IsDigit(bad)) {
      r.error = std::string("invalid digit '") + bad + "' in " + name + " literal";
    } else {
      r.error = std::string("invalid ") + name + " literal";
    }
    return r;
  }
  uint64_t value = 0;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (size_t i = begin; i < end; ++i) {
    char c = ctx->src[i];
    if (c == '_') continue;
    uint64_t d = static_cast<uint64_t>(DigitValue(c));
    if (value > (kMax - d) / static_cast<uint64_t>(radix)) {
      r.error = "integer literal is too large (does not fit in int64)";
      r.python_accepts = true;
      return r;
    }
    value = value * static_cast<uint64_t>(radix) + d;
  }
  r.int_value = static_cast<int64_t>(value);
  return r;
}

}  // namespace

NumberResult ScanNumber(ScanContext* ctx) {
  NumberResult r;
  std::string_view s = ctx->src;
  char c1 = ctx->Peek(1) | 0x20;
  if (s[ctx->pos] == '0' && (c1 == 'x' || c1 == 'o' || c1 == 'b')) {
    return RadixNumber(ctx,
                       c1 == 'x'   ? 16
                       : c1 == 'o' ? 8
                                   : 2,
                       c1 == 'x'   ? "hexadecimal"
                       : c1 == 'o' ? "octal"
                                   : "binary");
  }
  std::string digits;  // short literals stay in the small-string buffer
  size_t int_count = 0;
  bool ok = ScanDigits(ctx, 10, false, &digits, &int_count);
  if (ok && ctx->pos < s.size() && s[ctx->pos] == '.') {
    r.is_float = true;
    digits.push_back('.');
    ++ctx->pos;
    size_t frac = 0;
    if (ctx->pos < s.size() && IsDigit(s[ctx->pos]))
      ok = ScanDigits(ctx, 10, false, &digits, &frac);
  }
  if (ok && ctx->pos < s.size() && (s[ctx->pos] | 0x20) == 'e') {
    size_t save = ctx->pos;
    ++ctx->pos;
    std::string exp = "e";
    if (ctx->pos < s.size() && (s[ctx->pos] == '+' || s[ctx->pos] == '-')) exp += s[ctx->pos++];
    size_t exp_count = 0;
    if (ctx->pos < s.size() && IsDigit(s[ctx->pos]) &&
        ScanDigits(ctx, 10, false, &exp, &exp_count)) {
      r.is_float = true;
      digits += exp;
    } else {
      ctx->pos = save;
      ok = false;
    }
  }
  if (ok && ctx->pos < s.size() && (s[ctx->pos] | 0x20) == 'j') {
    ++ctx->pos;
    SkipLiteralTail(ctx);
    r.error = "imaginary (complex) literals are not supported";
    r.python_accepts = true;
    return r;
  }
  if (!ok || (ctx->pos < s.size() && IsIdentChar(s[ctx->pos]))) {
    SkipLiteralTail(ctx);
    r.error = "invalid decimal literal";
    return r;
  }
  if (r.is_float) {
    double v = 0;
    auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (res.ec == std::errc::result_out_of_range) {
      // Like Python: huge literals are infinity, tiny ones zero.
      bool tiny = digits.find("e-") != std::string::npos;
      v = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    }
    r.float_value = v;
    return r;
  }
  if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos) {
    r.error = "leading zeros in decimal integer literals are not permitted";
    return r;
  }
  uint64_t value = 0;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (char c : digits) {
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (value > (kMax - d) / 10) {
      r.error = "integer literal is too large (does not fit in int64)";
      r.python_accepts = true;
      return r;
    }
    value = value * 10 + d;
  }
  r.int_value = static_cast<int64_t>(value);
  return r;
}

std::string_view ScanString(ScanContext* ctx) {
  std::string_view s = ctx->src;
  const char quote = s[ctx->pos];
  const bool triple = ctx->Peek(1) == quote && ctx->Peek(2) == quote;
  ctx->pos += triple ? 3 : 1;
  while (ctx->pos < s.size()) {
    char c = s[ctx->pos];
    if (c == '\\') {
      ++ctx->pos;
      if (ctx->pos >= s.size()) break;
      if (s[ctx->pos] == '\r' && ctx->Peek(1) == '\n') ++ctx->pos;
      if (s[ctx->pos] == '\n') ctx->NewLine(ctx->pos + 1);
      ++ctx->pos;
    } else if (c == '\n' || (c == '\r' && ctx->Peek(1) == '\n')) {
      if (!triple) return "unterminated string literal";
      if (c == '\r') ++ctx->pos;
      ++ctx->pos;
      ctx->NewLine(ctx->pos);
    } else if (c == quote) {
      if (!triple) {
        ++ctx->pos;
        return {};
      }
      if (ctx->Peek(1) == quote && ctx->Peek(2) == quote) {
        ctx->pos += 3;
        return {};
      }
      ++ctx->pos;
    } else {
      ++ctx->pos;
    }
  }
  return triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
}

TokenKind ScanOperator(ScanContext* ctx) {
  using K = TokenKind;
  const char c = ctx->Peek(0), n1 = ctx->Peek(1), n2 = ctx->Peek(2);
  K kind = K::kError;
  size_t len = 1;
  auto pick = [&](K one, char second, K two, K three_eq = K::kError) {
    // `one`, or `two` when followed by `second` (then `three_eq` if followed by '=').
    if (n1 == second) {
      if (three_eq != K::kError && n2 == '=') return len = 3, three_eq;
      return len = 2, two;
    }
    return one;
  };
  auto with_eq = [&](K one, K eq) { return n1 == '=' ? (len = 2, eq) : one; };
  switch (c) {
    case '(':
      kind = K::kLPar;
      break;
    case ')':
      kind = K::kRPar;
      break;
    case '[':
      kind = K::kLSqb;
      break;
    case ']':
      kind = K::kRSqb;
      break;
    case '{':
      kind = K::kLBrace;
      break;
    case '}':
      kind = K::kRBrace;
      break;
    case ',':
      kind = K::kComma;
      break;
    case ';':
      kind = K::kSemi;
      break;
    case '~':
      kind = K::kTilde;
      break;
    case ':':
      kind = with_eq(K::kColon, K::kColonEqual);
      break;
    case '+':
      kind = with_eq(K::kPlus, K::kPlusEqual);
      break;
    case '%':
      kind = with_eq(K::kPercent, K::kPercentEqual);
      break;
    case '&':
      kind = with_eq(K::kAmper, K::kAmperEqual);
      break;
    case '|':
      kind = with_eq(K::kVBar, K::kVBarEqual);
      break;
    case '^':
      kind = with_eq(K::kCircumflex, K::kCircumflexEqual);
      break;
    case '@':
      kind = with_eq(K::kAt, K::kAtEqual);
      break;
    case '=':
      kind = with_eq(K::kEqual, K::kEqEqual);
      break;
    case '!':
      if (n1 == '=') kind = K::kNotEqual, len = 2;
      break;
    case '-':
      kind = n1 == '>' ? (len = 2, K::kRArrow) : with_eq(K::kMinus, K::kMinEqual);
      break;
    case '*':
      kind = n1 == '=' ? (len = 2, K::kStarEqual)
                       : pick(K::kStar, '*', K::kDoubleStar, K::kDoubleStarEqual);
      break;
    case '/':
      kind = n1 == '=' ? (len = 2, K::kSlashEqual)
                       : pick(K::kSlash, '/', K::kDoubleSlash, K::kDoubleSlashEqual);
      break;
    case '<':
      kind = n1 == '=' ? (len = 2, K::kLessEqual)
                       : pick(K::kLess, '<', K::kLeftShift, K::kLeftShiftEqual);
      break;
    case '>':
      kind = n1 == '=' ? (len = 2, K::kGreaterEqual)
                       : pick(K::kGreater, '>', K::kRightShift, K::kRightShiftEqual);
      break;
    case '.':
      if (n1 == '.' && n2 == '.') {
        kind = K::kEllipsis, len = 3;
      } else {
        kind = K::kDot;
      }
      break;
    default:
      break;
  }
  if (kind != K::kError) ctx->pos += len;
  return kind;
}

}  // namespace tilejit::frontend
