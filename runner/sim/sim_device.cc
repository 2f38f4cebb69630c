// SPDX-License-Identifier: Apache-2.0
// Launch = validate, run every block (a pool of host threads takes block indices from an
// atomic counter; each block's result lands in its own slot, so the report does not depend on
// the thread count or interleaving), then assemble the report in block order: waves of
// `group count` blocks, each as long as its slowest block or as the HBM needs to move the
// wave's GM bytes, whichever is longer (TimeWaves).
#include "runner/sim/sim_device.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <thread>

#include "compiler/target/binary.h"
#include "compiler/target/launch_shapes.h"
#include "runner/sim/block.h"
#include "runner/sim/gm_traffic.h"
#include "runner/sim/grid_barrier.h"
#include "runner/sim/inter_block.h"
#include "runner/sim/trace.h"

namespace tilejit::runner::sim {
namespace {

using target::CoreType;

Status ValidateCode(const std::vector<target::Instr>& code, CoreType core,
                    const target::NpuTarget& t) {
  for (size_t i = 0; i < code.size(); ++i) {
    Status s = target::Validate(code[i]);
    if (s.ok()) s = target::ValidateForCore(code[i], core, t);
    if (!s.ok()) {
      return InvalidArgument(std::string(target::CoreTypeName(core)) + " instruction " +
                             std::to_string(i) + ": " + s.message());
    }
    if (code[i].op == target::Opcode::kJmp || code[i].op == target::Opcode::kBz ||
        code[i].op == target::Opcode::kBnz) {
      const int64_t dest = static_cast<int64_t>(i) + code[i].off;
      if (dest < 0 || dest >= static_cast<int64_t>(code.size())) {
        return InvalidArgument(std::string(target::CoreTypeName(core)) + " instruction " +
                               std::to_string(i) + ": branch target outside the program");
      }
    }
  }
  return Status::Ok();
}

Status ValidateImage(const KernelImage& k, const target::NpuTarget& t) {
  const target::KernelMetadata& m = k.metadata;
  if (m.grid.empty() && m.block_count < 1) {
    return InvalidArgument("block_count must be at least 1");
  }
  const bool uses_aic = m.core_mix != target::CoreMix::kVectorOnly;
  const bool uses_aiv = m.core_mix != target::CoreMix::kCubeOnly;
  if (uses_aiv && (m.vector_cores_per_block < 1 || m.vector_cores_per_block > 2)) {
    return InvalidArgument("vector_cores_per_block must be 1 or 2");
  }
  if (uses_aic && k.aic.empty())
    return InvalidArgument("the core mix uses the AIC but it has no code");
  if (uses_aiv && k.aiv.empty())
    return InvalidArgument("the core mix uses the AIV but it has no code");
  TILEJIT_RETURN_IF_ERROR(ValidateCode(k.aic, CoreType::kAic, t));
  TILEJIT_RETURN_IF_ERROR(ValidateCode(k.aiv, CoreType::kAiv, t));
  return Status::Ok();
}

Result<std::vector<target::Instr>> DecodeCode(const std::vector<uint8_t>& bytes) {
  std::vector<uint64_t> words(bytes.size() / 8);
  for (size_t i = 0; i < words.size(); ++i) {
    uint64_t w = 0;
    for (int b = 7; b >= 0; --b) w = (w << 8) | bytes[i * 8 + b];
    words[i] = w;
  }
  return target::DecodeProgram(words);
}

int DefaultThreads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(hw == 0 ? 1u : hw, 1u, 8u));
}

// Blocks one wave holds: the groups (AIC cores), or for a vector-only kernel the AIV cores
// over the AIVs each block uses.
int64_t BlocksPerWave(const target::NpuTarget& t, const target::KernelMetadata& m) {
  if (m.core_mix == target::CoreMix::kVectorOnly) {
    return t.num_groups.value * t.aiv_per_group.value / m.vector_cores_per_block;
  }
  return t.num_groups.value;
}

bool UsesSyncAll(const KernelImage& k) {
  auto has = [](const std::vector<target::Instr>& code) {
    return std::any_of(code.begin(), code.end(),
                       [](const target::Instr& in) { return in.op == target::Opcode::kSyncAll; });
  };
  return has(k.aic) || has(k.aiv);
}

// Splits the launch's caps evenly over its `blocks` blocks (so what a block may keep does not
// depend on which host thread ran it, or when).
void ShareCaps(int64_t blocks, LaunchContext* ctx) {
  const auto n = static_cast<uint64_t>(std::max<int64_t>(blocks, 1));
  ctx->gm_records_per_block = std::max<uint64_t>(1, ctx->options.max_gm_records / n);
  // The shared-HBM model's ranges (gm_traffic.h) come out of the same budget, in every mode.
  ctx->gm_ranges_per_block = static_cast<size_t>(
      std::clamp<uint64_t>(ctx->options.max_gm_records / n, 64, GmTraffic::kMaxRanges));
  ctx->trace_events_per_block = ctx->options.max_trace_events / n;
  ctx->device_output_per_block =
      std::clamp<size_t>(kMaxDeviceOutputBytes / n, kMinBlockDeviceOutput, kMaxBlockDeviceOutput);
}

