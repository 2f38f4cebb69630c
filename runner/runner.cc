// SPDX-License-Identifier: Apache-2.0
// Every tensor allocated here is freed on every path (a small RAII list), so a failed launch
// does not leak device memory.
#include "runner/runner.h"

#include <algorithm>
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
  // Symbolic params are checked dim by dim by the binding, whose messages name the symbols.
  if (!target::IsSymbolicParam(p) && a.shape != p.shape) {
    std::string want, got;
    for (int64_t d : p.shape) want += std::to_string(d) + ",";
    for (int64_t d : a.shape) got += std::to_string(d) + ",";
    return InvalidArgument("input " + std::to_string(index) + " ('" + p.name + "'): shape (" + got +
                           "), kernel expects (" + want + ")");
  }
  return Status::Ok();
}

}  // namespace

Result<LaunchReport> LaunchWithParams(Device& device, KernelId id,
                                      const target::LaunchShapes& shapes,
                                      const ParamBuffers& buffers, const LaunchOptions& options,
                                      uint64_t* highest_address) {
  const KernelImage* image = device.GetKernel(id);
  if (image == nullptr) return NotFound("no kernel with id " + std::to_string(id));
  const target::KernelMetadata& m = image->metadata;
  if (shapes.shapes.size() != m.params.size()) {
    return Internal("LaunchWithParams: a binding of " + std::to_string(shapes.shapes.size()) +
                    " params for a kernel with " + std::to_string(m.params.size()));
  }
  Allocations allocs(device);
  std::vector<uint64_t> addresses;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < m.params.size(); ++i) {
    const target::KernelParam& p = m.params[i];
    const bool is_input = p.role == ParamRole::kInput;
    TILEJIT_ASSIGN_OR_RETURN(Tensor t,
                             device.Allocate(p.dtype, shapes.shapes[i], p.name, is_input));
    allocs.Add(t);
    if (highest_address != nullptr) *highest_address = std::max(*highest_address, t.addr + t.bytes);
    if (is_input) TILEJIT_RETURN_IF_ERROR(buffers.copy_in(i, t));
    addresses.push_back(t.addr);
    tensors.push_back(std::move(t));
  }
  TILEJIT_ASSIGN_OR_RETURN(std::vector<uint64_t> args, target::LaunchArgs(m, shapes, addresses));
  TILEJIT_ASSIGN_OR_RETURN(LaunchReport report, device.Launch(id, args, options));
  for (size_t j = 0; j < m.symbols.size(); ++j) {
    report.symbols.push_back({m.symbols[j].name, shapes.symbols[j]});
  }
  report.block_count = shapes.block_count;
  for (size_t i = 0; i < m.params.size(); ++i) {
    const ParamRole role = m.params[i].role;
    if (role == ParamRole::kOutput || (role == ParamRole::kInput && buffers.copy_back_inputs)) {
      TILEJIT_RETURN_IF_ERROR(buffers.copy_out(i, tensors[i]));
    }
  }
  return report;
}

Result<RunResult> RunKernel(Device& device, KernelId id, std::span<const NpyArray> inputs,
                            const LaunchOptions& options) {
  const KernelImage* image = device.GetKernel(id);
  if (image == nullptr) return NotFound("no kernel with id " + std::to_string(id));
  const target::KernelMetadata& m = image->metadata;
  // Inputs are the input parameters in order; outputs come back in out_idx order.
  std::vector<int> input_of(m.params.size(), -1);
  size_t n = 0;
  for (size_t i = 0; i < m.params.size(); ++i) {
    if (m.params[i].role != ParamRole::kInput) continue;
    if (n >= inputs.size()) {
      return InvalidArgument("kernel '" + m.kernel_name + "' takes more inputs than the " +
                             std::to_string(inputs.size()) + " given");
    }
    TILEJIT_RETURN_IF_ERROR(CheckInput(m.params[i], inputs[n], n));
    input_of[i] = static_cast<int>(n++);
  }
  if (n != inputs.size()) {
    return InvalidArgument("kernel '" + m.kernel_name + "' takes " + std::to_string(n) +
                           " inputs, " + std::to_string(inputs.size()) + " given");
  }
  for (int idx : m.out_idx) {
    if (idx < 0 || idx >= static_cast<int>(m.params.size())) {
      return InvalidArgument("out_idx " + std::to_string(idx) + " is not a parameter");
    }
  }
  std::vector<std::vector<int64_t>> input_shapes;
  for (const NpyArray& a : inputs) input_shapes.push_back(a.shape);
  TILEJIT_ASSIGN_OR_RETURN(target::LaunchShapes shapes, target::BindInputShapes(m, input_shapes));
  std::vector<NpyArray> by_param(m.params.size());
  ParamBuffers buffers;
  buffers.copy_in = [&](size_t i, const Tensor& t) {
    return device.CopyToDevice(t, inputs[input_of[i]].data);
  };
  buffers.copy_out = [&](size_t i, const Tensor& t) {
    NpyArray& a = by_param[i];
    a.dtype = t.dtype;
    a.shape = t.shape;
    a.data.resize(t.bytes);
    return device.CopyFromDevice(t, a.data);
  };
  RunResult out;
  TILEJIT_ASSIGN_OR_RETURN(out.report, LaunchWithParams(device, id, shapes, buffers, options));
  for (int idx : m.out_idx) out.outputs.push_back(std::move(by_param[idx]));
  return out;
}

}  // namespace tilejit::runner
