// SPDX-License-Identifier: Apache-2.0
// Expression helpers of compiler/ir/ir.h.
#include "compiler/ir/ir.h"

#include <gtest/gtest.h>

#include <limits>

namespace tilejit::ir {
namespace {

TEST(IntBounds, PythonModuloByAPositiveConstantIsNeverNegative) {
  const Expr cid = Ref(MakeVar("cid", DType::kInt32));
  const IntBounds b =
      IntBoundsOf(Binary(BinaryOp::kAdd, Binary(BinaryOp::kFloorMod, cid, IntImm(2)), IntImm(1)));
  EXPECT_EQ(b.lo, 1);
  EXPECT_EQ(b.hi, 2);
}

TEST(IntBounds, FloorDivisionRoundsTowardMinusInfinity) {
  const Expr cid = Ref(MakeVar("cid", DType::kInt32));
  // (cid % 3 - 1) // 2 lies in [-1, 0].
  const IntBounds b = IntBoundsOf(Binary(
      BinaryOp::kFloorDiv,
      Binary(BinaryOp::kSub, Binary(BinaryOp::kFloorMod, cid, IntImm(3)), IntImm(1)), IntImm(2)));
  EXPECT_EQ(b.lo, -1);
  EXPECT_EQ(b.hi, 0);
}

TEST(IntBounds, AVariableAloneIsUnbounded) {
  const Expr n = Ref(MakeVar("n", DType::kInt32));
  const IntBounds b = IntBoundsOf(Binary(BinaryOp::kAdd, n, IntImm(1)));
  EXPECT_FALSE(b.lo.has_value());
  EXPECT_FALSE(b.hi.has_value());
  // min(n, 4) is at most 4 whatever n is; max(n, 1) at least 1.
  EXPECT_EQ(IntBoundsOf(Binary(BinaryOp::kMin, n, IntImm(4))).hi, 4);
  EXPECT_EQ(IntBoundsOf(Binary(BinaryOp::kMax, n, IntImm(1))).lo, 1);
}

TEST(IntBounds, ABoundThatWouldOverflowIsUnknown) {
  const Expr cid = Ref(MakeVar("cid", DType::kInt32));
  const int64_t big = std::numeric_limits<int64_t>::max();
  // cid % 3 * big: the lower bound 0 is known, the upper (2 * big) does not fit.
  const IntBounds b =
      IntBoundsOf(Binary(BinaryOp::kMul, Binary(BinaryOp::kFloorMod, cid, IntImm(3)), IntImm(big)));
  EXPECT_EQ(b.lo, 0);
  EXPECT_FALSE(b.hi.has_value());
  const IntBounds sum =
      IntBoundsOf(Binary(BinaryOp::kAdd, Binary(BinaryOp::kFloorMod, cid, IntImm(3)), IntImm(big)));
  EXPECT_EQ(sum.lo, big);
  EXPECT_FALSE(sum.hi.has_value());
}

}  // namespace
}  // namespace tilejit::ir
