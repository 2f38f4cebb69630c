// SPDX-License-Identifier: Apache-2.0
// Expression half of the Tile IR parser: precedence climbing over the levels documented in
// docs/tile_ir.md (the printer's table, inverted), plus tile-op operands and attributes.
#include <charconv>
#include <cmath>
#include <limits>

#include "compiler/ir/ir_parser_internal.h"

namespace tilejit::ir {

namespace {

struct OpLevel {
  std::string_view text;
  BinaryOp op;
  int level;
};

// Python's precedence levels.
constexpr OpLevel kOps[] = {
    {"or", BinaryOp::kOr, 1},       {"and", BinaryOp::kAnd, 2},  {"==", BinaryOp::kEq, 4},
    {"!=", BinaryOp::kNe, 4},       {"<", BinaryOp::kLt, 4},     {"<=", BinaryOp::kLe, 4},
    {">", BinaryOp::kGt, 4},        {">=", BinaryOp::kGe, 4},    {"|", BinaryOp::kBitOr, 5},
    {"^", BinaryOp::kBitXor, 6},    {"&", BinaryOp::kBitAnd, 7}, {"<<", BinaryOp::kShl, 8},
    {">>", BinaryOp::kShr, 8},      {"+", BinaryOp::kAdd, 9},    {"-", BinaryOp::kSub, 9},
    {"*", BinaryOp::kMul, 10},      {"/", BinaryOp::kDiv, 10},   {"//", BinaryOp::kFloorDiv, 10},
    {"%", BinaryOp::kFloorMod, 10},
};

constexpr int kCmpLevel = 4;
constexpr int kNotLevel = 3;
constexpr int kUnaryLevel = 11;

const OpLevel* MatchOp(const Token& t, int level) {
  if (t.kind != TokKind::kPunct && t.kind != TokKind::kIdent) return nullptr;
  for (const OpLevel& o : kOps) {
    if (o.level == level && o.text == t.text) {
      bool word = o.text == "or" || o.text == "and";
      if (word == (t.kind == TokKind::kIdent)) return &o;
    }
  }
  return nullptr;
}

bool IsNumberToken(const Token& t) {
  return t.kind == TokKind::kInt || t.kind == TokKind::kFloat ||
         (t.kind == TokKind::kIdent && (t.text == "inf" || t.text == "nan"));
}

}  // namespace

Expr IrParser::ParseExpr() {
  Guard guard(this);
  return ParseBinaryLevel(1);
}

Expr IrParser::ParseBinaryLevel(int level) {
  if (level == kUnaryLevel) return ParseUnary();
  if (level == kNotLevel) {
    if (!IsIdent("not")) return ParseBinaryLevel(level + 1);
    Guard guard(this);
    SourceLoc loc = LocOf(Next());
    return Unary(UnaryOp::kNot, ParseBinaryLevel(kNotLevel), loc);
  }
  Expr left = ParseBinaryLevel(level + 1);
  while (const OpLevel* o = MatchOp(Peek(), level)) {
    SourceLoc loc = LocOf(Next());
    Expr right = ParseBinaryLevel(level + 1);
    left = Binary(o->op, left, right, loc);
    if (level == kCmpLevel) {
      if (MatchOp(Peek(), level)) Fail(Here(), "chained comparison; add parentheses");
      break;
    }
  }
  return left;
}

Expr IrParser::ParseUnary() {
  if (IsPunct("~")) {
    Guard guard(this);
    SourceLoc loc = LocOf(Next());
    return Unary(UnaryOp::kBitNot, ParseUnary(), loc);
  }
  if (!IsPunct("-")) return ParsePrimary();
  if (IsNumberToken(Peek(1))) return ParseSignedLiteral(std::nullopt);
  Guard guard(this);
  SourceLoc loc = LocOf(Next());
  return Unary(UnaryOp::kNeg, ParseUnary(), loc);
}

Expr IrParser::ParseSignedLiteral(std::optional<DType> dtype) {
  SourceLoc loc = Here();
  bool negative = AcceptPunct("-");
  if (!IsNumberToken(Peek())) FailExpected("a number");
  Token t = Next();
  if (t.kind == TokKind::kIdent) {
    double v = t.text == "inf" ? std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::quiet_NaN();
    return FloatImm(negative ? -v : v, dtype.value_or(DType::kFloat32), loc);
  }
  std::string text = negative ? "-" + t.text : t.text;
  const char* end = text.data() + text.size();
  if (t.kind == TokKind::kInt) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || p != end) Fail(LocOf(t), "integer literal out of range");
    return IntImm(v, dtype.value_or(DType::kInt32), loc);
  }
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end) Fail(LocOf(t), "float literal out of range");
  return FloatImm(v, dtype.value_or(DType::kFloat32), loc);
}

Expr IrParser::ParsePrimary() {
  const Token& t = Peek();
  if (IsNumberToken(t)) return ParseSignedLiteral(std::nullopt);
  if (IsPunct("(")) {
    Next();
    Expr e = ParseExpr();
    ExpectPunct(")");
    return e;
  }
  if (t.kind == TokKind::kIdent) return ParseIdentExpr();
  if (t.kind != TokKind::kName) FailExpected("an expression");
  Token name = Next();
  if (!buffers_.contains(name.text)) return Ref(LookupVar(name), LocOf(name));
  Buffer b = LookupBuffer(name);
  if (!IsPunct("[")) Fail(LocOf(name), "buffer " + name.text + " used as a value; index it");
  Next();
  std::vector<Expr> indices;
  while (!IsPunct("]")) {
    if (!indices.empty()) ExpectPunct(",");
    indices.push_back(ParseExpr());
  }
  ExpectPunct("]");
  return Load(b, std::move(indices), LocOf(name));
}

