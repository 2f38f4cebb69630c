// SPDX-License-Identifier: Apache-2.0
// Expressions, with CPython's precedence: ternary < or < and < not < comparison < | < ^ < & <
// shifts < + - < * / // % @ < unary < ** < await/primary. Binary operators use precedence
// climbing (one function for six levels, so a parenthesised sub-expression costs a handful of
// frames). Constructs outside the subset are parsed far enough to name them in the error.
#include <algorithm>

#include "compiler/frontend/parser_impl.h"

namespace tilejit::frontend {
namespace {

ExprPtr NewExpr(ExprKind kind, SourceLoc loc) { return std::make_unique<Expr>(kind, loc); }

// Binary operator of token `k` and its precedence (1 = loosest), or 0 if `k` is none.
int BinaryPrecedence(TokenKind k, BinOpKind* op) {
  switch (k) {
    case TokenKind::kVBar:
      *op = BinOpKind::kBitOr;
      return 1;
    case TokenKind::kCircumflex:
      *op = BinOpKind::kBitXor;
      return 2;
    case TokenKind::kAmper:
      *op = BinOpKind::kBitAnd;
      return 3;
    case TokenKind::kLeftShift:
      *op = BinOpKind::kLShift;
      return 4;
    case TokenKind::kRightShift:
      *op = BinOpKind::kRShift;
      return 4;
    case TokenKind::kPlus:
      *op = BinOpKind::kAdd;
      return 5;
    case TokenKind::kMinus:
      *op = BinOpKind::kSub;
      return 5;
    case TokenKind::kStar:
      *op = BinOpKind::kMult;
      return 6;
    case TokenKind::kSlash:
      *op = BinOpKind::kDiv;
      return 6;
    case TokenKind::kDoubleSlash:
      *op = BinOpKind::kFloorDiv;
      return 6;
    case TokenKind::kPercent:
      *op = BinOpKind::kMod;
      return 6;
    case TokenKind::kAt:
      *op = BinOpKind::kMatMult;
      return 6;
    default:
      return 0;
  }
}

// The comparison operator starting with tokens `a b`: returns how many tokens it spans (0 if
// none) and sets *op.
size_t ComparisonOperator(TokenKind a, TokenKind b, CmpOpKind* op) {
  switch (a) {
    case TokenKind::kLess:
      *op = CmpOpKind::kLt;
      return 1;
    case TokenKind::kGreater:
      *op = CmpOpKind::kGt;
      return 1;
    case TokenKind::kEqEqual:
      *op = CmpOpKind::kEq;
      return 1;
    case TokenKind::kNotEqual:
      *op = CmpOpKind::kNotEq;
      return 1;
    case TokenKind::kLessEqual:
      *op = CmpOpKind::kLtE;
      return 1;
    case TokenKind::kGreaterEqual:
      *op = CmpOpKind::kGtE;
      return 1;
    case TokenKind::kKwIn:
      *op = CmpOpKind::kIn;
      return 1;
    case TokenKind::kKwIs:
      if (b == TokenKind::kKwNot) return *op = CmpOpKind::kIsNot, 2;
      return *op = CmpOpKind::kIs, 1;
    case TokenKind::kKwNot:
      if (b == TokenKind::kKwIn) return *op = CmpOpKind::kNotIn, 2;
      return 0;
    default:
      return 0;
  }
}

}  // namespace

bool StartsExpression(TokenKind k) {
  switch (k) {
    case TokenKind::kName:
    case TokenKind::kInt:
    case TokenKind::kFloat:
    case TokenKind::kString:
    case TokenKind::kLPar:
    case TokenKind::kLSqb:
    case TokenKind::kLBrace:
    case TokenKind::kMinus:
    case TokenKind::kPlus:
    case TokenKind::kTilde:
    case TokenKind::kKwNot:
    case TokenKind::kKwNone:
    case TokenKind::kKwTrue:
    case TokenKind::kKwFalse:
    case TokenKind::kKwLambda:
    case TokenKind::kKwAwait:
    case TokenKind::kStar:
    case TokenKind::kEllipsis:
    case TokenKind::kKwYield:
    case TokenKind::kError:
      return true;
    default:
      return false;
  }
}

bool Parser::Grow(uint32_t height, SourceLoc loc) {
  last_height_ = height;
  if (height <= kMaxExpressionHeight) return true;
  return Fail(loc, "expression is too large (its tree is more than 500 levels high)");
}

ExprPtr Parser::ParseStarredItem(bool target) {
  if (!At(TokenKind::kStar)) return target ? ParseBinary(1) : ParseTest();
  SourceLoc loc = Cur().loc;
  Advance();
  ExprPtr value = ParseBinary(1);
  if (!value) return nullptr;
  auto star = NewExpr(ExprKind::kStarred, loc);
  star->left = std::move(value);
  if (!Grow(last_height_ + 1, loc)) return nullptr;
  return star;
}

ExprPtr Parser::NotStarred(ExprPtr e, std::string_view message) {
  if (e && e->kind == ExprKind::kStarred) {
    Fail(e->loc, std::string(message));
    return nullptr;
  }
  return e;
}

ExprPtr Parser::ParseTestList(bool targets_context) {
  SourceLoc loc = Cur().loc;
  ExprPtr first = ParseStarredItem(false);
  if (!first || !At(TokenKind::kComma)) {
    if (targets_context && At(TokenKind::kEqual)) {
      return NotStarred(std::move(first), "starred assignment target must be in a list or tuple");
    }
    return NotStarred(std::move(first));
  }
  uint32_t height = last_height_;
  auto tuple = NewExpr(ExprKind::kTuple, loc);
  tuple->elts.push_back(std::move(first));
  while (Accept(TokenKind::kComma)) {
    if (!StartsExpression(Cur().kind) && !At(TokenKind::kStar)) break;
    ExprPtr e = ParseStarredItem(false);
    if (!e) return nullptr;
    height = std::max(height, last_height_);
    tuple->elts.push_back(std::move(e));
  }
  if (!Grow(height + 1, loc)) return nullptr;
  return tuple;
}

ExprPtr Parser::ParseTest() {
  NestingGuard guard(this, &expr_nesting_, kMaxExpressionNesting, "expression");
  if (!guard.ok()) return nullptr;
  if (At(TokenKind::kKwLambda)) return ParseLambda();
  ExprPtr body = ParseOrTest();
  if (!body) return nullptr;
  if (At(TokenKind::kColonEqual)) {
    Fail(Cur().loc, "assignment expressions (:=) are not supported");
    return nullptr;
  }
  if (!At(TokenKind::kKwIf)) return body;
  uint32_t height = last_height_;
  Advance();
  ExprPtr test = ParseOrTest();
  if (!test) return nullptr;
  height = std::max(height, last_height_);
  if (!Expect(TokenKind::kKwElse)) return nullptr;
  ExprPtr orelse = ParseTest();
  if (!orelse) return nullptr;
  height = std::max(height, last_height_);
  auto e = NewExpr(ExprKind::kIfExp, body->loc);
  e->left = std::move(test);
  e->right = std::move(body);
  e->third = std::move(orelse);
  if (!Grow(height + 1, e->loc)) return nullptr;
  return e;
}

ExprPtr Parser::ParseOrTest() {
  ExprPtr first = ParseAndTest();
  if (!first || !At(TokenKind::kKwOr)) return first;
  uint32_t height = last_height_;
  auto e = NewExpr(ExprKind::kBoolOp, first->loc);
  e->bool_op = BoolOpKind::kOr;
  e->elts.push_back(std::move(first));
  while (Accept(TokenKind::kKwOr)) {
    ExprPtr v = ParseAndTest();
    if (!v) return nullptr;
    height = std::max(height, last_height_);
    e->elts.push_back(std::move(v));
  }
  if (!Grow(height + 1, e->loc)) return nullptr;
  return e;
}

ExprPtr Parser::ParseAndTest() {
  ExprPtr first = ParseNotTest();
  if (!first || !At(TokenKind::kKwAnd)) return first;
  uint32_t height = last_height_;
  auto e = NewExpr(ExprKind::kBoolOp, first->loc);
  e->bool_op = BoolOpKind::kAnd;
  e->elts.push_back(std::move(first));
  while (Accept(TokenKind::kKwAnd)) {
    ExprPtr v = ParseNotTest();
    if (!v) return nullptr;
    height = std::max(height, last_height_);
    e->elts.push_back(std::move(v));
  }
  if (!Grow(height + 1, e->loc)) return nullptr;
  return e;
}

ExprPtr Parser::ParseNotTest() {
  if (!At(TokenKind::kKwNot)) return ParseComparison();
  NestingGuard guard(this, &expr_nesting_, kMaxExpressionNesting, "expression");
  if (!guard.ok()) return nullptr;
  SourceLoc loc = Cur().loc;
  Advance();
  ExprPtr operand = ParseNotTest();
  if (!operand) return nullptr;
  auto e = NewExpr(ExprKind::kUnaryOp, loc);
  e->unary_op = UnaryOpKind::kNot;
  e->left = std::move(operand);
  if (!Grow(last_height_ + 1, loc)) return nullptr;
  return e;
}

ExprPtr Parser::ParseComparison() {
  ExprPtr left = ParseBinary(1);
  if (!left) return nullptr;
  uint32_t height = last_height_;
  ExprPtr cmp;
  CmpOpKind op;
  size_t op_tokens;
  while ((op_tokens = ComparisonOperator(Cur().kind, Ahead(1).kind, &op)) > 0) {
    for (size_t i = 0; i < op_tokens; ++i) Advance();
    ExprPtr right = ParseBinary(1);
    if (!right) return nullptr;
    height = std::max(height, last_height_);
    if (!cmp) {
      cmp = NewExpr(ExprKind::kCompare, left->loc);
      cmp->left = std::move(left);
    }
    cmp->cmp_ops.push_back(op);
    cmp->elts.push_back(std::move(right));
  }
  if (!cmp) {
    last_height_ = height;
    return left;
  }
  if (!Grow(height + 1, cmp->loc)) return nullptr;
  return cmp;
}

ExprPtr Parser::ParseBinary(int min_prec) {
  ExprPtr left = ParseFactor();
  if (!left) return nullptr;
  uint32_t height = last_height_;
  BinOpKind op;
  int prec;
  while ((prec = BinaryPrecedence(Cur().kind, &op)) >= min_prec && prec > 0) {
    Advance();
    ExprPtr right = ParseBinary(prec + 1);
    if (!right) return nullptr;
    auto e = NewExpr(ExprKind::kBinOp, left->loc);
    e->bin_op = op;
    e->left = std::move(left);
    e->right = std::move(right);
    height = std::max(height, last_height_) + 1;
    if (!Grow(height, e->loc)) return nullptr;
    left = std::move(e);
  }
  last_height_ = height;
  return left;
}

ExprPtr Parser::ParseFactor() {
  UnaryOpKind op;
  switch (Cur().kind) {
    case TokenKind::kMinus:
      op = UnaryOpKind::kUSub;
      break;
    case TokenKind::kPlus:
      op = UnaryOpKind::kUAdd;
      break;
    case TokenKind::kTilde:
      op = UnaryOpKind::kInvert;
      break;
    default:
      return ParsePower();
  }
  NestingGuard guard(this, &expr_nesting_, kMaxExpressionNesting, "expression");
  if (!guard.ok()) return nullptr;
  SourceLoc loc = Cur().loc;
  Advance();
  ExprPtr operand = ParseFactor();
  if (!operand) return nullptr;
  auto e = NewExpr(ExprKind::kUnaryOp, loc);
  e->unary_op = op;
  e->left = std::move(operand);
  if (!Grow(last_height_ + 1, loc)) return nullptr;
  return e;
}

ExprPtr Parser::ParsePower() {
  if (At(TokenKind::kKwAwait)) {
    Fail(Cur().loc, "await expressions are not supported");
    return nullptr;
  }
  ExprPtr base = ParsePrimary();
  if (!base || !At(TokenKind::kDoubleStar)) return base;
  uint32_t height = last_height_;
  Advance();
  ExprPtr exponent = ParseFactor();  // right-associative; -x binds looser on the left only
  if (!exponent) return nullptr;
  auto e = NewExpr(ExprKind::kBinOp, base->loc);
  e->bin_op = BinOpKind::kPow;
  e->left = std::move(base);
  e->right = std::move(exponent);
  if (!Grow(std::max(height, last_height_) + 1, e->loc)) return nullptr;
  return e;
}

ExprPtr Parser::ParsePrimary() {
  ExprPtr e = ParseAtom();
  if (!e) return nullptr;
  uint32_t height = last_height_;
  while (true) {
    if (At(TokenKind::kDot)) {
      Advance();
      if (!At(TokenKind::kName)) {
        FailAtCur("expected an attribute name after '.'");
        return nullptr;
      }
      auto attr = NewExpr(ExprKind::kAttribute, e->loc);
      attr->name = std::string(Cur().text);
      attr->left = std::move(e);
      Advance();
      e = std::move(attr);
      ++height;
    } else if (At(TokenKind::kLPar)) {
      auto call = NewExpr(ExprKind::kCall, e->loc);
      call->left = std::move(e);
      uint32_t args_height = 0;
      if (!ParseCallArgs(call.get(), &args_height)) return nullptr;
      height = std::max(height, args_height) + 1;
      e = std::move(call);
    } else if (At(TokenKind::kLSqb)) {
      e = ParseSubscript(std::move(e));
      if (!e) return nullptr;
      height = std::max(height, last_height_) + 1;
    } else {
      break;
    }
    if (!Grow(height, e->loc)) return nullptr;
  }
  last_height_ = height;
  return e;
}

}  // namespace tilejit::frontend
