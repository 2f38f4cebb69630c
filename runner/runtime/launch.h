// SPDX-License-Identifier: Apache-2.0
// The launch arguments of the C ABI (tj_launch_args) checked against a module and turned into
// the runner's LaunchOptions plus the caller's buffer pointers. Every field and every buffer
// is checked before anything is allocated or copied: counts and ranks are bounded before the
// arrays they describe are read.
//
// Pure functions; thread-safe. tj_cancel is the ABI's cancel token: an atomic flag any thread
// may set while launches poll it.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/result.h"
#include "compiler/target/launch_shapes.h"
#include "runner/device.h"
#include "runner/runtime/module.h"
#include "runner/runtime/tilejit_runtime.h"

struct tj_cancel {
  std::atomic<bool> requested{false};
};

namespace tilejit::runner::runtime {

// Limits on caller-given launch fields (tilejit_runtime.h documents them).
inline constexpr int32_t kMaxHostThreads = 256;
inline constexpr int32_t kMaxFindingsLimit = 65536;
inline constexpr uint64_t kDefaultGmByteLimit = uint64_t{16} << 30;

// The defaults tj_launch_args_init documents, with struct_size = sizeof(tj_launch_args).
tj_launch_args DefaultLaunchArgs();

struct LaunchPlan {
  LaunchOptions options;
  target::LaunchShapes shapes;  // the symbols and concrete shapes bound from the buffers
  std::vector<void*> host;      // the caller's buffers, in Module::buffer_params() order
  bool write_back_inputs = false;
};

// Checks `args` against `module`. kInvalidArgument names the first bad field or buffer (for a
// buffer: its index, the parameter's name and role, what was given and what the kernel
// expects; for a kernel with symbolic dims, the binding's message: target::BindLaunchShapes,
// which also checks the output buffers' shapes); kResourceExhausted when the launch would
// allocate more than gm_byte_limit.
Result<LaunchPlan> PlanLaunch(const Module& module, const tj_launch_args& args);

}  // namespace tilejit::runner::runtime
