// SPDX-License-Identifier: Apache-2.0
// One table lists every key this target accepts, in both spellings, with its type; the
// normalisation is a lookup in it. Ignored keys stay in the table (rather than being
// silently dropped) so that a misspelt key is still an error.
#include "compiler/pass_config.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace tilejit::compiler {

namespace {

enum class KeyType { kBool, kInt, kString, kAny };

enum class Field { kNone, kMemoryPlanning, kCvCombine, kCvSync, kAutoSync, kMultiBuffer };

struct KeyInfo {
  std::string_view key;        // string spelling (canonical)
  std::string_view enum_name;  // PassConfigKey member
  KeyType type;
  Field field;  // kNone: accepted but ignored on this target
};

constexpr std::array<KeyInfo, 24> kKeys = {{
    {"tl.ascend_memory_planning", "TL_ASCEND_MEMORY_PLANNING", KeyType::kBool,
     Field::kMemoryPlanning},
    {"tl.ascend_auto_cv_combine", "TL_ASCEND_AUTO_CV_COMBINE", KeyType::kBool, Field::kCvCombine},
    {"tl.ascend_auto_cross_core_sync", "TL_ASCEND_AUTO_CV_SYNC", KeyType::kBool, Field::kCvSync},
    {"tl.ascend_auto_sync", "TL_ASCEND_AUTO_SYNC", KeyType::kBool, Field::kAutoSync},
    {"tilejit.auto_multi_buffer", "TILEJIT_AUTO_MULTI_BUFFER", KeyType::kBool, Field::kMultiBuffer},
    // TileLang/TVM keys with no effect on the Ascend target (tl_language.md section 3.2).
    {"tir.merge_static_smem", "TIR_MERGE_STATIC_SMEM", KeyType::kBool, Field::kNone},
    {"tir.disable_vectorize", "TIR_DISABLE_VECTORIZE", KeyType::kBool, Field::kNone},
    {"tl.disable_warp_specialized", "TL_DISABLE_WARP_SPECIALIZED", KeyType::kBool, Field::kNone},
    {"tl.disable_tma_lower", "TL_DISABLE_TMA_LOWER", KeyType::kBool, Field::kNone},
    {"tl.config_index_bitwidth", "TL_CONFIG_INDEX_BITWIDTH", KeyType::kInt, Field::kNone},
    {"tl.disable_safe_memory_legalize", "TL_DISABLE_SAFE_MEMORY_ACCESS", KeyType::kBool,
     Field::kNone},
    {"tl.disable_dynamic_tail_split", "TL_DISABLE_DYNAMIC_TAIL_SPLIT", KeyType::kBool,
     Field::kNone},
    {"tl.dynamic_alignment", "TL_DYNAMIC_ALIGNMENT", KeyType::kInt, Field::kNone},
    {"tl.debug_merge_shared_memory_allocations", "TL_DEBUG_MERGE_SHARED_MEMORY_ALLOCATIONS",
     KeyType::kBool, Field::kNone},
    {"tir.enable_equiv_terms_in_cse_tir", "TIR_ENABLE_EQUIV_TERMS_IN_CSE", KeyType::kBool,
     Field::kNone},
    {"tir.disable_cse_tir", "TIR_DISABLE_CSE", KeyType::kBool, Field::kNone},
    {"tir.disable_storage_rewrite", "TIR_DISABLE_STORAGE_REWRITE", KeyType::kBool, Field::kNone},
    {"tir.use_async_copy", "TIR_USE_ASYNC_COPY", KeyType::kBool, Field::kNone},
    {"tir.enable_debug", "TIR_ENABLE_DEBUG", KeyType::kBool, Field::kNone},
    {"tir.noalias", "TIR_NOALIAS", KeyType::kBool, Field::kNone},
    {"tir.add_lower_pass", "TIR_ADD_LOWER_PASS", KeyType::kAny, Field::kNone},
    {"cuda.kernels_output_dir", "CUDA_KERNELS_OUTPUT_DIR", KeyType::kString, Field::kNone},
    {"tl.Simplify", "TL_SIMPLIFY", KeyType::kAny, Field::kNone},
    {"tir.Simplify", "TIR_SIMPLIFY", KeyType::kAny, Field::kNone},
}};

const KeyInfo* FindKey(std::string_view key) {
  // "tilelang.PassConfigKey.TL_X" and "PassConfigKey.TL_X" name the enum member TL_X.
  constexpr std::string_view kEnumPrefix = "PassConfigKey.";
  size_t at = key.rfind(kEnumPrefix);
  std::string_view member =
      at == std::string_view::npos ? key : key.substr(at + kEnumPrefix.size());
  for (const KeyInfo& info : kKeys) {
    if (at == std::string_view::npos && info.key == key) return &info;
    if (info.enum_name == member) return &info;
  }
  return nullptr;
}

bool HasType(const PassConfigValue& v, KeyType t) {
  switch (t) {
    case KeyType::kBool:
      return std::holds_alternative<bool>(v);
    case KeyType::kInt:
      return std::holds_alternative<int64_t>(v);
    case KeyType::kString:
      return std::holds_alternative<std::string>(v);
    case KeyType::kAny:
      return true;
  }
  return false;
}

std::string_view TypeName(KeyType t) {
  switch (t) {
    case KeyType::kBool:
      return "a bool";
    case KeyType::kInt:
      return "an int";
    case KeyType::kString:
      return "a string";
    case KeyType::kAny:
      return "any value";
  }
  return "?";
}

std::string UnknownKeyMessage(std::string_view key) {
  std::string msg = "unknown pass config key '" + std::string(key) + "'; known keys:";
  for (const KeyInfo& info : kKeys) {
    msg += " " + std::string(info.key) + " (" + std::string(info.enum_name) + ")";
    if (info.field == Field::kNone) msg += " [ignored on this target]";
    msg += info.key == kKeys.back().key ? "" : ",";
  }
  return msg;
}

}  // namespace

