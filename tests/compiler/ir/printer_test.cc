// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/printer.h"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "test_kernels.h"

namespace tilejit::ir {
namespace {

using testing::Alloc;
using testing::Launch;
using testing::OnChip;
using testing::Param;

constexpr std::string_view kSoftmaxText = R"(param %p0: gm float32[256, 1024] input
param %p1: gm float32[256, 1024] output
out_idx = [1]
workspace_idx = []
launch(4, threads=0) (%cid, %vid) {
  alloc %ub_0: ub float32[32, 1024]
  alloc %ub_1: ub float32[32, 1024]
  alloc %ub_2: ub float32[32]
  alloc %ub_3: ub float32[32]
  let %v0 = %cid * 64 + %vid * 32
  copy(%ub_0, %p0[%v0:+32, :])
  fill(%ub_1, 0.0)
  reduce_max(%ub_2, %ub_0) {dim=-1}
  sub(%ub_0, %ub_0, %ub_2)
  exp(%ub_0, %ub_0)
  reduce_sum(%ub_3, %ub_0) {dim=-1}
  div(%ub_0, %ub_0, %ub_3)
  add(%ub_1, %ub_1, %ub_0)
  copy(%p1[%v0:+32, :], %ub_1)
}
)";

TEST(Printer, PrintsSoftmaxKernelCanonically) {
  EXPECT_EQ(PrintKernel(testing::SoftmaxKernel()), kSoftmaxText);
}

// Builds a one-statement kernel `fill(buf, value)` over a fresh UB buffer named `name`.
Kernel FillKernel(const std::string& buf_name, const std::string& var_name) {
  Kernel k;
  Buffer out = Param("out_" + buf_name, {8}, DType::kFloat32, BufferRole::kOutput);
  k.params = {out};
  Var cid = MakeVar(var_name, DType::kInt32), vid = MakeVar(var_name + "2", DType::kInt32);
  Buffer ub = OnChip(buf_name, {8}, DType::kFloat32, MemScope::kUB);
  k.body = Launch(IntImm(2), 0, cid, vid,
                  {Alloc(ub), MakeTileOp(TileOpCode::kFill, {WholeBuffer(ub), Ref(cid)}),
                   MakeTileOp(TileOpCode::kCopy, {WholeBuffer(out), WholeBuffer(ub)})});
  k.name = buf_name;
  return k;
}

TEST(Printer, IgnoresNameHintsAndLocations) {
  Kernel a = FillKernel("x_ub", "blk");
  Kernel b = FillKernel("totally_different", "i");
  b.loc = SourceLoc{1, 2, 3};
  EXPECT_EQ(PrintKernel(a), PrintKernel(b));
  EXPECT_EQ(PrintKernel(a).find("x_ub"), std::string::npos);
}

TEST(Printer, FlattensNestedSeqs) {
  Var cid = MakeVar("c", DType::kInt32), vid = MakeVar("v", DType::kInt32);
  Stmt bar = std::make_shared<BarrierNode>(Pipe::kV, SourceLoc{});
  Kernel flat, nested;
  flat.body = Launch(IntImm(1), 0, cid, vid, {bar, bar, bar});
  nested.body = Launch(IntImm(1), 0, cid, vid, {Seq({bar, Seq({bar})}), Seq({}), bar});
  EXPECT_EQ(PrintKernel(flat), PrintKernel(nested));
}

TEST(Printer, ShowsStatementIdsInPreOrderMatchingTable) {
  Kernel k = testing::SoftmaxKernel();
  std::string text = PrintKernel(k, {.show_stmt_ids = true});
  EXPECT_NE(text.find("#0    launch(4, threads=0)"), std::string::npos) << text;
  EXPECT_NE(text.find("#6      copy(%ub_0, %p0[%v0:+32, :])"), std::string::npos) << text;
  std::vector<Stmt> table = StmtIdTable(k);
  ASSERT_EQ(table.size(), 15u);
  EXPECT_EQ(table[0]->kind, StmtKind::kKernel);
  EXPECT_EQ(table[5]->kind, StmtKind::kLet);
  EXPECT_EQ(As<TileOpNode>(table[6]).op, TileOpCode::kCopy);
  EXPECT_EQ(As<TileOpNode>(table[14]).op, TileOpCode::kCopy);
}

TEST(Printer, DocumentationExampleIsCurrent) {
  std::ifstream in(std::string(TILEJIT_SOURCE_DIR) + "/docs/tile_ir.md");
  ASSERT_TRUE(in.good());
  std::stringstream doc;
  doc << in.rdbuf();
  std::string text = PrintKernel(testing::SoftmaxKernel(), {.show_stmt_ids = true});
  EXPECT_NE(doc.str().find("```\n" + text + "```\n"), std::string::npos) << text;
}

TEST(Printer, UsesMinimalParentheses) {
  Var a = MakeVar("a", DType::kInt32), b = MakeVar("b", DType::kInt32);
  auto bin = [](BinaryOp op, Expr x, Expr y) { return Binary(op, x, y); };
  EXPECT_EQ(PrintExpr(bin(BinaryOp::kSub, bin(BinaryOp::kSub, Ref(a), Ref(b)), IntImm(1))),
            "%v0 - %v1 - 1");
  EXPECT_EQ(PrintExpr(bin(BinaryOp::kSub, Ref(a), bin(BinaryOp::kSub, Ref(b), IntImm(1)))),
            "%v0 - (%v1 - 1)");
  EXPECT_EQ(PrintExpr(bin(BinaryOp::kAdd, Ref(a), bin(BinaryOp::kMul, Ref(b), IntImm(2)))),
            "%v0 + %v1 * 2");
  EXPECT_EQ(PrintExpr(Unary(UnaryOp::kNeg, IntImm(3))), "-(3)");
  EXPECT_EQ(PrintExpr(IntImm(-3)), "-3");
  // Python's precedence: | below ^ below & below shifts below +.
  EXPECT_EQ(PrintExpr(bin(BinaryOp::kBitOr, Ref(a),
                          bin(BinaryOp::kBitAnd, Ref(b), bin(BinaryOp::kShl, Ref(a), IntImm(1))))),
            "%v0 | %v1 & %v0 << 1");
  EXPECT_EQ(PrintExpr(bin(BinaryOp::kBitAnd, bin(BinaryOp::kBitXor, Ref(a), Ref(b)),
                          bin(BinaryOp::kAdd, Ref(b), IntImm(1)))),
            "(%v0 ^ %v1) & %v1 + 1");
  EXPECT_EQ(PrintExpr(Unary(UnaryOp::kBitNot, Ref(a))), "~%v0");
}

TEST(Printer, BitwiseExpressionsReadBackAsPrinted) {
  for (const char* text :
       {"%v0 | %v1 & %v0 << 1", "(%v0 ^ %v1) & %v1 + 1", "~%v0 >> 2", "(%v0 | %v1) * 2"}) {
    const std::string kernel = std::string(
                                   "param %p0: gm int32[4] output\n"
                                   "out_idx = [0]\n"
                                   "workspace_idx = []\n"
                                   "launch(1, threads=0) (%cid, %vid) {\n"
                                   "  let %v0 = %cid + 1\n"
                                   "  let %v1 = %cid + 2\n"
                                   "  %p0[0] = ") +
                               text + "\n}\n";
    Result<Kernel> k = ParseTileIrString(kernel);
    ASSERT_TRUE(k.ok()) << k.status() << " for " << text;
    EXPECT_NE(PrintKernel(*k).find(std::string("%p0[0] = ") + text), std::string::npos)
        << PrintKernel(*k);
  }
}

TEST(Printer, PrintsMalformedIrWithoutCrashing) {
  Kernel k;
  k.params = {nullptr};
  k.body = Seq({nullptr, std::make_shared<StoreNode>(nullptr, std::vector<Expr>{nullptr}, nullptr,
                                                     SourceLoc{})});
  std::string text = PrintKernel(k);
  EXPECT_NE(text.find("<null>"), std::string::npos);
}

double ParseDouble(const std::string& s) {
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

TEST(FormatDouble, RoundTripsBitIdenticallyOnRandomBitPatterns) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    double v = std::bit_cast<double>(rng());
    if (std::isnan(v)) continue;
    std::string s = FormatDouble(v);
    ASSERT_EQ(std::bit_cast<uint64_t>(ParseDouble(s)), std::bit_cast<uint64_t>(v)) << s;
    ASSERT_NE(s.find_first_of(".ei"), std::string::npos) << s;
  }
}

TEST(FormatDouble, MarksIntegralValuesAsFloats) {
  EXPECT_EQ(FormatDouble(1.0), "1.0");
  EXPECT_EQ(FormatDouble(-0.0), "-0.0");
  EXPECT_EQ(FormatDouble(1e-5), "1e-05");
  EXPECT_EQ(FormatDouble(INFINITY), "inf");
  EXPECT_EQ(FormatDouble(-INFINITY), "-inf");
  EXPECT_EQ(FormatDouble(NAN), "nan");
}

}  // namespace
}  // namespace tilejit::ir
