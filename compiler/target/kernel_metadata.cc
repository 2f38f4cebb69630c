// SPDX-License-Identifier: Apache-2.0
// Validation of the metadata schema. The JSON encoding lives in kernel_metadata_json.cc, the
// rules of symbolic shapes in kernel_symbols.cc.
#include "compiler/target/kernel_metadata.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <string>

#include "compiler/target/kernel_symbols_check.h"

namespace tilejit::target {

namespace {

constexpr std::array<std::string_view, 3> kRoleNames = {"input", "output", "workspace"};
constexpr std::array<std::string_view, 3> kCoreMixNames = {"cube", "vector", "mixed"};
constexpr std::array<std::string_view, 2> kPrintKindNames = {"printf", "dump"};
constexpr std::array<std::string_view, 6> kDumpMemories = {"gm", "l1", "l0a", "l0b", "l0c", "ub"};

template <typename E, size_t N>
std::optional<E> ParseByName(const std::array<std::string_view, N>& names, std::string_view s) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == s) return static_cast<E>(i);
  }
  return std::nullopt;
}

// Strings are restricted to printable ASCII so that the JSON encoding has exactly one
// spelling for each (no \u escapes, no UTF-8 normalisation questions).
Status CheckString(std::string_view what, const std::string& s, bool allow_empty) {
  if (s.empty() && !allow_empty) return InvalidArgument(std::string(what) + " is empty");
  if (s.size() > kMaxStringBytes) {
    return InvalidArgument(std::string(what) + " is longer than " +
                           std::to_string(kMaxStringBytes) + " bytes");
  }
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) {
      return InvalidArgument(std::string(what) + " contains a non-printable or non-ASCII byte");
    }
  }
  return Status::Ok();
}

// A printf format: printable ASCII plus newline and tab (the JSON escapes them one way).
Status CheckFormat(std::string_view what, const std::string& s) {
  if (s.size() > kMaxStringBytes) {
    return InvalidArgument(std::string(what) + " is longer than " +
                           std::to_string(kMaxStringBytes) + " bytes");
  }
  for (char c : s) {
    if ((c < 0x20 || c > 0x7e) && c != '\n' && c != '\t') {
      return InvalidArgument(std::string(what) +
                             " contains a byte other than printable ASCII, "
                             "newline and tab");
    }
  }
  return Status::Ok();
}

Status CheckPrint(const PrintRecord& r, size_t index) {
  const std::string where = "print record " + std::to_string(index);
  if (r.kind == PrintKind::kPrintf) {
    TILEJIT_RETURN_IF_ERROR(CheckFormat(where + " format", r.format));
    if (r.args.size() > kMaxPrintArgs) {
      return InvalidArgument(where + " has more than " + std::to_string(kMaxPrintArgs) +
                             " arguments");
    }
    if (!r.memory.empty() || r.count != 0 || r.desc != 0 || !r.shape.empty()) {
      return InvalidArgument(where + " is a printf with dump fields");
    }
    return Status::Ok();
  }
  if (!r.format.empty() || !r.args.empty()) {
    return InvalidArgument(where + " is a dump with printf fields");
  }
  if (std::find(kDumpMemories.begin(), kDumpMemories.end(), r.memory) == kDumpMemories.end()) {
    return InvalidArgument(where + " dumps unknown memory '" + r.memory + "'");
  }
  if (r.count < 1 || r.count > kMaxDumpCount) {
    return InvalidArgument(where + " dumps " + std::to_string(r.count) + " elements (1.." +
                           std::to_string(kMaxDumpCount) + ")");
  }
  if (r.shape.size() > static_cast<size_t>(kMaxRank)) {
    return InvalidArgument(where + " has a shape of rank " + std::to_string(r.shape.size()));
  }
  for (int64_t d : r.shape) {
    if (d < 1 || d > kMaxDumpCount) return InvalidArgument(where + " has a shape dim out of range");
  }
  return Status::Ok();
}

