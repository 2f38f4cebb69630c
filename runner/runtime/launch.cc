// SPDX-License-Identifier: Apache-2.0
// The caller's struct is copied over the defaults up to its struct_size, so that a caller
// built against an older header (a shorter struct) gets defaults for the fields it lacks, and
// the checks below read only the copy.
#include "runner/runtime/launch.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "runner/runtime/abi_types.h"

namespace tilejit::runner::runtime {
namespace {

// The first ABI version's struct ends with gm_byte_limit; every caller passes at least that.
constexpr size_t kLaunchArgsV1Size = offsetof(tj_launch_args, gm_byte_limit) + sizeof(uint64_t);

std::string ShapeText(const int64_t* dims, size_t rank) {
  std::string s = "(";
  for (size_t i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + ")";
}

std::string BufferName(size_t index, const target::KernelParam& p) {
  return "buffer " + std::to_string(index) + " (parameter '" + p.name + "', " +
         std::string(target::ParamRoleName(p.role)) + ")";
}

// Everything of one buffer but its data pointer, which needs the bound size. Symbolic params
// shapes are checked by the binding (their messages name the symbols); static ones here, with
// the whole shape in the message.
Status CheckBuffer(const tj_buffer& b, size_t index, const target::KernelParam& p) {
  const std::optional<target::ElementType> dtype = FromTjDtype(b.dtype);
  if (!dtype) {
    return InvalidArgument(BufferName(index, p) + ": dtype " + std::to_string(b.dtype) +
                           " is not a tj_dtype");
  }
  const bool bits_only =
      p.dtype == target::ElementType::kBFloat16 && *dtype == target::ElementType::kUInt16;
  if (*dtype != p.dtype && !bits_only) {
    return InvalidArgument(BufferName(index, p) + ": dtype " +
                           std::string(target::ElementTypeName(*dtype)) + ", kernel expects " +
                           std::string(target::ElementTypeName(p.dtype)));
  }
  if (b.rank < 0 || b.rank > target::kMaxRank) {
    return InvalidArgument(BufferName(index, p) + ": rank " + std::to_string(b.rank) +
                           " is outside 0.." + std::to_string(target::kMaxRank));
  }
  if (b.rank > 0 && b.shape == nullptr) {
    return InvalidArgument(BufferName(index, p) + ": shape is NULL for rank " +
                           std::to_string(b.rank));
  }
  const size_t rank = static_cast<size_t>(b.rank);
  if (!target::IsSymbolicParam(p) &&
      (rank != p.shape.size() || !std::equal(p.shape.begin(), p.shape.end(), b.shape))) {
    return InvalidArgument(BufferName(index, p) + ": shape " + ShapeText(b.shape, rank) +
                           ", kernel expects " + ShapeText(p.shape.data(), p.shape.size()));
  }
  return Status::Ok();
}

Result<LaunchOptions> CheckOptions(const tj_launch_args& a) {
  LaunchOptions o;
  const std::optional<CheckMode> mode = FromTjMode(a.mode);
  if (!mode) return InvalidArgument("mode " + std::to_string(a.mode) + " is not a tj_mode");
  o.mode = *mode;
  if (a.host_threads < 0 || a.host_threads > kMaxHostThreads) {
    return InvalidArgument("host_threads " + std::to_string(a.host_threads) + " is outside 0.." +
                           std::to_string(kMaxHostThreads));
  }
  o.host_threads = a.host_threads;
  if (a.instr_budget < 1) return InvalidArgument("instr_budget must be at least 1");
  o.instr_budget = a.instr_budget;
  if (a.max_findings < 1 || a.max_findings > kMaxFindingsLimit) {
    return InvalidArgument("max_findings " + std::to_string(a.max_findings) + " is outside 1.." +
                           std::to_string(kMaxFindingsLimit));
  }
  o.max_findings = a.max_findings;
  if (a.trace != 0 && a.trace != 1) return InvalidArgument("trace must be 0 or 1");
  o.trace = a.trace == 1;
  o.seed = a.seed;
  o.cancel = a.cancel == nullptr ? nullptr : &a.cancel->requested;
  return o;
}

Result<tj_launch_args> CopyArgs(const tj_launch_args& given) {
  if (given.struct_size < kLaunchArgsV1Size || given.struct_size > sizeof(tj_launch_args)) {
    return InvalidArgument("struct_size " + std::to_string(given.struct_size) + " is not " +
                           std::to_string(sizeof(tj_launch_args)) +
                           " (use tj_launch_args_init; a larger struct needs a newer library)");
  }
  tj_launch_args a = DefaultLaunchArgs();
  std::memcpy(&a, &given, given.struct_size);
  return a;
}

}  // namespace

tj_launch_args DefaultLaunchArgs() {
  const LaunchOptions defaults;
  tj_launch_args a{};
  a.struct_size = sizeof(tj_launch_args);
  a.mode = TJ_MODE_CHECKED;
  a.host_threads = 0;
  a.seed = defaults.seed;
  a.instr_budget = defaults.instr_budget;
  a.trace = 0;
  a.max_findings = defaults.max_findings;
  a.cancel = nullptr;
  a.gm_byte_limit = kDefaultGmByteLimit;
  a.write_back_inputs = 0;
  return a;
}

Result<LaunchPlan> PlanLaunch(const Module& module, const tj_launch_args& given) {
  TILEJIT_ASSIGN_OR_RETURN(tj_launch_args a, CopyArgs(given));
  LaunchPlan plan;
  TILEJIT_ASSIGN_OR_RETURN(plan.options, CheckOptions(a));
  if (a.write_back_inputs != 0 && a.write_back_inputs != 1) {
    return InvalidArgument("write_back_inputs " + std::to_string(a.write_back_inputs) +
                           " is not 0 or 1");
  }
  plan.write_back_inputs = a.write_back_inputs == 1;
  const std::vector<int>& params = module.buffer_params();
  if (a.buffer_count != params.size()) {
    return InvalidArgument("kernel '" + module.metadata().kernel_name + "' takes " +
                           std::to_string(params.size()) + " buffers (inputs and outputs), " +
                           std::to_string(a.buffer_count) + " given");
  }
  if (a.buffer_count > 0 && a.buffers == nullptr) return InvalidArgument("buffers is NULL");
  const target::KernelMetadata& m = module.metadata();
  std::vector<target::GivenShape> buffer_shapes;
  for (size_t i = 0; i < params.size(); ++i) {
    const tj_buffer& b = a.buffers[i];
    TILEJIT_RETURN_IF_ERROR(CheckBuffer(b, i, m.params[params[i]]));
    buffer_shapes.push_back({params[i], {b.shape, static_cast<size_t>(b.rank)}});
  }
  // Outputs are caller memory here, so their shapes take part in the binding too.
  TILEJIT_ASSIGN_OR_RETURN(plan.shapes, target::BindLaunchShapes(m, buffer_shapes));
  for (size_t i = 0; i < params.size(); ++i) {
    if (a.buffers[i].data == nullptr && plan.shapes.bytes[params[i]] > 0) {
      return InvalidArgument(BufferName(i, m.params[params[i]]) + ": data is NULL");
    }
    plan.host.push_back(a.buffers[i].data);
  }
  const auto gm_bytes = static_cast<uint64_t>(plan.shapes.total_bytes);
  if (gm_bytes > a.gm_byte_limit) {
    return ResourceExhausted("the launch allocates " + std::to_string(gm_bytes) +
                             " bytes of device memory, above gm_byte_limit " +
                             std::to_string(a.gm_byte_limit));
  }
  return plan;
}

}  // namespace tilejit::runner::runtime
