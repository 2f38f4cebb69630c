// SPDX-License-Identifier: Apache-2.0
// sync_all inside a block: a core reaching one drains its pipes and waits (at_grid). When
// nothing else in the block can act, the block either has every present core waiting there,
// and then meets the other blocks at the launch's GridBarrier, or it cannot get there (a core
// ended, or waits for something else), which is a deadlock like any other. Effects that
// completed before the arrival are applied first, so the GM the other blocks read after the
// rendezvous holds them.
#include <algorithm>
#include <sstream>

#include "runner/sim/block_runner.h"
#include "runner/sim/grid_barrier.h"

namespace tilejit::runner::sim::internal {

using target::Pipe;

bool BlockRunner::GridRendezvous() {
  uint64_t arrival = 0;
  bool any = false, all = true;
  std::ostringstream ended;
  for (const CoreState& c : cores_) {
    if (!c.present) continue;
    any = any || c.at_grid;
    all = all && c.at_grid;
    arrival = std::max(arrival, c.grid_arrival);
    if (c.ended) ended << " " << CoreName(c.index) << " ended without reaching it;";
  }
  if (!any || !all) {
    if (any && !ended.str().empty()) {
      Add(FindingKind::kDeadlock, "block " + std::to_string(block_) +
                                      ": deadlock at sync_all: every core of the launch must "
                                      "reach it, but" +
                                      ended.str());
    } else {
      ReportDeadlock();
    }
    return false;
  }
  ApplyPendingUpTo(arrival);
  std::optional<uint64_t> release = arrival;
  if (ctx_.grid != nullptr) release = ctx_.grid->Arrive(arrival, ctx_.options.cancel);
  if (!release.has_value()) {
    const std::atomic<bool>* cancel = ctx_.options.cancel;
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
      result_.cancelled = true;
      LeaveGrid();
      return false;
    }
    Add(FindingKind::kDeadlock,
        "block " + std::to_string(block_) +
            ": deadlock at sync_all: another block ended or stopped without reaching it "
            "(every core of every block must reach each sync_all)");
    aborted_ = true;
    return false;
  }
  const uint64_t leave = *release + t_.cross_set_latency.value;
  for (CoreState& c : cores_) {
    if (!c.present) continue;
    Trace(c, Pipe::kS, c.grid_arrival, leave, static_cast<int>(c.pc));
    c.stime = leave;
    c.at_grid = false;
    ++c.pc;
  }
  ++epoch_;
  return true;
}

void BlockRunner::LeaveGrid() {
  if (ctx_.grid == nullptr || left_grid_) return;
  left_grid_ = true;
  ctx_.grid->Leave();
}

}  // namespace tilejit::runner::sim::internal
