// SPDX-License-Identifier: Apache-2.0
// Internal to the parser: the recursive-descent Parser over a token vector. Statements live
// in parser.cc, expressions in parser_expr.cc, top-level recovery in parser_recovery.cc.
//
// Error handling: the first error of the statement being parsed is recorded (Fail) and every
// parse function returns null/false from then on; the top level turns the statement into a
// kUnsupported one and resumes. Every function returning an ExprPtr also leaves the height
// of the returned tree in last_height_, so that trees stay within kMaxExpressionHeight
// (callers recurse over them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "compiler/frontend/ast.h"
#include "compiler/frontend/fstring.h"
#include "compiler/frontend/lexer.h"
#include "compiler/frontend/parser.h"

namespace tilejit::frontend {

class Parser {
 public:
  explicit Parser(const LexedFile& lexed)
      : toks_(lexed.tokens), lex_errors_(lexed.errors), text_(lexed.text) {}

  // The whole token stream as a module (see parser.h for the recovery rules).
  Module ParseFile(uint32_t file_id);
  // The whole token stream as one expression; null on error (see error_loc/error_message).
  ExprPtr ParseLoneExpression();
  // The def or lambda whose keyword token is at `at` (parser.h ParseFunctionAt); null on error.
  std::shared_ptr<Stmt> ParseFunctionAt(SourceLoc at);

  bool failed() const { return failed_; }
  SourceLoc error_loc() const { return error_loc_; }
  const std::string& error_message() const { return error_message_; }

 private:
  // --- tokens
  const Token& Cur() const { return toks_[pos_]; }
  const Token& Ahead(size_t n) const {
    return pos_ + n < toks_.size() ? toks_[pos_ + n] : toks_.back();
  }
  bool At(TokenKind k) const { return toks_[pos_].kind == k; }
  void Advance() {
    TokenKind k = toks_[pos_].kind;
    if (k != TokenKind::kNewline && k != TokenKind::kIndent && k != TokenKind::kDedent) {
      prev_end_ = toks_[pos_].end;  // statements end at their last real token
    }
    if (pos_ + 1 < toks_.size()) ++pos_;
  }
  bool Accept(TokenKind k) {
    if (!At(k)) return false;
    Advance();
    return true;
  }
  bool Expect(TokenKind k);

  // --- errors
  bool Fail(SourceLoc loc, std::string message);
  bool FailAtCur(std::string message);  // a lexer error token wins over `message`
  void ResetError() { failed_ = false; }

  // --- statements (parser.cc)
  bool ParseStatement(StmtList* out);
  bool ParseSimpleStatements(StmtList* out);
  StmtPtr ParseSmallStatement();
  StmtPtr ParseExprStatement();
  bool CheckTarget(const Expr& e, bool allow_tuple);
  bool ParseBlock(StmtList* body);
  StmtPtr ParseIf();
  StmtPtr ParseFor();
  StmtPtr ParseWhile();
  StmtPtr ParseWith();
  StmtPtr ParseDecorated();
  StmtPtr ParseFunctionDef(std::vector<ExprPtr> decorators, SourceLoc loc);
  bool ParseParams(Stmt* def, TokenKind end);
  ExprPtr ParseLambda();
  StmtPtr ParseImport();
  StmtPtr ParseFromImport();
  bool ParseDottedName(std::string* out);
  StmtPtr ParseNameList(StmtKind kind, const char* keyword);
  StmtPtr ParseAssert();
  StmtPtr Finish(StmtPtr s);  // sets end_loc

  // --- expressions (parser_expr.cc)
  ExprPtr ParseTestList(bool targets_context);
  ExprPtr ParseTest();
  ExprPtr ParseOrTest();
  ExprPtr ParseAndTest();
  ExprPtr ParseNotTest();
  ExprPtr ParseComparison();
  ExprPtr ParseBinary(int min_prec);
  ExprPtr ParseFactor();
  ExprPtr ParsePower();
  ExprPtr ParsePrimary();
  ExprPtr ParseAtom();
  ExprPtr ParseParenthesized();
  ExprPtr ParseListDisplay();
  ExprPtr ParseBraceDisplay();
  bool ParseCallArgs(Expr* call, uint32_t* height);
  ExprPtr ParseSubscript(ExprPtr value);
  ExprPtr ParseSliceItem();
  // The kFormattedValue of f-string field `p` of string token `t`: its expression parsed
  // from its bytes in the file (a parser of its own over them), and its format spec's
  // fields, `depth` deep.
  ExprPtr ParseFStringField(const Token& t, const FStringPiece& p, int depth);
  // Appends `pieces` of string token `t` to `joined` (a kJoinedStr): literal text merged
  // into a trailing constant, fields parsed; raises `*height` to the tallest field's.
  bool AppendFStringPieces(const Token& t, const std::vector<FStringPiece>& pieces, int depth,
                           Expr* joined, uint32_t* height);
  // `*value` where Python allows it (tuple and list displays, target lists), else one
  // test (or, for a target, an or-expression).
  ExprPtr ParseStarredItem(bool target);
  // `e`, or null after `message` (CPython's) at it when it is a bare `*value`.
  ExprPtr NotStarred(ExprPtr e, std::string_view message = "can't use starred expression here");
  ExprPtr ParseStrings();
  // A comprehension of `kind` whose element (key and value for a dict) was just parsed, at the
  // first `for`.
  ExprPtr ParseComprehension(ExprKind kind, SourceLoc loc, ExprPtr elt, ExprPtr value);
  ExprPtr ParseTargetList();  // for-loop targets: expr (',' expr)* at bitwise-or level
  bool Grow(uint32_t height, SourceLoc loc);  // records last_height_, checks the limit

  // --- recovery (parser_recovery.cc)
  size_t ResumeIndex(size_t start) const;
  StmtPtr MakeUnsupported(size_t start, size_t resume);
  void CheapBoundNames(size_t start, size_t resume, std::vector<std::string>* names) const;

  const std::vector<Token>& toks_;
  const std::vector<LexError>& lex_errors_;
  std::string_view text_;  // the file's text, for f-string fields
  size_t pos_ = 0;
  SourceLoc prev_end_;
  bool failed_ = false;
  SourceLoc error_loc_;
  std::string error_message_;
  size_t error_token_ = 0;
  uint32_t expr_nesting_ = 0;
  uint32_t stmt_nesting_ = 0;
  uint32_t last_height_ = 0;

  friend class NestingGuard;
};

// Counts one level of nesting for the lifetime of the guard; ok() is false (and an error is
// recorded) if the limit is exceeded.
class NestingGuard {
 public:
  NestingGuard(Parser* p, uint32_t* counter, uint32_t limit, const char* what);
  ~NestingGuard() { --*counter_; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;
  bool ok() const { return ok_; }

 private:
  uint32_t* counter_;
  bool ok_;
};

// True if a token of kind `k` can start an expression.
bool StartsExpression(TokenKind k);

// Appends the names bound by assignment target `e` (names, tuple and list elements).
void CollectTargetNames(const Expr& e, std::vector<std::string>* out);

// Removes repeated names, keeping first occurrences in order.
void DedupeNames(std::vector<std::string>* names);

// A set of names, cheap for the usual handful and still linear overall for hostile input
// with thousands (a hash set takes over past 16 entries). Views must outlive the set.
class NameSet {
 public:
  // Returns false if `name` was already present.
  bool Insert(std::string_view name);

 private:
  std::vector<std::string_view> small_;
  std::unordered_set<std::string_view> big_;
};

}  // namespace tilejit::frontend
