// SPDX-License-Identifier: Apache-2.0
// The operand shape rules of tile ops (DESIGN.md section 2). Shapes are compared after
// dropping leading unit dims (`x[i, :]` of an [R, C] buffer is [C]). For a binary op with an
// [R, C] destination, the second source may be:
//   - the same shape: element-wise;
//   - [R] or [R, 1]: one value per row, broadcast along the row (even when R == C);
//   - [1, C] (as a 2-D region, not a 1-D [C] buffer): one value per column;
// anything else is a mismatch. Where the rules ask for "the same shape", a vector written [R]
// on one side and [R, 1] on the other counts as the same (as it does for broadcasts and
// reductions). Later passes apply the same functions to decide broadcasts.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace tilejit::frontend {

enum class Broadcast : uint8_t { kElementwise, kPerRow, kPerColumn };

using ir::ShapeText;
// All extents of a region (its rank), untrimmed.
std::vector<int64_t> Extents(const ir::Region& r);
// Extents with leading unit dims dropped while more than two dims remain.
std::vector<int64_t> KeepLastTwo(std::vector<int64_t> extents);

// True when `a` and `b` have the same shape under the rule above.
bool SameShape(const ir::Region& a, const ir::Region& b);

// How `src` combines with `dst` in a binary op; nullopt when the shapes do not fit.
std::optional<Broadcast> BinaryBroadcast(const ir::Region& dst, const ir::Region& src);

// The reduced shape rule: for a source whose trimmed shape is [M, N], dim -1 gives [M] or
// [M, 1] and dim 0 gives [N] or [1, N]; for [N], [1]. True when `dst` fits.
bool ReduceShapeFits(const ir::Region& src, int dim, const ir::Region& dst);

}  // namespace tilejit::frontend
