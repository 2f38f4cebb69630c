// SPDX-License-Identifier: Apache-2.0
// T.use_swizzle(task, m, n, k, block_m, block_n, off=1, dir=0, in_loop=False): the tile a
// task index stands for under the block swizzle of upstream's GEMM examples, as the row-major
// tile number mIdx * cols + nIdx. Upstream lowers it to CATLASS's GemmIdentityBlockSwizzle
// (GetBlockCoord of catlass/gemm/block/block_swizzle.hpp): the task is taken modulo the tile
// count; dir 0 walks the tiles in bands of `off` rows (column by column inside a band, every
// other band right to left), dir 1 in bands of `off` columns (row by row, every other band
// bottom to top); the last band has the rows (columns) that are left. `k` and `in_loop` do not
// change the result. Constant tasks fold; a runtime task builds the scalar arithmetic.
#include <array>

#include "compiler/frontend/host_eval.h"

namespace tilejit::frontend {

std::optional<Value> Evaluator::UseSwizzle(const BoundArgs& b, SourceLoc loc) {
  const char* names[] = {"task", "m", "n", "k", "block_m", "block_n", "off", "dir"};
  int64_t p[8] = {0, 0, 0, 0, 0, 0, 1, 0};
  for (size_t i = 1; i < 8; ++i) {
    if (!b[i]) continue;
    if (b[i]->kind != ValueKind::kInt || b[i]->i < 0 || b[i]->i > (int64_t{1} << 31)) {
      diag_->Error(b[i]->loc.known() ? b[i]->loc : loc)
          << "T.use_swizzle " << names[i] << " must be a compile-time int, not " << Repr(*b[i]);
      return std::nullopt;
    }
    p[i] = b[i]->i;
  }
  const auto [m, n, bm, bn, off, dir] = std::array{p[1], p[2], p[4], p[5], p[6], p[7]};
  if (bm <= 0 || bn <= 0 || m <= 0 || n <= 0 || m % bm != 0 || n % bn != 0 || off <= 0 || dir > 1) {
    diag_->Error(loc) << "T.use_swizzle needs m and n positive multiples of block_m and block_n, "
                         "off >= 1 and dir 0 or 1; got m="
                      << m << ", n=" << n << ", block_m=" << bm << ", block_n=" << bn
                      << ", off=" << off << ", dir=" << dir;
    return std::nullopt;
  }
  const int64_t rows = m / bm, cols = n / bn;
  const int64_t along = dir == 0 ? rows : cols;   // the banded dimension
  const int64_t across = dir == 0 ? cols : rows;  // walked inside a band
  const int64_t bands = (along + off - 1) / off;
  bool failed = false;  // set once any step fails (its diagnostic is out)
  auto op = [&](BinOpKind k, const Value& x, const Value& y) {
    auto r = BinOp(k, x, y, loc);
    if (!r) failed = true;
    return r ? *r : Value::Int(0);
  };
  auto select = [&](const Value& c, const Value& t, const Value& f) {
    if (!c.IsRuntime()) return Truthy(c) ? t : f;
    auto ce = ToExpr(c, loc), te = ToExpr(t, loc), fe = ToExpr(f, loc);
    if (!ce || !te || !fe) {
      failed = true;
      return Value::Int(0);
    }
    return Value::OfExpr(ir::Select(*ce, *te, *fe, loc));
  };
  auto eq = [&](const Value& x, int64_t y) {
    auto r = CompareOp(CmpOpKind::kEq, x, Value::Int(y), loc);
    if (!r) failed = true;
    return r ? *r : Value::Bool(false);
  };
  using K = BinOpKind;
  const Value inner = op(K::kMod, *b[0], Value::Int(rows * cols));
  const Value band = op(K::kFloorDiv, inner, Value::Int(off * across));
  const Value in_band = op(K::kMod, inner, Value::Int(off * across));
  const Value last = op(K::kSub, Value::Int(along), op(K::kMult, band, Value::Int(off)));
  const Value height = select(eq(band, bands - 1), last, Value::Int(off));
  const Value a = op(K::kAdd, op(K::kMult, band, Value::Int(off)), op(K::kMod, in_band, height));
  const Value c0 = op(K::kFloorDiv, in_band, height);
  const Value flipped = op(K::kSub, Value::Int(across - 1), c0);
  const Value c = select(eq(op(K::kMod, band, Value::Int(2)), 1), flipped, c0);
  const Value& mi = dir == 0 ? a : c;
  const Value& ni = dir == 0 ? c : a;
  Value tile = op(K::kAdd, op(K::kMult, mi, Value::Int(cols)), ni);
  if (failed) return std::nullopt;
  return tile;
}

}  // namespace tilejit::frontend
