// SPDX-License-Identifier: Apache-2.0
// The escapes Python defines for str and bytes literals. \N{name} needs the Unicode name
// database, which the kernels never use, so it is reported instead of guessed.
#include "compiler/frontend/string_literal.h"

#include <cstdint>

namespace tilejit::frontend {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Decodes the escape at body[*i] == '\\'; advances *i past it. Returns an error or "".
const char* DecodeEscape(std::string_view body, size_t* i, bool bytes, std::string* out) {
  size_t p = *i + 1;
  char c = body[p];
  *i = p + 1;
  switch (c) {
    case '\n':
      return "";
    case '\r':
      if (p + 1 < body.size() && body[p + 1] == '\n') ++*i;
      return "";
    case '\\':
      out->push_back('\\');
      return "";
    case '\'':
      out->push_back('\'');
      return "";
    case '"':
      out->push_back('"');
      return "";
    case 'a':
      out->push_back('\a');
      return "";
    case 'b':
      out->push_back('\b');
      return "";
    case 'f':
      out->push_back('\f');
      return "";
    case 'n':
      out->push_back('\n');
      return "";
    case 'r':
      out->push_back('\r');
      return "";
    case 't':
      out->push_back('\t');
      return "";
    case 'v':
      out->push_back('\v');
      return "";
    default:
      break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t v = 0;
    size_t n = 0;
    for (p = *i - 1; p < body.size() && n < 3 && body[p] >= '0' && body[p] <= '7'; ++p, ++n) {
      v = v * 8 + static_cast<uint32_t>(body[p] - '0');
    }
    *i = p;
    if (bytes) {
      out->push_back(static_cast<char>(v & 0xFF));
    } else {
      AppendUtf8(v, out);
    }
    return "";
  }
  int digits = c == 'x' ? 2 : (!bytes && c == 'u') ? 4 : (!bytes && c == 'U') ? 8 : 0;
  if (digits > 0) {
    uint32_t v = 0;
    for (int k = 0; k < digits; ++k, ++*i) {
      int h = *i < body.size() ? HexValue(body[*i]) : -1;
      if (h < 0) {
        return c == 'x' ? "invalid \\x escape: expected 2 hex digits"
                        : "invalid \\u or \\U escape: expected hex digits";
      }
      v = v * 16 + static_cast<uint32_t>(h);
    }
    if (v > 0x10FFFF) return "invalid \\U escape: code point out of range";
    if (bytes) {
      out->push_back(static_cast<char>(v));
    } else {
      AppendUtf8(v, out);
    }
    return "";
  }
  if (!bytes && c == 'N') return "\\N{...} escapes are not supported";
  out->push_back('\\');  // unknown escape: kept verbatim
  --*i;
  return "";
}

}  // namespace

bool FrameStringLiteral(std::string_view text, StringLiteral* flags, size_t* body_begin,
                        size_t* body_size) {
  size_t q = 0;
  while (q < text.size() && text[q] != '\'' && text[q] != '"') {
    char c = static_cast<char>(text[q] | 0x20);
    flags->raw |= c == 'r';
    flags->bytes |= c == 'b';
    flags->fstring |= c == 'f';
    ++q;
  }
  const bool triple = text.size() >= q + 6 && text[q + 1] == text[q] && text[q + 2] == text[q];
  const size_t quote_len = triple ? 3 : 1;
  if (text.size() < q + 2 * quote_len) return false;
  *body_begin = q + quote_len;
  *body_size = text.size() - q - 2 * quote_len;
  return true;
}

bool DecodeStringBody(std::string_view body, const StringLiteral& flags, std::string* out,
                      std::string* error, size_t* error_offset) {
  out->reserve(out->size() + body.size());
  for (size_t i = 0; i < body.size();) {
    char c = body[i];
    if (c == '\r' && i + 1 < body.size() && body[i + 1] == '\n') {
      ++i;  // newlines in triple-quoted literals are "\n", as Python normalises them
      continue;
    }
    if (c != '\\' || flags.raw || i + 1 >= body.size()) {
      out->push_back(c);
      ++i;
      continue;
    }
    size_t at = i;
    const char* msg = DecodeEscape(body, &i, flags.bytes, out);
    if (*msg) {
      *error = msg;
      *error_offset = at;
      return false;
    }
  }
  return true;
}

bool DecodeStringLiteral(std::string_view text, StringLiteral* out, std::string* error,
                         size_t* error_offset) {
  size_t begin = 0, size = 0;
  if (!FrameStringLiteral(text, out, &begin, &size)) {
    *error = "malformed string literal";
    *error_offset = 0;
    return false;
  }
  out->value.clear();
  if (DecodeStringBody(text.substr(begin, size), *out, &out->value, error, error_offset)) {
    return true;
  }
  *error_offset += begin;
  return false;
}

}  // namespace tilejit::frontend
