// SPDX-License-Identifier: Apache-2.0
#include "compiler/frontend/shape_rules.h"

namespace tilejit::frontend {

std::vector<int64_t> Extents(const ir::Region& r) {
  std::vector<int64_t> out;
  for (const ir::Range& range : r.ranges) out.push_back(range.extent);
  return out;
}

std::vector<int64_t> KeepLastTwo(std::vector<int64_t> extents) {
  size_t drop = 0;
  while (extents.size() - drop > 2 && extents[drop] == 1) ++drop;
  extents.erase(extents.begin(), extents.begin() + static_cast<std::ptrdiff_t>(drop));
  return extents;
}

namespace {

// [R] against [R, 1].
bool VectorPair(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  return a.size() == 1 && b.size() == 2 && b[1] == 1 && b[0] == a[0];
}

}  // namespace

bool SameShape(const ir::Region& a, const ir::Region& b) {
  std::vector<int64_t> x = a.TrimmedShape(), y = b.TrimmedShape();
  return x == y || VectorPair(x, y) || VectorPair(y, x);
}

std::optional<Broadcast> BinaryBroadcast(const ir::Region& dst, const ir::Region& src) {
  std::vector<int64_t> d = dst.TrimmedShape(), s = src.TrimmedShape();
  if (d == s) return Broadcast::kElementwise;
  if (VectorPair(d, s)) return Broadcast::kElementwise;  // [R] from [R, 1]
  if (d.size() != 2) return std::nullopt;
  std::vector<int64_t> s2 = KeepLastTwo(Extents(src));
  // A 2-D [1, C] operand is per column; checked first so that a [1, C] region is never
  // mistaken for a 1-D [R] when R == C.
  if (s2.size() == 2 && s2[0] == 1 && s2[1] == d[1]) return Broadcast::kPerColumn;
  if ((s.size() == 1 && s[0] == d[0]) || (s.size() == 2 && s[0] == d[0] && s[1] == 1)) {
    return Broadcast::kPerRow;
  }
  return std::nullopt;
}

bool ReduceShapeFits(const ir::Region& src, int dim, const ir::Region& dst) {
  std::vector<int64_t> s = src.TrimmedShape();
  std::vector<int64_t> d = dst.TrimmedShape();
  std::vector<int64_t> full = Extents(src);
  // Normalise dim against the trimmed shape: the reduced axis is one of its last two.
  int rank = static_cast<int>(full.size());
  int axis = dim < 0 ? dim + rank : dim;
  int trimmed_axis = axis - (rank - static_cast<int>(s.size()));
  if (s.size() == 1) return trimmed_axis == 0 && d == std::vector<int64_t>{1};
  if (s.size() != 2 || trimmed_axis < 0) return false;
  if (trimmed_axis == 1) {
    return d == std::vector<int64_t>{s[0]} || d == std::vector<int64_t>{s[0], 1};
  }
  std::vector<int64_t> d2 = KeepLastTwo(Extents(dst));
  return d == std::vector<int64_t>{s[1]} || d2 == std::vector<int64_t>{1, s[1]};
}

}  // namespace tilejit::frontend
