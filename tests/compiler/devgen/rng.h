// SPDX-License-Identifier: Apache-2.0
// A seeded random source for the Developer-kernel generator. std::mt19937_64 is specified
// bit for bit by the C++ standard, but the standard distributions are not (libstdc++ and
// libc++ differ), so the generator uses only the raw engine and these hand-written
// distributions: a seed names the same kernel on every platform.
//
// Not thread-safe: one Rng per generated kernel.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/check.h"

namespace tilejit::devgen {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  // A uniformly distributed integer in [lo, hi] (inclusive). Rejection sampling keeps every
  // value equally likely (no modulo bias).
  int64_t Uniform(int64_t lo, int64_t hi) {
    TILEJIT_CHECK(lo <= hi) << "Uniform(" << lo << ", " << hi << ")";
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    if (span == 0) return static_cast<int64_t>(engine_());  // the whole 64-bit range
    const uint64_t limit = UINT64_MAX - UINT64_MAX % span;
    uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return lo + static_cast<int64_t>(x % span);
  }

  // True with probability percent / 100.
  bool Chance(int percent) { return Uniform(0, 99) < percent; }

  // A copy of one element of a non-empty list, uniformly.
  template <typename T>
  T Pick(const std::vector<T>& items) {
    TILEJIT_CHECK(!items.empty()) << "Pick from an empty list";
    return items[static_cast<size_t>(Uniform(0, static_cast<int64_t>(items.size()) - 1))];
  }

  // An index in [0, weights.size()) with probability proportional to its weight (weights
  // are non-negative and not all zero).
  size_t Weighted(const std::vector<int>& weights) {
    int64_t total = 0;
    for (int w : weights) total += w;
    TILEJIT_CHECK(total > 0) << "Weighted with no positive weight";
    int64_t x = Uniform(0, total - 1);
    for (size_t i = 0; i < weights.size(); ++i) {
      if (x < weights[i]) return i;
      x -= weights[i];
    }
    return weights.size() - 1;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace tilejit::devgen
