// SPDX-License-Identifier: Apache-2.0
// HostBudget: the bounds on one frontend run (the host evaluator and the tracer), so that a
// hostile factory (a loop of 2^40 steps, a list doubled in a loop, unbounded recursion) ends
// with a located diagnostic naming the budget instead of taking a core or the machine's memory.
//
//   steps      statements executed and traced, loop iterations and calls, across nesting
//   memory     bytes held by live lists, tuples and dicts (their elements' strings included)
//              and by every live copy of a string past HostCharge::kMinBytes
//   call depth user function and macro calls in progress (recursion)
//   seconds    wall-clock time of the run; the caller's deadline and cancellation also end it
//
// Usage: RunFrontend makes one per request and activates it on its thread for the run:
//
//   HostBudget budget(request.limits, request.deadline, request.cancelled);
//   HostBudget::Active active(&budget);
//   ... if (!budget.Step(loc, diag)) return error;  // the evaluator, at each step
//
// Once a budget is exhausted the budget stays exhausted: every later Step fails without a
// new diagnostic, so an evaluation unwinds however many frames it is deep.
//
// Threading: a HostBudget belongs to one run on one thread. Values made on a thread with an
// active budget are charged to it; their storage releases the charge when freed (on any
// thread, after the budget itself is gone too: the meter is shared).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/diagnostic.h"
#include "common/source_loc.h"

namespace tilejit::frontend {

// The configured bounds (daemon settings; the defaults are far above any real factory's).
struct HostLimits {
  uint64_t max_steps = 50'000'000;  // ~10 s of host evaluation
  uint64_t max_memory_bytes = uint64_t{1} << 30;
  int max_call_depth = 48;  // the C++ stack bounds it too: at most kMaxCallDepthLimit
  double max_seconds = 120;

  static constexpr int kMaxCallDepthLimit = 48;
};

// Bytes of live host storage, shared by a budget and the storage charged to it.
struct HostMeter {
  std::atomic<int64_t> held{0};
  std::atomic<int64_t> peak{0};
  void Add(int64_t bytes);
};

// Charges `bytes` to a meter while it lives. It sits beside the buffer it accounts for (a
// Value's string): a copy charges again, as the buffer was copied too; a move hands it over.
class HostCharge {
 public:
  static constexpr size_t kMinBytes = 4096;  // smaller strings are not worth a charge

  HostCharge() = default;
  HostCharge(std::shared_ptr<HostMeter> meter, int64_t bytes);
  HostCharge(const HostCharge& other);
  HostCharge(HostCharge&& other) noexcept;
  HostCharge& operator=(HostCharge other) noexcept;
  ~HostCharge();

  explicit operator bool() const { return meter_ != nullptr; }

 private:
  std::shared_ptr<HostMeter> meter_;
  int64_t bytes_ = 0;
};

class HostBudget {
 public:
  using Clock = std::chrono::steady_clock;

  // `deadline`: the caller's (the wall-clock limit applies as well); `cancelled` may be null.
  HostBudget(const HostLimits& limits, Clock::time_point deadline = Clock::time_point::max(),
             std::function<bool()> cancelled = nullptr);

  // Counts one step; false (with a diagnostic at `loc` the first time) once any budget is
  // exhausted: steps, memory held, the wall clock, the caller's deadline or cancellation.
  bool Step(SourceLoc loc, DiagnosticEngine* diag);
  // Before making a value of `bytes` bytes: false (with a diagnostic at `loc`) when it would
  // not fit in what the memory budget has left.
  bool Reserve(uint64_t bytes, SourceLoc loc, DiagnosticEngine* diag);
  // One step of work that has no source location (a walk over a value: repr, ==, a digest)
  // that makes `bytes_made` bytes so far: false once any budget is exhausted; the diagnostic
  // comes with the next Step, at its location (or from Report).
  bool Tick(uint64_t bytes_made = 0);
  // Reports an exhaustion that Tick found and no Step has reported yet, at `loc`.
  void Report(SourceLoc loc, DiagnosticEngine* diag);
  // Before a call: false (with a diagnostic) at the call depth limit.
  bool EnterCall(int depth, SourceLoc loc, DiagnosticEngine* diag);

  bool exhausted() const { return exhausted_; }
  // True when the run was stopped by time (the wall clock, the caller's deadline or cancel):
  // the outcome depends on the load and the caller, so it is no property of the kernel.
  bool stopped_by_time() const { return stopped_by_time_; }
  int64_t peak_bytes() const { return meter_->peak.load(); }
  const HostLimits& limits() const { return limits_; }
  const std::shared_ptr<HostMeter>& meter() const { return meter_; }

  // Makes `budget` the thread's active budget for the scope (the previous one is restored).
  class Active {
   public:
    explicit Active(HostBudget* budget);
    ~Active();
    Active(const Active&) = delete;
    Active& operator=(const Active&) = delete;

   private:
    HostBudget* previous_;
  };
  // The thread's active budget, or null.
  static HostBudget* Current();

 private:
  bool Fail(SourceLoc loc, DiagnosticEngine* diag, const std::string& message);
  bool CheckClock(SourceLoc loc, DiagnosticEngine* diag);
  std::string StepMessage() const;

  HostLimits limits_;
  Clock::time_point wall_deadline_;
  Clock::time_point caller_deadline_;
  std::function<bool()> cancelled_;
  std::shared_ptr<HostMeter> meter_ = std::make_shared<HostMeter>();
  uint64_t steps_ = 0;
  bool exhausted_ = false;
  bool stopped_by_time_ = false;
  std::string pending_;  // an exhaustion Tick found, not yet reported
};

// Tick on the thread's active budget; true when there is none.
inline bool BudgetTick(uint64_t bytes_made = 0) {
  HostBudget* budget = HostBudget::Current();
  return budget == nullptr || budget->Tick(bytes_made);
}

}  // namespace tilejit::frontend
