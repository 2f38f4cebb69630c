// SPDX-License-Identifier: Apache-2.0
// Every field is length-prefixed (Sha256::UpdateField), so no two different field tuples can
// produce the same byte stream; index lists are encoded as decimal text joined by commas.
#include "compiler/key.h"

#include <set>

#include "common/sha256.h"
#include "compiler/ir/hash.h"

namespace tilejit::compiler {

namespace {

std::string JoinIndices(const std::vector<int>& idx) {
  std::string out;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(idx[i]);
  }
  return out;
}

}  // namespace

std::string ComputeCacheKey(const KeyInputs& in) {
  Sha256 h;
  h.UpdateField("tilejit-key-v" + std::to_string(kKeySchemaVersion));
  h.UpdateField(in.compiler_fingerprint);
  h.UpdateField(in.target_hash);
  h.UpdateField(in.ir_hash);
  h.UpdateField(in.pass_configs.canonical);
  h.UpdateField(JoinIndices(in.out_idx));
  h.UpdateField(JoinIndices(in.workspace_idx));
  return ToHex(h.Finish());
}

std::string ComputeCacheKey(const ir::Kernel& kernel, std::string compiler_fingerprint,
                            std::string target_hash, const NormalizedPassConfigs& configs) {
  KeyInputs in;
  in.compiler_fingerprint = std::move(compiler_fingerprint);
  in.target_hash = std::move(target_hash);
  in.ir_hash = ir::IrHash(kernel);
  in.pass_configs = configs;
  in.out_idx = kernel.out_idx;
  in.workspace_idx = kernel.workspace_idx;
  return ComputeCacheKey(in);
}

Result<std::vector<int>> NormalizeParamIndices(const std::vector<int>& indices, int num_params,
                                               std::string_view what) {
  std::vector<int> out;
  std::set<int> seen;
  for (int i : indices) {
    int n = i < 0 ? i + num_params : i;
    if (n < 0 || n >= num_params) {
      return InvalidArgument(std::string(what) + " index " + std::to_string(i) +
                             " is out of range for " + std::to_string(num_params) + " params");
    }
    if (!seen.insert(n).second) {
      return InvalidArgument(std::string(what) + " lists param " + std::to_string(n) + " twice");
    }
    out.push_back(n);
  }
  return out;
}

}  // namespace tilejit::compiler