// Blocks in index order, each whole; past kMaxDeviceOutputBytes a note ends the output.
void AppendDeviceOutput(const std::string& block, std::string* out) {
  constexpr std::string_view kNote = "(device output truncated: later blocks not shown)\n";
  if (block.empty() || out->ends_with(kNote)) return;
  *out += out->size() + block.size() > kMaxDeviceOutputBytes ? std::string(kNote) : block;
}

// The grid of this launch. A symbolic grid is evaluated from the symbol slots, which follow
// the param addresses (the launch ABI): the device sees only the argument slots.
Result<int64_t> GridOf(const target::KernelMetadata& m, std::span<const uint64_t> args) {
  if (m.grid.empty()) return m.block_count;
  const size_t first = m.params.size();
  if (args.size() < first + m.symbols.size()) {
    return InvalidArgument("the kernel's grid depends on " + std::to_string(m.symbols.size()) +
                           " symbol(s) in argument slots from " + std::to_string(first) +
                           ", but the launch has " + std::to_string(args.size()) + " slots");
  }
  std::vector<int64_t> symbols;
  for (size_t j = 0; j < m.symbols.size(); ++j) {
    symbols.push_back(static_cast<int64_t>(args[first + j]));
  }
  return target::LaunchBlockCount(m, symbols);
}

// Waves in block order; each lasts as long as its longest block or as its HBM floor
// (gm_traffic.h), whichever is longer. The floor is a roofline over the whole wave rather than
// a slowdown of each block's own transfers: blocks ran independently and kept no record of
// when their bytes moved, and for ranking configurations the wave bound is what matters.
void TimeWaves(const target::NpuTarget& t, const std::vector<BlockResult>& results,
               int64_t per_wave, LaunchReport* report) {
  const int64_t n = static_cast<int64_t>(results.size());
  HbmFloor hbm(static_cast<uint64_t>(std::max<int64_t>(0, t.hbm_bpc.value)),
               static_cast<uint64_t>(t.l2_bytes.value));
  report->waves = (n + per_wave - 1) / per_wave;
  for (int64_t w = 0; w < report->waves; ++w) {
    uint64_t longest = 0;
    std::vector<const GmTraffic*> wave;
    for (int64_t b = w * per_wave; b < std::min(n, (w + 1) * per_wave); ++b) {
      longest = std::max(longest, results[b].report.span_cycles);
      wave.push_back(&results[b].gm_traffic);
      report->gm_bytes += results[b].gm_traffic.bytes();
    }
    const uint64_t hbm_bytes = hbm.AddWave(wave);
    const uint64_t floor = hbm.Cycles(hbm_bytes);
    report->hbm_bytes += hbm_bytes;
    report->block_bound_cycles += longest;
    report->kernel_cycles += std::max(longest, floor);
    report->hbm_bound_waves += floor > longest;
  }
}

}  // namespace

SimDevice::SimDevice(const target::NpuTarget& target) : target_(target) {}

DeviceFactory SimDeviceFactory(const target::NpuTarget& target) {
  return [&target]() -> Result<std::unique_ptr<Device>> {
    return std::unique_ptr<Device>(std::make_unique<SimDevice>(target));
  };
}

Result<Tensor> SimDevice::Allocate(target::ElementType dtype, std::vector<int64_t> shape,
                                   std::string name, bool initialized) {
  target::KernelParam p;
  p.name = name.empty() ? "tensor" : name;
  p.shape = shape;
  p.dtype = dtype;
  TILEJIT_ASSIGN_OR_RETURN(int64_t bytes, target::ParamSizeBytes(p));
  TILEJIT_ASSIGN_OR_RETURN(uint64_t addr, gm_.Allocate(bytes, p.name, initialized));
  return Tensor{addr, dtype, std::move(shape), static_cast<uint64_t>(bytes), std::move(p.name)};
}

Status SimDevice::Free(const Tensor& t) { return gm_.Free(t.addr); }

Status SimDevice::CopyToDevice(const Tensor& t, std::span<const uint8_t> bytes) {
  if (bytes.size() != t.bytes) return InvalidArgument("CopyToDevice: size mismatch");
  return gm_.Write(t.addr, bytes.data(), bytes.size());
}

Status SimDevice::CopyFromDevice(const Tensor& t, std::span<uint8_t> bytes) {
  if (bytes.size() != t.bytes) return InvalidArgument("CopyFromDevice: size mismatch");
  return gm_.Read(t.addr, bytes.data(), bytes.size());
}

Result<KernelId> SimDevice::LoadImage(KernelImage image) {
  TILEJIT_RETURN_IF_ERROR(ValidateImage(image, target_));
  kernels_.push_back(std::make_unique<KernelImage>(std::move(image)));
  return static_cast<KernelId>(kernels_.size() - 1);
}

