// SPDX-License-Identifier: Apache-2.0
// Atoms and displays: names, numbers, strings, parenthesised expressions and tuples, lists
// and dicts, list and dict comprehensions and generator expressions. Sets, dict unpacking and
// Ellipsis are outside the subset; they are recognised here so that the error names the
// construct.
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
      Fail(t.loc, "can't use starred expression here");
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
  ExprPtr first = ParseStarredItem(false);
  if (!first) return nullptr;
  if (At(TokenKind::kKwFor)) {
    if (first->kind == ExprKind::kStarred) {
      Fail(first->loc, "iterable unpacking cannot be used in comprehension");
      return nullptr;
    }
    ExprPtr gen = ParseComprehension(ExprKind::kGeneratorExp, loc, std::move(first), nullptr);
    if (!gen || !Expect(TokenKind::kRPar)) return nullptr;
    return gen;
  }
  if (Accept(TokenKind::kRPar)) {  // parentheses make no node
    return NotStarred(std::move(first), "cannot use starred expression here");
  }
  uint32_t height = last_height_;
  if (!At(TokenKind::kComma)) {
    FailAtCur("expected ')'");
    return nullptr;
  }
  auto tuple = NewExpr(ExprKind::kTuple, loc);
  tuple->elts.push_back(std::move(first));
  while (Accept(TokenKind::kComma) && !At(TokenKind::kRPar)) {
    ExprPtr e = ParseStarredItem(false);
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
    ExprPtr e = ParseStarredItem(false);
    if (!e) return nullptr;
    if (list->elts.empty() && At(TokenKind::kKwFor)) {
      if (e->kind == ExprKind::kStarred) {
        Fail(e->loc, "iterable unpacking cannot be used in comprehension");
        return nullptr;
      }
      ExprPtr comp = ParseComprehension(ExprKind::kListComp, loc, std::move(e), nullptr);
      if (!comp || !Expect(TokenKind::kRSqb)) return nullptr;
      return comp;
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
    if (dict->elts.empty() && At(TokenKind::kKwFor)) {
      ExprPtr comp = ParseComprehension(ExprKind::kDictComp, loc, std::move(key), std::move(value));
      if (!comp || !Expect(TokenKind::kRBrace)) return nullptr;
      return comp;
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

// The clauses after a comprehension's element, as CPython reads them: `for` targets `in` a
// disjunction, then `if` disjunctions, repeated. The element's height is last_height_.
ExprPtr Parser::ParseComprehension(ExprKind kind, SourceLoc loc, ExprPtr elt, ExprPtr value) {
  uint32_t height = last_height_;
  auto comp = NewExpr(kind, loc);
  comp->left = std::move(elt);
  comp->right = std::move(value);
  while (Accept(TokenKind::kKwFor)) {
    Comprehension clause;
    clause.target = ParseTargetList();
    if (!clause.target || !CheckTarget(*clause.target, true) || !Expect(TokenKind::kKwIn)) {
      return nullptr;
    }
    height = std::max(height, last_height_);
    if (!(clause.iter = ParseOrTest())) return nullptr;
    height = std::max(height, last_height_);
    while (Accept(TokenKind::kKwIf)) {
      ExprPtr cond = ParseOrTest();
      if (!cond) return nullptr;
      height = std::max(height, last_height_);
      clause.ifs.push_back(std::move(cond));
    }
    comp->generators.push_back(std::move(clause));
    if (At(TokenKind::kKwAsync)) {
      Fail(Cur().loc, "asynchronous comprehensions are not supported");
      return nullptr;
    }
  }
  if (!Grow(height + 1, loc)) return nullptr;
  return comp;
}

ExprPtr Parser::ParseTargetList() {
  SourceLoc loc = Cur().loc;
  ExprPtr first = ParseStarredItem(true);
  if (!first || !At(TokenKind::kComma)) return NotStarred(std::move(first));
  uint32_t height = last_height_;
  auto tuple = NewExpr(ExprKind::kTuple, loc);
  tuple->elts.push_back(std::move(first));
  while (Accept(TokenKind::kComma) && !At(TokenKind::kKwIn)) {
    ExprPtr e = ParseStarredItem(true);
    if (!e) return nullptr;
    height = std::max(height, last_height_);
    tuple->elts.push_back(std::move(e));
  }
  if (!Grow(height + 1, loc)) return nullptr;
  return tuple;
}

}  // namespace tilejit::frontend
