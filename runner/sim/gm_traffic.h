// SPDX-License-Identifier: Apache-2.0
// GM traffic of a launch and the shared-HBM floor of its waves (docs/timing_model.md).
//
// Each block records the GM byte ranges its pipe instructions touch (GmTraffic, filled by the
// block's own thread). After every block ran, HbmFloor walks the waves in order and charges to
// HBM the bytes of each wave that no earlier block of the launch touched: a byte read or written
// again is an L2 hit, as long as the launch's footprint so far fits in the L2 (once it does
// not, the footprint starts over, a crude stand-in for eviction). A wave then lasts at least
// ceil(hbm bytes / hbm_bpc) cycles, however short its blocks are on their own.
//
// Plain values; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tilejit::runner::sim {

// Half-open GM byte ranges [first, second). Normalised: sorted, disjoint and not adjacent.
using GmRanges = std::vector<std::pair<uint64_t, uint64_t>>;

// Sorts `r` and merges overlapping and adjacent ranges.
void NormalizeRanges(GmRanges* r);
// Bytes covered by normalised `r`.
uint64_t RangeBytes(const GmRanges& r);
// Bytes of normalised `add` outside normalised `base`.
uint64_t BytesOutside(const GmRanges& add, const GmRanges& base);

// What one block moved between GM and the chip.
class GmTraffic {
 public:
  // Past max_ranges() distinct ranges (after merging) a block stops keeping them; all its bytes
  // are then charged to HBM (an upper bound), so memory stays bounded on any grid. The launch
  // gives each block a share of LaunchOptions::max_gm_records, at most kMaxRanges.
  static constexpr size_t kMaxRanges = size_t{1} << 16;
  void set_max_ranges(size_t n) { max_ranges_ = n; }
  size_t max_ranges() const { return max_ranges_; }

  void Add(uint64_t addr, uint64_t bytes, bool write);
  // Merges what Add collected so far.
  void Finish();
  // Finish, and releases spare capacity; call once the block is done.
  void Done();

  uint64_t read_bytes() const { return read_bytes_; }
  uint64_t write_bytes() const { return write_bytes_; }
  uint64_t bytes() const { return read_bytes_ + write_bytes_; }
  // After Finish: false if the block touched more than max_ranges() distinct ranges.
  bool complete() const { return complete_; }
  const GmRanges& ranges() const { return ranges_; }  // normalised after Finish
  // Distinct bytes (all bytes when not complete).
  uint64_t distinct_bytes() const { return complete_ ? RangeBytes(ranges_) : bytes(); }

 private:
  uint64_t read_bytes_ = 0;
  uint64_t write_bytes_ = 0;
  size_t max_ranges_ = kMaxRanges;
  bool complete_ = true;
  size_t merged_size_ = 0;  // size after the last merge
  GmRanges ranges_;
};

// The HBM side of a launch's waves, fed in wave order.
class HbmFloor {
 public:
  // `hbm_bpc` bytes per cycle for the chip (0: no floor); `l2_bytes` the L2 capacity.
  HbmFloor(uint64_t hbm_bpc, uint64_t l2_bytes) : hbm_bpc_(hbm_bpc), l2_bytes_(l2_bytes) {}

  // Adds the next wave (its blocks' traffic, Finish()ed) and returns the GM bytes it charges
  // to HBM.
  uint64_t AddWave(const std::vector<const GmTraffic*>& blocks);
  // The floor in cycles for `hbm_bytes` (0 when not modelled).
  uint64_t Cycles(uint64_t hbm_bytes) const;

 private:
  uint64_t hbm_bpc_;
  uint64_t l2_bytes_;
  GmRanges seen_;  // footprint of earlier waves (normalised)
  uint64_t seen_bytes_ = 0;
};

}  // namespace tilejit::runner::sim
