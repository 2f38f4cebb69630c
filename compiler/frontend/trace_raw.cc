// SPDX-License-Identifier: Apache-2.0
// T.tile.block_reduce_*, wholereduce* and gatherb: AscendC's raw repeat form, whose counts
// and strides (repeats, mask, strides in 32-byte blocks) become attributes. Why literal ints
// only: they fix the instruction's access pattern, which sync analysis and the bounds check
// in codegen reason about at compile time.
#include <algorithm>

#include "compiler/frontend/tracer.h"
#include "compiler/target/raw_reduce.h"

namespace tilejit::frontend {
bool Tracer::TraceRawRepeat(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                            std::vector<ir::Stmt>* out) {
  const std::string name(row.name);
  std::vector<ir::Attr> attrs;
  auto int_attr = [&](size_t i, const char* key, const char* what) {
    const Value& v = *b[i];
    if (v.kind == ValueKind::kInt && v.i >= 0) {
      attrs.push_back({key, v.i});
      return true;
    }
    diag().Error(LocOr(v, call.loc))
        << name << " " << what << " must be a non-negative int known at compile time, not "
        << Repr(v);
    return false;
  };
  const ir::TileOpFamily family = ir::TileOpFamilyOf(*row.op);
  const size_t regions = family == ir::TileOpFamily::kGatherB ? 3 : 2;
  std::vector<ir::Operand> operands;
  static constexpr const char* kRoles[] = {"destination", "source", "offsets"};
  for (size_t i = 0; i < regions; ++i) {
    auto r = RegionOperand(*b[i], kRoles[i], call.loc);
    if (!r) return false;
    operands.push_back(*r);
  }
  bool ok = true;
  if (family == ir::TileOpFamily::kGatherB) {
    ok = int_attr(3, "repeat", "repeat_time") && int_attr(4, "dst_blk", "dst_blk_stride") &&
         int_attr(5, "dst_rep", "dst_rep_stride");
  } else {
    const ir::TileOpCode op = *row.op;
    const bool block = op == ir::TileOpCode::kBlockReduceSum ||
                       op == ir::TileOpCode::kBlockReduceMax ||
                       op == ir::TileOpCode::kBlockReduceMin;  // (repeat, mask); whole: reversed
    ok = int_attr(block ? 2 : 3, "repeat", "repeat") && int_attr(block ? 3 : 2, "mask", "mask") &&
         int_attr(4, "dst_rep", "dstRepStride") && int_attr(5, "src_blk", "srcBlkStride") &&
         int_attr(6, "src_rep", "srcRepStride");
    if (ok && b.size() > 7 && b[7]) {
      const Value& order = *b[7];
      if (order.kind != ValueKind::kString || !OneOf(order.text, target::kReduceOrders)) {
        diag().Error(LocOr(order, call.loc))
            << name << " ReduceOrder must be one of " << Join(target::kReduceOrders) << ", not "
            << Repr(order);
        return false;
      }
      attrs.push_back({"order", order.text});
    }
  }
  if (!ok) return false;
  std::sort(attrs.begin(), attrs.end(),
            [](const ir::Attr& x, const ir::Attr& y) { return x.key < y.key; });
  out->push_back(ir::MakeTileOp(*row.op, std::move(operands), std::move(attrs), call.loc));
  return true;
}

}  // namespace tilejit::frontend
