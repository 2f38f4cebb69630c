// SPDX-License-Identifier: Apache-2.0
#include "client/cli_values.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace tilejit::client {
namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

frontend::Value ParseCliValue(std::string_view text) {
  using frontend::Value;
  std::string s(text);
  std::string_view digits = text;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  if (AllDigits(digits)) {
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == 0) return Value::Int(v);
    return Value::Str(s);
  }
  std::string lower = Lower(text);
  if (lower == "true") return Value::Bool(true);
  if (lower == "false") return Value::Bool(false);
  if (lower == "none") return Value::None();
  // A float needs a digit and a '.', an exponent, or is inf/nan spelled out.
  bool has_digit = s.find_first_of("0123456789") != std::string::npos;
  bool floaty = s.find_first_of(".eE") != std::string::npos;
  if ((has_digit && floaty) || lower == "inf" || lower == "-inf" || lower == "nan") {
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != nullptr && *end == '\0' && !s.empty()) return Value::Float(v);
  }
  return Value::Str(s);
}

std::optional<std::pair<std::string, frontend::Value>> ParseNamedValue(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  return std::make_pair(std::string(text.substr(0, eq)), ParseCliValue(text.substr(eq + 1)));
}

}  // namespace tilejit::client
