// SPDX-License-Identifier: Apache-2.0
// Extending to whole loops is coarser than a data-flow liveness (which would let two buffers of
// one loop body share bytes when neither crosses iterations), deliberately: see the header.
// kCrossingOnly is that liveness for the pattern that matters (tiles rewritten whole, each
// use after its own write, as in an unrolled attention loop), used only when the coarse rule
// does not fit.
#include "compiler/analysis/buffer_lifetimes.h"

#include <algorithm>

#include "compiler/analysis/buffer_access.h"

namespace tilejit::analysis {
namespace {

bool CoversWhole(const ir::Region& r) {
  for (size_t d = 0; d < r.ranges.size(); ++d) {
    if (ir::AsConstInt(r.ranges[d].min) != 0 || r.ranges[d].extent != r.buffer->shape[d])
      return false;
  }
  return true;
}

// Whether access i is a fresh write (header): all of its buffer, none of it read by the same
// op, from a tile op with only loops between it and `outer`, the innermost control around
// every access of the buffer (an If around all of them, `if vid == 0`, changes nothing).
bool FreshWrite(const AccessTrace& t, size_t i, int outer) {
  const TracedAccess& a = t.accesses[i];
  if (!a.access.write || a.access.region == nullptr || a.stmt->kind != ir::StmtKind::kTileOp ||
      !CoversWhole(*a.access.region))
    return false;
  for (size_t j = i + 1; j < t.accesses.size() && t.accesses[j].pos == a.pos; ++j) {
    if (t.accesses[j].access.buffer == a.access.buffer && !t.accesses[j].access.write)
      return false;  // exp(x, x): the op reads the previous value
  }
  for (int c = a.control; c != outer; c = t.controls[c].parent) {
    if (!t.controls[c].is_loop) return false;
  }
  return true;
}

// The innermost For/If whose body holds every access in `idx` (-1: none).
int CommonControl(const AccessTrace& t, const std::vector<size_t>& idx) {
  const int lo = t.accesses[idx.front()].pos, hi = t.accesses[idx.back()].pos;
  int c = t.accesses[idx.front()].control;
  while (c >= 0 && !(t.controls[c].begin < lo && hi <= t.controls[c].end)) c = t.controls[c].parent;
  return c;
}

using Segments = std::vector<std::pair<int, int>>;

// Merges the segments that meet [begin, end] into one covering it as well.
void MergeOver(Segments& segs, int begin, int end) {
  Segments out;
  std::pair<int, int> merged{begin, end};
  for (const auto& s : segs) {
    if (s.second < begin || s.first > end) {
      out.push_back(s);
    } else {
      merged = {std::min(merged.first, s.first), std::max(merged.second, s.second)};
    }
  }
  out.push_back(merged);
  std::sort(out.begin(), out.end());
  segs = std::move(out);
}

// kCrossingOnly segments of one buffer from its accesses (indices into t.accesses, in order).
Segments SegmentsOf(const AccessTrace& t, const std::vector<size_t>& idx) {
  const int outer = CommonControl(t, idx);
  Segments segs;
  for (size_t i : idx) {
    const int pos = t.accesses[i].pos;
    if (segs.empty() || (FreshWrite(t, i, outer) && pos != segs.back().first)) {
      segs.push_back({pos, pos});
    } else {
      segs.back().second = pos;
    }
  }
  // Loops whose first access of the buffer is not a fresh write carry a value around.
  std::vector<bool> seen(t.controls.size(), false);
  for (size_t i : idx) {
    for (int c = t.accesses[i].control; c >= 0; c = t.controls[c].parent) {
      if (!t.controls[c].is_loop || seen[c]) continue;
      seen[c] = true;
      if (!FreshWrite(t, i, outer)) MergeOver(segs, t.controls[c].begin, t.controls[c].end);
    }
  }
  return segs;
}

}  // namespace

bool Lifetime::Overlaps(const Lifetime& o) const {
  if (!(first <= o.last && o.first <= last)) return false;
  const Segments mine = segments.empty() ? Segments{{first, last}} : segments;
  const Segments theirs = o.segments.empty() ? Segments{{o.first, o.last}} : o.segments;
  for (const auto& a : mine) {
    for (const auto& b : theirs) {
      if (a.first <= b.second && b.first <= a.second) return true;
    }
  }
  return false;
}

std::unordered_map<const ir::BufferNode*, Lifetime> BufferLifetimes(const ir::Stmt& root,
                                                                    LoopRule rule) {
  const AccessTrace trace = TraceAccesses(root);
  std::unordered_map<const ir::BufferNode*, Lifetime> out;
  for (const auto& [alloc, pos] : trace.allocs) out[alloc->buffer.get()] = {pos, pos, {}};
  std::unordered_map<const ir::BufferNode*, std::vector<size_t>> accesses;
  for (size_t i = 0; i < trace.accesses.size(); ++i) {
    if (out.count(trace.accesses[i].access.buffer))
      accesses[trace.accesses[i].access.buffer].push_back(i);
  }
  for (auto& [buffer, idx] : accesses) {
    Lifetime& l = out[buffer];
    if (rule == LoopRule::kCrossingOnly) {
      l.segments = SegmentsOf(trace, idx);
      l.first = l.segments.front().first;
      l.last = l.segments.back().second;
      continue;
    }
    l = {trace.accesses[idx.front()].pos, trace.accesses[idx.front()].pos, {}};
    for (size_t i : idx) {
      const TracedAccess& a = trace.accesses[i];
      l.first = std::min(l.first, a.pos);
      l.last = std::max(l.last, a.pos);
      for (int c = a.control; c >= 0; c = trace.controls[c].parent) {
        if (!trace.controls[c].is_loop) continue;
        l.first = std::min(l.first, trace.controls[c].begin);
        l.last = std::max(l.last, trace.controls[c].end);
      }
    }
  }
  return out;
}

}  // namespace tilejit::analysis
