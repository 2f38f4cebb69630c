// SPDX-License-Identifier: Apache-2.0
// Conversions between the CLI's offline vocabulary and the daemon's messages: command-line
// values (parsed exactly as offline, so the daemon computes the same digest and key) to typed
// request values, and .npy arrays to and from wire tensors.
//
// Pure functions (KernelSpecFromOptions reads the kernel file); thread-safe.
#pragma once

#include "client/client.h"
#include "client/offline.h"
#include "common/result.h"
#include "compiler/frontend/value.h"
#include "runner/npy.h"

namespace tilejit::client {

// A host constant as a TypedValue. kInvalidArgument for dicts and non-constants (the CLI's
// parser never makes them).
Result<v1::TypedValue> ToTypedValue(const frontend::Value& value);

// Reads options.file and types every --arg, --kwarg, --global and --config the way the
// offline compiler does. kInvalidArgument (with a readable message) on a bad NAME=VALUE, a
// missing --entry for TileLang, or an unreadable file.
Result<KernelSpec> KernelSpecFromOptions(const KernelSourceOptions& options);

v1::Tensor TensorFromNpy(const runner::NpyArray& array);
// kInvalidArgument on an unknown dtype or a size that disagrees with the shape.
Result<runner::NpyArray> NpyFromTensor(const v1::Tensor& tensor);

}  // namespace tilejit::client
