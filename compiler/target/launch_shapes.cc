// SPDX-License-Identifier: Apache-2.0
// Binding happens in two passes: the given tensors bind the symbols (and are checked against
// the static dims), then every param's concrete shape is derived from the symbols and the
// block count. Dims that are the block count can only be compared in the second pass, because
// the block count depends on every symbol. Symbols remember the tensor that bound them, so a
// conflict names both tensors: the caller sees which two disagree, not only that one is wrong.
#include "compiler/target/launch_shapes.h"

#include <limits>
#include <string>

namespace tilejit::target {
namespace {

struct Binder {
  const KernelMetadata& m;
  LaunchShapes out;
  std::vector<bool> bound;
};

std::string DimText(const KernelMetadata& m, SymbolSource s) {
  return m.params[s.param].name + " (dim " + std::to_string(s.dim) + ")";
}

int DimSymbol(const KernelParam& p, size_t d) {
  return p.dim_symbols.empty() ? kStaticDim : p.dim_symbols[d];
}

Status BindSymbol(Binder& b, int symbol, int64_t value, SymbolSource at) {
  const KernelSymbol& sym = b.m.symbols[symbol];
  const std::string here =
      "symbol " + sym.name + " is " + std::to_string(value) + " from " + DimText(b.m, at);
  if (value < 0) return InvalidArgument(here + ", which is negative");
  if (value > sym.max) {
    return InvalidArgument(here + ", above its max " + std::to_string(sym.max));
  }
  if (!b.bound[symbol]) {
    b.bound[symbol] = true;
    b.out.symbols[symbol] = value;
    b.out.sources[symbol] = at;
    return Status::Ok();
  }
  if (b.out.symbols[symbol] != value) {
    return InvalidArgument("symbol " + sym.name + " is " + std::to_string(b.out.symbols[symbol]) +
                           " from " + DimText(b.m, b.out.sources[symbol]) + " but " +
                           std::to_string(value) + " from " + DimText(b.m, at));
  }
  return Status::Ok();
}

// First pass over one given tensor: rank, static dims, symbols.
Status BindGiven(Binder& b, const GivenShape& g) {
  const KernelParam& p = b.m.params[g.param];
  if (g.shape.size() != p.shape.size()) {
    return InvalidArgument(p.name + ": rank " + std::to_string(g.shape.size()) +
                           " but the kernel expects rank " + std::to_string(p.shape.size()));
  }
  for (size_t d = 0; d < g.shape.size(); ++d) {
    const int s = DimSymbol(p, d);
    if (s == kStaticDim && g.shape[d] != p.shape[d]) {
      return InvalidArgument(p.name + ": dim " + std::to_string(d) + " is " +
                             std::to_string(g.shape[d]) + " but the kernel was compiled for " +
                             std::to_string(p.shape[d]));
    }
    if (s >= 0) {
      TILEJIT_RETURN_IF_ERROR(BindSymbol(b, s, g.shape[d], {g.param, static_cast<int>(d)}));
    }
  }
  return Status::Ok();
}

// Second pass over one param: its concrete shape and size, and the checks that need them.
Status DeriveParam(Binder& b, size_t i, const GivenShape* given) {
  const KernelParam& p = b.m.params[i];
  std::vector<int64_t>& shape = b.out.shapes[i];
  for (size_t d = 0; d < p.shape.size(); ++d) {
    const int s = DimSymbol(p, d);
    shape.push_back(s == kStaticDim       ? p.shape[d]
                    : s == kBlockCountDim ? b.out.block_count
                                          : b.out.symbols[s]);
    if (given != nullptr && given->shape[d] != shape[d]) {  // only block-count dims remain
      return InvalidArgument(p.name + ": dim " + std::to_string(d) + " is " +
                             std::to_string(given->shape[d]) + " but the launch has " +
                             std::to_string(shape[d]) + " blocks");
    }
  }
  auto bytes = ShapeSizeBytes(p.dtype, shape);
  if (!bytes.ok()) return bytes.status().WithContext(p.name);
  b.out.bytes[i] = *bytes;
  const int64_t blocks = b.out.block_count;
  if (p.compiler_workspace && blocks > 0 && p.workspace_bytes_per_block > *bytes / blocks) {
    return InvalidArgument(p.name + ": " + std::to_string(blocks) + " blocks of " +
                           std::to_string(p.workspace_bytes_per_block) +
                           " bytes do not fit in its " + std::to_string(*bytes) + " bytes");
  }
  if (__builtin_add_overflow(b.out.total_bytes, *bytes, &b.out.total_bytes)) {
    return InvalidArgument("the launch's tensors total more than 2^63 bytes");
  }
  return Status::Ok();
}

// Indexes `given` by param, rejecting bad and repeated params and missing inputs.
Result<std::vector<const GivenShape*>> IndexGiven(const KernelMetadata& m,
                                                  std::span<const GivenShape> given) {
  std::vector<const GivenShape*> of(m.params.size(), nullptr);
  for (const GivenShape& g : given) {
    if (g.param < 0 || static_cast<size_t>(g.param) >= m.params.size()) {
      return InvalidArgument("a shape for param " + std::to_string(g.param) + ", but kernel '" +
                             m.kernel_name + "' has " + std::to_string(m.params.size()));
    }
    if (of[g.param] != nullptr) {
      return InvalidArgument(m.params[g.param].name + ": shape given twice");
    }
    of[g.param] = &g;
  }
  for (size_t i = 0; i < m.params.size(); ++i) {
    if (m.params[i].role == ParamRole::kInput && of[i] == nullptr) {
      return InvalidArgument(m.params[i].name + ": input not given");
    }
  }
  return of;
}

}  // namespace

Result<LaunchShapes> BindLaunchShapes(const KernelMetadata& m, std::span<const GivenShape> given) {
  TILEJIT_ASSIGN_OR_RETURN(std::vector<const GivenShape*> given_of, IndexGiven(m, given));
  Binder b{m, {}, std::vector<bool>(m.symbols.size(), false)};
  b.out.symbols.assign(m.symbols.size(), 0);
  b.out.sources.assign(m.symbols.size(), {});
  for (const GivenShape& g : given) TILEJIT_RETURN_IF_ERROR(BindGiven(b, g));
  for (size_t j = 0; j < m.symbols.size(); ++j) {
    if (!b.bound[j]) {  // impossible for valid metadata: inputs bind every symbol
      return InvalidArgument("symbol " + m.symbols[j].name + " is not bound by any given tensor");
    }
  }
  TILEJIT_ASSIGN_OR_RETURN(b.out.block_count, LaunchBlockCount(m, b.out.symbols));
  b.out.shapes.resize(m.params.size());
  b.out.bytes.resize(m.params.size());
  for (size_t i = 0; i < m.params.size(); ++i) {
    TILEJIT_RETURN_IF_ERROR(DeriveParam(b, i, given_of[i]));
  }
  return std::move(b.out);
}

Result<LaunchShapes> BindInputShapes(const KernelMetadata& m,
                                     std::span<const std::vector<int64_t>> input_shapes) {
  std::vector<GivenShape> given;
  for (size_t i = 0; i < m.params.size(); ++i) {
    if (m.params[i].role != ParamRole::kInput) continue;
    if (given.size() == input_shapes.size()) break;
    given.push_back({static_cast<int>(i), input_shapes[given.size()]});
  }
  size_t inputs = 0;
  for (const KernelParam& p : m.params) inputs += p.role == ParamRole::kInput;
  if (input_shapes.size() != inputs) {
    return InvalidArgument("kernel '" + m.kernel_name + "' takes " + std::to_string(inputs) +
                           " inputs, " + std::to_string(input_shapes.size()) + " given");
  }
  return BindLaunchShapes(m, given);
}

Result<int64_t> LaunchBlockCount(const KernelMetadata& m, std::span<const int64_t> symbols) {
  if (symbols.size() != m.symbols.size()) {
    return InvalidArgument("the launch has " + std::to_string(symbols.size()) +
                           " symbol values for " + std::to_string(m.symbols.size()) + " symbols");
  }
  if (m.grid.empty()) return m.block_count;
  auto n = EvaluateGridProgram(m.grid, symbols);
  if (!n.ok()) return n.status().WithContext("block count (" + SymbolBindingText(m, symbols) + ")");
  if (*n < 0 || *n > kMaxBlockCount) {
    return InvalidArgument("block count " + std::to_string(*n) + " (" +
                           SymbolBindingText(m, symbols) + ") is outside [0, " +
                           std::to_string(kMaxBlockCount) + "]");
  }
  return *n;
}

Result<std::vector<uint64_t>> LaunchArgs(const KernelMetadata& m, const LaunchShapes& shapes,
                                         std::span<const uint64_t> param_addresses) {
  if (param_addresses.size() != m.params.size() || shapes.symbols.size() != m.symbols.size()) {
    return InvalidArgument("LaunchArgs: " + std::to_string(param_addresses.size()) +
                           " addresses and " + std::to_string(shapes.symbols.size()) +
                           " symbol values for a kernel with " + std::to_string(m.params.size()) +
                           " params and " + std::to_string(m.symbols.size()) + " symbols");
  }
  std::vector<uint64_t> args(param_addresses.begin(), param_addresses.end());
  for (int64_t v : shapes.symbols) args.push_back(static_cast<uint64_t>(v));
  return args;
}

std::string SymbolBindingText(const KernelMetadata& m, std::span<const int64_t> symbols) {
  std::string s;
  for (size_t j = 0; j < m.symbols.size() && j < symbols.size(); ++j) {
    s += (j ? ", " : "") + m.symbols[j].name + "=" + std::to_string(symbols[j]);
  }
  return s;
}

}  // namespace tilejit::target
