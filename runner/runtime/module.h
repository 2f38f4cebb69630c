// SPDX-License-Identifier: Apache-2.0
// Module: the C ABI's tj_module. A validated, decoded kernel binary, its metadata in the C
// structs of tilejit_runtime.h (built once at load, owned here), and a pool of idle simulated
// devices that hold the kernel loaded, so that a launch neither re-decodes the binary nor
// copies the image.
//
// Threading: everything but destruction may be called from several threads at once. A launch
// takes an idle device from the pool (or makes one) for its whole duration and gives it back,
// so concurrent launches run on distinct devices; the pool's mutex is held only to take or
// return a device.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "compiler/target/launch_shapes.h"
#include "compiler/target/npu_target.h"
#include "runner/device.h"
#include "runner/runtime/tilejit_runtime.h"
#include "runner/sim/sim_device.h"

namespace tilejit::runner::runtime {

// Idle devices kept per module; a launch beyond them makes a device and drops it afterwards.
inline constexpr size_t kMaxIdleDevices = 8;
// A device is retired once its GM allocations have reached this address: the simulated GM
// hands out fresh addresses for every allocation, so a long-lived device's address space only
// grows.
inline constexpr uint64_t kDeviceAddressLimit = uint64_t{1} << 44;
// Kernel binaries larger than this are refused before parsing (binary.h's own limit).
inline constexpr size_t kMaxBinaryBytes = size_t{256} << 20;

class Module {
 public:
  // Parses and validates `bytes` (any content: the loader validates everything) for the target
  // its metadata names. kInvalidArgument / kCorruption for a bad binary or unknown target.
  static Result<std::unique_ptr<Module>> Load(std::span<const uint8_t> bytes);

  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const tj_module_info& info() const { return info_; }
  const std::vector<tj_param_info>& params() const { return param_infos_; }
  const target::KernelMetadata& metadata() const { return image_.metadata; }
  // Indices of the parameters a launch passes buffers for (inputs and outputs), in order.
  const std::vector<int>& buffer_params() const { return buffer_params_; }
  // The listing of tj_module_disassemble, made on first use (thread-safe); stable afterwards.
  const std::string& Disassembly() const;

  // Runs the kernel once on a pooled device at the shapes of `shapes` (this kernel's launch
  // binding, target::BindLaunchShapes). host[i] is the caller's memory for parameter
  // buffer_params()[i], of exactly that parameter's bound byte size (the caller has checked
  // dtype and shape): inputs are read before the launch, outputs written after it, only when
  // the result is OK (inputs too when `write_back_inputs`). Not owned; read or written during
  // the call only.
  Result<LaunchReport> Launch(const target::LaunchShapes& shapes, std::span<void* const> host,
                              const LaunchOptions& options, bool write_back_inputs = false);

 private:
  Module(const target::NpuTarget& target, KernelImage image);
  void BuildInfo();

  // A device from the pool, or a new one with the kernel loaded as kernel id 0.
  Result<std::unique_ptr<sim::SimDevice>> AcquireDevice();
  void ReleaseDevice(std::unique_ptr<sim::SimDevice> device);
  Result<LaunchReport> LaunchOn(sim::SimDevice& device, const target::LaunchShapes& shapes,
                                std::span<void* const> host, const LaunchOptions& options,
                                bool write_back_inputs, uint64_t* highest_address);

  const target::NpuTarget& target_;
  const KernelImage image_;  // the master copy each new device loads

  // C views of the metadata: the strings and arrays the tj_*_info pointers point into.
  std::vector<int32_t> out_idx_;
  std::vector<int32_t> workspace_idx_;
  std::vector<tj_param_info> param_infos_;
  tj_module_info info_{};
  std::vector<int> buffer_params_;

  std::mutex mu_;
  std::vector<std::unique_ptr<sim::SimDevice>> idle_;  // guarded by mu_

  mutable std::once_flag disassembly_once_;
  mutable std::string disassembly_;  // written once under disassembly_once_
};

}  // namespace tilejit::runner::runtime
