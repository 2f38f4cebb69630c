// SPDX-License-Identifier: Apache-2.0
// A CompilerBackend for service tests: a toy "frontend" whose canonical form drops comments
// and blank lines (so sources differing only in comments share a key but not line numbers),
// and a "back end" that emits a real, launchable vadd kernel binary (z = x + y, 256 float16)
// for every key. Counts its calls, and can hold Lower at a gate to make compiles overlap (a held
// Lower polls LowerOptions::interrupt and returns its status when it says stop).
//
// Conventions in the source text: a line containing "syntax error" is a compile error there;
// "lower error" makes Lower fail with a compile error; "warn" adds a warning on that line.
//
// Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "runner/npy.h"
#include "server/backend.h"

namespace tilejit::server::testing {

class FakeBackend final : public CompilerBackend {
 public:
  struct Counters {
    std::atomic<int> specialize{0};
    std::atomic<int> lower{0};
    std::atomic<int> lower_waiting{0};      // Lower calls held at the gate
    std::atomic<int> lower_interrupted{0};  // held Lower calls their interrupt stopped
  };

  // `counters` must outlive the backend (tests keep them while the service owns the backend).
  explicit FakeBackend(Counters* counters) : counters_(counters) {}

  const std::string& Fingerprint() const override { return fingerprint_; }
  SpecializeOutcome Specialize(frontend::FrontendRequest request) override;
  LowerOutcome Lower(const SpecializeOutcome& specialized, const LowerOptions& options) override;

  // While held, Lower blocks until Release.
  void Hold();
  void Release();

 private:
  Counters* counters_;
  std::string fingerprint_ = "fake-backend/1";
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
};

// The vadd kernel binary (z = x + y over 256 float16), with `key` as its cache key and
// `ir_text` as the canonical IR it embeds (the fake's key material; empty: none).
std::vector<uint8_t> VaddBinary(const std::string& key, const std::string& ir_text = "");
// The same parameters (x, y in; z out), but the AIV spins forever: only the instruction
// budget or a cancellation ends a launch of it.
std::vector<uint8_t> SpinBinary(const std::string& key);
// A kernel binary with the vadd parameters and `aiv_asm` as its AIV program.
std::vector<uint8_t> ProgramBinary(const std::string& key, const std::string& aiv_asm,
                                   const std::string& ir_text = "");

// The canonical IR a kernel binary embeds ("" when it is not a valid binary).
std::string EmbeddedIr(std::string_view binary);

// float16 bit patterns of 1, 2 and 3: vadd's inputs and their sum.
inline constexpr uint16_t kHalfOne = 0x3c00, kHalfTwo = 0x4000, kHalfThree = 0x4200;
// A float16 array of `n` elements, each `bits` (vadd's inputs have the default 256).
runner::NpyArray HalfArray(uint16_t bits, int64_t n = 256);

// A small valid TileLang-looking source for the fake backend (each call site varies `tag`).
std::string FakeSource(const std::string& tag);

}  // namespace tilejit::server::testing
