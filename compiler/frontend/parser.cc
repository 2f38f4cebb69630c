// SPDX-License-Identifier: Apache-2.0
// Simple statements, targets and blocks (ParseBlock counts nesting); the compound statements
// are in parser_compound.cc, defs and imports in parser_defs.cc.
#include <algorithm>

#include "compiler/frontend/parser_impl.h"

namespace tilejit::frontend {
namespace {

StmtPtr NewStmt(StmtKind kind, SourceLoc loc) { return std::make_unique<Stmt>(kind, loc); }

bool AugmentedOp(TokenKind k, BinOpKind* op) {
  switch (k) {
    case TokenKind::kPlusEqual:
      *op = BinOpKind::kAdd;
      return true;
    case TokenKind::kMinEqual:
      *op = BinOpKind::kSub;
      return true;
    case TokenKind::kStarEqual:
      *op = BinOpKind::kMult;
      return true;
    case TokenKind::kSlashEqual:
      *op = BinOpKind::kDiv;
      return true;
    case TokenKind::kDoubleSlashEqual:
      *op = BinOpKind::kFloorDiv;
      return true;
    case TokenKind::kPercentEqual:
      *op = BinOpKind::kMod;
      return true;
    case TokenKind::kDoubleStarEqual:
      *op = BinOpKind::kPow;
      return true;
    case TokenKind::kLeftShiftEqual:
      *op = BinOpKind::kLShift;
      return true;
    case TokenKind::kRightShiftEqual:
      *op = BinOpKind::kRShift;
      return true;
    case TokenKind::kAmperEqual:
      *op = BinOpKind::kBitAnd;
      return true;
    case TokenKind::kVBarEqual:
      *op = BinOpKind::kBitOr;
      return true;
    case TokenKind::kCircumflexEqual:
      *op = BinOpKind::kBitXor;
      return true;
    case TokenKind::kAtEqual:
      *op = BinOpKind::kMatMult;
      return true;
    default:
      return false;
  }
}

const char* TargetKindName(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kCall:
      return "function call";
    case ExprKind::kConstant:
      return "literal";
    case ExprKind::kBinOp:
    case ExprKind::kUnaryOp:
    case ExprKind::kBoolOp:
      return "expression";
    case ExprKind::kCompare:
      return "comparison";
    case ExprKind::kDict:
      return "dict literal";
    case ExprKind::kIfExp:
      return "conditional expression";
    default:
      return "expression";
  }
}

}  // namespace

NestingGuard::NestingGuard(Parser* p, uint32_t* counter, uint32_t limit, const char* what)
    : counter_(counter), ok_(++*counter <= limit) {
  if (!ok_) {
    p->Fail(p->Cur().loc,
            std::string(what) + " is nested too deeply (limit " + std::to_string(limit) + ")");
  }
}

void CollectTargetNames(const Expr& e, std::vector<std::string>* out) {
  if (e.kind == ExprKind::kName) {
    out->push_back(e.name);
  } else if (e.kind == ExprKind::kTuple || e.kind == ExprKind::kList) {
    for (const ExprPtr& elt : e.elts) CollectTargetNames(*elt, out);
  } else if (e.kind == ExprKind::kStarred) {
    CollectTargetNames(*e.left, out);
  }
}

void DedupeNames(std::vector<std::string>* names) {
  if (names->size() < 2) return;
  std::vector<std::string> unique;
  NameSet seen;
  for (std::string& n : *names) {
    if (seen.Insert(n)) unique.push_back(n);
  }
  *names = std::move(unique);
}

bool NameSet::Insert(std::string_view name) {
  if (big_.empty()) {
    for (std::string_view n : small_) {
      if (n == name) return false;
    }
    small_.push_back(name);
    if (small_.size() > 16) big_.insert(small_.begin(), small_.end());
    return true;
  }
  return big_.insert(name).second;
}

bool Parser::Fail(SourceLoc loc, std::string message) {
  if (!failed_) {
    failed_ = true;
    error_loc_ = loc;
    error_message_ = std::move(message);
    error_token_ = pos_;
  }
  return false;
}

bool Parser::FailAtCur(std::string message) {
  const Token& t = Cur();
  if (t.kind == TokenKind::kError) {
    const LexError& err = lex_errors_[t.error_index];
    return Fail(err.loc, err.message);
  }
  if (t.kind == TokenKind::kIndent) return Fail(t.loc, "unexpected indent");
  return Fail(t.loc, std::move(message));
}

