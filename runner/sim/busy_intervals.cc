// SPDX-License-Identifier: Apache-2.0
// Lazy normalisation keeps the simulator's per-instruction cost at one comparison: the
// discrete-event loop hands out pipe actions in time order, so the out-of-order path is rare.
#include "runner/sim/busy_intervals.h"

#include <algorithm>
#include <utility>

namespace tilejit::runner::sim {

void BusyIntervals::Add(uint64_t begin, uint64_t end) {
  if (end <= begin) return;
  if (!list_.empty() && sorted_) {
    Interval& last = list_.back();
    if (begin >= last.begin) {
      if (begin <= last.end) {
        last.end = std::max(last.end, end);
        return;
      }
    } else {
      sorted_ = false;
    }
  }
  list_.push_back({begin, end});
}

void BusyIntervals::AddAll(const BusyIntervals& other) {
  for (const Interval& i : other.Merged()) Add(i.begin, i.end);
}

void BusyIntervals::Normalize() const {
  if (sorted_) return;
  std::sort(list_.begin(), list_.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> merged;
  merged.reserve(list_.size());
  for (const Interval& i : list_) {
    if (!merged.empty() && i.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, i.end);
    } else {
      merged.push_back(i);
    }
  }
  list_ = std::move(merged);
  sorted_ = true;
}

const std::vector<BusyIntervals::Interval>& BusyIntervals::Merged() const {
  Normalize();
  return list_;
}

uint64_t BusyIntervals::Length() const {
  uint64_t total = 0;
  for (const Interval& i : Merged()) total += i.end - i.begin;
  return total;
}

uint64_t IntersectionLength(const BusyIntervals& a, const BusyIntervals& b) {
  const auto& x = a.Merged();
  const auto& y = b.Merged();
  uint64_t total = 0;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const uint64_t lo = std::max(x[i].begin, y[j].begin);
    const uint64_t hi = std::min(x[i].end, y[j].end);
    if (lo < hi) total += hi - lo;
    // Advance whichever interval ends first; it cannot meet anything later in the other list.
    if (x[i].end < y[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

}  // namespace tilejit::runner::sim
