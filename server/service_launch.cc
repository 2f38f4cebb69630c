// SPDX-License-Identifier: Apache-2.0
// Launch: runs a cached kernel on a fresh device per call (from the service's DeviceFactory),
// under the caps of the request and the daemon.
//
// The launch runs on its own thread while the caller waits for it until its deadline (or its
// cancellation). A caller that gives up gets DEADLINE_EXCEEDED (or CANCELLED) at once and
// raises the run's cancel flag (runner::LaunchOptions::cancel), which the device polls (the
// simulator between instructions), so the abandoned run stops within microseconds and gives
// its launch slot back instead of running on to its instruction budget. The slot is released
// by the launch thread itself, so abandoned runs can never exceed max_concurrent_launches.
//
// The device is whatever the factory makes, so the launch thread turns an exception escaping
// it into kInternal rather than trusting every device to keep its own (the simulator does):
// no exception may leave a detached thread, which would end the daemon.
//
// A run that exhausts its instruction budget (a per-request cap) is RESOURCE_EXHAUSTED, with
// the simulator's located account of where the budget ran out in the message.
#include <spdlog/spdlog.h>

#include <atomic>
#include <exception>
#include <regex>
#include <thread>
#include <utility>

#include "compiler/target/launch_shapes.h"
#include "runner/runner.h"
#include "server/handle.h"
#include "server/handoff.h"
#include "server/service.h"

namespace tilejit::server {
namespace {

// Appends the request's own file:line:col to every "line-table stmt N" a finding names.
std::string LocateFindings(const std::string& message, const MemoEntry& memo) {
  static const std::regex kStmt("line-table stmt ([0-9]+)");
  std::string out;
  auto begin = std::sregex_iterator(message.begin(), message.end(), kStmt);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const size_t end = m.position(0) + m.length(0);
    out += message.substr(last, end - last);
    last = end;
    const unsigned long id = std::stoul(m[1].str());
    if (id < memo.source_map.size() && memo.source_map[id].line != 0) {
      const SourcePos& p = memo.source_map[id];
      const std::string& file =
          p.file < memo.file_names.size() ? memo.file_names[p.file] : memo.file_name;
      out += ", " + file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
    }
  }
  return out + message.substr(last);
}

double MillisSince(SteadyTime t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The first finding of `kind` (located), if any.
const runner::Finding* FirstFinding(const runner::LaunchReport& report, runner::FindingKind kind) {
  for (const runner::Finding& f : report.findings) {
    if (f.kind == kind) return &f;
  }
  return nullptr;
}

// Loads `kernel` on a device from `devices` and runs it there; the device dies with the run.
Result<runner::RunResult> RunOnNewDevice(const runner::DeviceFactory& devices,
                                         const KernelRecord& kernel,
                                         std::span<const runner::NpyArray> inputs,
                                         const runner::LaunchOptions& lo) {
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<runner::Device> device, devices());
  if (!device) return Internal("the device factory made no device");
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(kernel.binary.data()),
                                 kernel.binary.size());
  TILEJIT_ASSIGN_OR_RETURN(runner::KernelId id, device->LoadBinary(bytes));
  return runner::RunKernel(*device, id, inputs, lo);
}

Result<runner::RunResult> RunCatching(const runner::DeviceFactory& devices,
                                      const KernelRecord& kernel,
                                      std::span<const runner::NpyArray> inputs,
                                      const runner::LaunchOptions& lo) {
  try {
    return RunOnNewDevice(devices, kernel, inputs, lo);
  } catch (const std::exception& e) {
    return Internal(std::string("the device threw: ") + e.what());
  } catch (...) {
    return Internal("the device threw a non-standard exception");
  }
}

