// SPDX-License-Identifier: Apache-2.0
// Autotuning (CompileService::Tune, service_tune.cc): the daemon ranks a factory's
// configurations by simulated cycles and caches the decision (DESIGN.md section 7).
//
// A TuneCall is an untuned compile request (the factory and its untuned arguments) plus a
// list of configurations, each a set of keyword values for the factory that override the
// request's kwargs. Every configuration is compiled (in parallel, through the memo,
// single-flight and the kernel cache), run once in fast mode on the simulated device
// (simulated cycles are deterministic, so warm-up and repetitions would measure nothing new),
// checked against the reference outputs when the call has them, and the eligible candidate
// with the fewest kernel cycles wins; ties go to the smallest on-chip footprint, then to the
// first listed. A candidate that does not compile, fails to run or computes wrong outputs is
// ruled out with the reason; the call fails only when none is left (TuneReply::ok false).
//
// The decision is cached (DecisionStore) under TuneDecisionKey, so a repeated call runs no
// compile and no simulation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "compiler/frontend/frontend.h"
#include "runner/npy.h"

namespace tilejit::server {

// Bounds on a Tune call (every count a request carries is capped).
inline constexpr size_t kMaxTuneConfigs = 256;
inline constexpr size_t kMaxTuneConfigKeys = 64;  // keyword values per configuration
inline constexpr size_t kMaxTuneTensors = 64;     // inputs, and reference outputs
inline constexpr size_t kMaxTuneValueBytes = 4096;

struct TuneCall {
  frontend::FrontendRequest request;  // the untuned call
  // Keyword values per configuration (constants), each overriding the request's kwargs.
  std::vector<frontend::NamedValues> configs;
  // Empty, or one complete request per configuration, used instead of `request` with the
  // configuration merged (the Python package sends the prim_funcs it made by running the
  // factory with each configuration; `configs` then only name them).
  std::vector<frontend::FrontendRequest> candidates;
  // The kernel's inputs (TileLang's convention: inputs only). Empty: seeded random inputs of
  // the shapes and dtypes the kernel declares, from `seed`.
  std::vector<runner::NpyArray> inputs;
  uint64_t seed = 0;
  // The expected outputs, in out_idx order, compared within |got - want| <= atol + rtol *
  // |want| elementwise. Empty: no check.
  std::vector<runner::NpyArray> reference;
  double atol = 1e-2;
  double rtol = 1e-2;
  int max_seconds = 0;              // the whole call's budget; 0: ServiceOptions::tune_max_seconds
  uint64_t instruction_budget = 0;  // per run; 0: the service default
};

// What became of one configuration.
struct TuneCandidate {
  size_t index = 0;  // in TuneCall::configs
  bool compiled = false;
  bool ran = false;
  bool checked = false;  // compared with the reference (and matched when `reason` is empty)
  uint64_t cycles = 0;   // LaunchReport::kernel_cycles
  int64_t on_chip_bytes = 0;
  std::string handle;
  std::string request_digest;
  std::string reason;  // why it was ruled out; empty for an eligible candidate
  // True when the reason is the call's or the daemon's state (deadline, load), not the
  // kernel's: such a tuning is not cached.
  bool transient = false;

  bool eligible() const { return ran && reason.empty(); }
};

// Progress of a tuning: one event per candidate and stage, then the reply.
struct TuneEvent {
  enum class Kind { kCompiled, kMeasured, kRuledOut } kind = Kind::kCompiled;
  TuneCandidate candidate;
};
// Called serialised (never concurrently), possibly from the compile pool's helper threads.
using TuneProgressFn = std::function<void(const TuneEvent&)>;

struct TuneReply {
  bool ok = false;
  std::string error;  // when !ok: no candidate is left
  std::string decision_key;
  bool from_cache = false;
  int best = -1;                          // index into the configs; -1 when !ok
  std::vector<TuneCandidate> candidates;  // by index
  std::string best_handle;
};

// Where decisions are kept, by decision key. Thread-safe.
class DecisionStore {
 public:
  virtual ~DecisionStore() = default;
  // nullopt: no decision under `key`.
  virtual Result<std::optional<std::string>> Get(std::string_view key) = 0;
  virtual Status Put(std::string_view key, std::string_view decision) = 0;
};

// In memory, up to `capacity` decisions (the oldest go first).
class MemoryDecisionStore final : public DecisionStore {
 public:
  explicit MemoryDecisionStore(size_t capacity = 4096) : capacity_(capacity) {}
  Result<std::optional<std::string>> Get(std::string_view key) override;
  Status Put(std::string_view key, std::string_view decision) override;

 private:
  size_t capacity_;
  std::mutex mu_;
  std::unordered_map<std::string, std::string> decisions_;
  std::vector<std::string> order_;  // insertion order, for eviction
};

// Malformed calls (counts over the bounds, non-constant or oversized values, bad tolerances):
// kInvalidArgument naming the field.
Status ValidateTuneCall(const TuneCall& call);

// SHA-256 (hex) over everything that can change the decision: the request digest (source,
// entry, untuned arguments, globals, pass configs, indices, target, compiler fingerprint; with
// `candidates`, each candidate's digest),
// the configurations, the input shapes and dtypes (or the generator's seed), whether and
// within which tolerances outputs are checked (with a check, also the inputs' and the
// reference's bytes, which decide who passes it), the target description's hash (its
// timing figures) and the device's cycle accounting (runner::kTimingModelVersion).
std::string TuneDecisionKey(const TuneCall& call, std::string_view compiler_fingerprint);

// `call.candidates[index]`, else `call.request` with configuration `index` merged over its
// kwargs.
frontend::FrontendRequest CandidateRequest(const TuneCall& call, size_t index);

// The best eligible candidate: fewest cycles, then smallest on-chip footprint, then first.
// -1 when none is eligible.
int PickBest(const std::vector<TuneCandidate>& candidates);

// The decision as text (JSON) and back; Decode checks it against the call's config count.
std::string EncodeDecision(const TuneReply& reply);
Result<TuneReply> DecodeDecision(std::string_view text, size_t config_count);

// "block_M=128, block_N=64" (Python reprs).
std::string ConfigText(const frontend::NamedValues& config);

}  // namespace tilejit::server
