// SPDX-License-Identifier: Apache-2.0
// Load parses the binary twice: once target-independently to learn which target it was built
// for, then through SimDevice::LoadBinary for that target, which decodes and validates every
// instruction against it. Loading is once per module, so the second parse is cheaper than a
// second copy of the decoding logic.
//
// A launch goes through runner::LaunchWithParams, which allocates every parameter on its device
// and frees them on every path, so a failed launch leaves the pooled device clean.
#include "runner/runtime/module.h"

#include <algorithm>
#include <utility>

#include "compiler/target/asm.h"
#include "compiler/target/binary.h"
#include "compiler/target/line_table.h"
#include "runner/runner.h"
#include "runner/runtime/abi_types.h"

namespace tilejit::runner::runtime {
namespace {

using target::ParamRole;

}  // namespace

Result<std::unique_ptr<Module>> Module::Load(std::span<const uint8_t> bytes) {
  if (bytes.size() > kMaxBinaryBytes) {
    return InvalidArgument("binary of " + std::to_string(bytes.size()) + " bytes exceeds " +
                           std::to_string(kMaxBinaryBytes) + " bytes");
  }
  TILEJIT_ASSIGN_OR_RETURN(target::KernelBinary binary, target::ReadKernelBinary(bytes));
  const target::NpuTarget* target = target::FindTarget(binary.metadata.target);
  if (target == nullptr) {
    return InvalidArgument("kernel '" + binary.metadata.kernel_name + "' is built for target '" +
                           binary.metadata.target + "', which this runtime does not know");
  }
  auto device = std::make_unique<sim::SimDevice>(*target);
  TILEJIT_ASSIGN_OR_RETURN(KernelId id, device->LoadBinary(bytes));
  if (id != 0) return Internal("a new device loaded the kernel as id " + std::to_string(id));
  std::unique_ptr<Module> module(new Module(*target, *device->GetKernel(id)));
  module->BuildInfo();
  module->idle_.push_back(std::move(device));  // the first launch needs no copy of the image
  return module;
}

Module::Module(const target::NpuTarget& target, KernelImage image)
    : target_(target), image_(std::move(image)) {}

const std::string& Module::Disassembly() const {
  std::call_once(disassembly_once_, [this] {
    const auto comment = [](uint32_t stmt) {
      return stmt == target::kNoStmt ? std::string("(no statement)")
                                     : "line-table stmt " + std::to_string(stmt);
    };
    disassembly_ = target::ListProgram("aic", image_.aic, image_.aic_lines, comment) +
                   target::ListProgram("aiv", image_.aiv, image_.aiv_lines, comment);
  });
  return disassembly_;
}

void Module::BuildInfo() {
  const target::KernelMetadata& m = image_.metadata;
  out_idx_.assign(m.out_idx.begin(), m.out_idx.end());
  workspace_idx_.assign(m.workspace_idx.begin(), m.workspace_idx.end());
  for (size_t i = 0; i < m.params.size(); ++i) {
    const target::KernelParam& p = m.params[i];
    tj_param_info info{};
    info.name = p.name.c_str();
    info.dtype_name = InternName(target::ElementTypeName(p.dtype));
    info.dtype = ToTjDtype(p.dtype);
    info.role = ToTjRole(p.role);
    info.rank = static_cast<int32_t>(p.shape.size());
    info.compiler_workspace = p.compiler_workspace ? 1 : 0;
    info.shape = p.shape.data();  // 0 in the dims that are not static
    // The metadata validator has checked that every static size fits int64; a symbolic
    // param's size is known only at launch.
    info.bytes = target::IsSymbolicParam(p) ? -1 : target::ParamSizeBytes(p).value();
    param_infos_.push_back(info);
    if (p.role != ParamRole::kWorkspace) buffer_params_.push_back(static_cast<int>(i));
  }
  info_.kernel_name = m.kernel_name.c_str();
  info_.target = m.target.c_str();
  info_.compiler_fingerprint = m.compiler_fingerprint.c_str();
  info_.cache_key = m.cache_key.c_str();
  info_.core_mix = InternName(target::CoreMixName(m.core_mix));
  info_.block_count = m.block_count;
  info_.vector_cores_per_block =
      m.core_mix == target::CoreMix::kCubeOnly ? 0 : m.vector_cores_per_block;
  info_.param_count = static_cast<int32_t>(m.params.size());
  info_.buffer_count = static_cast<int32_t>(buffer_params_.size());
  info_.out_count = static_cast<int32_t>(out_idx_.size());
  info_.out_idx = out_idx_.data();
  info_.workspace_count = static_cast<int32_t>(workspace_idx_.size());
  info_.workspace_idx = workspace_idx_.data();
}

Result<std::unique_ptr<sim::SimDevice>> Module::AcquireDevice() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<sim::SimDevice> device = std::move(idle_.back());
      idle_.pop_back();
      return device;
    }
  }
  auto device = std::make_unique<sim::SimDevice>(target_);
  TILEJIT_ASSIGN_OR_RETURN(KernelId id, device->LoadImage(image_));
  if (id != 0) return Internal("a new device loaded the kernel as id " + std::to_string(id));
  return device;
}

void Module::ReleaseDevice(std::unique_ptr<sim::SimDevice> device) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < kMaxIdleDevices) idle_.push_back(std::move(device));
}

Result<LaunchReport> Module::Launch(const target::LaunchShapes& shapes, std::span<void* const> host,
                                    const LaunchOptions& options, bool write_back_inputs) {
  if (host.size() != buffer_params_.size()) {
    return Internal("Module::Launch: " + std::to_string(host.size()) + " buffers for " +
                    std::to_string(buffer_params_.size()) + " parameters");
  }
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<sim::SimDevice> device, AcquireDevice());
  uint64_t highest_address = 0;
  Result<LaunchReport> result =
      LaunchOn(*device, shapes, host, options, write_back_inputs, &highest_address);
  // A failed launch may have stopped anywhere; only a device that completed one is reused.
  if (result.ok() && highest_address < kDeviceAddressLimit) ReleaseDevice(std::move(device));
  return result;
}

Result<LaunchReport> Module::LaunchOn(sim::SimDevice& device, const target::LaunchShapes& shapes,
                                      std::span<void* const> host, const LaunchOptions& options,
                                      bool write_back_inputs, uint64_t* highest_address) {
  // host[] holds one buffer per non-workspace parameter, in parameter order.
  const target::KernelMetadata& m = image_.metadata;
  std::vector<void*> buffer_of(m.params.size(), nullptr);
  for (size_t i = 0, next = 0; i < m.params.size(); ++i) {
    if (m.params[i].role != ParamRole::kWorkspace) buffer_of[i] = host[next++];
  }
  ParamBuffers buffers;
  buffers.copy_in = [&](size_t i, const Tensor& t) {
    return device.CopyToDevice(t, {static_cast<const uint8_t*>(buffer_of[i]), t.bytes});
  };
  buffers.copy_out = [&](size_t i, const Tensor& t) {
    return device.CopyFromDevice(t, {static_cast<uint8_t*>(buffer_of[i]), t.bytes});
  };
  buffers.copy_back_inputs = write_back_inputs;
  return LaunchWithParams(device, 0, shapes, buffers, options, highest_address);
}

}  // namespace tilejit::runner::runtime
