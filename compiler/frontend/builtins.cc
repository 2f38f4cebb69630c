// SPDX-License-Identifier: Apache-2.0
// The name tables. Unsupported names are listed too, so that a kernel using a real TileLang
// construct hears "T.use_swizzle is not supported yet" rather than "unknown name".
#include "compiler/frontend/builtins.h"

#include <array>
#include <utility>

#include "compiler/pass_config.h"

namespace tilejit::frontend {
namespace {

using C = BuiltinClass;

constexpr std::array<std::pair<std::string_view, C>, 70> kLanguage = {{
    {"ceildiv", C::kHost},
    {"min", C::kHost},
    {"max", C::kHost},
    {"if_then_else", C::kHost},
    {"infinity", C::kHost},
    {"cast", C::kHost},
    {"exp", C::kHost},
    {"log", C::kHost},
    {"sqrt", C::kHost},
    {"rsqrt", C::kHost},
    {"abs", C::kHost},
    {"And", C::kHost},
    {"Or", C::kHost},
    {"float16", C::kHost},
    {"float32", C::kHost},
    {"bfloat16", C::kHost},
    {"int8", C::kHost},
    {"int16", C::kHost},
    {"int32", C::kHost},
    {"int64", C::kHost},
    {"uint8", C::kHost},
    {"uint16", C::kHost},
    {"uint32", C::kHost},
    {"uint64", C::kHost},
    {"bool", C::kHost},
    {"Kernel", C::kStatement},
    {"Scope", C::kStatement},
    {"serial", C::kStatement},
    {"Pipelined", C::kStatement},
    {"Parallel", C::kStatement},
    {"copy", C::kStatement},
    {"gemm_v0", C::kStatement},
    {"mma", C::kStatement},
    {"alloc_shared", C::kStatement},
    {"alloc_fragment", C::kStatement},
    {"alloc_L1", C::kStatement},
    {"alloc_L0A", C::kStatement},
    {"alloc_L0B", C::kStatement},
    {"alloc_L0C", C::kStatement},
    {"alloc_ub", C::kStatement},
    {"alloc_var", C::kStatement},
    {"reduce_sum", C::kStatement},
    {"reduce_max", C::kStatement},
    {"reduce_min", C::kStatement},
    {"barrier_all", C::kStatement},
    {"pipe_barrier", C::kStatement},
    {"set_flag", C::kStatement},
    {"wait_flag", C::kStatement},
    {"set_cross_flag", C::kStatement},
    {"wait_cross_flag", C::kStatement},
    {"annotate_address", C::kStatement},
    {"Tensor", C::kStatement},
    {"Buffer", C::kStatement},
    {"prim_func", C::kDecorator},
    {"macro", C::kDecorator},
    {"symbolic", C::kUnsupported},
    {"Persistent", C::kUnsupported},
    {"use_swizzle", C::kUnsupported},
    {"annotate_layout", C::kUnsupported},
    {"func_attr", C::kUnsupported},
    {"printf", C::kUnsupported},
    {"dump_tensor", C::kUnsupported},
    {"sync_all", C::kUnsupported},
    {"unroll", C::kUnsupported},
    {"grid", C::kUnsupported},
    {"vectorized", C::kUnsupported},
    {"gemm", C::kUnsupported},
    {"init_flag", C::kUnsupported},
    {"clear_flag", C::kUnsupported},
    {"reinterpretcast", C::kUnsupported},
}};

constexpr std::array<std::pair<std::string_view, C>, 44> kTile = {{
    {"fill", C::kStatement},
    {"clear", C::kStatement},
    {"add", C::kStatement},
    {"sub", C::kStatement},
    {"mul", C::kStatement},
    {"div", C::kStatement},
    {"max", C::kStatement},
    {"min", C::kStatement},
    {"exp", C::kStatement},
    {"ln", C::kStatement},
    {"sqrt", C::kStatement},
    {"rsqrt", C::kStatement},
    {"reciprocal", C::kStatement},
    {"abs", C::kStatement},
    {"relu", C::kStatement},
    {"sigmoid", C::kStatement},
    {"cast", C::kStatement},
    {"broadcast", C::kStatement},
    {"compare", C::kStatement},
    {"select", C::kStatement},
    {"axpy", C::kStatement},
    {"bitwise_and", C::kUnsupported},
    {"bitwise_or", C::kUnsupported},
    {"bitwise_not", C::kUnsupported},
    {"bitwise_lshift", C::kUnsupported},
    {"bitwise_rshift", C::kUnsupported},
    {"silu", C::kUnsupported},
    {"sin", C::kUnsupported},
    {"cos", C::kUnsupported},
    {"leaky_relu", C::kUnsupported},
    {"mul_add_dst", C::kUnsupported},
    {"gather", C::kUnsupported},
    {"gather_mask", C::kUnsupported},
    {"createvecindex", C::kUnsupported},
    {"arith_progression", C::kUnsupported},
    {"transpose", C::kUnsupported},
    {"sort", C::kUnsupported},
    {"topk", C::kUnsupported},
    {"brcb", C::kUnsupported},
    {"round", C::kUnsupported},
    {"pow", C::kUnsupported},
    {"clamp", C::kUnsupported},
    {"atomic_add", C::kUnsupported},
    {"bitwise_xor", C::kUnsupported},
}};

template <typename Table>
std::optional<C> Find(const Table& table, std::string_view name) {
  for (const auto& [n, c] : table) {
    if (n == name) return c;
  }
  return std::nullopt;
}

constexpr std::string_view kLang = "tilelang.language";
constexpr std::string_view kTileMod = "tilelang.language.tile";

}  // namespace

std::optional<BuiltinInfo> ResolveModuleMember(std::string_view module, std::string_view attr) {
  const auto make = [](std::string qualified, C c) { return BuiltinInfo{std::move(qualified), c}; };
  if (module == kLang) {
    if (auto c = Find(kLanguage, attr)) return make("T." + std::string(attr), *c);
    return std::nullopt;
  }
  if (module == kTileMod) {
    if (auto c = Find(kTile, attr)) return make("T.tile." + std::string(attr), *c);
    return std::nullopt;
  }
  if (module == "tilelang") {
    if (attr == "jit") return make("tilelang.jit", C::kDecorator);
    if (attr == "PassConfigKey") return make("tilelang.PassConfigKey", C::kHost);
    if (attr == "cdiv") return make("T.ceildiv", C::kHost);
    if (attr == "compile" || attr == "lower")
      return make("tilelang." + std::string(attr), C::kUnsupported);
    return std::nullopt;
  }
  if (module == "tvm" || module == "tvm.tir" || module == "tilelang.tvm") {
    if (attr == "DataType") return make("DataType", C::kHost);
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> ResolveSubmodule(std::string_view module, std::string_view attr) {
  if (module == "tilelang" && attr == "language") return std::string(kLang);
  if (module == kLang && attr == "tile") return std::string(kTileMod);
  if (module == "tvm" && attr == "tir") return std::string("tvm.tir");
  if (module == "tilelang" && attr == "tvm") return std::string("tilelang.tvm");
  return std::nullopt;
}

std::optional<BuiltinClass> ClassifyBuiltin(std::string_view name) {
  if (name.substr(0, 7) == "T.tile.") return Find(kTile, name.substr(7));
  if (name.substr(0, 2) == "T.") return Find(kLanguage, name.substr(2));
  if (name == "tilelang.jit") return C::kDecorator;
  if (name == "range") return C::kStatement;
  if (name == "tilelang.compile" || name == "tilelang.lower") return C::kUnsupported;
  if (PythonBuiltin(name) || name == "tilelang.PassConfigKey") return C::kHost;
  return std::nullopt;
}

std::optional<std::string> PythonBuiltin(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kNames = {
      "range", "len", "min", "max", "abs", "int", "float", "bool", "str", "DataType", "print"};
  for (std::string_view n : kNames) {
    if (n == name) return std::string(name);
  }
  return std::nullopt;
}

std::optional<std::string> PassConfigKeyString(std::string_view enum_name) {
  // Only the enum spelling is an attribute of PassConfigKey; the canonical table lives with
  // the pass-config normaliser.
  if (enum_name.empty() || enum_name.find('.') != std::string_view::npos) return std::nullopt;
  return compiler::CanonicalPassConfigKey(enum_name);
}

bool IsKnownModule(std::string_view path) {
  return path == "tilelang" || path == kLang || path == kTileMod || path == "tvm" ||
         path == "tvm.tir" || path == "tilelang.tvm";
}

}  // namespace tilejit::frontend