// Runs `kernel` on a new device on a thread of its own and waits for it until the caller's
// deadline or cancellation, on which it raises the run's cancel flag. `slots` is decremented
// by the launch thread when it ends.
Result<runner::RunResult> RunDetached(std::shared_ptr<const runner::DeviceFactory> devices,
                                      std::shared_ptr<const KernelRecord> kernel,
                                      std::vector<runner::NpyArray> inputs,
                                      runner::LaunchOptions lo, const CallContext& ctx,
                                      std::shared_ptr<std::atomic<int>> slots) {
  using Ran = Result<runner::RunResult>;
  auto handoff = std::make_shared<Handoff<Ran>>();
  lo.cancel = handoff->abandoned_flag();  // `handoff` outlives the launch thread's use of it
  std::thread([handoff, devices, kernel, inputs = std::move(inputs), lo, slots] {
    Ran r = RunCatching(*devices, *kernel, inputs, lo);
    slots->fetch_sub(1);
    handoff->Put(std::move(r));
  }).detach();
  Ran ran = Internal("the launch did not run");
  if (Status waited = handoff->Wait(ctx.deadline, ctx.cancelled, "the launch", &ran);
      !waited.ok()) {
    return Status(waited.code(), waited.message() + "; it was stopped");
  }
  return ran;
}

}  // namespace

Result<std::shared_ptr<const KernelRecord>> CompileService::ResolveLaunchKernel(
    const LaunchCall& call, std::shared_ptr<const MemoEntry>* memo) {
  std::string key;
  if (!call.request_digest.empty()) {
    if (!IsHexDigest(call.request_digest)) {
      return InvalidArgument("request_digest must be 64 lower-case hex digits");
    }
    *memo = memo_.Get(call.request_digest);
    // With a handle too, a daemon that never saw the request (another node of a balanced
    // cluster) still runs the kernel; its findings then stay unlocated.
    if (!*memo && call.handle.empty()) {
      return NotFound("unknown request_digest (compile on this daemon first, or pass a handle)");
    }
    if (*memo) key = (*memo)->key;
  }
  if (!call.handle.empty()) {
    TILEJIT_ASSIGN_OR_RETURN(std::string hkey, KeyFromHandle(call.handle));
    if (!key.empty() && hkey != key) {
      return InvalidArgument("handle and request_digest name different kernels");
    }
    key = std::move(hkey);
  }
  if (key.empty()) return InvalidArgument("Launch needs a handle or a request_digest");
  Result<StoreHit> hit = store_->Get(key);
  if (!hit.ok()) {
    if (hit.status().code() != StatusCode::kNotFound) return hit.status();
    return NotFound("no kernel with handle " + HandleFromKey(key) + " (evicted, or never here)");
  }
  return hit->kernel;
}

Result<LaunchReply> CompileService::Launch(const LaunchCall& call, const CallContext& ctx) {
  const SteadyTime t0 = std::chrono::steady_clock::now();
  Result<LaunchReply> reply = LaunchImpl(call, ctx);
  CountRequest("Launch", reply.status());
  phase_seconds_->With({"launch"}).Observe(MillisSince(t0) / 1000.0);
  if (!reply.ok()) {
    spdlog::info("launch id={} status={}", ctx.request_id, reply.status().ToString());
  }
  return reply;
}

Status CompileService::CheckLaunchCaps(const LaunchCall& call, const KernelRecord& kernel) const {
  if (call.instruction_budget > options_.max_instruction_budget) {
    return InvalidArgument("instruction_budget " + std::to_string(call.instruction_budget) +
                           " is above the daemon's maximum " +
                           std::to_string(options_.max_instruction_budget));
  }
  if (call.max_gm_bytes > options_.max_launch_gm_bytes) {
    return InvalidArgument("max_gm_bytes " + std::to_string(call.max_gm_bytes) +
                           " is above the daemon's maximum " +
                           std::to_string(options_.max_launch_gm_bytes));
  }
  // The caps apply to this launch's shapes (a symbolic kernel's grid and tensors follow its
  // inputs). Inputs that do not bind are left to RunKernel, which checks dtypes first and names
  // the input in its message; nothing is allocated before that.
  std::vector<std::vector<int64_t>> input_shapes;
  for (const runner::NpyArray& a : call.inputs) input_shapes.push_back(a.shape);
  Result<target::LaunchShapes> shapes = target::BindInputShapes(kernel.metadata, input_shapes);
  if (!shapes.ok()) return Status::Ok();
  if (shapes->block_count > options_.max_launch_blocks) {
    return ResourceExhausted("the kernel's grid has " + std::to_string(shapes->block_count) +
                             " blocks; the daemon's cap is " +
                             std::to_string(options_.max_launch_blocks) + " (--max-launch-blocks)");
  }
  const uint64_t gm_cap = call.max_gm_bytes ? call.max_gm_bytes : options_.max_launch_gm_bytes;
  const auto gm = static_cast<uint64_t>(shapes->total_bytes);
  if (gm > gm_cap) {
    return ResourceExhausted("the kernel's tensors need " + std::to_string(gm) +
                             " bytes of GM; the cap is " + std::to_string(gm_cap));
  }
  return Status::Ok();
}