Status CheckParam(const KernelMetadata& m, size_t index) {
  const KernelParam& p = m.params[index];
  const std::string where = "param " + std::to_string(index) + " ('" + p.name + "')";
  TILEJIT_RETURN_IF_ERROR(CheckString("param " + std::to_string(index) + " name", p.name, false));
  if (p.shape.size() > static_cast<size_t>(kMaxRank)) {
    return InvalidArgument(where + " has rank " + std::to_string(p.shape.size()) + ", more than " +
                           std::to_string(kMaxRank));
  }
  TILEJIT_RETURN_IF_ERROR(internal::CheckDimSymbols(m, index, where));
  // Symbolic dims have shape entry 0, so this checks the static dims (the whole size at launch).
  auto bytes = ShapeSizeBytes(p.dtype, p.shape);
  if (!bytes.ok()) return bytes.status().WithContext(where);
  if (p.compiler_workspace) {
    if (p.role != ParamRole::kWorkspace) {
      return InvalidArgument(where + " is a compiler workspace but its role is " +
                             std::string(ParamRoleName(p.role)));
    }
    if (p.workspace_bytes_per_block <= 0) {
      return InvalidArgument(where + " is a compiler workspace with no per-block size");
    }
    // With a symbolic grid or shape the rule is checked at launch, on the concrete shapes.
    if (m.grid.empty() && !IsSymbolicParam(p) &&
        p.workspace_bytes_per_block > *bytes / m.block_count) {
      return InvalidArgument(where + ": " + std::to_string(m.block_count) + " blocks of " +
                             std::to_string(p.workspace_bytes_per_block) +
                             " bytes do not fit in its " + std::to_string(*bytes) + " bytes");
    }
  } else if (p.workspace_bytes_per_block != 0) {
    return InvalidArgument(where + " has a per-block size but is not a compiler workspace");
  }
  return Status::Ok();
}

// `indices` must be distinct, in range, and name exactly the params with role `role`.
Status CheckIndexList(std::string_view what, const std::vector<int>& indices,
                      const std::vector<KernelParam>& params, ParamRole role) {
  std::set<int> seen;
  for (int i : indices) {
    if (i < 0 || static_cast<size_t>(i) >= params.size()) {
      return InvalidArgument(std::string(what) + " entry " + std::to_string(i) +
                             " is out of range for " + std::to_string(params.size()) + " params");
    }
    if (!seen.insert(i).second) {
      return InvalidArgument(std::string(what) + " lists param " + std::to_string(i) + " twice");
    }
    if (params[i].role != role) {
      return InvalidArgument(std::string(what) + " entry " + std::to_string(i) +
                             " refers to param '" + params[i].name + "' whose role is " +
                             std::string(ParamRoleName(params[i].role)));
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].role == role && !seen.count(static_cast<int>(i))) {
      return InvalidArgument("param " + std::to_string(i) + " ('" + params[i].name +
                             "') has role " + std::string(ParamRoleName(role)) +
                             " but is missing from " + std::string(what));
    }
  }
  return Status::Ok();
}

Status CheckCores(const KernelMetadata& m) {
  const int v = m.vector_cores_per_block;
  const bool ok = m.core_mix == CoreMix::kCubeOnly ? v == 0 : (v == 1 || v == 2);
  if (!ok) {
    return InvalidArgument("core mix " + std::string(CoreMixName(m.core_mix)) + " does not allow " +
                           std::to_string(v) + " vector cores per block");
  }
  return Status::Ok();
}

Status CheckOnChip(const OnChipUsage& u) {
  const std::pair<std::string_view, int64_t> fields[] = {
      {"l1", u.l1}, {"l0a", u.l0a}, {"l0b", u.l0b}, {"l0c", u.l0c}, {"ub", u.ub}};
  for (const auto& [name, bytes] : fields) {
    if (bytes < 0) return InvalidArgument("on-chip usage of " + std::string(name) + " is negative");
  }
  return Status::Ok();
}

}  // namespace

