// SPDX-License-Identifier: Apache-2.0
// Call arguments, subscripts with slices, and string-literal concatenation.
#include <algorithm>

#include "compiler/frontend/fstring.h"
#include "compiler/frontend/parser_impl.h"
#include "compiler/frontend/string_literal.h"

namespace tilejit::frontend {
namespace {

ExprPtr NewExpr(ExprKind kind, SourceLoc loc) { return std::make_unique<Expr>(kind, loc); }

ExprPtr StringConstant(std::string text, SourceLoc loc) {
  auto c = NewExpr(ExprKind::kConstant, loc);
  c->constant_kind = ConstantKind::kString;
  c->string_value = std::move(text);
  return c;
}

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
  const SourceLoc loc = Cur().loc;
  auto joined = NewExpr(ExprKind::kJoinedStr, loc);
  bool any_fstring = false;
  uint32_t height = 1;
  while (At(TokenKind::kString)) {
    const Token& t = Cur();
    std::string error;
    size_t offset = 0;
    StringLiteral lit;
    if (!DecodeStringLiteral(t.text, &lit, &error, &offset)) {
      Fail(LocInToken(t, offset), error);
      return nullptr;
    }
    if (lit.bytes) {
      Fail(t.loc, "bytes literals are not supported");
      return nullptr;
    }
    std::vector<FStringPiece> pieces;
    if (!lit.fstring) {
      pieces.emplace_back().text = std::move(lit.value);
    } else if (!SplitFString(t.text, &pieces, &error, &offset)) {
      Fail(LocInToken(t, offset), error);
      return nullptr;
    }
    any_fstring |= lit.fstring;
    if (!AppendFStringPieces(t, pieces, 0, joined.get(), &height)) return nullptr;
    Advance();
  }
  if (!any_fstring) {  // plain literals joined: one constant (AppendFStringPieces made it)
    last_height_ = 1;
    return joined->elts.empty() ? StringConstant("", loc) : std::move(joined->elts[0]);
  }
  if (!Grow(height + 1, loc)) return nullptr;
  return joined;
}

bool Parser::AppendFStringPieces(const Token& t, const std::vector<FStringPiece>& pieces, int depth,
                                 Expr* joined, uint32_t* height) {
  for (const FStringPiece& p : pieces) {
    if (!p.text.empty()) {  // literal text, or a `{x=}` field's own text
      std::vector<ExprPtr>& elts = joined->elts;
      if (!elts.empty() && elts.back()->kind == ExprKind::kConstant) {
        elts.back()->string_value += p.text;
      } else {
        elts.push_back(StringConstant(p.text, joined->loc));
      }
    }
    if (!p.is_field) continue;
    ExprPtr field = ParseFStringField(t, p, depth);
    if (!field) return false;
    *height = std::max(*height, last_height_);
    joined->elts.push_back(std::move(field));
  }
  return true;
}

ExprPtr Parser::ParseFStringField(const Token& t, const FStringPiece& p, int depth) {
  const size_t token_offset = static_cast<size_t>(t.text.data() - text_.data());
  const SourceLoc at = LocInToken(t, p.expr_begin);
  LexedFile lexed =
      TokenizeRange(text_, at.file_id, token_offset + p.expr_begin, token_offset + p.expr_end, at);
  Parser sub(lexed);
  sub.expr_nesting_ = expr_nesting_ + static_cast<uint32_t>(depth) + 1;  // nests in this one
  ExprPtr value = sub.ParseLoneExpression();
  if (!value) {
    Fail(sub.error_loc(), sub.error_message());
    return nullptr;
  }
  auto field = NewExpr(ExprKind::kFormattedValue, at);
  field->left = std::move(value);
  if (p.conversion != 0) field->name = std::string(1, p.conversion);
  uint32_t height = sub.last_height_;
  if (p.has_spec) {
    field->right = NewExpr(ExprKind::kJoinedStr, at);
    if (!AppendFStringPieces(t, p.spec, depth + 1, field->right.get(), &height)) return nullptr;
  }
  if (!Grow(height + 2, at)) return nullptr;
  return field;
}

}  // namespace tilejit::frontend
