// SPDX-License-Identifier: Apache-2.0
// Floats print in their shortest round-tripping form (std::to_chars) with a '.0' added when
// needed, so a dump re-parses to the same value.
#include "compiler/frontend/ast_dump.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace tilejit::frontend {
namespace {

// `text` escaped for a double-quoted literal; braces doubled in f-string text.
void AppendEscaped(std::string_view text, bool fstring, std::string* out) {
  for (unsigned char c : text) {
    if (fstring && (c == '{' || c == '}')) out->push_back(static_cast<char>(c));
    switch (c) {
      case '\\':
        *out += "\\\\";
        break;
      case '"':
        *out += "\\\"";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\r':
        *out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          *out += buf;
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
}

void AppendString(const Expr& e, std::string* out) {
  out->push_back('"');
  AppendEscaped(e.string_value, false, out);
  out->push_back('"');
}

void Append(const Expr& e, std::string* out);

// The pieces of an f-string (or of a field's format spec) between its quotes.
void AppendFStringPieces(const Expr& joined, std::string* out);

// One `{value!conversion:spec}` field.
void AppendField(const Expr& field, std::string* out) {
  out->push_back('{');
  Append(*field.left, out);
  if (!field.name.empty()) *out += "!" + field.name;
  if (field.right) {
    out->push_back(':');
    AppendFStringPieces(*field.right, out);
  }
  out->push_back('}');
}

void AppendFStringPieces(const Expr& joined, std::string* out) {
  for (const ExprPtr& p : joined.elts) {
    if (p->kind == ExprKind::kFormattedValue) {
      AppendField(*p, out);
    } else {
      AppendEscaped(p->string_value, true, out);
    }
  }
}

void AppendFloat(double v, std::string* out) {
  if (std::isinf(v)) {
    *out += v > 0 ? "1e999" : "(-1e999)";
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
  *out += s;
  if (s.find_first_of(".en") == std::string_view::npos) *out += ".0";
}

void AppendList(const std::vector<ExprPtr>& elts, std::string* out) {
  for (size_t i = 0; i < elts.size(); ++i) {
    if (i) *out += ", ";
    Append(*elts[i], out);
  }
}

void AppendConstant(const Expr& e, std::string* out) {
  switch (e.constant_kind) {
    case ConstantKind::kNone:
      *out += "None";
      return;
    case ConstantKind::kBool:
      *out += e.bool_value ? "True" : "False";
      return;
    case ConstantKind::kInt:
      *out += std::to_string(e.int_value);
      return;
    case ConstantKind::kFloat:
      AppendFloat(e.float_value, out);
      return;
    case ConstantKind::kString:
      AppendString(e, out);
      return;
  }
}

void AppendCall(const Expr& e, std::string* out) {
  Append(*e.left, out);
  out->push_back('(');
  AppendList(e.elts, out);
  for (size_t i = 0; i < e.keywords.size(); ++i) {
    if (i || !e.elts.empty()) *out += ", ";
    *out += e.keywords[i].arg.empty() ? "**" : e.keywords[i].arg + "=";
    Append(*e.keywords[i].value, out);
  }
  out->push_back(')');
}

void AppendComprehension(const Expr& e, std::string* out) {
  const char* brackets = e.kind == ExprKind::kListComp   ? "[]"
                         : e.kind == ExprKind::kDictComp ? "{}"
                                                         : "()";
  out->push_back(brackets[0]);
  Append(*e.left, out);
  if (e.right) {
    *out += ": ";
    Append(*e.right, out);
  }
  for (const Comprehension& c : e.generators) {
    *out += " for ";
    Append(*c.target, out);
    *out += " in ";
    Append(*c.iter, out);
    for (const ExprPtr& cond : c.ifs) {
      *out += " if ";
      Append(*cond, out);
    }
  }
  out->push_back(brackets[1]);
}

void Append(const Expr& e, std::string* out) {
  switch (e.kind) {
    case ExprKind::kName:
      *out += e.name;
      return;
    case ExprKind::kConstant:
      AppendConstant(e, out);
      return;
    case ExprKind::kBinOp:
      out->push_back('(');
      Append(*e.left, out);
      out->append(" ").append(BinOpSymbol(e.bin_op)).append(" ");
      Append(*e.right, out);
      out->push_back(')');
      return;
    case ExprKind::kUnaryOp:
      *out += e.unary_op == UnaryOpKind::kNot    ? "(not "
              : e.unary_op == UnaryOpKind::kUSub ? "(-"
              : e.unary_op == UnaryOpKind::kUAdd ? "(+"
                                                 : "(~";
      Append(*e.left, out);
      out->push_back(')');
      return;
    case ExprKind::kBoolOp:
      out->push_back('(');
      for (size_t i = 0; i < e.elts.size(); ++i) {
        if (i) *out += e.bool_op == BoolOpKind::kAnd ? " and " : " or ";
        Append(*e.elts[i], out);
      }
      out->push_back(')');
      return;
    case ExprKind::kCompare:
      out->push_back('(');
      Append(*e.left, out);
      for (size_t i = 0; i < e.elts.size(); ++i) {
        out->append(" ").append(CmpOpSymbol(e.cmp_ops[i])).append(" ");
        Append(*e.elts[i], out);
      }
      out->push_back(')');
      return;
    case ExprKind::kCall:
      AppendCall(e, out);
      return;
    case ExprKind::kAttribute:
      Append(*e.left, out);
      *out += "." + e.name;
      return;
    case ExprKind::kSubscript:
      Append(*e.left, out);
      out->push_back('[');
      if (e.right->kind == ExprKind::kTuple && !e.right->elts.empty()) {
        AppendList(e.right->elts, out);
        if (e.right->elts.size() == 1) out->push_back(',');
      } else {
        Append(*e.right, out);
      }
      out->push_back(']');
      return;
    case ExprKind::kSlice:
      if (e.left) Append(*e.left, out);
      out->push_back(':');
      if (e.right) Append(*e.right, out);
      if (e.third) {
        out->push_back(':');
        Append(*e.third, out);
      }
      return;
    case ExprKind::kTuple:
      out->push_back('(');
      AppendList(e.elts, out);
      if (e.elts.size() == 1) out->push_back(',');
      out->push_back(')');
      return;
    case ExprKind::kList:
      out->push_back('[');
      AppendList(e.elts, out);
      out->push_back(']');
      return;
    case ExprKind::kDict:
      out->push_back('{');
      for (size_t i = 0; i < e.elts.size(); ++i) {
        if (i) *out += ", ";
        Append(*e.elts[i], out);
        *out += ": ";
        Append(*e.values[i], out);
      }
      out->push_back('}');
      return;
    case ExprKind::kIfExp:
      out->push_back('(');
      Append(*e.right, out);
      *out += " if ";
      Append(*e.left, out);
      *out += " else ";
      Append(*e.third, out);
      out->push_back(')');
      return;
    case ExprKind::kJoinedStr:
      *out += "f\"";
      AppendFStringPieces(e, out);
      out->push_back('"');
      return;
    case ExprKind::kFormattedValue:  // normally printed by its kJoinedStr
      AppendField(e, out);
      return;
    case ExprKind::kStarred:
      out->push_back('*');
      Append(*e.left, out);
      return;
    case ExprKind::kListComp:
    case ExprKind::kDictComp:
    case ExprKind::kGeneratorExp:
      AppendComprehension(e, out);
      return;
    case ExprKind::kLambda:
      *out += "(lambda";
      for (size_t i = 0; i < e.lambda->params.size(); ++i) {
        *out += i ? ", " : " ";
        *out += e.lambda->params[i].name;
      }
      *out += ": ";
      Append(*e.lambda->body[0]->value, out);
      out->push_back(')');
      return;
  }
}

}  // namespace

std::string DumpExpr(const Expr& e) {
  std::string out;
  Append(e, &out);
  return out;
}

}  // namespace tilejit::frontend
