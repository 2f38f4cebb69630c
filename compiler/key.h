// SPDX-License-Identifier: Apache-2.0
// The cache key of a compile (DESIGN.md section 3): SHA-256 over, each as a length-prefixed
// field, the key-schema version, the compiler fingerprint, the target description hash, the
// IR hash, the normalised pass configs and the normalised out_idx and workspace_idx.
// Callers compare keys for equality only; their values change whenever the fingerprint does.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/pass_config.h"

namespace tilejit::compiler {

// Bump when the set or encoding of key fields changes.
inline constexpr int kKeySchemaVersion = 1;

struct KeyInputs {
  // Version, build id and pipeline fingerprint; until the pipeline exists, the frontend's
  // version string.
  std::string compiler_fingerprint;
  // The target description's hash; until it exists, the target name ("ascend910b2").
  std::string target_hash;
  std::string ir_hash;  // ir::IrHash of the specialised kernel
  NormalizedPassConfigs pass_configs;
  std::vector<int> out_idx;  // normalised (NormalizeParamIndices)
  std::vector<int> workspace_idx;
};

// Lower-case hex SHA-256.
std::string ComputeCacheKey(const KeyInputs& inputs);

// The key of `kernel` (its IrHash, out_idx and workspace_idx) under the given fingerprint,
// target and configs.
std::string ComputeCacheKey(const ir::Kernel& kernel, std::string compiler_fingerprint,
                            std::string target_hash, const NormalizedPassConfigs& configs);

// Python-style indices into a param list of `num_params`: negatives count from the end.
// Errors on an index out of range or listed twice; keeps the caller's order.
Result<std::vector<int>> NormalizeParamIndices(const std::vector<int>& indices, int num_params,
                                               std::string_view what);

}  // namespace tilejit::compiler
