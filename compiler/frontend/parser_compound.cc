// SPDX-License-Identifier: Apache-2.0
// Compound statements: if/elif/else, for, while and with. Elif chains are built iteratively
// (and counted against the nesting limit) so that a long chain cannot recurse.
#include "compiler/frontend/parser_impl.h"

namespace tilejit::frontend {
namespace {

StmtPtr NewStmt(StmtKind kind, SourceLoc loc) { return std::make_unique<Stmt>(kind, loc); }

}  // namespace

StmtPtr Parser::ParseIf() {
  auto root = NewStmt(StmtKind::kIf, Cur().loc);
  Stmt* cur = root.get();
  uint32_t saved = stmt_nesting_;
  while (true) {
    Advance();  // 'if' or 'elif'
    if (!(cur->value = ParseTest()) || !ParseBlock(&cur->body)) break;
    cur->end_loc = prev_end_;
    if (At(TokenKind::kKwElif)) {
      auto next = NewStmt(StmtKind::kIf, Cur().loc);
      Stmt* raw = next.get();
      cur->orelse.push_back(std::move(next));
      cur = raw;
      if (++stmt_nesting_ > kMaxStatementNesting) {
        Fail(raw->loc, "elif chain is nested too deeply (limit 200)");
        break;
      }
      continue;
    }
    if (Accept(TokenKind::kKwElse)) ParseBlock(&cur->orelse);
    break;
  }
  stmt_nesting_ = saved;
  if (failed_) return nullptr;
  // Every If of the chain (root and its elifs) ends where the whole statement ends.
  for (Stmt* s = root.get();; s = s->orelse[0].get()) {
    s->end_loc = prev_end_;
    if (s == cur) break;
  }
  return root;
}

StmtPtr Parser::ParseFor() {
  auto s = NewStmt(StmtKind::kFor, Cur().loc);
  Advance();
  ExprPtr target = ParseTargetList();
  if (!target || !CheckTarget(*target, true) || !Expect(TokenKind::kKwIn)) return nullptr;
  CollectTargetNames(*target, &s->bound_names);
  s->targets.push_back(std::move(target));
  if (!(s->value = ParseTestList(false)) || !ParseBlock(&s->body)) return nullptr;
  if (Accept(TokenKind::kKwElse) && !ParseBlock(&s->orelse)) return nullptr;
  return Finish(std::move(s));
}

StmtPtr Parser::ParseWhile() {
  auto s = NewStmt(StmtKind::kWhile, Cur().loc);
  Advance();
  if (!(s->value = ParseTest()) || !ParseBlock(&s->body)) return nullptr;
  if (Accept(TokenKind::kKwElse) && !ParseBlock(&s->orelse)) return nullptr;
  return Finish(std::move(s));
}

StmtPtr Parser::ParseWith() {
  auto s = NewStmt(StmtKind::kWith, Cur().loc);
  Advance();
  do {
    WithItem item;
    if (!(item.context = ParseTest())) return nullptr;
    if (Accept(TokenKind::kKwAs)) {
      if (!(item.target = ParseBinary(1)) || !CheckTarget(*item.target, true)) return nullptr;
      CollectTargetNames(*item.target, &s->bound_names);
    }
    s->items.push_back(std::move(item));
  } while (Accept(TokenKind::kComma));
  if (!ParseBlock(&s->body)) return nullptr;
  return Finish(std::move(s));
}

}  // namespace tilejit::frontend