bool Parser::Expect(TokenKind k) {
  if (Accept(k)) return true;
  return FailAtCur("expected '" + std::string(TokenKindName(k)) + "'");
}

StmtPtr Parser::Finish(StmtPtr s) {
  s->end_loc = prev_end_;
  DedupeNames(&s->bound_names);
  return s;
}

bool Parser::ParseStatement(StmtList* out) {
  const Token& t = Cur();
  StmtPtr s;
  switch (t.kind) {
    case TokenKind::kKwIf:
      s = ParseIf();
      break;
    case TokenKind::kKwFor:
      s = ParseFor();
      break;
    case TokenKind::kKwWhile:
      s = ParseWhile();
      break;
    case TokenKind::kKwWith:
      s = ParseWith();
      break;
    case TokenKind::kKwDef:
      s = ParseFunctionDef({}, t.loc);
      break;
    case TokenKind::kAt:
      s = ParseDecorated();
      break;
    case TokenKind::kKwClass:
      return Fail(t.loc, "class definitions are not supported");
    case TokenKind::kKwTry:
      return Fail(t.loc, "try statements are not supported");
    case TokenKind::kKwAsync:
      return Fail(t.loc, "async statements are not supported");
    case TokenKind::kIndent:
      return Fail(t.loc, "unexpected indent");
    default:
      return ParseSimpleStatements(out);
  }
  if (!s) return false;
  out->push_back(std::move(s));
  return true;
}

bool Parser::ParseSimpleStatements(StmtList* out) {
  while (true) {
    StmtPtr s = ParseSmallStatement();
    if (!s) return false;
    out->push_back(std::move(s));
    if (!Accept(TokenKind::kSemi) || At(TokenKind::kNewline)) break;
  }
  if (Accept(TokenKind::kNewline)) return true;
  return FailAtCur("invalid syntax");
}

StmtPtr Parser::ParseSmallStatement() {
  const Token& t = Cur();
  SourceLoc loc = t.loc;
  switch (t.kind) {
    case TokenKind::kKwPass:
    case TokenKind::kKwBreak:
    case TokenKind::kKwContinue: {
      StmtKind kind = t.kind == TokenKind::kKwPass    ? StmtKind::kPass
                      : t.kind == TokenKind::kKwBreak ? StmtKind::kBreak
                                                      : StmtKind::kContinue;
      Advance();
      return Finish(NewStmt(kind, loc));
    }
    case TokenKind::kKwReturn: {
      Advance();
      auto s = NewStmt(StmtKind::kReturn, loc);
      if (StartsExpression(Cur().kind) && !(s->value = ParseTestList(false))) return nullptr;
      return Finish(std::move(s));
    }
    case TokenKind::kKwImport:
      return ParseImport();
    case TokenKind::kKwFrom:
      return ParseFromImport();
    case TokenKind::kKwGlobal:
      return ParseNameList(StmtKind::kGlobal, "global");
    case TokenKind::kKwNonlocal:
      return ParseNameList(StmtKind::kGlobal, "nonlocal");
    case TokenKind::kKwAssert:
      return ParseAssert();
    case TokenKind::kKwDel:
      Fail(loc, "del statements are not supported");
      return nullptr;
    case TokenKind::kKwRaise:
      Fail(loc, "raise statements are not supported");
      return nullptr;
    case TokenKind::kKwYield:
      Fail(loc, "yield statements are not supported");
      return nullptr;
    case TokenKind::kKwElse:
    case TokenKind::kKwElif:
    case TokenKind::kKwExcept:
    case TokenKind::kKwFinally:
      Fail(loc, "'" + std::string(t.text) + "' without a matching statement");
      return nullptr;
    default:
      return ParseExprStatement();
  }
}

