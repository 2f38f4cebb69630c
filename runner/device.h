// SPDX-License-Identifier: Apache-2.0
// Device: the runner's view of an NPU (DESIGN.md section 5). A device owns a global memory
// (GM) in which tensors are allocated, holds loaded kernels, and launches them with arguments,
// returning a LaunchReport. The simulated 910B-class NPU (sim/sim_device.h) is the one
// implementation here; the interface leaves room for real hardware.
//
// Kernels are loaded either from a kernel binary (LoadBinary: the ELF of
// compiler/target/binary.h, validated and decoded) or from an already decoded KernelImage
// (LoadImage: tests, tools and the assembler path).
//
// Threading: a Device is thread-compatible (one caller at a time); a launch may use several
// host threads internally. A DeviceFactory makes devices for callers that want a new one per
// use (the service: one per launch).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "compiler/target/isa.h"
#include "compiler/target/kernel_metadata.h"

namespace tilejit::runner {

// A GM tensor: device address plus logical description. Plain value; the device owns the
// memory until Free.
struct Tensor {
  uint64_t addr = 0;
  target::ElementType dtype = target::ElementType::kFloat32;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
  std::string name;
};

// A decoded kernel: metadata plus the instruction streams and line tables of both core types
// (line_table[i] = IR statement id of instruction i, target::kNoStmt if none; may be empty).
struct KernelImage {
  target::KernelMetadata metadata;
  std::vector<target::Instr> aic;
  std::vector<target::Instr> aiv;
  std::vector<uint32_t> aic_lines;
  std::vector<uint32_t> aiv_lines;
};

enum class CheckMode : uint8_t {
  kFast,       // functional + timing only
  kChecked,    // + race detector, flag misuse, poison, bounds/alignment, budget (default)
  kPerturbed,  // checked, and data effects land at completion with randomised latencies
};

struct LaunchOptions {
  CheckMode mode = CheckMode::kChecked;
  uint64_t seed = 1;                   // perturbed mode only
  int host_threads = 0;                // 0: hardware concurrency (at most 8)
  uint64_t instr_budget = 50'000'000;  // per core of a block; exceeding it is a finding
  bool trace = false;                  // collect a Chrome trace and a per-line cycle table
  int max_findings = 64;
  // Cancellation: the device polls it between instructions (every few thousand scheduling
  // steps) and before each block; once it reads true the launch stops and Launch returns
  // kCancelled instead of a report. Not owned; must outlive the launch. Null: not cancellable.
  const std::atomic<bool>* cancel = nullptr;
  // Caps on what one launch may hold in host memory, checked before anything is allocated (the
  // binary format's own limits, kMaxBlockCount and the like, are far larger). A grid above
  // max_blocks fails the launch with kResourceExhausted before any block runs. Each block gets
  // an equal share of the other two: a block that needs more GM access records than its share
  // (checked modes keep them for the inter-block race check) stops with a kLaunchCap finding, and
  // trace events past a block's share are dropped (the trace says so). The shared-HBM model keeps
  // up to the same share (at least 64, at most 65536) of GM byte ranges per block in every mode;
  // past it the block's GM bytes all count as HBM traffic (docs/timing_model.md).
  int64_t max_blocks = 65536;
  uint64_t max_gm_records = uint64_t{1} << 22;
  uint64_t max_trace_events = uint64_t{1} << 22;
};

enum class FindingKind : uint8_t {
  kRace,
  kFlagMisuse,   // double set, flag armed at block end, cross-flag overflow, bad pair
  kUninitRead,   // read of never-written bytes
  kOutOfBounds,  // outside a GM allocation or an on-chip memory
  kMisaligned,
  kIllegalPath,  // instruction or pipe not available on the core, illegal data path
  kDeadlock,
  kBudget,     // instruction budget exhausted
  kLaunchCap,  // a block's share of a LaunchOptions cap exhausted (GM access records)
  kFault,      // bad operand value, division by zero, unsupported instruction
};
std::string_view FindingKindName(FindingKind kind);

// One problem found by the device. `message` is a complete human-readable report naming the
// instruction(s) (disassembly), pipes, cores, block and line-table entries.
struct Finding {
  FindingKind kind = FindingKind::kFault;
  int64_t block = 0;
  std::string message;
};

// Busy cycles of one pipe of one core of a block.
struct PipeBusy {
  std::string core;  // "aic", "aiv0", "aiv1"
  target::Pipe pipe = target::Pipe::kS;
  uint64_t busy_cycles = 0;  // summed occupancy
};

struct BlockReport {
  int64_t block = 0;
  uint64_t span_cycles = 0;      // first start to last completion of the block
  uint64_t roofline_cycles = 0;  // largest summed occupancy over the block's pipes
  std::vector<PipeBusy> pipes;
  uint64_t instructions = 0;
  // Cube/vector overlap. A core is busy while any of its non-scalar pipes is occupied (an
  // instruction's occupancy interval; flag waits and barriers do not count). The AIC's busy
  // time and each AIV's are lengths of interval unions; "AIV busy" for the group means either
  // AIV busy (the union over both). overlap = |AIC busy ∩ AIV busy|, so overlap / span_cycles
  // is the fraction of the block during which cube and vector work ran at the same time.
  // Zero for a core the kernel does not use.
  uint64_t aic_busy_cycles = 0;
  std::vector<uint64_t> aiv_busy_cycles;  // per AIV present: aiv0, aiv1
  uint64_t aiv_any_busy_cycles = 0;       // union over the AIVs
  uint64_t cube_vector_overlap_cycles = 0;
  // GM traffic of the block's pipe instructions (DMA between GM and L1/UB/L0, fixpipe to GM,
  // atomic stores; scalar loads and stores and debug dumps excluded), in bytes, and the
  // distinct GM bytes among them (each byte counted once, whichever core touched it).
  uint64_t gm_read_bytes = 0;
  uint64_t gm_write_bytes = 0;
  uint64_t gm_distinct_bytes = 0;
};

// The version of how a device counts cycles beyond the target's figures (the simulator's wave
// accounting, its shared-HBM floor). Decisions ranked by cycles (tune decisions) key on it;
// bump it with any such change, so that cached rankings are made again.
inline constexpr std::string_view kTimingModelVersion = "sim-timing/2";

struct LaunchReport {
  Status status;  // OK iff no finding (and no internal error)
  // Waves of blocks, each as long as the larger of its longest block and its HBM floor: the
  // wave's GM bytes that reach HBM over the chip's bandwidth (NpuTarget::hbm_bpc), so that
  // blocks sharing HBM do not each get it whole. docs/timing_model.md says what this models.
  uint64_t kernel_cycles = 0;
  uint64_t launch_overhead_cycles = 0;  // reported separately, not in kernel_cycles
  int64_t waves = 0;
  // The shared-HBM model's inputs and effect. gm_bytes: every block's GM reads plus writes;
  // hbm_bytes: the part charged to HBM (per wave, the GM bytes no earlier block of the launch
  // touched while the launch's footprint fits the L2; the rest are L2 hits). block_bound_cycles:
  // kernel_cycles without the floor (each wave as long as its longest block, the figure before
  // the model); hbm_bound_waves: waves whose floor was longer than their longest block.
  uint64_t gm_bytes = 0;
  uint64_t hbm_bytes = 0;
  uint64_t block_bound_cycles = 0;
  int64_t hbm_bound_waves = 0;
  // The launch's grid (0: an empty launch, no block ran) and, for a kernel with symbolic dims,
  // each symbol's bound value in symbol order (filled by the runner, which binds them).
  int64_t block_count = 0;
  std::vector<std::pair<std::string, int64_t>> symbols;
  std::vector<BlockReport> blocks;
  std::vector<Finding> findings;
  uint64_t findings_suppressed = 0;
  std::string trace_json;  // Chrome trace (only with LaunchOptions::trace)
  // What T.printf / T.dump_tensor printed: block after block, in each block core after core
  // (aic, aiv0, aiv1), each core's lines in program order and prefixed "[block B core] ".
  // Empty when the kernel prints nothing; at most kMaxDeviceOutputBytes (then a note). Each
  // block keeps an equal share of that (at least kMinBlockDeviceOutput, at most
  // kMaxBlockDeviceOutput; past it a note says the block's output was cut).
  std::string device_output;
  // Per line-table entry: (IR statement id, summed occupancy cycles, instruction count).
  struct LineCycles {
    uint32_t stmt = 0;
    uint64_t cycles = 0;
    uint64_t count = 0;
  };
  std::vector<LineCycles> line_cycles;  // only with LaunchOptions::trace
};

inline constexpr size_t kMaxDeviceOutputBytes = size_t{4} << 20;
inline constexpr size_t kMaxBlockDeviceOutput = size_t{1} << 20;
inline constexpr size_t kMinBlockDeviceOutput = size_t{1} << 10;

using KernelId = int;

class Device {
 public:
  virtual ~Device() = default;

