// SPDX-License-Identifier: Apache-2.0
// Launch: runs a cached kernel on a fresh simulated device per call, under the caps of the
// request and the daemon.
//
// The simulator has no cancellation hook, so the launch runs on its own thread and the caller
// waits for it until its deadline: a caller whose deadline passes gets DEADLINE_EXCEEDED at
// once, while the abandoned simulation finishes in the background (bounded by its
// instruction budget) still holding its launch slot, so abandoned runs cannot pile up beyond
// max_concurrent_launches.
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>
#include <regex>
#include <thread>
#include <utility>

#include "runner/runner.h"
#include "runner/sim/sim_device.h"
#include "server/handle.h"
#include "server/service.h"

namespace tilejit::server {
namespace {

// Shared by the caller and the simulation thread; whoever finishes last frees it.
struct LaunchState {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Result<runner::RunResult> result = Internal("launch did not run");
};

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
      out += ", " + memo.file_name + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
    }
  }
  return out + message.substr(last);
}

Result<uint64_t> GmBytes(const target::KernelMetadata& m) {
  uint64_t total = 0;
  for (const target::KernelParam& p : m.params) {
    TILEJIT_ASSIGN_OR_RETURN(int64_t bytes, target::ParamSizeBytes(p));
    total += static_cast<uint64_t>(bytes);
  }
  return total;
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
    if (!*memo) {
      return NotFound("unknown request_digest (compile on this daemon first, or pass a handle)");
    }
    key = (*memo)->key;
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
  if (draining()) return Unavailable("tilejitd is draining (shutting down); retry elsewhere");
  if (std::chrono::steady_clock::now() >= ctx.deadline) {
    return DeadlineExceeded("the deadline passed before the launch started");
  }
  std::shared_ptr<const MemoEntry> memo;
  TILEJIT_ASSIGN_OR_RETURN(std::shared_ptr<const KernelRecord> kernel,
                           ResolveLaunchKernel(call, &memo));
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
  const uint64_t gm_cap = call.max_gm_bytes ? call.max_gm_bytes : options_.max_launch_gm_bytes;
  TILEJIT_ASSIGN_OR_RETURN(uint64_t gm, GmBytes(kernel->metadata));
  if (gm > gm_cap) {
    return ResourceExhausted("the kernel's tensors need " + std::to_string(gm) +
                             " bytes of GM; the cap is " + std::to_string(gm_cap));
  }
  // Take a launch slot (released by the simulation thread, even after an abandoned wait).
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
  auto state = std::make_shared<LaunchState>();
  const SteadyTime t0 = std::chrono::steady_clock::now();
  std::thread([state, kernel, inputs = call.inputs, lo, slots = launch_slots_] {
    runner::sim::SimDevice device;
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(kernel->binary.data()),
                                   kernel->binary.size());
    Result<runner::RunResult> r = Internal("unreachable");
    Result<runner::KernelId> id = device.LoadBinary(bytes);
    r = id.ok() ? runner::RunKernel(device, *id, inputs, lo)
                : Result<runner::RunResult>(id.status());
    slots->fetch_sub(1);
    std::lock_guard<std::mutex> lock(state->mu);
    state->result = std::move(r);
    state->done = true;
    state->cv.notify_all();
  }).detach();

  std::unique_lock<std::mutex> lock(state->mu);
  while (!state->done) {
    const SteadyTime now = std::chrono::steady_clock::now();
    if (now >= ctx.deadline) {
      return DeadlineExceeded("the launch did not finish before the deadline");
    }
    if (ctx.cancelled && ctx.cancelled()) return Cancelled("the launch was cancelled");
    state->cv.wait_until(lock, std::min(ctx.deadline, now + std::chrono::milliseconds(20)));
  }
  if (!state->result.ok()) return state->result.status();
  runner::RunResult& run = state->result.value();
  LaunchReply reply;
  reply.timings.push_back(
      {"launch",
       std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()});
  reply.ok = run.report.status.ok();
  if (!reply.ok) reply.error = run.report.status.message();
  for (runner::Finding& f : run.report.findings) {
    if (memo) f.message = LocateFindings(f.message, *memo);
  }
  for (const runner::BlockReport& b : run.report.blocks) reply.instructions += b.instructions;
  reply.report = std::move(run.report);
  reply.outputs = std::move(run.outputs);
  spdlog::info("launch id={} key={} ok={} cycles={}", ctx.request_id, kernel->key.substr(0, 16),
               reply.ok, reply.report.kernel_cycles);
  return reply;
}

}  // namespace tilejit::server
