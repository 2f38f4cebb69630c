// SPDX-License-Identifier: Apache-2.0
// The mini-language in three steps: parse the spec, render the bare digits (or text) with
// snprintf or by hand, then add the sign, the base prefix, grouping and padding, which are
// the same for every type. The rules and messages follow CPython's Python/formatter_unicode.c;
// the results are checked against CPython in host_format_test.cc.
#include "compiler/frontend/host_format.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "compiler/frontend/host_eval.h"

namespace tilejit::frontend {
namespace {

struct Spec {
  char fill = ' ';
  char align = 0;            // '<', '>', '^', '=' or 0 (the type's default)
  char sign = 0;             // '+', '-', ' ' or 0
  bool no_neg_zero = false;  // 'z'
  bool alternate = false;    // '#'
  int64_t width = -1;
  char grouping = 0;  // ',', '_' or 0
  int64_t precision = -1;
  char type = 0;
};

bool IsAlign(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

bool ParseNumber(std::string_view s, size_t* i, int64_t* out, std::string* error) {
  int64_t v = 0;
  const size_t begin = *i;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9') {
    v = v * 10 + (s[*i] - '0');
    if (v > kMaxFormatWidth) {
      *error = "a format width or precision past " + std::to_string(kMaxFormatWidth) +
               " is not supported";
      return false;
    }
    ++*i;
  }
  if (*i > begin) *out = v;
  return true;
}

bool ParseSpec(std::string_view s, Spec* spec, std::string* error) {
  size_t i = 0;
  if (s.size() >= 2 && IsAlign(s[1])) {
    spec->fill = s[0];
    spec->align = s[1];
    i = 2;
  } else if (!s.empty() && IsAlign(s[0])) {
    spec->align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) spec->sign = s[i++];
  if (i < s.size() && s[i] == 'z') spec->no_neg_zero = (++i, true);
  if (i < s.size() && s[i] == '#') spec->alternate = (++i, true);
  if (i < s.size() && s[i] == '0') {
    if (spec->align == 0) {
      spec->fill = '0';
      spec->align = '=';
    }
    ++i;
  }
  if (!ParseNumber(s, &i, &spec->width, error)) return false;
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) spec->grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!ParseNumber(s, &i, &spec->precision, error)) return false;
    if (spec->precision < 0) {
      *error = "Format specifier missing precision";
      return false;
    }
  }
  if (s.size() - i > 1) {
    *error = "Invalid format specifier";
    return false;
  }
  if (i < s.size()) spec->type = s[i];
  return true;
}

std::string UnknownCode(char type, std::string_view of) {
  return std::string("Unknown format code '") + type + "' for object of type '" + std::string(of) +
         "'";
}

// Separators every `every` digits from the right of the leading run of digits of `digits`.
std::string Group(const std::string& digits, char sep, int every) {
  size_t end = digits.find_first_not_of("0123456789abcdefABCDEF");
  if (end == std::string::npos) end = digits.size();
  std::string out;
  for (size_t n = 0; n < end; ++n) {
    if (n > 0 && (end - n) % every == 0) out.push_back(sep);
    out.push_back(digits[n]);
  }
  return out + digits.substr(end);
}

// Sign, prefix and digits padded to the width.
std::string Pad(const Spec& spec, std::string sign, std::string body, char default_align) {
  const char align = spec.align ? spec.align : default_align;
  // Code points, not bytes: UTF-8 continuation bytes take no column.
  size_t len = 0;
  for (unsigned char c : sign + body) len += (c & 0xC0) != 0x80;
  const size_t width = spec.width < 0 ? 0 : static_cast<size_t>(spec.width);
  if (len >= width) return sign + body;
  const size_t pad = width - len;
  const std::string fill(1, spec.fill);
  auto repeat = [&](size_t n) {
    std::string r;
    for (size_t k = 0; k < n; ++k) r += fill;
    return r;
  };
  switch (align) {
    case '<':
      return sign + body + repeat(pad);
    case '^':
      return repeat(pad / 2) + sign + body + repeat(pad - pad / 2);
    case '=':
      return sign + repeat(pad) + body;
    default:
      return repeat(pad) + sign + body;
  }
}

std::string SignOf(const Spec& spec, bool negative) {
  if (negative) return "-";
  if (spec.sign == '+') return "+";
  if (spec.sign == ' ') return " ";
  return "";
}

std::string Printf(const char* format, int precision, double v) {
  const int n = std::snprintf(nullptr, 0, format, precision, v);
  std::string out(static_cast<size_t>(n), '\0');
  std::snprintf(out.data(), out.size() + 1, format, precision, v);
  return out;
}