Result<KernelId> SimDevice::LoadBinary(std::span<const uint8_t> bytes) {
  TILEJIT_ASSIGN_OR_RETURN(target::KernelBinary bin, target::ReadKernelBinary(bytes));
  KernelImage image;
  image.metadata = std::move(bin.metadata);
  TILEJIT_ASSIGN_OR_RETURN(image.aic, DecodeCode(bin.aic.code));
  TILEJIT_ASSIGN_OR_RETURN(image.aiv, DecodeCode(bin.aiv.code));
  image.aic_lines = std::move(bin.aic.line_table);
  image.aiv_lines = std::move(bin.aiv.line_table);
  if (image.aic_lines.size() != image.aic.size() || image.aiv_lines.size() != image.aiv.size()) {
    return Corruption("line table sizes do not match the decoded instruction counts");
  }
  return LoadImage(std::move(image));
}

const KernelImage* SimDevice::GetKernel(KernelId id) const {
  if (id < 0 || id >= static_cast<KernelId>(kernels_.size())) return nullptr;
  return kernels_[id].get();
}

Result<LaunchReport> SimDevice::Launch(KernelId id, std::span<const uint64_t> args,
                                       const LaunchOptions& options) {
  const KernelImage* image = GetKernel(id);
  if (image == nullptr) return NotFound("no kernel with id " + std::to_string(id));
  LaunchContext ctx{image, &target_, &gm_, {args.begin(), args.end()}, options};
  TILEJIT_ASSIGN_OR_RETURN(const int64_t n, GridOf(image->metadata, args));
  ctx.block_count = n;
  if (n > options.max_blocks) {
    return ResourceExhausted("the kernel's grid has " + std::to_string(n) +
                             " blocks; the launch cap is " + std::to_string(options.max_blocks));
  }
  ShareCaps(n, &ctx);
  const int64_t per_wave = BlocksPerWave(target_, image->metadata);
  // sync_all needs every block running at once (each on a host thread of its own here);
  // on hardware more blocks than cores would hang at the first one.
  std::optional<GridBarrier> grid;
  if (n > 0 && UsesSyncAll(*image)) {
    if (n > per_wave) {
      return InvalidArgument(
          "the kernel uses T.sync_all, which needs every block resident at "
          "once, but its " +
          std::to_string(n) + " blocks exceed the " + std::to_string(per_wave) +
          " the device runs at a time (the hardware would hang)");
    }
    grid.emplace(n);
    ctx.grid = &*grid;
  }
  std::vector<BlockResult> results(n);
  std::atomic<int64_t> next{0};
  std::atomic<bool> internal_error{false};
  std::string internal_message;
  std::mutex mu;
  auto cancelled = [&options] {
    return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
  };
  auto worker = [&] {
    for (int64_t b = next++; b < n && !cancelled(); b = next++) {
      try {
        results[b] = RunBlock(ctx, b);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        internal_error = true;
        internal_message = e.what();
      }
    }
  };
  const int threads =
      grid.has_value()
          ? static_cast<int>(n)
          : static_cast<int>(std::min<int64_t>(
                n, options.host_threads > 0 ? options.host_threads : DefaultThreads()));
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (internal_error) return Internal("simulator: " + internal_message);
  if (cancelled()) {
    int64_t finished = 0;
    uint64_t executed = 0;
    for (const BlockResult& r : results) {
      finished += !r.cancelled && !r.report.pipes.empty();
      executed += r.report.instructions;
    }
    return Cancelled("launch cancelled after " + std::to_string(finished) + " of " +
                     std::to_string(n) + " block(s) finished (" + std::to_string(executed) +
                     " instructions in finished blocks)");
  }

  LaunchReport report;
  report.block_count = n;
  TimeWaves(target_, results, per_wave, &report);
  report.launch_overhead_cycles = static_cast<uint64_t>(target_.kernel_launch_overhead_us.value *
                                                        target_.aic_clock_hz.value / 1e6);
  for (BlockResult& r : results) {
    for (Finding& f : r.findings) {
      if (static_cast<int>(report.findings.size()) < options.max_findings) {
        report.findings.push_back(std::move(f));
      } else {
        ++report.findings_suppressed;
      }
    }
    report.findings_suppressed += r.suppressed;
  }
  if (options.mode != CheckMode::kFast) {
    CheckInterBlockRaces(*image, gm_, results, options.max_findings, &report.findings,
                         &report.findings_suppressed);
  }
  if (options.trace) {
    report.trace_json = ChromeTraceJson(*image, results, target_.aic_clock_hz.value);
    report.line_cycles = LineCycleTable(*image, results);
  }
  for (BlockResult& r : results) {
    report.blocks.push_back(std::move(r.report));
    AppendDeviceOutput(r.device_output, &report.device_output);
  }
  if (!report.findings.empty()) {
    report.status = Status(StatusCode::kInvalidArgument,
                           std::to_string(report.findings.size() + report.findings_suppressed) +
                               " finding(s); first: " + report.findings.front().message);
  }
  return report;
}

}  // namespace tilejit::runner::sim
