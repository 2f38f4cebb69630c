// SPDX-License-Identifier: Apache-2.0
// Pass configuration: the user's `pass_configs` normalised into typed switches.
//
// Keys are accepted in TileLang's enum spelling (`TL_ASCEND_AUTO_SYNC`, also written
// `tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC` or `PassConfigKey.TL_ASCEND_AUTO_SYNC`) and as
// the raw string (`tl.ascend_auto_sync`). Known keys:
//   tl.ascend_memory_planning       (TL_ASCEND_MEMORY_PLANNING)  bool, default false
//   tl.ascend_auto_cv_combine       (TL_ASCEND_AUTO_CV_COMBINE)  bool, default false
//   tl.ascend_auto_cross_core_sync  (TL_ASCEND_AUTO_CV_SYNC)     bool, default false
//   tl.ascend_auto_sync             (TL_ASCEND_AUTO_SYNC)        bool, default false
//   tilejit.auto_multi_buffer       (TILEJIT_AUTO_MULTI_BUFFER)  bool, default: follows
//                                                                memory planning
// TileLang keys with no effect on this target (tir.merge_static_smem, tl.disable_tma_lower,
// ...) are accepted, type-checked where their type is known, reported as ignored and left
// out of the canonical form (and so out of the cache key). Any other key is an error listing
// the known ones; a value of the wrong type is an error. When a key appears twice (in either
// spelling) the later entry wins, so callers merge "decorator, then request" by appending.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/result.h"

namespace tilejit::compiler {

using PassConfigValue = std::variant<bool, int64_t, double, std::string>;

struct PassConfigEntry {
  std::string key;
  PassConfigValue value;
};

// The switches the pipeline reads, all resolved.
struct PassConfigs {
  bool memory_planning = false;
  bool auto_cv_combine = false;
  bool auto_cv_sync = false;
  bool auto_sync = false;
  bool auto_multi_buffer = false;  // resolved: explicit value, else memory_planning

  bool operator==(const PassConfigs&) const = default;
};

struct NormalizedPassConfigs {
  PassConfigs configs;
  // Whether tilejit.auto_multi_buffer was given explicitly (for messages only; the canonical
  // form holds the resolved value, so "unset" and "set to the default" key the same).
  std::optional<bool> auto_multi_buffer_given;
  // Ignored keys in their canonical string spelling, sorted and unique.
  std::vector<std::string> ignored_keys;
  // Messages for combinations that compile but do not do what the user may expect
  // (CV_SYNC without CV_COMBINE has no effect).
  std::vector<std::string> warnings;
  // "key=value\n" for every known key, sorted by key: the cache key's pass-config field.
  std::string canonical;
};

Result<NormalizedPassConfigs> NormalizePassConfigs(const std::vector<PassConfigEntry>& entries);

// The canonical string spelling of a known or ignored key in any accepted spelling, or
// nullopt when nobody knows it.
std::optional<std::string> CanonicalPassConfigKey(std::string_view key);

// The known (non-ignored) keys, canonical spelling, sorted.
std::vector<std::string> KnownPassConfigKeys();

}  // namespace tilejit::compiler
