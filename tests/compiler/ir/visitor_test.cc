// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/visitor.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "test_kernels.h"

namespace tilejit::ir {
namespace {

class Counter : public Visitor {
 public:
  std::map<TileOpCode, int> ops;
  std::set<const BufferNode*> buffers;
  int var_defs = 0;
  int var_refs = 0;
  int loads = 0;

  void VisitBuffer(const Buffer& b) override { buffers.insert(b.get()); }
  void VisitVarDef(const Var&) override { ++var_defs; }

 protected:
  void VisitTileOp(const TileOpNode& op) override {
    ++ops[op.op];
    Visitor::VisitTileOp(op);
  }
  void VisitVarRef(const VarRefNode&) override { ++var_refs; }
  void VisitLoad(const LoadNode& op) override {
    ++loads;
    Visitor::VisitLoad(op);
  }
};

TEST(Visitor, ReachesEveryTileOpBufferAndVar) {
  Counter c;
  c.VisitKernel(testing::EveryTileOpKernel());
  EXPECT_EQ(c.ops.size(), 26u);      // every TileOpCode once or more
  EXPECT_EQ(c.buffers.size(), 12u);  // 2 params + 10 allocations
  EXPECT_EQ(c.var_defs, 2);          // cid, vid
  EXPECT_EQ(c.var_refs, 1);          // gemm init attr
  EXPECT_EQ(c.loads, 2);
}

TEST(Visitor, RecursesIntoLoopsLetsIfsAndScopes) {
  Counter c;
  c.VisitKernel(testing::EveryStmtKernel());
  EXPECT_EQ(c.var_defs, 6);  // n, cid, vid, scale, i, p
  EXPECT_GT(c.var_refs, 8);
  EXPECT_EQ(c.loads, 3);  // loop extent, and the two in the stores
}

TEST(Visitor, SkipsNullChildren) {
  Counter c;
  c.Visit(Seq({nullptr, std::make_shared<IfNode>(nullptr, nullptr, nullptr, SourceLoc{})}));
  EXPECT_EQ(c.var_refs, 0);
}

}  // namespace
}  // namespace tilejit::ir
