// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/ir_lexer.h"

#include <cctype>

namespace tilejit::ir {

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> Run() {
    while (true) {
      SkipBlanks();
      if (pos_ >= text_.size()) {
        Emit(TokKind::kEnd, "", pos_);
        return std::move(tokens_);
      }
      if (!LexOne()) return std::move(tokens_);
    }
  }

 private:
  void SkipBlanks() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  void Emit(TokKind kind, std::string text, size_t start) {
    tokens_.push_back(
        Token{kind, std::move(text), line_, static_cast<uint32_t>(start - line_start_ + 1)});
  }

  bool Fail(std::string message, size_t at) {
    Emit(TokKind::kError, std::move(message), at);
    return false;
  }

  bool LexOne() {
    size_t start = pos_;
    char c = text_[pos_];
    if (c == '\n') {
      Emit(TokKind::kNewline, "\n", start);
      ++pos_;
      ++line_;
      line_start_ = pos_;
      return true;
    }
    if (IsIdentStart(c)) {
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
      Emit(TokKind::kIdent, std::string(text_.substr(start, pos_ - start)), start);
      return true;
    }
    if (c == '%' && pos_ + 1 < text_.size() && IsIdentChar(text_[pos_ + 1])) {
      ++pos_;
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
      Emit(TokKind::kName, std::string(text_.substr(start, pos_ - start)), start);
      return true;
    }
    if (IsDigit(c)) return LexNumber();
    if (c == '"') return LexString();
    return LexPunct();
  }

  bool LexNumber() {
    size_t start = pos_;
    bool is_float = false;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      is_float = true;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
        return Fail("malformed number exponent", start);
      }
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && IsIdentStart(text_[pos_])) {
      return Fail("malformed number", start);
    }
    Emit(is_float ? TokKind::kFloat : TokKind::kInt, std::string(text_.substr(start, pos_ - start)),
         start);
    return true;
  }

  static int HexValue(char c) {
    if (IsDigit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool LexString() {
    size_t start = pos_++;
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_];
      if (c == '\n') return Fail("unterminated string", start);
      if (c != '\\') {
        value += c;
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= text_.size()) return Fail("unterminated string", start);
      char e = text_[pos_ + 1];
      if (e == '"' || e == '\\') {
        value += e;
        pos_ += 2;
      } else if (e == 'x' && pos_ + 3 < text_.size() && HexValue(text_[pos_ + 2]) >= 0 &&
                 HexValue(text_[pos_ + 3]) >= 0) {
        value += static_cast<char>(HexValue(text_[pos_ + 2]) * 16 + HexValue(text_[pos_ + 3]));
        pos_ += 4;
      } else {
        return Fail("unknown escape in string", pos_);
      }
    }
    if (pos_ >= text_.size()) return Fail("unterminated string", start);
    ++pos_;
    Emit(TokKind::kString, std::move(value), start);
    return true;
  }

  bool LexPunct() {
    static constexpr std::string_view kTwo[] = {"//", "==", "!=", "<=", ">=", "<<", ">>"};
    static constexpr std::string_view kOne = "()[]{},:=+-*/%<>@&|^~";
    size_t start = pos_;
    for (std::string_view p : kTwo) {
      if (text_.substr(pos_, 2) == p) {
        pos_ += 2;
        Emit(TokKind::kPunct, std::string(p), start);
        return true;
      }
    }
    if (kOne.find(text_[pos_]) != std::string_view::npos) {
      Emit(TokKind::kPunct, std::string(1, text_[pos_++]), start);
      return true;
    }
    unsigned char u = static_cast<unsigned char>(text_[pos_]);
    std::string shown = u >= 0x20 && u < 0x7f ? std::string(1, text_[pos_]) : "\\x" + Hex(u);
    return Fail("unexpected character '" + shown + "'", start);
  }

  static std::string Hex(unsigned char u) {
    static constexpr char kHex[] = "0123456789abcdef";
    return {kHex[u >> 4], kHex[u & 15]};
  }

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> LexTileIr(std::string_view text) { return Lexer(text).Run(); }

}  // namespace tilejit::ir
