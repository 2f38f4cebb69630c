// SPDX-License-Identifier: Apache-2.0
// Symbolic shapes: validation of symbols, dim_symbols and the grid program, and the grid
// evaluator. The evaluator and the validator share one token parser so that a program the
// validator accepts is exactly one the evaluator can run: after validation, only the values
// (division by zero, overflow) can make a launch's evaluation fail.
#include <charconv>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "compiler/target/kernel_metadata.h"
#include "compiler/target/kernel_symbols_check.h"

namespace tilejit::target {
namespace {

enum class GridOp : uint8_t { kConst, kSymbol, kAdd, kSub, kMul, kFloorDiv, kFloorMod, kMin, kMax };

struct GridToken {
  GridOp op = GridOp::kConst;
  int64_t value = 0;  // the constant, or the symbol index
};

// A decimal int64 in its one spelling (what std::to_string prints): no '+', no leading zeros,
// no "-0".
bool ParseCanonicalInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && std::to_string(*out) == s;
}

Result<GridToken> ParseToken(const std::string& t, size_t index, size_t num_symbols) {
  static constexpr std::pair<std::string_view, GridOp> kOps[] = {
      {"+", GridOp::kAdd},       {"-", GridOp::kSub},      {"*", GridOp::kMul},
      {"//", GridOp::kFloorDiv}, {"%", GridOp::kFloorMod}, {"min", GridOp::kMin},
      {"max", GridOp::kMax}};
  for (const auto& [name, op] : kOps) {
    if (t == name) return GridToken{op, 0};
  }
  const std::string where = "grid token " + std::to_string(index) + " ('" + t + "')";
  int64_t v = 0;
  if (!t.empty() && t[0] == 'c') {
    if (!ParseCanonicalInt(std::string_view(t).substr(1), &v)) {
      return InvalidArgument(where + " is not a canonical int64 constant");
    }
    return GridToken{GridOp::kConst, v};
  }
  if (!t.empty() && t[0] == 's') {
    if (!ParseCanonicalInt(std::string_view(t).substr(1), &v) || v < 0) {
      return InvalidArgument(where + " is not a canonical symbol index");
    }
    if (static_cast<uint64_t>(v) >= num_symbols) {
      return InvalidArgument(where + " refers to symbol " + std::to_string(v) + " but there are " +
                             std::to_string(num_symbols));
    }
    return GridToken{GridOp::kSymbol, v};
  }
  return InvalidArgument(where + " is not a grid token");
}

// Parses every token and checks the stack discipline (each operator has two operands; exactly
// one value is left).
Result<std::vector<GridToken>> ParseGrid(std::span<const std::string> grid, size_t num_symbols) {
  if (grid.size() > kMaxGridTokens) {
    return InvalidArgument("grid has more than " + std::to_string(kMaxGridTokens) + " tokens");
  }
  std::vector<GridToken> tokens;
  size_t depth = 0;
  for (size_t i = 0; i < grid.size(); ++i) {
    TILEJIT_ASSIGN_OR_RETURN(GridToken t, ParseToken(grid[i], i, num_symbols));
    if (t.op == GridOp::kConst || t.op == GridOp::kSymbol) {
      ++depth;
    } else if (depth < 2) {
      return InvalidArgument("grid token " + std::to_string(i) + " ('" + grid[i] +
                             "') has fewer than two operands");
    } else {
      --depth;
    }
    tokens.push_back(t);
  }
  if (depth != 1) {
    return InvalidArgument("grid program leaves " + std::to_string(depth) +
                           " values instead of one");
  }
  return tokens;
}

Result<int64_t> Apply(GridOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  bool overflow = false;
  switch (op) {
    case GridOp::kAdd:
      overflow = __builtin_add_overflow(a, b, &r);
      break;
    case GridOp::kSub:
      overflow = __builtin_sub_overflow(a, b, &r);
      break;
    case GridOp::kMul:
      overflow = __builtin_mul_overflow(a, b, &r);
      break;
    case GridOp::kFloorDiv:
    case GridOp::kFloorMod:
      if (b == 0) return InvalidArgument("grid program divides by zero");
      if (b == -1) {  // a / -1 overflows for INT64_MIN; a % -1 is 0
        if (op == GridOp::kFloorMod) return int64_t{0};
        overflow = __builtin_sub_overflow(int64_t{0}, a, &r);
        break;
      }
      r = op == GridOp::kFloorDiv ? a / b : a % b;
      if (a % b != 0 && ((a < 0) != (b < 0))) r = op == GridOp::kFloorDiv ? r - 1 : r + b;
      break;
    case GridOp::kMin:
      r = std::min(a, b);
      break;
    case GridOp::kMax:
      r = std::max(a, b);
      break;
    default:
      return Internal("grid operator expected");
  }
  if (overflow) return InvalidArgument("grid program overflows int64");
  return r;
}

}  // namespace

