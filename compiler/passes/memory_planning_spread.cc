// SPDX-License-Identifier: Apache-2.0
// A local search over single-buffer moves: each move strictly lowers a positive total, so the
// search ends; the round cap and the work budget only bound the time on large kernels (a plan
// is valid after any number of rounds, zero included). Candidate offsets are 0 and the aligned
// edges of the other buffers (just after one, or ending just before one), where a gap between
// neighbours begins or ends; offsets inside a gap are not tried. This is a heuristic: it keeps
// the first-fit byte count and removes the closest reuses it can, not an optimal assignment.
#include <algorithm>

#include "compiler/passes/memory_planning_internal.h"
#include "compiler/target/tile_layout.h"

namespace tilejit::passes::memory_planning_internal {
namespace {

constexpr int64_t kMaxRounds = 16;
// Slot checks allowed per memory: keeps the pass in milliseconds; a memory with so many
// buffers that not one round fits keeps its first-fit plan.
constexpr int64_t kWorkBudget = int64_t{1} << 26;

bool BytesOverlap(int64_t a, int64_t a_bytes, int64_t b, int64_t b_bytes) {
  return a < b + b_bytes && b < a + a_bytes;
}

// How close, in program order, two buffers with disjoint lifetimes are; larger is closer.
double Closeness(const analysis::Lifetime& a, const analysis::Lifetime& b) {
  const int gap = a.last < b.first ? b.first - a.last : a.first - b.last;
  return 1.0 / std::max(gap, 1);
}

class Spreader {
 public:
  Spreader(std::vector<Slot>& slots, int64_t limit) : slots_(slots), limit_(limit) {}

  void Run() {
    // A round tries ~2n offsets for each of n slots and checks each against n slots.
    const int64_t n = static_cast<int64_t>(slots_.size());
    const int64_t rounds =
        std::min<int64_t>(kMaxRounds, kWorkBudget / std::max<int64_t>(1, 2 * n * n * n));
    for (int64_t round = 0; round < rounds; ++round) {
      bool moved = false;
      for (size_t i = 0; i < slots_.size(); ++i) {
        if (!slots_[i].fixed) moved = MoveToBest(i) || moved;
      }
      if (!moved) return;
    }
  }

 private:
  // Whether slot i may sit at `addr` at all.
  bool Fits(size_t i, int64_t addr) const {
    const Slot& s = slots_[i];
    if (addr < 0 || addr % s.align != 0 || addr + s.bytes > limit_) return false;
    for (size_t j = 0; j < slots_.size(); ++j) {
      const Slot& o = slots_[j];
      if (j == i || !BytesOverlap(addr, s.bytes, o.address, o.bytes)) continue;
      if (o.fixed || o.life.Overlaps(s.life)) return false;
    }
    return true;
  }

  // The closeness slot i would have to the buffers it shares bytes with at `addr`.
  double Cost(size_t i, int64_t addr) const {
    const Slot& s = slots_[i];
    double cost = 0;
    for (size_t j = 0; j < slots_.size(); ++j) {
      const Slot& o = slots_[j];
      if (j == i || !BytesOverlap(addr, s.bytes, o.address, o.bytes)) continue;
      cost += Closeness(s.life, o.life);
    }
    return cost;
  }

  std::vector<int64_t> Candidates(size_t i) const {
    const Slot& s = slots_[i];
    std::vector<int64_t> out = {0};
    for (size_t j = 0; j < slots_.size(); ++j) {
      if (j == i) continue;
      const Slot& o = slots_[j];
      out.push_back(target::RoundUp(o.address + o.bytes, s.align));
      const int64_t below = o.address - s.bytes;
      if (below >= 0) out.push_back(below / s.align * s.align);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // Moves slot i to its cheapest fitting offset if that is strictly cheaper than where it is.
  bool MoveToBest(size_t i) {
    const double current = Cost(i, slots_[i].address);
    double best = current;
    int64_t best_addr = slots_[i].address;
    for (int64_t addr : Candidates(i)) {
      if (addr == slots_[i].address || !Fits(i, addr)) continue;
      const double cost = Cost(i, addr);
      // A relative margin keeps rounding noise from trading equal costs back and forth.
      if (cost < best - 1e-9 * std::max(1.0, best)) {
        best = cost;
        best_addr = addr;
      }
    }
    if (best_addr == slots_[i].address) return false;
    slots_[i].address = best_addr;
    return true;
  }

  std::vector<Slot>& slots_;
  int64_t limit_;
};

}  // namespace

void SpreadReuse(std::vector<Slot>& slots, int64_t limit) { Spreader(slots, limit).Run(); }

}  // namespace tilejit::passes::memory_planning_internal
