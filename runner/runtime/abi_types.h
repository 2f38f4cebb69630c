// SPDX-License-Identifier: Apache-2.0
// Conversions between the C ABI's enums (tilejit_runtime.h) and the runner's types, and
// NUL-terminated names for the C side. The ABI numbers its enums itself, so the runner's
// internal enums may change order without breaking callers; these functions are the one place
// that bridges the two.
//
// Pure functions over static tables; thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "common/status.h"
#include "compiler/target/element_type.h"
#include "compiler/target/kernel_metadata.h"
#include "runner/device.h"
#include "runner/runtime/tilejit_runtime.h"

namespace tilejit::runner::runtime {

// tj_dtype <-> ElementType. nullopt for a value that is not a tj_dtype.
std::optional<target::ElementType> FromTjDtype(int dtype);
tj_dtype ToTjDtype(target::ElementType t);

tj_role ToTjRole(target::ParamRole r);

// tj_mode <-> CheckMode. nullopt for a value that is not a tj_mode.
std::optional<CheckMode> FromTjMode(int mode);
tj_mode ToTjMode(CheckMode m);

// The ABI's status for a runner status code (TJ_OK for kOk). Codes the ABI does not tell apart
// fold into the nearest one: corrupt bytes and compile errors are invalid arguments, a
// deadline is a cancellation, a missing or duplicate internal object is an internal error.
tj_status ToTjStatus(StatusCode code);
const char* TjStatusCName(int status);  // "OK", "INVALID_ARGUMENT", ...; "UNKNOWN" otherwise

// A NUL-terminated copy of `name` with static storage, the same pointer for equal names: the
// runner's name functions return string_views, which promise no terminator. For the small
// vocabularies of enum names only (every distinct name is kept for the process's lifetime).
const char* InternName(std::string_view name);

}  // namespace tilejit::runner::runtime
