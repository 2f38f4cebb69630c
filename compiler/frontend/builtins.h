// SPDX-License-Identifier: Apache-2.0
// The names the frontend knows: members of the `tilelang` and `tilelang.language` (T)
// modules, of `T.tile`, `tilelang.PassConfigKey`, and the Python builtins kernels use. One
// table, so that "unknown T.* name" diagnostics and the tracer's dispatch agree.
//
// Builtin values carry a qualified name: "T.copy", "T.tile.add", "tilelang.jit", "range".
// Stateless; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilejit::frontend {

enum class BuiltinClass : uint8_t {
  kHost,         // evaluable in expression context (T.ceildiv, T.max, DataType, len, ...)
  kStatement,    // only valid as a statement, with, for iterator or annotation (T.copy, ...)
  kDecorator,    // T.prim_func, T.macro, tilelang.jit
  kUnsupported,  // a real TileLang name this frontend does not support yet
};

struct BuiltinInfo {
  std::string name;  // qualified ("T.copy")
  BuiltinClass cls;
};

// The builtin a module member resolves to (`module` is a dotted path such as
// "tilelang.language"); nullopt for an unknown member. Sub-modules resolve through
// ResolveSubmodule.
std::optional<BuiltinInfo> ResolveModuleMember(std::string_view module, std::string_view attr);
// A sub-module path ("tilelang.language" for ("tilelang", "language")), or nullopt.
std::optional<std::string> ResolveSubmodule(std::string_view module, std::string_view attr);
// The class of a qualified builtin name; nullopt if unknown.
std::optional<BuiltinClass> ClassifyBuiltin(std::string_view name);
// Python builtins available by bare name ("range", "len", "DataType", ...).
std::optional<std::string> PythonBuiltin(std::string_view name);
// The key string of tilelang.PassConfigKey.<enum_name> ("tl.ascend_auto_sync"), or nullopt.
std::optional<std::string> PassConfigKeyString(std::string_view enum_name);
// True for the modules a kernel may use ("tilelang", "tilelang.language", ...).
bool IsKnownModule(std::string_view path);

}  // namespace tilejit::frontend
