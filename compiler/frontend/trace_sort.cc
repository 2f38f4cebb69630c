// SPDX-License-Identifier: Apache-2.0
// T.tile.sort32 / merge_sort / sort / topk: regions as operands, the counts (actual_num, K)
// as attributes. Why the counts must be literal: they size the scratch and the merge tree at
// compile time (a runtime count is the dynamic-shape form, which is not supported here).
#include "compiler/frontend/tracer.h"

namespace tilejit::frontend {

bool Tracer::TraceSort(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                       std::vector<ir::Stmt>* out) {
  const std::string name(row.name);
  auto count = [&](const std::optional<Value>& v, const char* what) -> std::optional<int64_t> {
    if (v->kind == ValueKind::kInt && v->i >= 1) return v->i;
    diag().Error(LocOr(*v, call.loc))
        << name << " " << what << " must be a positive int known at compile time, not " << Repr(*v);
    return std::nullopt;
  };
  std::vector<ir::Operand> operands;
  size_t regions = 2;
  if (*row.op == ir::TileOpCode::kSort32) regions = 3;
  if (*row.op == ir::TileOpCode::kMergeSort) regions = b[3] ? (b[4] ? 5 : 4) : 3;
  if (*row.op == ir::TileOpCode::kMergeSort && !b[3] && b[4]) {
    diag().Error(call.loc) << name << " takes src3 only after src2";
    return false;
  }
  static constexpr const char* kRoles[] = {"destination", "first source", "second source",
                                           "third source", "fourth source"};
  for (size_t i = 0; i < regions; ++i) {
    auto r = RegionOperand(*b[i], kRoles[i], call.loc);
    if (!r) return false;
    operands.push_back(*r);
  }
  std::vector<ir::Attr> attrs;
  if (*row.op == ir::TileOpCode::kMergeSort) {
    attrs.push_back({"ways", static_cast<int64_t>(regions - 1)});
  } else if (*row.op == ir::TileOpCode::kSort) {
    auto n = count(b[2], "actual_num");
    if (!n) return false;
    attrs.push_back({"count", *n});
  } else if (*row.op == ir::TileOpCode::kTopK) {
    auto k = count(b[2], "K");
    auto n = k ? count(b[3], "actual_num") : std::nullopt;
    if (!n) return false;
    attrs.push_back({"count", *n});
    attrs.push_back({"k", *k});
  }
  out->push_back(ir::MakeTileOp(*row.op, std::move(operands), std::move(attrs), call.loc));
  return true;
}

}  // namespace tilejit::frontend
