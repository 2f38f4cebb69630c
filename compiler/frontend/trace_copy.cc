// SPDX-License-Identifier: Apache-2.0
// T.copy: whole buffers, slices and the start-corner form `A[i, j]`, whose extent comes from
// the other operand (ranks padded with leading 1s, or the other's leading unit dims dropped).
#include "compiler/frontend/shape_rules.h"
#include "compiler/frontend/tracer.h"

namespace tilejit::frontend {
namespace {

// The extents a corner of rank `rank` takes from `other`; nullopt when they cannot fit.
std::optional<std::vector<int64_t>> CornerExtents(const ir::Region& other, size_t rank) {
  std::vector<int64_t> e = Extents(other);
  while (e.size() > rank && e.front() == 1) e.erase(e.begin());
  if (e.size() > rank) return std::nullopt;
  e.insert(e.begin(), rank - e.size(), 1);
  return e;
}

}  // namespace

bool Tracer::TraceCopy(const Expr& call, const BoundArgs& bound, std::vector<ir::Stmt>* out,
                       bool atomic_add) {
  const BoundArgs* b = &bound;
  const Value& src_v = *(*b)[0];
  const Value& dst_v = *(*b)[1];
  bool src_corner = src_v.kind == ValueKind::kElement;
  bool dst_corner = dst_v.kind == ValueKind::kElement;
  if (src_corner && dst_corner) {
    diag().Error(call.loc) << "T.copy cannot infer the extent: both operands are single "
                              "elements (use a slice or a whole buffer on one side)";
    return false;
  }
  std::optional<ir::Region> src, dst;
  if (!src_corner) src = RegionOperand(src_v, "copy source", call.loc);
  if (!dst_corner) dst = RegionOperand(dst_v, "copy destination", call.loc);
  if ((!src_corner && !src) || (!dst_corner && !dst)) return false;
  for (bool is_src : {true, false}) {
    const Value& corner = is_src ? src_v : dst_v;
    if (!(is_src ? src_corner : dst_corner)) continue;
    const ir::Region& other = is_src ? *dst : *src;
    auto extents = CornerExtents(other, corner.indices.size());
    if (!extents) {
      diag().Error(LocOr(corner, call.loc))
          << "T.copy: a " << Extents(other).size() << "-D " << (is_src ? "destination" : "source")
          << " of shape " << ShapeText(Extents(other)) << " does not fit the "
          << corner.indices.size() << "-D corner of '" << corner.buffer->name << "'";
      return false;
    }
    ir::Region r{corner.buffer, {}, LocOr(corner, call.loc)};
    for (size_t d = 0; d < extents->size(); ++d) {
      const int64_t dim = corner.buffer->shape[d];
      auto lo = ir::AsConstInt(corner.indices[d]);
      // A GM tensor's corner copy may run past its end: the back end clips the tail (and
      // fills the on-chip remainder with pad_value). An on-chip tile must hold the region.
      const bool tail_ok = corner.buffer->scope == ir::MemScope::kGM;
      if (!tail_ok && ((*extents)[d] > dim || (lo && *lo + (*extents)[d] > dim))) {
        diag().Error(LocOr(corner, call.loc))
            << "T.copy out of bounds: dimension " << d << " of '" << corner.buffer->name
            << "' (size " << dim << ") cannot hold " << (*extents)[d] << " elements"
            << (lo ? " from index " + std::to_string(*lo) : std::string());
        return false;
      }
      r.ranges.push_back(ir::Range{corner.indices[d], (*extents)[d]});
    }
    (is_src ? src : dst) = r;
  }
  auto relu = FlagArg((*b)[2], false, "enable_relu", call.loc);
  auto transpose = relu ? FlagArg((*b)[3], false, "transpose", call.loc) : std::nullopt;
  if (!transpose) return false;
  std::vector<int64_t> s = src->TrimmedShape(), d = dst->TrimmedShape();
  auto squeezed = [](std::vector<int64_t> v) {
    std::erase(v, int64_t{1});
    return v;
  };
  // A GM region indexed in a middle dim (`Q[a:b, h, :]` is [R, 1, C]) copies as its [R, C].
  const bool gm =
      src->buffer->scope == ir::MemScope::kGM || dst->buffer->scope == ir::MemScope::kGM;
  bool fits = s == d || (gm && squeezed(s) == squeezed(d));
  if (*transpose) {
    fits = s.size() >= 2 && d.size() == s.size() && s[s.size() - 1] == d[d.size() - 2] &&
           s[s.size() - 2] == d[d.size() - 1];
  }
  if (!fits) {
    diag().Error(call.loc) << "T.copy shape mismatch: source is " << ShapeText(s)
                           << " but destination is " << ShapeText(d)
                           << (*transpose ? " (transpose=True swaps the last two dims)" : "");
    return false;
  }
  if (src->buffer->scope == ir::MemScope::kGM && dst->buffer->scope == ir::MemScope::kGM) {
    diag().Error(call.loc) << "T.copy between two GM tensors is not supported";
    return false;
  }
  if (atomic_add && dst->buffer->scope != ir::MemScope::kGM) {
    diag().Error(call.loc) << "T.tile.atomic_add adds into a GM tensor; '" << dst->buffer->name
                           << "' is in " << ir::MemScopeName(dst->buffer->scope);
    return false;
  }
  std::vector<ir::Attr> attrs{{"enable_relu", *relu}, {"transpose", *transpose}};
  if (atomic_add) attrs.push_back({"atomic_add", true});
  if ((*b)[4] && (*b)[4]->kind != ValueKind::kNone) {
    auto pad = ScalarOperand(*(*b)[4], dst->buffer->dtype, "pad_value", call.loc);
    if (!pad) return false;
    if (auto c = ir::TryAs<ir::FloatImmNode>(*pad)) {
      attrs.push_back({"pad_value", c->value});
    } else if (auto i = ir::AsConstInt(*pad)) {
      attrs.push_back({"pad_value", *i});
    } else {
      attrs.push_back({"pad_value", *pad});
    }
  }
  out->push_back(ir::MakeTileOp(ir::TileOpCode::kCopy, {*dst, *src}, std::move(attrs), call.loc));
  return true;
}

}  // namespace tilejit::frontend