std::optional<std::string> CanonicalPassConfigKey(std::string_view key) {
  const KeyInfo* info = FindKey(key);
  if (info == nullptr) return std::nullopt;
  return std::string(info->key);
}

std::vector<std::string> KnownPassConfigKeys() {
  std::vector<std::string> keys;
  for (const KeyInfo& info : kKeys) {
    if (info.field != Field::kNone) keys.emplace_back(info.key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

Result<NormalizedPassConfigs> NormalizePassConfigs(const std::vector<PassConfigEntry>& entries) {
  std::map<Field, bool> given;  // later entries overwrite earlier ones
  std::set<std::string> ignored;
  for (const PassConfigEntry& e : entries) {
    const KeyInfo* info = FindKey(e.key);
    if (info == nullptr) return InvalidArgument(UnknownKeyMessage(e.key));
    if (!HasType(e.value, info->type)) {
      return InvalidArgument("pass config '" + std::string(info->key) + "' must be " +
                             std::string(TypeName(info->type)));
    }
    if (info->field == Field::kNone) {
      ignored.insert(std::string(info->key));
    } else {
      given[info->field] = std::get<bool>(e.value);
    }
  }
  NormalizedPassConfigs out;
  auto get = [&](Field f) { return given.contains(f) && given[f]; };
  PassConfigs& c = out.configs;
  c.memory_planning = get(Field::kMemoryPlanning);
  c.auto_cv_combine = get(Field::kCvCombine);
  c.auto_cv_sync = get(Field::kCvSync);
  c.auto_sync = get(Field::kAutoSync);
  if (given.contains(Field::kMultiBuffer)) out.auto_multi_buffer_given = given[Field::kMultiBuffer];
  c.auto_multi_buffer = out.auto_multi_buffer_given.value_or(c.memory_planning);
  out.ignored_keys.assign(ignored.begin(), ignored.end());
  if (c.auto_cv_sync && !c.auto_cv_combine) {
    out.warnings.push_back(
        "TL_ASCEND_AUTO_CV_SYNC (tl.ascend_auto_cross_core_sync) has no effect without "
        "TL_ASCEND_AUTO_CV_COMBINE (tl.ascend_auto_cv_combine): cross-core flags are only "
        "inserted around the hand-offs that the cube/vector split creates");
  }

  std::map<std::string_view, bool> values = {
      {"tilejit.auto_multi_buffer", c.auto_multi_buffer},
      {"tl.ascend_auto_cross_core_sync", c.auto_cv_sync},
      {"tl.ascend_auto_cv_combine", c.auto_cv_combine},
      {"tl.ascend_auto_sync", c.auto_sync},
      {"tl.ascend_memory_planning", c.memory_planning},
  };
  for (const auto& [key, value] : values) {
    out.canonical += std::string(key) + (value ? "=true\n" : "=false\n");
  }
  return out;
}

}  // namespace tilejit::compiler
