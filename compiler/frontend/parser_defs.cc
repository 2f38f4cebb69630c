// SPDX-License-Identifier: Apache-2.0
// Function definitions (decorators, parameters) and imports.
#include <algorithm>

#include "compiler/frontend/parser_impl.h"

namespace tilejit::frontend {

StmtPtr Parser::ParseDecorated() {
  SourceLoc loc = Cur().loc;
  std::vector<ExprPtr> decorators;
  while (At(TokenKind::kAt)) {
    Advance();
    ExprPtr d = ParseTest();
    if (!d || !Expect(TokenKind::kNewline)) return nullptr;
    decorators.push_back(std::move(d));
  }
  if (At(TokenKind::kKwClass)) {
    Fail(Cur().loc, "class definitions are not supported");
    return nullptr;
  }
  if (At(TokenKind::kKwAsync)) {
    Fail(Cur().loc, "async functions are not supported");
    return nullptr;
  }
  if (!At(TokenKind::kKwDef)) {
    FailAtCur("expected 'def' after decorators");
    return nullptr;
  }
  return ParseFunctionDef(std::move(decorators), loc);
}

StmtPtr Parser::ParseFunctionDef(std::vector<ExprPtr> decorators, SourceLoc loc) {
  const SourceLoc def_loc = Cur().loc;
  Advance();  // 'def'
  if (!At(TokenKind::kName)) {
    FailAtCur("expected a function name after 'def'");
    return nullptr;
  }
  auto s = std::make_unique<Stmt>(StmtKind::kFunctionDef, loc);
  s->def_loc = def_loc;
  s->name = std::string(Cur().text);
  s->bound_names.push_back(s->name);
  s->decorators = std::move(decorators);
  Advance();
  if (!Expect(TokenKind::kLPar) || !ParseParams(s.get(), TokenKind::kRPar) ||
      !Expect(TokenKind::kRPar)) {
    return nullptr;
  }
  if (Accept(TokenKind::kRArrow) && !(s->returns = ParseTest())) return nullptr;
  if (!ParseBlock(&s->body)) return nullptr;
  return Finish(std::move(s));
}

// `lambda params: test`, as a "<lambda>" def returning the test (so calls treat it like any
// def); its parameters take no annotations, as in CPython.
ExprPtr Parser::ParseLambda() {
  const SourceLoc loc = Cur().loc;
  Advance();  // 'lambda'
  auto def = std::make_shared<Stmt>(StmtKind::kFunctionDef, loc);
  def->name = "<lambda>";
  def->def_loc = loc;
  if (!ParseParams(def.get(), TokenKind::kColon) || !Expect(TokenKind::kColon)) return nullptr;
  auto ret = std::make_unique<Stmt>(StmtKind::kReturn, Cur().loc);
  if (!(ret->value = ParseTest())) return nullptr;
  def->body.push_back(std::move(ret));
  auto e = std::make_unique<Expr>(ExprKind::kLambda, loc);
  e->lambda = std::move(def);
  return e;
}

// Parameters up to `end` (`)` of a def, `:` of a lambda): positional ones (with an ignored `/`
// marker), then `*args` or a bare `*`, keyword-only ones, then `**kwargs`; the checks are
// CPython's.
bool Parser::ParseParams(Stmt* def, TokenKind end) {
  const bool annotations = end == TokenKind::kRPar;
  bool seen_default = false, seen_star = false, seen_kwargs = false, bare_star = false;
  NameSet names;
  while (!At(end)) {
    SourceLoc loc = Cur().loc;
    if (seen_kwargs) return Fail(loc, "parameters cannot follow '**' parameter");
    Param p;
    p.loc = loc;
    if (Accept(TokenKind::kSlash)) {
      if (seen_star || def->params.empty())
        return Fail(loc, "'/' must follow positional parameters");
      if (!Accept(TokenKind::kComma)) break;
      continue;
    }
    if (Accept(TokenKind::kStar)) {
      if (seen_star) return Fail(loc, "'*' may appear only once in a parameter list");
      seen_star = true;
      if (At(TokenKind::kComma)) {
        bare_star = true;
        Advance();
        if (At(end)) return Fail(loc, "named parameters must follow bare '*'");
        continue;
      }
      p.kind = Param::Kind::kVarArgs;
    } else if (Accept(TokenKind::kDoubleStar)) {
      p.kind = Param::Kind::kVarKeywords;
      seen_kwargs = true;
    } else {
      p.kind = seen_star ? Param::Kind::kKeywordOnly : Param::Kind::kPositional;
      bare_star = false;
    }
    if (!At(TokenKind::kName)) return FailAtCur("expected a parameter name");
    p.name = std::string(Cur().text);
    if (!names.Insert(Cur().text)) {
      return Fail(loc, "duplicate parameter '" + p.name + "' in function definition");
    }
    Advance();
    if (annotations && Accept(TokenKind::kColon) && !(p.annotation = ParseTest())) return false;
    if (Accept(TokenKind::kEqual)) {
      if (p.kind == Param::Kind::kVarArgs || p.kind == Param::Kind::kVarKeywords) {
        return Fail(loc, "var-positional and var-keyword parameters cannot have a default");
      }
      if (!(p.default_value = ParseTest())) return false;
      if (p.kind == Param::Kind::kPositional) seen_default = true;
    } else if (p.kind == Param::Kind::kPositional && seen_default) {
      return Fail(loc, "parameter without a default follows parameter with a default");
    }
    def->params.push_back(std::move(p));
    if (!Accept(TokenKind::kComma)) break;
  }
  if (bare_star) return Fail(Cur().loc, "named parameters must follow bare '*'");
  return true;
}

bool Parser::ParseDottedName(std::string* out) {
  while (true) {
    if (!At(TokenKind::kName)) return FailAtCur("expected a module name");
    out->append(Cur().text);
    Advance();
    if (!At(TokenKind::kDot)) return true;
    Advance();
    out->push_back('.');
  }
}

StmtPtr Parser::ParseImport() {
  auto s = std::make_unique<Stmt>(StmtKind::kImport, Cur().loc);
  Advance();
  do {
    ImportAlias alias;
    alias.loc = Cur().loc;
    if (!ParseDottedName(&alias.module)) return nullptr;
    if (Accept(TokenKind::kKwAs)) {
      if (!At(TokenKind::kName)) {
        FailAtCur("expected a name after 'as'");
        return nullptr;
      }
      alias.bound = std::string(Cur().text);
      alias.aliased = true;
      Advance();
    } else {
      alias.bound = alias.module.substr(0, alias.module.find('.'));
    }
    s->bound_names.push_back(alias.bound);
    s->imports.push_back(std::move(alias));
  } while (Accept(TokenKind::kComma));
  return Finish(std::move(s));
}

StmtPtr Parser::ParseFromImport() {
  auto s = std::make_unique<Stmt>(StmtKind::kImport, Cur().loc);
  Advance();
  std::string module;
  while (At(TokenKind::kDot) || At(TokenKind::kEllipsis)) {
    module.append(At(TokenKind::kDot) ? "." : "...");
    Advance();
  }
  if ((module.empty() || At(TokenKind::kName)) && !ParseDottedName(&module)) return nullptr;
  if (!Expect(TokenKind::kKwImport)) return nullptr;
  if (At(TokenKind::kStar)) {
    s->imports.push_back({module, "*", "", Cur().loc});
    Advance();
    return Finish(std::move(s));
  }
  bool parens = Accept(TokenKind::kLPar);
  do {
    if (parens && At(TokenKind::kRPar)) break;
    if (!At(TokenKind::kName)) {
      FailAtCur("expected a name to import");
      return nullptr;
    }
    ImportAlias alias{module, std::string(Cur().text), "", Cur().loc};
    Advance();
    if (Accept(TokenKind::kKwAs)) {
      if (!At(TokenKind::kName)) {
        FailAtCur("expected a name after 'as'");
        return nullptr;
      }
      alias.bound = std::string(Cur().text);
      alias.aliased = true;
      Advance();
    } else {
      alias.bound = alias.name;
    }
    s->bound_names.push_back(alias.bound);
    s->imports.push_back(std::move(alias));
  } while (Accept(TokenKind::kComma));
  if (parens && !Expect(TokenKind::kRPar)) return nullptr;
  return Finish(std::move(s));
}

}  // namespace tilejit::frontend
