// SPDX-License-Identifier: Apache-2.0
// SimDevice: the simulated 910B-class NPU (DESIGN.md section 5), a Device whose GM lives in
// host memory and whose launches run every block on the simulator (block.h): the AIC and AIVs
// of a block together on one host thread, blocks spread over a pool of host threads, results
// independent of the thread count. Blocks beyond the target's group count run in waves.
//
// Thread-compatible like every Device.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "compiler/target/npu_target.h"
#include "runner/device.h"
#include "runner/sim/memory.h"

namespace tilejit::runner::sim {

class SimDevice : public Device {
 public:
  // `target` must outlive the device (the NpuTarget statics do).
  explicit SimDevice(const target::NpuTarget& target = target::Ascend910B2());

  Result<Tensor> Allocate(target::ElementType dtype, std::vector<int64_t> shape, std::string name,
                          bool initialized) override;
  Status Free(const Tensor& t) override;
  Status CopyToDevice(const Tensor& t, std::span<const uint8_t> bytes) override;
  Status CopyFromDevice(const Tensor& t, std::span<uint8_t> bytes) override;

  Result<KernelId> LoadImage(KernelImage image) override;
  Result<KernelId> LoadBinary(std::span<const uint8_t> bytes) override;
  const KernelImage* GetKernel(KernelId id) const override;

  Result<LaunchReport> Launch(KernelId id, std::span<const uint64_t> args,
                              const LaunchOptions& options) override;

  const target::NpuTarget& target() const { return target_; }
  GlobalMemory& gm() { return gm_; }

 private:
  const target::NpuTarget& target_;
  GlobalMemory gm_;
  std::vector<std::unique_ptr<KernelImage>> kernels_;
};

// A DeviceFactory of SimDevices for `target` (which must outlive the factory; the NpuTarget
// statics do). Thread-safe: each call makes an independent device.
DeviceFactory SimDeviceFactory(const target::NpuTarget& target = target::Ascend910B2());

}  // namespace tilejit::runner::sim
