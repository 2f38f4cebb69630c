// SPDX-License-Identifier: Apache-2.0
// The top level: parse statement by statement; a statement that fails becomes kUnsupported
// and parsing resumes at the next top-level statement. Because NEWLINE, INDENT and DEDENT are
// never produced inside brackets and strings are single tokens, "the next first token of a
// line at column 1" already respects brackets and strings; only continuation lines of the
// same statement (else/elif/except/finally, and the def or class after decorators) must be
// stepped over.
#include "compiler/frontend/parser_impl.h"

namespace tilejit::frontend {
namespace {

bool IsContinuationKeyword(TokenKind k) {
  return k == TokenKind::kKwElse || k == TokenKind::kKwElif || k == TokenKind::kKwExcept ||
         k == TokenKind::kKwFinally;
}

bool IsTopLevelStart(const Token& t) { return t.line_start && t.loc.column == 1; }

}  // namespace

Module Parser::ParseFile(uint32_t file_id) {
  Module module;
  module.file_id = file_id;
  while (!At(TokenKind::kEndOfFile)) {
    if (At(TokenKind::kNewline) || At(TokenKind::kDedent)) {
      Advance();
      continue;
    }
    size_t start = pos_;
    StmtList stmts;
    expr_nesting_ = stmt_nesting_ = 0;
    if (ParseStatement(&stmts)) {
      for (StmtPtr& s : stmts) module.body.push_back(std::move(s));
      continue;
    }
    size_t resume = ResumeIndex(start);
    module.body.push_back(MakeUnsupported(start, resume));
    ResetError();
    pos_ = resume;
  }
  return module;
}

ExprPtr Parser::ParseLoneExpression() {
  while (At(TokenKind::kNewline) || At(TokenKind::kIndent)) Advance();
  ExprPtr e = ParseTestList(false);
  if (!e) return nullptr;
  while (At(TokenKind::kNewline) || At(TokenKind::kDedent)) Advance();
  if (!At(TokenKind::kEndOfFile)) {
    FailAtCur("unexpected text after the expression");
    return nullptr;
  }
  return e;
}

std::shared_ptr<Stmt> Parser::ParseFunctionAt(SourceLoc at) {
  for (pos_ = 0; pos_ + 1 < toks_.size(); ++pos_) {
    if (Cur().loc == at && (At(TokenKind::kKwDef) || At(TokenKind::kKwLambda))) break;
  }
  if (Cur().loc != at) {
    Fail(at, "no function definition or lambda starts here");
    return nullptr;
  }
  if (At(TokenKind::kKwLambda)) {
    ExprPtr e = ParseLambda();
    return e ? e->lambda : nullptr;
  }
  return std::shared_ptr<Stmt>(ParseFunctionDef({}, at));
}

size_t Parser::ResumeIndex(size_t start) const {
  TokenKind first = toks_[start].kind;
  bool decorators = first == TokenKind::kAt;
  // Only these statements continue on a column-1 line with else/elif/except/finally.
  bool clauses = first == TokenKind::kKwIf || first == TokenKind::kKwFor ||
                 first == TokenKind::kKwWhile || first == TokenKind::kKwTry;
  size_t i = start + 1;
  for (; i + 1 < toks_.size(); ++i) {
    const Token& t = toks_[i];
    if (!IsTopLevelStart(t)) continue;
    if (decorators) {
      decorators = t.kind == TokenKind::kAt;  // the def/class line still belongs to them
      continue;
    }
    if (clauses && IsContinuationKeyword(t.kind)) continue;
    break;
  }
  return i;
}

StmtPtr Parser::MakeUnsupported(size_t start, size_t resume) {
  auto s = std::make_unique<Stmt>(StmtKind::kUnsupported, toks_[start].loc);
  if (!failed_) Fail(toks_[start].loc, "invalid syntax");  // defensive: every path records one
  s->unsupported_reason = error_message_;
  s->unsupported_loc = error_loc_;
  // An unclosed bracket swallows the following lines, so whatever error the parser met there
  // is a consequence; the bracket is the cause. Unless the parser stopped at a tokenizer
  // error itself (an unterminated string inside the bracket): that one comes first, as in
  // CPython.
  const bool lex_error_first = toks_[error_token_].kind == TokenKind::kError;
  for (size_t i = error_token_; i < resume && !lex_error_first; ++i) {
    if (toks_[i].kind == TokenKind::kError && lex_errors_[toks_[i].error_index].unclosed_bracket) {
      s->unsupported_reason = lex_errors_[toks_[i].error_index].message;
      s->unsupported_loc = lex_errors_[toks_[i].error_index].loc;
      break;
    }
  }
  const Token& first = toks_[start];
  if (first.kind == TokenKind::kName && first.text == "match" && error_loc_ != first.loc &&
      toks_[error_token_].kind != TokenKind::kError) {
    s->unsupported_reason = "match statements are not supported";
    s->unsupported_loc = first.loc;
  }
  s->end_loc = first.end;
  for (size_t i = resume; i > start; --i) {
    TokenKind k = toks_[i - 1].kind;
    if (k != TokenKind::kNewline && k != TokenKind::kDedent && k != TokenKind::kIndent &&
        k != TokenKind::kEndOfFile) {
      s->end_loc = toks_[i - 1].end;
      break;
    }
  }
  CheapBoundNames(start, resume, &s->bound_names);
  DedupeNames(&s->bound_names);
  return s;
}

// Names bound by a statement that did not parse: the name after def/class (past decorators),
// else the plain names in assignment targets on its first logical line (`a, b = ...`,
// `x: T = ...`, `x += ...`); names inside calls and subscripts are not targets.
void Parser::CheapBoundNames(size_t start, size_t resume, std::vector<std::string>* names) const {
  size_t i = start;
  while (i < resume && toks_[i].kind == TokenKind::kAt) {
    while (i < resume && toks_[i].kind != TokenKind::kNewline) ++i;
    ++i;
  }
  if (i < resume && toks_[i].kind == TokenKind::kKwAsync) ++i;
  if (i + 1 < resume &&
      (toks_[i].kind == TokenKind::kKwDef || toks_[i].kind == TokenKind::kKwClass)) {
    if (toks_[i + 1].kind == TokenKind::kName) names->emplace_back(toks_[i + 1].text);
    return;
  }
  // Scan the first logical line if it can be an assignment; remember candidate names of the
  // current segment and commit them when an assignment operator ends the segment.
  if (i >= resume || (toks_[i].kind != TokenKind::kName && toks_[i].kind != TokenKind::kLPar &&
                      toks_[i].kind != TokenKind::kLSqb)) {
    return;
  }
  const size_t first = i;
  std::vector<std::string_view> segment;
  std::vector<bool> groups;  // open brackets: true if a tuple/list target group
  size_t non_target_groups = 0;
  TokenKind prev = TokenKind::kNewline;
  bool in_value = false;  // past the targets of the current segment: skip to ';'
  for (; i < resume && toks_[i].kind != TokenKind::kNewline; prev = toks_[i].kind, ++i) {
    const Token& t = toks_[i];
    TokenKind next = i + 1 < resume ? toks_[i + 1].kind : TokenKind::kNewline;
    bool in_targets = non_target_groups == 0;
    switch (t.kind) {
      case TokenKind::kLPar:
      case TokenKind::kLSqb:
      case TokenKind::kLBrace:
        groups.push_back(t.kind != TokenKind::kLBrace && prev != TokenKind::kName &&
                         prev != TokenKind::kRPar && prev != TokenKind::kRSqb);
        non_target_groups += groups.back() ? 0 : 1;
        continue;
      case TokenKind::kRPar:
      case TokenKind::kRSqb:
      case TokenKind::kRBrace:
        if (!groups.empty()) {
          non_target_groups -= groups.back() ? 0 : 1;
          groups.pop_back();
        }
        continue;
      case TokenKind::kName:
        if (!in_value && in_targets && prev != TokenKind::kDot && next != TokenKind::kDot &&
            next != TokenKind::kLPar && next != TokenKind::kLSqb) {
          segment.push_back(t.text);
        }
        continue;
      case TokenKind::kComma:
      case TokenKind::kStar:  // `a, *b = ...`
        continue;
      default:
        break;
    }
    if (!groups.empty()) continue;
    bool annotation = t.kind == TokenKind::kColon && i == first + 1;
    bool assigns = annotation || t.kind == TokenKind::kEqual || t.kind == TokenKind::kAtEqual ||
                   (t.kind >= TokenKind::kPlusEqual && t.kind <= TokenKind::kDoubleSlashEqual &&
                    t.kind != TokenKind::kDoubleSlash);
    if (assigns) names->insert(names->end(), segment.begin(), segment.end());
    segment.clear();
    in_value = t.kind != TokenKind::kSemi && (!assigns || annotation);
  }
}

}  // namespace tilejit::frontend