Status CheckGridProgram(std::span<const std::string> grid, size_t num_symbols) {
  if (grid.empty()) return Status::Ok();
  return ParseGrid(grid, num_symbols).status();
}

Result<int64_t> EvaluateGridProgram(std::span<const std::string> grid,
                                    std::span<const int64_t> symbols) {
  TILEJIT_ASSIGN_OR_RETURN(std::vector<GridToken> tokens, ParseGrid(grid, symbols.size()));
  std::vector<int64_t> stack;
  for (const GridToken& t : tokens) {
    if (t.op == GridOp::kConst || t.op == GridOp::kSymbol) {
      stack.push_back(t.op == GridOp::kConst ? t.value : symbols[t.value]);
      continue;
    }
    const int64_t b = stack.back();
    stack.pop_back();
    TILEJIT_ASSIGN_OR_RETURN(stack.back(), Apply(t.op, stack.back(), b));
  }
  return stack.back();  // ParseGrid guarantees exactly one value
}

void NormalizeDimSymbols(KernelParam& p) {
  for (int s : p.dim_symbols) {
    if (s != kStaticDim) return;
  }
  p.dim_symbols.clear();
}

namespace internal {
namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Status CheckSymbolsAndGrid(const KernelMetadata& m) {
  if (m.symbols.size() > kMaxSymbols) {
    return InvalidArgument("more than " + std::to_string(kMaxSymbols) + " symbols");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < m.symbols.size(); ++i) {
    const KernelSymbol& s = m.symbols[i];
    const std::string where = "symbol " + std::to_string(i);
    if (s.name.size() > kMaxStringBytes || !IsIdentifier(s.name)) {
      return InvalidArgument(where + " name '" + s.name.substr(0, 64) +
                             "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
    }
    if (!names.insert(s.name).second) {
      return InvalidArgument("symbol name '" + s.name + "' is used twice");
    }
    if (s.max < 0 || s.max > std::numeric_limits<int32_t>::max()) {
      return InvalidArgument(where + " ('" + s.name + "') has max " + std::to_string(s.max) +
                             ", outside [0, 2147483647]");
    }
  }
  if (m.grid.empty()) {
    if (m.block_count < 1 || m.block_count > kMaxBlockCount) {
      return InvalidArgument("block count " + std::to_string(m.block_count) + " is out of range");
    }
    return Status::Ok();
  }
  if (m.block_count != 0) {
    return InvalidArgument("block count " + std::to_string(m.block_count) +
                           " with a symbolic grid (it must be 0)");
  }
  return CheckGridProgram(m.grid, m.symbols.size());
}

Status CheckDimSymbols(const KernelMetadata& m, size_t index, const std::string& where) {
  const KernelParam& p = m.params[index];
  if (p.dim_symbols.empty()) return Status::Ok();
  if (p.dim_symbols.size() != p.shape.size()) {
    return InvalidArgument(where + " has " + std::to_string(p.dim_symbols.size()) +
                           " dim_symbols for rank " + std::to_string(p.shape.size()));
  }
  bool any_symbolic = false;
  for (size_t d = 0; d < p.dim_symbols.size(); ++d) {
    const int s = p.dim_symbols[d];
    const std::string dim = where + " dim " + std::to_string(d);
    if (s == kStaticDim) continue;
    any_symbolic = true;
    if (s == kBlockCountDim) {
      if (d != 0 || !p.compiler_workspace || m.grid.empty()) {
        return InvalidArgument(dim +
                               " is the block count, which only dim 0 of a compiler workspace "
                               "of a kernel with a symbolic grid may be");
      }
    } else if (s < 0 || static_cast<size_t>(s) >= m.symbols.size()) {
      return InvalidArgument(dim + " refers to symbol " + std::to_string(s) + " but there are " +
                             std::to_string(m.symbols.size()));
    }
    if (p.shape[d] != 0) {
      return InvalidArgument(dim + " is not static but its shape entry is " +
                             std::to_string(p.shape[d]) + " (must be 0)");
    }
  }
  if (!any_symbolic) {
    return InvalidArgument(where + " has dim_symbols with every dim static (write [])");
  }
  return Status::Ok();
}

Status CheckSymbolsBound(const KernelMetadata& m) {
  std::vector<bool> bound(m.symbols.size(), false);
  for (const KernelParam& p : m.params) {
    if (p.role != ParamRole::kInput) continue;
    for (int s : p.dim_symbols) {
      if (s >= 0 && static_cast<size_t>(s) < bound.size()) bound[s] = true;
    }
  }
  for (size_t i = 0; i < bound.size(); ++i) {
    if (!bound[i]) {
      return InvalidArgument("symbol " + std::to_string(i) + " ('" + m.symbols[i].name +
                             "') is not the extent of any dim of an input param");
    }
  }
  return Status::Ok();
}

}  // namespace internal
}  // namespace tilejit::target
