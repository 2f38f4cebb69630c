// SPDX-License-Identifier: Apache-2.0
// Every tensor allocated here is freed on every path (a small RAII list), so a failed launch
// does not leak device memory.
#include "runner/runner.h"

#include <string>

namespace tilejit::runner {
namespace {

using target::ElementType;
using target::ParamRole;

class Allocations {
 public:
  explicit Allocations(Device& d) : device_(d) {}
  ~Allocations() {
    for (const Tensor& t : tensors_) (void)device_.Free(t);
  }
  Allocations(const Allocations&) = delete;
  Allocations& operator=(const Allocations&) = delete;
  void Add(const Tensor& t) { tensors_.push_back(t); }

 private:
  Device& device_;
  std::vector<Tensor> tensors_;
};

Status CheckInput(const target::KernelParam& p, const NpyArray& a, size_t index) {
  const bool dtype_ok =
      a.dtype == p.dtype || (p.dtype == ElementType::kBFloat16 && a.dtype == ElementType::kUInt16);
  if (!dtype_ok) {
    return InvalidArgument("input " + std::to_string(index) + " ('" + p.name + "'): dtype " +
                           std::string(target::ElementTypeName(a.dtype)) + ", kernel expects " +
                           std::string(target::ElementTypeName(p.dtype)));
  }
  if (a.shape != p.shape) {
    std::string want, got;
    for (int64_t d : p.shape) want += std::to_string(d) + ",";
    for (int64_t d : a.shape) got += std::to_string(d) + ",";
    return InvalidArgument("input " + std::to_string(index) + " ('" + p.name + "'): shape (" + got +
                           "), kernel expects (" + want + ")");
  }
  return Status::Ok();
}

}  // namespace

Result<RunResult> RunKernel(Device& device, KernelId id, std::span<const NpyArray> inputs,
                            const LaunchOptions& options) {
  const KernelImage* image = device.GetKernel(id);
  if (image == nullptr) return NotFound("no kernel with id " + std::to_string(id));
  const target::KernelMetadata& m = image->metadata;
  Allocations allocs(device);
  std::vector<uint64_t> args;
  std::vector<Tensor> tensors;
  size_t next_input = 0;
  for (const target::KernelParam& p : m.params) {
    const bool is_input = p.role == ParamRole::kInput;
    if (is_input && next_input >= inputs.size()) {
      return InvalidArgument("kernel '" + m.kernel_name + "' takes more inputs than the " +
                             std::to_string(inputs.size()) + " given");
    }
    if (is_input) TILEJIT_RETURN_IF_ERROR(CheckInput(p, inputs[next_input], next_input));
    TILEJIT_ASSIGN_OR_RETURN(Tensor t, device.Allocate(p.dtype, p.shape, p.name, is_input));
    allocs.Add(t);
    if (is_input) {
      TILEJIT_RETURN_IF_ERROR(device.CopyToDevice(t, inputs[next_input].data));
      ++next_input;
    }
    args.push_back(t.addr);
    tensors.push_back(std::move(t));
  }
  if (next_input != inputs.size()) {
    return InvalidArgument("kernel '" + m.kernel_name + "' takes " + std::to_string(next_input) +
                           " inputs, " + std::to_string(inputs.size()) + " given");
  }
  RunResult out;
  TILEJIT_ASSIGN_OR_RETURN(out.report, device.Launch(id, args, options));
  for (int idx : m.out_idx) {
    if (idx < 0 || idx >= static_cast<int>(tensors.size())) {
      return InvalidArgument("out_idx " + std::to_string(idx) + " is not a parameter");
    }
    const Tensor& t = tensors[idx];
    NpyArray a;
    a.dtype = t.dtype;
    a.shape = t.shape;
    a.data.resize(t.bytes);
    TILEJIT_RETURN_IF_ERROR(device.CopyFromDevice(t, a.data));
    out.outputs.push_back(std::move(a));
  }
  return out;
}

}  // namespace tilejit::runner
