// SPDX-License-Identifier: Apache-2.0
#include "runner/runtime/abi_types.h"

#include <array>
#include <mutex>
#include <set>
#include <string>

namespace tilejit::runner::runtime {
namespace {

using target::ElementType;

// Indexed by tj_dtype. Its size must follow the runner's enum: a new element type needs an ABI
// number before it can reach a caller.
constexpr std::array<ElementType, 12> kTjDtypes = {
    ElementType::kBool,   ElementType::kInt8,    ElementType::kInt16,    ElementType::kInt32,
    ElementType::kInt64,  ElementType::kUInt8,   ElementType::kUInt16,   ElementType::kUInt32,
    ElementType::kUInt64, ElementType::kFloat16, ElementType::kBFloat16, ElementType::kFloat32,
};
static_assert(kTjDtypes.size() == target::kNumElementTypes);
static_assert(static_cast<size_t>(TJ_DTYPE_FLOAT32) + 1 == kTjDtypes.size());

}  // namespace

std::optional<ElementType> FromTjDtype(int dtype) {
  if (dtype < 0 || dtype >= static_cast<int>(kTjDtypes.size())) return std::nullopt;
  return kTjDtypes[dtype];
}

tj_dtype ToTjDtype(ElementType t) {
  for (size_t i = 0; i < kTjDtypes.size(); ++i) {
    if (kTjDtypes[i] == t) return static_cast<tj_dtype>(i);
  }
  return TJ_DTYPE_BOOL;  // unreachable: the static_asserts above cover every element type
}

tj_role ToTjRole(target::ParamRole r) {
  switch (r) {
    case target::ParamRole::kInput:
      return TJ_ROLE_INPUT;
    case target::ParamRole::kOutput:
      return TJ_ROLE_OUTPUT;
    case target::ParamRole::kWorkspace:
      return TJ_ROLE_WORKSPACE;
  }
  return TJ_ROLE_WORKSPACE;
}

std::optional<CheckMode> FromTjMode(int mode) {
  switch (mode) {
    case TJ_MODE_FAST:
      return CheckMode::kFast;
    case TJ_MODE_CHECKED:
      return CheckMode::kChecked;
    case TJ_MODE_PERTURBED:
      return CheckMode::kPerturbed;
    default:
      return std::nullopt;
  }
}

tj_mode ToTjMode(CheckMode m) {
  switch (m) {
    case CheckMode::kFast:
      return TJ_MODE_FAST;
    case CheckMode::kChecked:
      return TJ_MODE_CHECKED;
    case CheckMode::kPerturbed:
      return TJ_MODE_PERTURBED;
  }
  return TJ_MODE_CHECKED;
}

tj_status ToTjStatus(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return TJ_OK;
    case StatusCode::kInvalidArgument:
    case StatusCode::kCompileError:
    case StatusCode::kCorruption:
      return TJ_ERR_INVALID_ARGUMENT;
    case StatusCode::kResourceExhausted:
      return TJ_ERR_RESOURCE_EXHAUSTED;
    case StatusCode::kCancelled:
    case StatusCode::kDeadlineExceeded:
      return TJ_ERR_CANCELLED;
    case StatusCode::kUnavailable:
      return TJ_ERR_UNAVAILABLE;
    case StatusCode::kNotFound:
    case StatusCode::kAlreadyExists:
    case StatusCode::kInternal:
    case StatusCode::kUnauthenticated:  // the runtime makes no remote calls: never here
    case StatusCode::kPermissionDenied:
      return TJ_ERR_INTERNAL;
  }
  return TJ_ERR_INTERNAL;
}

const char* TjStatusCName(int status) {
  switch (status) {
    case TJ_OK:
      return "OK";
    case TJ_ERR_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case TJ_ERR_NOT_FOUND:
      return "NOT_FOUND";
    case TJ_ERR_RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case TJ_ERR_CANCELLED:
      return "CANCELLED";
    case TJ_ERR_UNAVAILABLE:
      return "UNAVAILABLE";
    case TJ_ERR_INTERNAL:
      return "INTERNAL";
    default:
      return "UNKNOWN";
  }
}

const char* InternName(std::string_view name) {
  // Leaked on purpose: the pointers must stay valid during static destruction too.
  static std::mutex* mu = new std::mutex;
  static std::set<std::string, std::less<>>* names = new std::set<std::string, std::less<>>;
  std::lock_guard<std::mutex> lock(*mu);
  auto it = names->find(name);
  if (it == names->end()) it = names->emplace(name).first;
  return it->c_str();
}

}  // namespace tilejit::runner::runtime