std::string_view ParamRoleName(ParamRole r) { return kRoleNames[static_cast<size_t>(r)]; }
std::optional<ParamRole> ParseParamRole(std::string_view name) {
  return ParseByName<ParamRole>(kRoleNames, name);
}

std::string_view PrintKindName(PrintKind k) { return kPrintKindNames[static_cast<size_t>(k)]; }
std::optional<PrintKind> ParsePrintKind(std::string_view name) {
  return ParseByName<PrintKind>(kPrintKindNames, name);
}

std::string_view CoreMixName(CoreMix m) { return kCoreMixNames[static_cast<size_t>(m)]; }
std::optional<CoreMix> ParseCoreMix(std::string_view name) {
  return ParseByName<CoreMix>(kCoreMixNames, name);
}

Result<int64_t> ShapeSizeBytes(ElementType dtype, std::span<const int64_t> shape) {
  int64_t bytes = ElementTypeBytes(dtype);
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t dim = shape[d];
    if (dim < 0) {
      return InvalidArgument("dim " + std::to_string(d) + " is negative (" + std::to_string(dim) +
                             ")");
    }
    if (dim != 0 && bytes > std::numeric_limits<int64_t>::max() / dim) {
      return InvalidArgument("tensor size overflows 64 bits");
    }
    bytes *= dim;
  }
  return bytes;
}

Result<int64_t> ParamSizeBytes(const KernelParam& p) {
  if (IsSymbolicParam(p)) {
    return InvalidArgument("param '" + p.name +
                           "' has symbolic dims: its size is known only at launch");
  }
  return ShapeSizeBytes(p.dtype, p.shape);
}

Status ValidateKernelMetadata(const KernelMetadata& m) {
  if (m.format_version != kKernelBinaryFormatVersion) {
    return InvalidArgument("unsupported format version " + std::to_string(m.format_version) +
                           " (this build handles " + std::to_string(kKernelBinaryFormatVersion) +
                           ")");
  }
  TILEJIT_RETURN_IF_ERROR(CheckString("kernel name", m.kernel_name, false));
  TILEJIT_RETURN_IF_ERROR(CheckString("target name", m.target, false));
  TILEJIT_RETURN_IF_ERROR(CheckString("compiler fingerprint", m.compiler_fingerprint, true));
  TILEJIT_RETURN_IF_ERROR(CheckString("cache key", m.cache_key, true));
  TILEJIT_RETURN_IF_ERROR(internal::CheckSymbolsAndGrid(m));
  if (m.params.size() > kMaxParams) {
    return InvalidArgument("more than " + std::to_string(kMaxParams) + " params");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < m.params.size(); ++i) {
    TILEJIT_RETURN_IF_ERROR(CheckParam(m, i));
    if (!names.insert(m.params[i].name).second) {
      return InvalidArgument("param name '" + m.params[i].name + "' is used twice");
    }
  }
  TILEJIT_RETURN_IF_ERROR(CheckIndexList("out_idx", m.out_idx, m.params, ParamRole::kOutput));
  TILEJIT_RETURN_IF_ERROR(
      CheckIndexList("workspace_idx", m.workspace_idx, m.params, ParamRole::kWorkspace));
  TILEJIT_RETURN_IF_ERROR(internal::CheckSymbolsBound(m));
  TILEJIT_RETURN_IF_ERROR(CheckCores(m));
  if (m.prints.size() > kMaxPrints) {
    return InvalidArgument("more than " + std::to_string(kMaxPrints) + " print records");
  }
  for (size_t i = 0; i < m.prints.size(); ++i) TILEJIT_RETURN_IF_ERROR(CheckPrint(m.prints[i], i));
  return CheckOnChip(m.on_chip);
}

}  // namespace tilejit::target
