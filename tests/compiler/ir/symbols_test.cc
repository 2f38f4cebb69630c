// SPDX-License-Identifier: Apache-2.0
// Symbolic dims (T.symbolic) in Tile IR text: canonical naming, round trips and the verifier's
// rules for where symbols may appear.
#include <gtest/gtest.h>

#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"

namespace tilejit::ir {
namespace {

constexpr std::string_view kRowWise =
    "param %p0: gm float32[%s0, 64] input\n"
    "param %p1: gm float32[%s0, 64] output\n"
    "out_idx = [1]\n"
    "workspace_idx = []\n"
    "launch((%s0 + 31) // 32, threads=0) (%cid, %vid) {\n"
    "  alloc %ub_0: ub float32[32, 64]\n"
    "  copy(%ub_0, %p0[%cid * 32:+32, :])\n"
    "  copy(%p1[%cid * 32:+32, :], %ub_0)\n"
    "}\n";

std::string VerifyMessage(std::string_view text) {
  Result<Kernel> k = ParseTileIrString(text);
  if (!k.ok()) return "PARSE: " + k.status().message();
  Status s = Verify(*k);
  return s.ok() ? "" : s.message();
}

TEST(Symbols, ParseBindsOneVarPerNameAndPrintsCanonically) {
  Result<Kernel> k = ParseTileIrString(kRowWise);
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->symbols.size(), 1u);
  EXPECT_EQ(k->params[0]->shape[0], kSymbolicDim);
  EXPECT_EQ(k->params[0]->DimSymbol(0), k->symbols[0]);
  EXPECT_EQ(k->params[1]->DimSymbol(0), k->symbols[0]);
  EXPECT_EQ(k->params[0]->DimSymbol(1), nullptr);
  EXPECT_FALSE(k->params[0]->DimSymbol(1) != nullptr);
  EXPECT_EQ(PrintKernel(*k), kRowWise);
  EXPECT_TRUE(Verify(*k).ok()) << Verify(*k);
}

TEST(Symbols, AnyNameIsRenamedInOrderOfFirstAppearance) {
  Result<Kernel> k = ParseTileIrString(
      "param %a: gm float32[%N, %M] input\n"
      "param %b: gm float32[%M] output\n"
      "out_idx = [1]\nworkspace_idx = []\n"
      "launch(%M, threads=0) (%c, %v) {\n"
      "  alloc %x: ub float32[8]\n"
      "  copy(%x, %a[%N - 1:+1, %c:+8])\n"
      "  copy(%b[%c:+8], %x)\n"
      "}\n");
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->symbols.size(), 2u);
  EXPECT_EQ(k->symbols[0]->name, "N");
  const std::string text = PrintKernel(*k);
  EXPECT_NE(text.find("param %p0: gm float32[%s0, %s1] input"), std::string::npos) << text;
  EXPECT_NE(text.find("param %p1: gm float32[%s1] output"), std::string::npos) << text;
  EXPECT_NE(text.find("launch(%s1, threads=0)"), std::string::npos) << text;
  EXPECT_NE(text.find("%p0[%s0 - 1:+1, %cid:+8]"), std::string::npos) << text;
  Result<Kernel> again = ParseTileIrString(text);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintKernel(*again), text);
}

TEST(Symbols, RegionsOfSymbolicDimsAreNotCheckedStatically) {
  // Past a static bound this would be an error; against a symbol it is a launch-time tail.
  EXPECT_EQ(VerifyMessage("param %p0: gm float32[%s0] input\n"
                          "param %p1: gm float32[%s0] output\n"
                          "out_idx = [1]\nworkspace_idx = []\n"
                          "launch(1, threads=0) (%c, %v) {\n"
                          "  alloc %x: ub float32[64]\n"
                          "  copy(%x, %p0[4096:+64])\n"
                          "  copy(%p1[4096:+64], %x)\n"
                          "}\n"),
            "");
}

TEST(Symbols, ASymbolOnlyOutputsUseCannotBeBound) {
  EXPECT_NE(VerifyMessage("param %p0: gm float32[64] input\n"
                          "param %p1: gm float32[%s0] output\n"
                          "out_idx = [1]\nworkspace_idx = []\n"
                          "launch(1, threads=0) (%c, %v) {\n"
                          "  alloc %x: ub float32[64]\n"
                          "  copy(%x, %p0)\n"
                          "  copy(%p1[0:+64], %x)\n"
                          "}\n")
                .find("symbol 's0' is no input's dimension"),
            std::string::npos);
}

TEST(Symbols, OnChipBuffersCannotBeSymbolic) {
  Result<Kernel> k = ParseTileIrString(
      "param %p0: gm float32[%s0] input\n"
      "out_idx = []\nworkspace_idx = []\n"
      "launch(1, threads=0) (%c, %v) {\n"
      "  alloc %x: ub float32[%s0]\n"
      "}\n");
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_NE(Verify(*k).message().find("has symbolic dims but is not a declared GM tensor"),
            std::string::npos)
      << Verify(*k);
}

TEST(Symbols, ALoopVarIsNotASymbol) {
  EXPECT_NE(VerifyMessage("param %p0: gm float32[64] input\n"
                          "out_idx = []\nworkspace_idx = []\n"
                          "launch(1, threads=0) (%c, %v) {\n"
                          "  alloc %x: ub float32[%c]\n"
                          "}\n")
                .find("is not a symbol"),
            std::string::npos);
}

TEST(Symbols, SymbolsAreInScopeEverywhere) {
  Result<Kernel> k = ParseTileIrString(kRowWise);
  ASSERT_TRUE(k.ok());
  Kernel bad = *k;
  bad.symbols.clear();  // the body still reads %s0
  EXPECT_FALSE(Verify(bad).ok());
}

}  // namespace
}  // namespace tilejit::ir