Result<LaunchReply> CompileService::LaunchImpl(const LaunchCall& call, const CallContext& ctx) {
  if (draining()) return Unavailable("tilejitd is draining (shutting down); retry elsewhere");
  if (std::chrono::steady_clock::now() >= ctx.deadline) {
    return DeadlineExceeded("the deadline passed before the launch started");
  }
  TILEJIT_ASSIGN_OR_RETURN(Admission::Ticket admitted, Admit(ctx));
  std::shared_ptr<const MemoEntry> memo;
  TILEJIT_ASSIGN_OR_RETURN(std::shared_ptr<const KernelRecord> kernel,
                           ResolveLaunchKernel(call, &memo));
  TILEJIT_RETURN_IF_ERROR(CheckLaunchCaps(call, *kernel));
  // Take a launch slot (released by the launch thread, even after an abandoned wait).
  if (launch_slots_->fetch_add(1) >= options_.max_concurrent_launches) {
    launch_slots_->fetch_sub(1);
    return ResourceExhausted("too many launches in progress; retry later");
  }
  runner::LaunchOptions lo;
  lo.mode = call.mode;
  lo.seed = call.seed;
  lo.host_threads = options_.launch_host_threads;
  lo.instr_budget =
      call.instruction_budget ? call.instruction_budget : options_.default_instruction_budget;
  lo.max_blocks = options_.max_launch_blocks;
  const SteadyTime t0 = std::chrono::steady_clock::now();
  CallContext bounded = ctx;  // the daemon's limit, when the caller's deadline is later
  bounded.deadline = std::min(ctx.deadline, t0 + std::chrono::seconds(options_.max_launch_seconds));
  Result<runner::RunResult> ran =
      RunDetached(devices_, kernel, call.inputs, lo, bounded, launch_slots_);
  if (ran.status().code() == StatusCode::kDeadlineExceeded && bounded.deadline < ctx.deadline) {
    return DeadlineExceeded("the launch ran longer than the daemon's limit of " +
                            std::to_string(options_.max_launch_seconds) +
                            " s (--max-launch-seconds); it was stopped");
  }
  TILEJIT_ASSIGN_OR_RETURN(runner::RunResult run, std::move(ran));
  for (runner::Finding& f : run.report.findings) {
    if (memo) f.message = LocateFindings(f.message, *memo);
  }
  if (const runner::Finding* budget = FirstFinding(run.report, runner::FindingKind::kBudget)) {
    return ResourceExhausted(
        "the launch ran past its instruction budget (a per-request cap; instruction_budget may "
        "be raised up to " +
        std::to_string(options_.max_instruction_budget) + "): " + budget->message);
  }
  if (const runner::Finding* cap = FirstFinding(run.report, runner::FindingKind::kLaunchCap)) {
    return ResourceExhausted("the launch reached a cap of the simulator: " + cap->message);
  }
  LaunchReply reply;
  reply.timings.push_back({"launch", MillisSince(t0)});
  reply.ok = run.report.status.ok();
  if (!reply.ok) reply.error = run.report.status.message();
  for (const runner::BlockReport& b : run.report.blocks) reply.instructions += b.instructions;
  reply.report = std::move(run.report);  // with the bound symbols and block count
  reply.outputs = std::move(run.outputs);
  spdlog::info("launch id={} key={} ok={} cycles={}", ctx.request_id, kernel->key.substr(0, 16),
               reply.ok, reply.report.kernel_cycles);
  return reply;
}

}  // namespace tilejit::server
