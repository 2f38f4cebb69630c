// SPDX-License-Identifier: Apache-2.0
// Range bookkeeping for the shared-HBM floor. A block appends a range per GM span and merges
// only when the list doubled since the last merge, so recording stays amortised O(1) per
// instruction while a streaming kernel (adjacent tiles) keeps a handful of ranges. The launch
// side unions each wave's ranges once, so its cost is that of sorting the wave's ranges.
#include "runner/sim/gm_traffic.h"

#include <algorithm>

namespace tilejit::runner::sim {

void NormalizeRanges(GmRanges* r) {
  std::sort(r->begin(), r->end());
  size_t out = 0;
  for (const auto& range : *r) {
    if (range.first >= range.second) continue;
    if (out > 0 && range.first <= (*r)[out - 1].second) {
      (*r)[out - 1].second = std::max((*r)[out - 1].second, range.second);
    } else {
      (*r)[out++] = range;
    }
  }
  r->resize(out);
}

uint64_t RangeBytes(const GmRanges& r) {
  uint64_t n = 0;
  for (const auto& [begin, end] : r) n += end - begin;
  return n;
}

// Both lists are sorted and disjoint: one sweep, advancing `base` past ranges ending before
// the current `add` range begins.
uint64_t BytesOutside(const GmRanges& add, const GmRanges& base) {
  uint64_t outside = 0;
  size_t j = 0;
  for (const auto& [begin, end] : add) {
    while (j < base.size() && base[j].second <= begin) ++j;
    uint64_t covered = 0;
    for (size_t k = j; k < base.size() && base[k].first < end; ++k) {
      covered += std::min(end, base[k].second) - std::max(begin, base[k].first);
    }
    outside += (end - begin) - covered;
  }
  return outside;
}

void GmTraffic::Add(uint64_t addr, uint64_t bytes, bool write) {
  (write ? write_bytes_ : read_bytes_) += bytes;
  if (!complete_ || bytes == 0) return;
  if (!ranges_.empty() && ranges_.back().second == addr) {
    ranges_.back().second = addr + bytes;  // the next burst of a contiguous transfer
    return;
  }
  ranges_.emplace_back(addr, addr + bytes);
  if (ranges_.size() >= std::max<size_t>(1024, 2 * merged_size_)) Finish();
}

void GmTraffic::Finish() {
  if (!complete_) return;
  NormalizeRanges(&ranges_);
  merged_size_ = ranges_.size();
  if (merged_size_ > max_ranges_) {
    complete_ = false;
    GmRanges().swap(ranges_);
  }
}

void GmTraffic::Done() {
  Finish();
  ranges_.shrink_to_fit();  // kept until the launch's report: only what the block needs
}

uint64_t HbmFloor::AddWave(const std::vector<const GmTraffic*>& blocks) {
  GmRanges wave;
  uint64_t unranged = 0;  // bytes of blocks that stopped keeping ranges: all charged
  for (const GmTraffic* b : blocks) {
    if (b->complete()) {
      wave.insert(wave.end(), b->ranges().begin(), b->ranges().end());
    } else {
      unranged += b->bytes();
    }
  }
  NormalizeRanges(&wave);
  uint64_t fresh = BytesOutside(wave, seen_);
  if (seen_bytes_ + fresh > l2_bytes_) {  // the footprint outgrew the L2: start over
    seen_.clear();
    seen_bytes_ = 0;
    fresh = RangeBytes(wave);
  }
  seen_.insert(seen_.end(), wave.begin(), wave.end());
  NormalizeRanges(&seen_);
  seen_bytes_ += fresh;
  return fresh + unranged;
}

uint64_t HbmFloor::Cycles(uint64_t hbm_bytes) const {
  return hbm_bpc_ == 0 ? 0 : (hbm_bytes + hbm_bpc_ - 1) / hbm_bpc_;
}

}  // namespace tilejit::runner::sim
