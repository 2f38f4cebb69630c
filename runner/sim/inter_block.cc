// SPDX-License-Identifier: Apache-2.0
// Writes are sorted by start address with their longest length remembered, so the writes
// overlapping any range start in [begin - longest, end): one binary search per touch. Each
// (block pair, instruction pair) is reported once.
#include "runner/sim/inter_block.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

#include "compiler/target/asm.h"

namespace tilejit::runner::sim {
namespace {

struct Touch {
  GmTouch t;
  int64_t block;
};

std::string Name(const KernelImage& image, int64_t block, const GmTouch& t) {
  const auto& code = t.core == 0 ? image.aic : image.aiv;
  std::ostringstream os;
  os << "block " << block << " "
     << (t.core == 0   ? "aic"
         : t.core == 1 ? "aiv0"
                       : "aiv1")
     << " pc " << t.pc;
  if (t.pc >= 0 && t.pc < static_cast<int>(code.size())) {
    os << " `" << target::Disassemble(code[t.pc]) << "`";
  }
  return os.str();
}

}  // namespace

void CheckInterBlockRaces(const KernelImage& image, const GlobalMemory& gm,
                          const std::vector<BlockResult>& blocks, int max_findings,
                          std::vector<Finding>* findings, uint64_t* suppressed) {
  // One block cannot race with another; skipping the scan also avoids its cost.
  if (blocks.size() < 2) return;
  // A DMA repeating one burst (stride 0) or a loop re-running one instruction records the same
  // touch many times; repeats would only map to pairs already reported, but they make the scan
  // below quadratic in the repeat count (a mutated program ran for minutes). Keep first
  // occurrences, in order, so the findings are unchanged.
  std::vector<std::vector<GmTouch>> touches(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    std::set<std::tuple<uint64_t, uint64_t, bool, bool, int, int, int>> seen;
    for (const GmTouch& t : blocks[i].gm_touches) {
      if (seen.insert({t.begin, t.end, t.write, t.atomic, t.core, t.pc, t.epoch}).second) {
        touches[i].push_back(t);
      }
    }
  }
  std::vector<Touch> writes;
  uint64_t longest = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const BlockResult& b = blocks[i];
    for (const GmTouch& t : touches[i]) {
      if (!t.write) continue;
      writes.push_back({t, b.report.block});
      longest = std::max(longest, t.end - t.begin);
    }
  }
  if (writes.empty()) return;
  std::sort(writes.begin(), writes.end(),
            [](const Touch& a, const Touch& b) { return a.t.begin < b.t.begin; });
  std::set<std::tuple<int64_t, int, int64_t, int>> reported;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const BlockResult& b = blocks[i];
    for (const GmTouch& t : touches[i]) {
      const uint64_t from = t.begin > longest ? t.begin - longest : 0;
      auto it = std::lower_bound(writes.begin(), writes.end(), from,
                                 [](const Touch& w, uint64_t v) { return w.t.begin < v; });
      for (; it != writes.end() && it->t.begin < t.end; ++it) {
        const Touch& w = *it;
        if (w.block == b.report.block || w.t.end <= t.begin) continue;
        if (w.t.atomic && t.atomic) continue;
        if (w.t.epoch != t.epoch) continue;                 // a sync_all orders them
        if (t.write && w.block > b.report.block) continue;  // report write/write pairs once
        const auto key = std::make_tuple(w.block, w.t.pc, b.report.block, t.pc);
        if (!reported.insert(key).second) continue;
        if (static_cast<int>(findings->size()) >= max_findings) {
          ++*suppressed;
          continue;
        }
        const uint64_t lo = std::max(w.t.begin, t.begin), hi = std::min(w.t.end, t.end);
        std::ostringstream os;
        os << (t.write ? "WAW" : "RAW/WAR") << " race (inter-block) on GM bytes [" << lo << ", "
           << hi << ")";
        if (const auto* a = gm.Nearest(lo))
          os << " (tensor '" << a->name << "' offset " << lo - a->addr << ")";
        os << ": " << Name(image, w.block, w.t) << " writes them and "
           << Name(image, b.report.block, t) << (t.write ? " writes" : " reads")
           << " them; blocks cannot order GM accesses";
        findings->push_back({FindingKind::kRace, b.report.block, os.str()});
      }
    }
  }
}

}  // namespace tilejit::runner::sim
