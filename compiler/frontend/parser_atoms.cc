// SPDX-License-Identifier: Apache-2.0
// Atoms and displays: names, numbers, strings, parenthesised expressions and tuples, lists
// and dicts. Comprehensions, sets, dict unpacking and Ellipsis are outside the subset; they
// are recognised here so that the error names the construct.
#include <algorithm>

#include "compiler/frontend/parser_impl.h"

namespace tilejit::frontend {
namespace {

ExprPtr NewExpr(ExprKind kind, SourceLoc loc) { return std::make_unique<Expr>(kind, loc); }

}  // namespace

ExprPtr Parser::ParseAtom() {
  const Token& t = Cur();
  ExprPtr e;
  switch (t.kind) {
    case TokenKind::kName:
      e = NewExpr(ExprKind::kName, t.loc);
      e->name = std::string(t.text);
      break;
    case TokenKind::kInt:
      e = NewExpr(ExprKind::kConstant, t.loc);
      e->constant_kind = ConstantKind::kInt;
      e->int_value = t.int_value;
      break;
    case TokenKind::kFloat:
      e = NewExpr(ExprKind::kConstant, t.loc);
      e->constant_kind = ConstantKind::kFloat;
      e->float_value = t.float_value;
      break;
    case TokenKind::kKwTrue:
    case TokenKind::kKwFalse:
      e = NewExpr(ExprKind::kConstant, t.loc);
      e->constant_kind = ConstantKind::kBool;
      e->bool_value = t.kind == TokenKind::kKwTrue;
      break;
    case TokenKind::kKwNone:
      e = NewExpr(ExprKind::kConstant, t.loc);
      e->constant_kind = ConstantKind::kNone;
      break;
    case TokenKind::kString:
      return ParseStrings();
    case TokenKind::kLPar:
      return ParseParenthesized();
    case TokenKind::kLSqb:
      return ParseListDisplay();
    case TokenKind::kLBrace:
      return ParseBraceDisplay();
    case TokenKind::kEllipsis:
      Fail(t.loc, "'...' (Ellipsis) is not supported");
      return nullptr;
    case TokenKind::kKwYield:
      Fail(t.loc, "yield expressions are not supported");
      return nullptr;
    case TokenKind::kKwLambda:
      Fail(t.loc, "lambda expressions are not supported");
      return nullptr;
    case TokenKind::kStar:
      Fail(t.loc, "starred expressions are only supported in call arguments");
      return nullptr;
    case TokenKind::kNewline:
    case TokenKind::kEndOfFile:
      FailAtCur("expected an expression");
      return nullptr;
    default:
      FailAtCur("invalid syntax");
      return nullptr;
  }
  Advance();
  last_height_ = 1;
  return e;
}

ExprPtr Parser::ParseParenthesized() {
  SourceLoc loc = Cur().loc;
  Advance();  // '('
  if (Accept(TokenKind::kRPar)) {
    last_height_ = 1;
    return NewExpr(ExprKind::kTuple, loc);
  }
  if (At(TokenKind::kKwYield)) {
    Fail(Cur().loc, "yield expressions are not supported");
    return nullptr;
  }
  ExprPtr first = ParseTest();
  if (!first) return nullptr;
  if (At(TokenKind::kKwFor)) {
    Fail(Cur().loc, "generator expressions are not supported");
    return nullptr;
  }
  if (Accept(TokenKind::kRPar)) return first;  // parentheses make no node
  uint32_t height = last_height_;
  if (!At(TokenKind::kComma)) {
    FailAtCur("expected ')'");
    return nullptr;
  }
  auto tuple = NewExpr(ExprKind::kTuple, loc);
  tuple->elts.push_back(std::move(first));
  while (Accept(TokenKind::kComma) && !At(TokenKind::kRPar)) {
    ExprPtr e = ParseTest();
    if (!e) return nullptr;
    height = std::max(height, last_height_);
    tuple->elts.push_back(std::move(e));
  }
  if (!Expect(TokenKind::kRPar)) return nullptr;
  if (!Grow(height + 1, loc)) return nullptr;
  return tuple;
}

ExprPtr Parser::ParseListDisplay() {
  SourceLoc loc = Cur().loc;
  Advance();  // '['
  auto list = NewExpr(ExprKind::kList, loc);
  uint32_t height = 0;
  while (!At(TokenKind::kRSqb)) {
    ExprPtr e = ParseTest();
    if (!e) return nullptr;
    if (At(TokenKind::kKwFor)) {
      Fail(Cur().loc, "list comprehensions are not supported");
      return nullptr;
    }
    height = std::max(height, last_height_);
    list->elts.push_back(std::move(e));
    if (!Accept(TokenKind::kComma)) break;
  }
  if (!Expect(TokenKind::kRSqb)) return nullptr;
  if (!Grow(height + 1, loc)) return nullptr;
  return list;
}

ExprPtr Parser::ParseBraceDisplay() {
  SourceLoc loc = Cur().loc;
  Advance();  // '{'
  auto dict = NewExpr(ExprKind::kDict, loc);
  uint32_t height = 0;
  while (!At(TokenKind::kRBrace)) {
    if (At(TokenKind::kDoubleStar)) {
      Fail(Cur().loc, "dict unpacking (**) is not supported");
      return nullptr;
    }
    ExprPtr key = ParseTest();
    if (!key) return nullptr;
    if (!At(TokenKind::kColon)) {
      if (At(TokenKind::kKwFor)) {
        Fail(Cur().loc, "set comprehensions are not supported");
      } else {
        Fail(loc, "set displays are not supported");
      }
      return nullptr;
    }
    height = std::max(height, last_height_);
    Advance();  // ':'
    ExprPtr value = ParseTest();
    if (!value) return nullptr;
    if (At(TokenKind::kKwFor)) {
      Fail(Cur().loc, "dict comprehensions are not supported");
      return nullptr;
    }
    height = std::max(height, last_height_);
    dict->elts.push_back(std::move(key));
    dict->values.push_back(std::move(value));
    if (!Accept(TokenKind::kComma)) break;
  }
  if (!Expect(TokenKind::kRBrace)) return nullptr;
  if (!Grow(height + 1, loc)) return nullptr;
  return dict;
}

ExprPtr Parser::ParseTargetList() {
  SourceLoc loc = Cur().loc;
  if (At(TokenKind::kStar)) {
    Fail(loc, "starred assignment targets are not supported");
    return nullptr;
  }
  ExprPtr first = ParseBinary(1);
  if (!first || !At(TokenKind::kComma)) return first;
  uint32_t height = last_height_;
  auto tuple = NewExpr(ExprKind::kTuple, loc);
  tuple->elts.push_back(std::move(first));
  while (Accept(TokenKind::kComma) && !At(TokenKind::kKwIn)) {
    if (At(TokenKind::kStar)) {
      Fail(Cur().loc, "starred assignment targets are not supported");
      return nullptr;
    }
    ExprPtr e = ParseBinary(1);
    if (!e) return nullptr;
    height = std::max(height, last_height_);
    tuple->elts.push_back(std::move(e));
  }
  if (!Grow(height + 1, loc)) return nullptr;
  return tuple;
}

}  // namespace tilejit::frontend