std::vector<Expr> IrParser::ParseArgs() {
  ExpectPunct("(");
  std::vector<Expr> args;
  while (!IsPunct(")")) {
    if (!args.empty()) ExpectPunct(",");
    args.push_back(ParseExpr());
  }
  ExpectPunct(")");
  return args;
}

Expr IrParser::ParseIdentExpr() {
  Token t = Next();
  SourceLoc loc = LocOf(t);
  if (t.text == "true" || t.text == "false") return BoolImm(t.text == "true", loc);
  std::optional<DType> dtype = ParseDType(t.text);
  if (dtype && IsPunct("(")) {  // a typed literal: int64(5), float16(0.5)
    Next();
    Expr lit = ParseSignedLiteral(dtype);
    ExpectPunct(")");
    return lit;
  }
  if (t.text == "select" && IsPunct("(")) {
    std::vector<Expr> args = ParseArgs();
    if (args.size() != 3) Fail(loc, "select takes 3 arguments");
    return Select(args[0], args[1], args[2], loc);
  }
  if ((t.text == "min" || t.text == "max") && IsPunct("(")) {
    std::vector<Expr> args = ParseArgs();
    if (args.size() != 2) Fail(loc, t.text + " takes 2 arguments");
    return Binary(t.text == "min" ? BinaryOp::kMin : BinaryOp::kMax, args[0], args[1], loc);
  }
  std::optional<DType> call_type;
  if (AcceptPunct("<")) {
    Token dt = Peek();
    call_type = ParseDType(ExpectIdent("a dtype"));
    if (!call_type) Fail(LocOf(dt), "unknown dtype '" + dt.text + "'");
    ExpectPunct(">");
  }
  if (!IsPunct("(")) Fail(loc, "unknown name '" + t.text + "'");
  std::vector<Expr> args = ParseArgs();
  DType natural = args.empty() ? DType::kFloat32 : args[0]->dtype;
  return Call(t.text, std::move(args), call_type.value_or(natural), loc);
}

// ---------------------------------------------------------------------------------------------
// Operands and attributes

bool IrParser::LooksLikeRegion() const {
  // At `%buf [`: a region has a ':' at bracket depth 1; a scalar load does not.
  int depth = 0;
  for (size_t i = 1;; ++i) {
    const Token& t = Peek(i);
    if (t.kind == TokKind::kEnd || t.kind == TokKind::kError || t.kind == TokKind::kNewline) {
      return false;
    }
    if (t.kind != TokKind::kPunct) continue;
    if (t.text == "[" || t.text == "(") ++depth;
    if (t.text == "]" || t.text == ")") {
      if (--depth == 0) return false;
    }
    if (t.text == ":" && depth == 1) return true;
  }
}

Region IrParser::ParseRegion(const Buffer& b, SourceLoc loc) {
  Region r{b, {}, loc};
  ExpectPunct("[");
  while (!IsPunct("]")) {
    if (!r.ranges.empty()) ExpectPunct(",");
    size_t dim = r.ranges.size();
    if (dim >= b->shape.size()) Fail(Here(), "region has more dimensions than its buffer");
    if (IsPunct(":") && (IsPunct(",", 1) || IsPunct("]", 1))) {
      Next();
      r.ranges.push_back(Range{IntImm(0), b->shape[dim]});
      continue;
    }
    Expr min = ParseExpr();
    ExpectPunct(":");
    ExpectPunct("+");
    int64_t extent = ExpectInt("an extent", false);
    r.ranges.push_back(Range{min, extent});
  }
  ExpectPunct("]");
  return r;
}

Operand IrParser::ParseOperand() {
  const Token& t = Peek();
  if (t.kind == TokKind::kName && buffers_.contains(t.text)) {
    Token name = t;
    Buffer b = buffers_.at(name.text);
    if (!IsPunct("[", 1)) {
      Next();
      return WholeBuffer(b, LocOf(name));
    }
    if (LooksLikeRegion()) {
      Next();
      return ParseRegion(b, LocOf(name));
    }
  }
  return ParseExpr();
}

bool IrParser::LiteralAttrAhead() const {
  size_t i = 0;
  const Token& first = Peek();
  if (first.kind == TokKind::kString) {
    i = 1;
  } else if (first.kind == TokKind::kIdent && (first.text == "true" || first.text == "false")) {
    i = 1;
  } else {
    if (IsPunct("-")) i = 1;
    if (!IsNumberToken(Peek(i))) return false;
    ++i;
  }
  return IsPunct(",", i) || IsPunct("}", i);
}

AttrValue IrParser::ParseLiteralAttr() {
  if (Peek().kind == TokKind::kString) return Next().text;
  if (IsIdent("true") || IsIdent("false")) return Next().text == "true";
  Expr lit = ParseSignedLiteral(std::nullopt);
  if (const auto* i = TryAs<IntImmNode>(lit)) return i->value;
  return As<FloatImmNode>(lit).value;
}

Attr IrParser::ParseAttr() {
  Attr a;
  a.key = ExpectIdent("an attribute name");
  ExpectPunct("=");
  if (LiteralAttrAhead()) {
    a.value = ParseLiteralAttr();
  } else if (IsIdent("expr") && IsPunct("(", 1)) {
    Next();
    Next();
    a.value = ParseExpr();
    ExpectPunct(")");
  } else {
    a.value = ParseExpr();
  }
  return a;
}

}  // namespace tilejit::ir
