// SPDX-License-Identifier: Apache-2.0
// Small timing helpers for the benchmarks: a steady-clock stopwatch and nearest-rank
// percentiles. Header-only; pure functions and plain values.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace tilejit::bench {

using Seconds = double;

class Timer {
 public:
  Timer() : start_(std::chrono::steady_clock::now()) {}
  Seconds Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Nearest-rank percentile p in [0, 100] of `values` (0 when empty).
inline double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(values.size()));
  const size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return values[std::min(index, values.size() - 1)];
}

}  // namespace tilejit::bench
