// SPDX-License-Identifier: Apache-2.0
// Call arguments, subscripts with slices, and string-literal concatenation.
#include <algorithm>

#include "compiler/frontend/parser_impl.h"
#include "compiler/frontend/string_literal.h"

namespace tilejit::frontend {
namespace {

ExprPtr NewExpr(ExprKind kind, SourceLoc loc) { return std::make_unique<Expr>(kind, loc); }

// Maps the location of byte `offset` inside token `t` (which may span lines).
SourceLoc LocInToken(const Token& t, size_t offset) {
  SourceLoc loc = t.loc;
  for (size_t i = 0; i < offset && i < t.text.size(); ++i) {
    if (t.text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

}  // namespace

bool Parser::ParseCallArgs(Expr* call, uint32_t* height) {
  Advance();  // '('
  bool seen_keyword = false, seen_double_star = false;
  NameSet keywords;
  while (!At(TokenKind::kRPar)) {
    SourceLoc loc = Cur().loc;
    if (At(TokenKind::kStar) || At(TokenKind::kDoubleStar)) {
      bool dbl = At(TokenKind::kDoubleStar);
      if (!dbl && seen_double_star) {
        return Fail(loc, "iterable argument unpacking follows keyword argument unpacking");
      }
      Advance();
      ExprPtr v = ParseTest();
      if (!v) return false;
      if (dbl) {
        seen_double_star = true;
        call->keywords.push_back({"", std::move(v), loc});
      } else {
        auto star = NewExpr(ExprKind::kStarred, loc);
        star->left = std::move(v);
        call->elts.push_back(std::move(star));
      }
      ++last_height_;
    } else if (At(TokenKind::kName) && Ahead(1).kind == TokenKind::kEqual) {
      std::string name(Cur().text);
      if (!keywords.Insert(Cur().text)) return Fail(loc, "keyword argument repeated: " + name);
      Advance();
      Advance();
      ExprPtr v = ParseTest();
      if (!v) return false;
      seen_keyword = true;
      call->keywords.push_back({std::move(name), std::move(v), loc});
    } else {
      ExprPtr v = ParseTest();
      if (!v) return false;
      if (At(TokenKind::kKwFor)) {  // f(x for x in xs): only as the sole argument
        const bool sole = call->elts.empty() && call->keywords.empty();
        v = ParseComprehension(ExprKind::kGeneratorExp, loc, std::move(v), nullptr);
        if (!v) return false;
        if (!sole || !At(TokenKind::kRPar)) {
          return Fail(loc, "Generator expression must be parenthesized");
        }
      }
      if (seen_double_star) {
        return Fail(loc, "positional argument follows keyword argument unpacking");
      }
      if (seen_keyword) return Fail(loc, "positional argument follows keyword argument");
      call->elts.push_back(std::move(v));
    }
    *height = std::max(*height, last_height_);
    if (!Accept(TokenKind::kComma)) break;
  }
  return Expect(TokenKind::kRPar);
}

ExprPtr Parser::ParseSubscript(ExprPtr value) {
  Advance();  // '['
  SourceLoc loc = Cur().loc;
  ExprPtr first = ParseSliceItem();
  if (!first) return nullptr;
  uint32_t height = last_height_;
  ExprPtr index;
  if (At(TokenKind::kComma)) {
    auto tuple = NewExpr(ExprKind::kTuple, loc);
    tuple->elts.push_back(std::move(first));
    while (Accept(TokenKind::kComma) && !At(TokenKind::kRSqb)) {
      ExprPtr item = ParseSliceItem();
      if (!item) return nullptr;
      height = std::max(height, last_height_);
      tuple->elts.push_back(std::move(item));
    }
    ++height;
    index = std::move(tuple);
  } else {
    index = std::move(first);
  }
  if (!Expect(TokenKind::kRSqb)) return nullptr;
  auto e = NewExpr(ExprKind::kSubscript, value->loc);
  e->left = std::move(value);
  e->right = std::move(index);
  last_height_ = height;
  return e;
}

ExprPtr Parser::ParseSliceItem() {
  SourceLoc loc = Cur().loc;
  ExprPtr lower;
  uint32_t height = 0;
  if (!At(TokenKind::kColon)) {
    lower = ParseTest();
    if (!lower || !At(TokenKind::kColon)) return lower;
    height = last_height_;
  }
  Advance();  // ':'
  ExprPtr upper;
  if (!At(TokenKind::kColon) && !At(TokenKind::kComma) && !At(TokenKind::kRSqb)) {
    upper = ParseTest();
    if (!upper) return nullptr;
    height = std::max(height, last_height_);
  }
  ExprPtr step;
  if (At(TokenKind::kColon)) {
    Advance();
    if (!At(TokenKind::kComma) && !At(TokenKind::kRSqb)) {
      step = ParseTest();
      if (!step) return nullptr;
      height = std::max(height, last_height_);
    }
  }
  auto e = NewExpr(ExprKind::kSlice, loc);
  e->left = std::move(lower);
  e->right = std::move(upper);
  e->third = std::move(step);
  if (!Grow(height + 1, loc)) return nullptr;
  return e;
}

ExprPtr Parser::ParseStrings() {
  auto e = NewExpr(ExprKind::kConstant, Cur().loc);
  e->constant_kind = ConstantKind::kString;
  std::string error;
  StringLiteral lit;
  bool any_plain = false;
  while (At(TokenKind::kString)) {
    const Token& t = Cur();
    size_t offset = 0;
    lit.raw = lit.bytes = lit.fstring = false;
    if (!DecodeStringLiteral(t.text, &lit, &error, &offset)) {
      Fail(LocInToken(t, offset), error);
      return nullptr;
    }
    if (lit.bytes) {
      Fail(t.loc, "bytes literals are not supported");
      return nullptr;
    }
    if (lit.fstring && !e->fstring && any_plain) {
      // Earlier plain parts become template text: their braces must be doubled.
      std::string doubled;
      for (char c : e->string_value) {
        doubled.push_back(c);
        if (c == '{' || c == '}') doubled.push_back(c);
      }
      e->string_value = std::move(doubled);
    }
    if (!lit.fstring && e->fstring) {
      for (char c : lit.value) {
        e->string_value.push_back(c);
        if (c == '{' || c == '}') e->string_value.push_back(c);
      }
    } else {
      e->string_value += lit.value;
    }
    e->fstring |= lit.fstring;
    any_plain |= !lit.fstring;
    Advance();
  }
  last_height_ = 1;
  return e;
}

}  // namespace tilejit::frontend
