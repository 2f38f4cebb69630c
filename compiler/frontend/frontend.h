// SPDX-License-Identifier: Apache-2.0
// The frontend's entry point: a compile request (kernel source, entry factory, arguments,
// optional overrides) -> the specialised Tile IR kernel, the decorator's settings merged with
// the request's, the normalised pass configs, diagnostics and the request's source map.
//
//   SourceManager sources;
//   DiagnosticEngine diag(&sources);
//   Result<FrontendResult> r = RunFrontend(request, &sources, &diag);
//   if (!r.ok()) std::cerr << diag.RenderAll();   // warnings are in diag either way
//
// Three input formats: TileLang Python (the factory is evaluated and its prim_func traced),
// canonical Tile IR text (parsed and verified; the format for clients that generate kernels)
// and a prim_func the client made by running its factory itself (client_values.h; the tilejit
// Python package), traced with the values it closes over.
//
// Thread safety: RunFrontend is reentrant; each call needs its own SourceManager and
// DiagnosticEngine. The result owns its IR (shared immutable nodes).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/source_loc.h"
#include "compiler/frontend/client_values.h"
#include "compiler/frontend/host_budget.h"
#include "compiler/frontend/value.h"
#include "compiler/ir/ir.h"
#include "compiler/pass_config.h"

namespace tilejit::frontend {

// The compiler fingerprint until the pass pipeline has its own (DESIGN.md section 3).
inline constexpr std::string_view kFrontendVersion = "tilejit-frontend/0.1.0";
inline constexpr std::string_view kDefaultTarget = "ascend910b2";

// kPrimFunc: a prim_func the client made itself (client_values.h); `files` and `functions`
// instead of `source`, `entry`, args, kwargs and globals.
enum class SourceFormat : uint8_t { kTileLang, kTileIr, kPrimFunc };

// What the kernel computes on: only cube work (AIC), only vector work (AIV), or both.
enum class KernelKind : uint8_t { kCubeOnly, kVectorOnly, kMixed };
std::string_view KernelKindName(KernelKind k);  // "cube", "vector", "mixed"

using NamedValues = std::vector<std::pair<std::string, Value>>;

struct FrontendRequest {
  std::string source;
  std::string file_name = "<source>";
  SourceFormat format = SourceFormat::kTileLang;
  std::string entry;  // the factory's name (ignored for tile_ir)
  // Typed host constants (Value::IsConstant()): ints, floats, strings, bools, None and
  // lists/tuples/dicts of them.
  std::vector<Value> args;
  NamedValues kwargs;
  NamedValues globals;  // module-level names the client resolved; they override the file's
  // Overrides of the decorator's settings.
  std::optional<std::vector<int>> out_idx;
  std::optional<std::vector<int>> workspace_idx;
  NamedValues pass_configs;  // merged per key over the decorator's; the request wins
  std::optional<std::string> target;
  // kPrimFunc: the client's files and its function table (functions[0] is the prim_func).
  std::vector<SourceFile> files;
  std::vector<ClientFunction> functions;
  // The bounds of the run (host_budget.h); none of them enters the cache key.
  HostLimits limits;
  HostBudget::Clock::time_point deadline = HostBudget::Clock::time_point::max();
  std::function<bool()> cancelled;  // may be null
};

struct FrontendResult {
  ir::Kernel kernel;  // out_idx / workspace_idx normalised, param roles set
  std::vector<int> out_idx;
  std::vector<int> workspace_idx;
  std::vector<compiler::PassConfigEntry> pass_configs;  // merged: decorator, then request
  compiler::NormalizedPassConfigs normalized_configs;
  std::vector<std::string> ignored_keys;  // pass-config keys with no effect here
  std::string target;                     // resolved target name
  KernelKind kind = KernelKind::kVectorOnly;
  // source_map[id] is the user-file location of the statement with canonical id `id`
  // (ir::StmtIdTable).
  std::vector<SourceLoc> source_map;
  std::string ir_text;  // ir::PrintKernel
  std::string ir_hash;  // ir::IrHash
};

// Runs the frontend. Registers the request's source in `sources`; every diagnostic (errors
// and warnings) goes to `diag`. On failure the status is kCompileError (the first error).
Result<FrontendResult> RunFrontend(const FrontendRequest& request, SourceManager* sources,
                                   DiagnosticEngine* diag);

// The cache key of a frontend result, with the frontend's version as the compiler fingerprint
// (until the pass pipeline exists) and the target description's hash.
std::string FrontendCacheKey(const FrontendResult& result);
// The same under a given compiler fingerprint (compiler.h CompilerFingerprint()).
std::string FrontendCacheKey(const FrontendResult& result, std::string_view compiler_fingerprint);

// The kernel kind of a traced kernel (by its tile ops and buffer scopes).
KernelKind ClassifyKernel(const ir::Kernel& kernel);

}  // namespace tilejit::frontend