  // Allocates a tensor in GM. `initialized` false marks its bytes never-written (outputs,
  // workspaces); the bytes are zero either way.
  virtual Result<Tensor> Allocate(target::ElementType dtype, std::vector<int64_t> shape,
                                  std::string name, bool initialized) = 0;
  virtual Status Free(const Tensor& t) = 0;
  virtual Status CopyToDevice(const Tensor& t, std::span<const uint8_t> bytes) = 0;
  virtual Status CopyFromDevice(const Tensor& t, std::span<uint8_t> bytes) = 0;

  virtual Result<KernelId> LoadImage(KernelImage image) = 0;
  virtual Result<KernelId> LoadBinary(std::span<const uint8_t> bytes) = 0;
  virtual const KernelImage* GetKernel(KernelId id) const = 0;

  // Launches with argument slots (read by ld_arg): by convention slot i is the GM address of
  // parameter i in metadata order and slot params.size() + j the value of symbol j
  // (target::LaunchArgs); a symbolic grid is evaluated from those slots. A device error (bad
  // kernel id, an internal failure) is a non-OK Result; problems of the kernel itself are
  // findings in an OK Result whose report.status is not OK.
  virtual Result<LaunchReport> Launch(KernelId id, std::span<const uint64_t> args,
                                      const LaunchOptions& options) = 0;
};

// Makes a new device per call, owned by the caller. An error Result says why there is no
// device (busy, absent, failed to open); an OK Result never holds null. Whether a factory may
// be called from several threads at once is its own contract (the simulator's may).
using DeviceFactory = std::function<Result<std::unique_ptr<Device>>()>;

}  // namespace tilejit::runner