StmtPtr Parser::ParseExprStatement() {
  SourceLoc loc = Cur().loc;
  ExprPtr first = ParseTestList(true);
  if (!first) return nullptr;
  BinOpKind aug;
  if (At(TokenKind::kColon)) {
    SourceLoc colon = Cur().loc;
    Advance();
    if (first->kind == ExprKind::kTuple || first->kind == ExprKind::kList) {
      Fail(colon, "only a single target (not a tuple) can be annotated");
      return nullptr;
    }
    if (!CheckTarget(*first, false)) return nullptr;
    auto s = NewStmt(StmtKind::kAnnAssign, loc);
    if (!(s->annotation = ParseTest())) return nullptr;
    if (Accept(TokenKind::kEqual) && !(s->value = ParseTestList(false))) return nullptr;
    CollectTargetNames(*first, &s->bound_names);
    s->targets.push_back(std::move(first));
    return Finish(std::move(s));
  }
  if (AugmentedOp(Cur().kind, &aug)) {
    if (first->kind != ExprKind::kName && first->kind != ExprKind::kAttribute &&
        first->kind != ExprKind::kSubscript) {
      Fail(first->loc, std::string("'") + TargetKindName(*first) +
                           "' is an illegal target for augmented assignment");
      return nullptr;
    }
    Advance();
    auto s = NewStmt(StmtKind::kAugAssign, loc);
    s->aug_op = aug;
    if (!(s->value = ParseTestList(false))) return nullptr;
    CollectTargetNames(*first, &s->bound_names);
    s->targets.push_back(std::move(first));
    return Finish(std::move(s));
  }
  if (!At(TokenKind::kEqual)) {
    auto s = NewStmt(StmtKind::kExpr, loc);
    s->value = std::move(first);
    return Finish(std::move(s));
  }
  auto s = NewStmt(StmtKind::kAssign, loc);
  ExprPtr last = std::move(first);
  while (Accept(TokenKind::kEqual)) {
    if (!CheckTarget(*last, true)) return nullptr;
    CollectTargetNames(*last, &s->bound_names);
    s->targets.push_back(std::move(last));
    if (At(TokenKind::kKwYield)) {
      Fail(Cur().loc, "yield expressions are not supported");
      return nullptr;
    }
    if (!(last = ParseTestList(false))) return nullptr;
  }
  s->value = std::move(last);
  return Finish(std::move(s));
}

bool Parser::CheckTarget(const Expr& e, bool allow_tuple) {
  switch (e.kind) {
    case ExprKind::kName:
    case ExprKind::kAttribute:
    case ExprKind::kSubscript:
      return true;
    case ExprKind::kTuple:
    case ExprKind::kList: {
      if (!allow_tuple) break;
      bool starred = false;
      for (const ExprPtr& elt : e.elts) {
        if (elt->kind == ExprKind::kStarred) {
          if (starred) return Fail(e.loc, "multiple starred expressions in assignment");
          starred = true;
          if (!CheckTarget(*elt->left, true)) return false;
        } else if (!CheckTarget(*elt, true)) {
          return false;
        }
      }
      return true;
    }
    default:
      break;
  }
  return Fail(e.loc, std::string("cannot assign to ") + TargetKindName(e));
}

bool Parser::ParseBlock(StmtList* body) {
  if (!Expect(TokenKind::kColon)) return false;
  if (!At(TokenKind::kNewline)) return ParseSimpleStatements(body);
  Advance();
  if (!At(TokenKind::kIndent)) return FailAtCur("expected an indented block");
  NestingGuard guard(this, &stmt_nesting_, kMaxStatementNesting, "block");
  if (!guard.ok()) return false;
  Advance();
  while (!At(TokenKind::kDedent) && !At(TokenKind::kEndOfFile)) {
    if (!ParseStatement(body)) return false;
  }
  Accept(TokenKind::kDedent);
  return true;
}

StmtPtr Parser::ParseAssert() {
  auto s = NewStmt(StmtKind::kAssert, Cur().loc);
  Advance();
  if (!(s->value = ParseTest())) return nullptr;
  if (Accept(TokenKind::kComma) && !(s->msg = ParseTest())) return nullptr;
  return Finish(std::move(s));
}

StmtPtr Parser::ParseNameList(StmtKind kind, const char* keyword) {
  auto s = NewStmt(kind, Cur().loc);
  s->name = keyword;
  Advance();
  do {
    if (!At(TokenKind::kName)) {
      FailAtCur("expected a name");
      return nullptr;
    }
    s->bound_names.emplace_back(Cur().text);
    Advance();
  } while (Accept(TokenKind::kComma));
  return Finish(std::move(s));
}

}  // namespace tilejit::frontend