std::optional<std::string> FormatFloat(double v, const Spec& spec, std::string* error) {
  const char t = spec.type;
  if (t != 0 && std::string_view("eEfFgGn%").find(t) == std::string_view::npos) {
    *error = UnknownCode(t, "float");
    return std::nullopt;
  }
  bool negative = std::signbit(v) && !std::isnan(v);
  double mag = std::fabs(v);
  if (t == '%') mag *= 100;
  const int p = static_cast<int>(spec.precision < 0 ? 6 : spec.precision);
  std::string body;
  if (t == 0 && spec.precision < 0) {
    body = Repr(Value::Float(mag));
  } else if (t == 0 || t == 'g' || t == 'G' || t == 'n') {
    body = Printf(spec.alternate ? "%#.*g" : "%.*g", p == 0 ? 1 : p, mag);
    if (t == 0 && std::isfinite(mag) && body.find_first_of(".e") == std::string::npos) {
      body += ".0";  // the repr-like default keeps a digit past the point
    }
  } else {  // e, E, f, F, %: the upper-case types are upper-cased below
    const char conv = t == '%' ? 'f' : static_cast<char>(std::tolower(t));
    body = Printf((std::string(spec.alternate ? "%#.*" : "%.*") + conv).c_str(), p, mag);
  }
  if (t == 'G' || t == 'E' || t == 'F') {
    for (char& c : body) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  if (t == '%') body += '%';
  if (spec.no_neg_zero && negative && std::stod(body) == 0) negative = false;
  if (spec.grouping) body = Group(body, spec.grouping, 3);
  return Pad(spec, SignOf(spec, negative), body, '>');
}

std::optional<std::string> FormatInt(int64_t v, const Spec& spec, std::string* error) {
  const char t = spec.type;
  if (t != 0 && std::string_view("eEfFgG%").find(t) != std::string_view::npos) {
    return FormatFloat(static_cast<double>(v), spec, error);
  }
  if (t != 0 && std::string_view("bcdoxXn").find(t) == std::string_view::npos) {
    *error = UnknownCode(t, "int");
    return std::nullopt;
  }
  if (spec.precision >= 0) {
    *error = "Precision not allowed in integer format specifier";
    return std::nullopt;
  }
  if (t == 'c') {
    if (v < 0 || v > 0x10FFFF) {
      *error = "%c arg not in range(0x110000)";
      return std::nullopt;
    }
    std::string body;
    const auto cp = static_cast<uint32_t>(v);
    if (cp < 0x80) {
      body.push_back(static_cast<char>(cp));
    } else {  // the UTF-8 encoding, as Python's str of that code point
      int n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      body.push_back(static_cast<char>((0xF00 >> n) | (cp >> (6 * (n - 1)))));
      for (int k = n - 2; k >= 0; --k)
        body.push_back(static_cast<char>(0x80 | ((cp >> (6 * k)) & 0x3F)));
    }
    return Pad(spec, "", body, '<');
  }
  const bool negative = v < 0;
  uint64_t mag = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const int base = t == 'b' ? 2 : t == 'o' ? 8 : (t == 'x' || t == 'X') ? 16 : 10;
  const char* digits = t == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string body;
  do {
    body.insert(body.begin(), digits[mag % base]);
    mag /= base;
  } while (mag != 0);
  if (spec.grouping) body = Group(body, spec.grouping, base == 10 ? 3 : 4);
  std::string prefix;
  if (spec.alternate && base != 10) prefix = std::string("0") + (t == 'X' ? 'X' : t);
  return Pad(spec, SignOf(spec, negative) + prefix, body, '>');
}

std::optional<std::string> FormatString(const std::string& s, const Spec& spec,
                                        std::string* error) {
  if (spec.type != 0 && spec.type != 's') {
    *error = UnknownCode(spec.type, "str");
    return std::nullopt;
  }
  if (spec.sign != 0) {
    *error = "Sign not allowed in string format specifier";
    return std::nullopt;
  }
  if (spec.align == '=') {
    *error = "'=' alignment not allowed in string format specifier";
    return std::nullopt;
  }
  std::string body = s;
  if (spec.precision >= 0) {  // keeps `precision` code points
    size_t n = 0, cut = 0;
    for (; cut < body.size(); ++cut) {
      if ((static_cast<unsigned char>(body[cut]) & 0xC0) == 0x80) continue;
      if (n == static_cast<size_t>(spec.precision)) break;
      ++n;
    }
    body.resize(cut);
  }
  return Pad(spec, "", body, '<');
}

}  // namespace

std::optional<std::string> FormatHostValue(const Value& v, std::string_view spec_text,
                                           std::string* error) {
  if (spec_text.empty()) return v.kind == ValueKind::kString ? v.text : Repr(v);
  Spec spec;
  if (!ParseSpec(spec_text, &spec, error)) return std::nullopt;
  switch (v.kind) {
    case ValueKind::kInt:
    case ValueKind::kBool:  // a bool with a spec formats as its int, as in Python
      return FormatInt(IntOf(v), spec, error);
    case ValueKind::kFloat:
      return FormatFloat(v.f, spec, error);
    case ValueKind::kString:
      return FormatString(v.text, spec, error);
    default:
      *error = "unsupported format string passed to " + std::string(TypeName(v)) + ".__format__";
      return std::nullopt;
  }
}

std::optional<Value> Evaluator::EvalJoinedStr(const Expr& e, const ScopePtr& scope) {
  std::string out;
  for (const ExprPtr& piece : e.elts) {
    if (piece->kind != ExprKind::kFormattedValue) {
      out += piece->string_value;
      continue;
    }
    auto v = Eval(*piece->left, scope);
    if (!v) return std::nullopt;
    if (v->IsRuntime()) {
      diag_->Error(piece->left->loc)
          << "an f-string field must be a host value; this one is only known on the device";
      return std::nullopt;
    }
    if (!piece->name.empty()) {  // !r and !a are repr (host strings are ASCII here), !s str
      *v = Value::Str(piece->name == "s" && v->kind == ValueKind::kString ? v->text : Repr(*v));
    }
    std::string spec;
    if (piece->right) {
      auto s = EvalJoinedStr(*piece->right, scope);
      if (!s) return std::nullopt;
      spec = std::move(s->text);
    }
    std::string error;
    auto text = FormatHostValue(*v, spec, &error);
    if (!text) {
      diag_->Error(piece->loc) << error;
      return std::nullopt;
    }
    if (!budget().Reserve(out.size() + text->size(), piece->loc, diag_)) return std::nullopt;
    out += *text;
  }
  return Value::Str(std::move(out));
}

}  // namespace tilejit::frontend
