// SPDX-License-Identifier: Apache-2.0
// Token access, error reporting and name tables of the Tile IR parser.
#include <charconv>

#include "compiler/ir/ir_parser_internal.h"

namespace tilejit::ir {

// ---------------------------------------------------------------------------------------------
// Tokens and names

const Token& IrParser::Peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < toks_.size() ? toks_[i] : toks_.back();  // toks_ ends with kEnd or kError
}

Token IrParser::Next() {
  const Token& t = Peek();
  if (t.kind == TokKind::kError) Fail(LocOf(t), t.text);
  if (pos_ < toks_.size() - 1) ++pos_;
  return t;
}

bool IrParser::IsPunct(std::string_view p, size_t ahead) const {
  return Peek(ahead).kind == TokKind::kPunct && Peek(ahead).text == p;
}

bool IrParser::IsIdent(std::string_view word, size_t ahead) const {
  return Peek(ahead).kind == TokKind::kIdent && Peek(ahead).text == word;
}

bool IrParser::AcceptPunct(std::string_view p) {
  if (!IsPunct(p)) return false;
  Next();
  return true;
}

void IrParser::ExpectPunct(std::string_view p) {
  if (!AcceptPunct(p)) FailExpected("'" + std::string(p) + "'");
}

std::string IrParser::ExpectIdent(std::string_view what) {
  if (Peek().kind != TokKind::kIdent) FailExpected(what);
  return Next().text;
}

int64_t IrParser::ExpectInt(std::string_view what, bool allow_sign) {
  bool negative = allow_sign && IsPunct("-") && Peek(1).kind == TokKind::kInt;
  if (negative) Next();
  if (Peek().kind != TokKind::kInt) FailExpected(what);
  Token t = Next();
  std::string text = negative ? "-" + t.text : t.text;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    Fail(LocOf(t), "integer literal out of range");
  }
  return v;
}

void IrParser::Fail(SourceLoc loc, std::string message) const {
  throw IrParseError{loc, std::move(message)};
}

void IrParser::FailExpected(std::string_view what) const {
  const Token& t = Peek();
  if (t.kind == TokKind::kError) Fail(LocOf(t), t.text);
  std::string found;
  switch (t.kind) {
    case TokKind::kNewline:
      found = "end of line";
      break;
    case TokKind::kEnd:
      found = "end of input";
      break;
    case TokKind::kString:
      found = "a string";
      break;
    default:
      found = "'" + t.text + "'";
  }
  Fail(LocOf(t), "expected " + std::string(what) + ", found " + found);
}

Buffer IrParser::LookupBuffer(const Token& t) const {
  auto it = buffers_.find(t.text);
  if (it == buffers_.end()) Fail(LocOf(t), "undefined buffer " + t.text);
  return it->second;
}

Var IrParser::LookupVar(const Token& t) const {
  auto it = vars_.find(t.text);
  if (it == vars_.end()) {
    Fail(LocOf(t), buffers_.contains(t.text) ? t.text + " is a buffer, not a scalar value"
                                             : "undefined name " + t.text);
  }
  return it->second;
}

void IrParser::DefineBuffer(const Token& t, const Buffer& b) {
  if (buffers_.contains(t.text) || vars_.contains(t.text)) {
    Fail(LocOf(t), "redefinition of " + t.text);
  }
  buffers_[t.text] = b;
}

// A var name may be bound again (the same Var in two sibling scopes); it then denotes the
// same Var node, which is what the printer's naming produced. Scoping is the verifier's job.
Var IrParser::ParseVarDef() {
  if (Peek().kind != TokKind::kName) FailExpected("a %name");
  Token name = Next();
  DType dtype = DType::kInt32;
  if (AcceptPunct(":")) {
    Token t = Peek();
    std::optional<DType> d = ParseDType(ExpectIdent("a dtype"));
    if (!d) Fail(LocOf(t), "unknown dtype '" + t.text + "'");
    dtype = *d;
  }
  if (buffers_.contains(name.text)) Fail(LocOf(name), name.text + " is already a buffer");
  auto it = vars_.find(name.text);
  if (it != vars_.end()) {
    if (it->second->dtype != dtype) Fail(LocOf(name), "redefinition of " + name.text);
    return it->second;
  }
  Var v = MakeVar(name.text.substr(1), dtype, LocOf(name));
  vars_[name.text] = v;
  return v;
}

void IrParser::EndLine() {
  if (Peek().kind == TokKind::kEnd || IsPunct("}")) return;
  if (Peek().kind != TokKind::kNewline) FailExpected("end of line");
  while (Peek().kind == TokKind::kNewline) Next();
}

}  // namespace tilejit::ir
