// SPDX-License-Identifier: Apache-2.0
// Mutator tests use the IR text for before/after expectations (the pass-test pattern).
#include "compiler/ir/mutator.h"

#include <gtest/gtest.h>

#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "test_kernels.h"

namespace tilejit::ir {
namespace {

constexpr std::string_view kBefore = R"(param %p0: gm float32[64, 32] input
param %p1: gm float32[64, 32] output
out_idx = [1]
workspace_idx = []
launch(2, threads=0) (%cid, %vid) {
  alloc %ub_0: ub float32[32, 32]
  copy(%ub_0, %p0[%cid * 32:+32, :])
  for %v0 in serial(0, 32) {
    mul(%ub_0[%v0:+1, :], %ub_0[%v0:+1, :], 64)
  }
  copy(%p1[%cid * 32:+32, :], %ub_0)
}
)";

Kernel MustParse(std::string_view text) {
  Result<Kernel> k = ParseTileIrString(text);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : Kernel{};
}

TEST(Mutator, IdentityMutationReturnsSamePointers) {
  for (const auto& [name, kernel] : testing::AllTestKernels()) {
    Mutator m;
    Kernel out = m.MutateKernel(kernel);
    EXPECT_EQ(out.body, kernel.body) << name;
    EXPECT_EQ(out.params, kernel.params) << name;
  }
}

// Replaces the integer literal 64 by 16 everywhere.
class Replace64 : public Mutator {
 protected:
  Expr MutateIntImm(const Expr& e, const IntImmNode& op) override {
    return op.value == 64 ? IntImm(16, op.dtype, op.loc) : e;
  }
};

TEST(Mutator, RebuildsOnlyThePathToAChange) {
  Kernel before = MustParse(kBefore);
  Kernel after = Replace64().MutateKernel(before);
  std::string expected(kBefore);
  expected.replace(expected.find(", 64)"), 5, ", 16)");
  EXPECT_EQ(PrintKernel(after), expected);
  const auto& old_seq = As<SeqNode>(As<KernelNode>(before.body).body);
  const auto& new_seq = As<SeqNode>(As<KernelNode>(after.body).body);
  EXPECT_NE(before.body, after.body);
  EXPECT_EQ(old_seq.stmts[0], new_seq.stmts[0]);  // alloc shared
  EXPECT_EQ(old_seq.stmts[1], new_seq.stmts[1]);  // first copy shared
  EXPECT_NE(old_seq.stmts[2], new_seq.stmts[2]);  // the loop was rebuilt
  EXPECT_EQ(old_seq.stmts[3], new_seq.stmts[3]);
  EXPECT_EQ(new_seq.stmts[2]->loc, old_seq.stmts[2]->loc);  // locs carried over
}

TEST(Mutator, SubstituteVarsReplacesUsesNotDefinitions) {
  Kernel k = MustParse(kBefore);
  const auto& launch = As<KernelNode>(k.body);
  Stmt out = SubstituteVars(k.body, {{launch.cid.get(), IntImm(1)}});
  Kernel k2 = k;
  k2.body = out;
  std::string text = PrintKernel(k2);
  EXPECT_NE(text.find("copy(%ub_0, %p0[1 * 32:+32, :])"), std::string::npos) << text;
  EXPECT_NE(text.find("launch(2, threads=0) (%cid, %vid)"), std::string::npos) << text;
  Var fresh = MakeVar("x", DType::kInt32);
  EXPECT_EQ(SubstituteVars(Ref(fresh), {{launch.cid.get(), IntImm(1)}})->kind, ExprKind::kVarRef);
}

TEST(Mutator, SubstituteBuffersReplacesAllocationsRegionsLoadsAndStores) {
  Kernel k = MustParse(R"(param %p0: gm float32[8] input
out_idx = []
workspace_idx = []
launch(1, threads=0) (%cid, %vid) {
  alloc %ub_0: ub float32[8]
  copy(%ub_0, %p0)
  %ub_0[0] = %ub_0[1] + 1.0
}
)");
  const auto& seq = As<SeqNode>(As<KernelNode>(k.body).body);
  Buffer old = As<AllocateNode>(seq.stmts[0]).buffer;
  BufferNode placed = *old;
  placed.address = 256;
  placed.scope = MemScope::kUB;
  Buffer fresh = MakeBuffer(placed);
  Kernel out = SubstituteBuffers(k, {{old.get(), fresh}});
  EXPECT_EQ(PrintKernel(out), R"(param %p0: gm float32[8] input
out_idx = []
workspace_idx = []
launch(1, threads=0) (%cid, %vid) {
  alloc %ub_0: ub float32[8] @256
  copy(%ub_0, %p0)
  %ub_0[0] = %ub_0[1] + 1.0
}
)");
  const auto& new_seq = As<SeqNode>(As<KernelNode>(out.body).body);
  EXPECT_EQ(As<AllocateNode>(new_seq.stmts[0]).buffer, fresh);
  EXPECT_EQ(As<StoreNode>(new_seq.stmts[2]).buffer, fresh);
  EXPECT_EQ(std::get<Region>(As<TileOpNode>(new_seq.stmts[1]).args[0]).buffer, fresh);
}

TEST(Mutator, MutatesExpressionAttributes) {
  Kernel k = testing::GemmPingpongKernel();
  Kernel out = Replace64().MutateKernel(k);
  Kernel none = Mutator().MutateKernel(k);
  EXPECT_NE(PrintKernel(out), PrintKernel(k));
  EXPECT_EQ(none.body, k.body);
}

}  // namespace
}  // namespace tilejit::ir
