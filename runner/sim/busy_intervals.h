// SPDX-License-Identifier: Apache-2.0
// BusyIntervals: the union of half-open cycle intervals [begin, end) during which a core is
// busy (some non-scalar pipe occupied), and the length of the intersection of two unions.
// The simulator feeds one per core with every pipe instruction's occupancy interval; the
// block report turns them into the cube/vector overlap figure (runner/device.h BlockReport).
//
// Intervals arrive from the scheduling loop almost always in non-decreasing start order, so
// Add merges into the last interval in O(1); an out-of-order interval is appended and the
// list is sorted and merged once, on the next read.
//
// Plain value type; thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

namespace tilejit::runner::sim {

class BusyIntervals {
 public:
  struct Interval {
    uint64_t begin = 0;
    uint64_t end = 0;  // exclusive
  };

  // Adds [begin, end); empty intervals are ignored.
  void Add(uint64_t begin, uint64_t end);
  // Adds every interval of `other`.
  void AddAll(const BusyIntervals& other);

  // The disjoint, sorted intervals of the union.
  const std::vector<Interval>& Merged() const;
  // Length of the union in cycles.
  uint64_t Length() const;

 private:
  void Normalize() const;

  mutable std::vector<Interval> list_;
  mutable bool sorted_ = true;
};

// Length of (union of a) intersected with (union of b).
uint64_t IntersectionLength(const BusyIntervals& a, const BusyIntervals& b);

}  // namespace tilejit::runner::sim
