// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/ir_parser.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "compiler/ir/printer.h"

namespace tilejit::ir {
namespace {

constexpr std::string_view kHeader = R"(param %p0: gm float32[64, 32] input
param %p1: gm float32[64, 32] output
out_idx = [1]
workspace_idx = []
)";

std::string WithBody(std::string_view body) { return std::string(kHeader) + std::string(body); }

// Parses `text` and returns the rendered diagnostics ("" on success).
std::string ErrorsOf(std::string_view text) {
  Result<Kernel> k = ParseTileIrString(text);
  return k.ok() ? "" : k.status().message();
}

TEST(IrParser, ParsesHandWrittenKernelWithCommentsAndBlankLines) {
  std::string text = WithBody(R"(
# a comment line
launch(4, threads=0) (%c, %v) {   # trailing comment

  alloc %x: ub float32[32, 32]
  copy(%x, %p0[%c * 32:+32, :])
  copy(%p1[%c * 32:+32, :], %x)
}
)");
  Result<Kernel> k = ParseTileIrString(text);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->params.size(), 2u);
  EXPECT_EQ(k->out_idx, std::vector<int>{1});
  const auto& launch = As<KernelNode>(k->body);
  EXPECT_EQ(As<SeqNode>(launch.body).stmts.size(), 3u);
  EXPECT_NE(PrintKernel(*k).find("launch(4, threads=0) (%cid, %vid) {"), std::string::npos);
}

TEST(IrParser, CompilerMadeSyncsAndWorkspacesKeepTheirOriginThroughPrintAndParse) {
  const std::string text = R"(param %p0: gm float32[64, 32] input
param %p1: gm float32[2, 32, 32] compiler_workspace
out_idx = []
workspace_idx = [1]
launch(2, threads=0) (%cid, %vid) {
  set_flag(mte2, v, 0) {compiler}
  wait_flag(mte2, v, 0)
  barrier(v) {compiler}
  set_cross_flag(fix, 1, mode=2) {compiler}
  wait_cross_flag(1, pipe=mte2) {compiler}
}
)";
  Result<Kernel> k = ParseTileIrString(text);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_TRUE(k->params[1]->compiler_made);
  EXPECT_EQ(k->params[1]->role, BufferRole::kWorkspace);
  EXPECT_FALSE(k->params[0]->compiler_made);
  const auto& body = As<SeqNode>(As<KernelNode>(k->body).body).stmts;
  ASSERT_EQ(body.size(), 5u);
  EXPECT_EQ(SyncOriginOf(*body[0]), SyncOrigin::kCompiler);
  EXPECT_EQ(SyncOriginOf(*body[1]), SyncOrigin::kAuthor);
  EXPECT_EQ(SyncOriginOf(*body[2]), SyncOrigin::kCompiler);
  EXPECT_EQ(SyncOriginOf(*body[4]), SyncOrigin::kCompiler);
  EXPECT_EQ(PrintKernel(*k), text);
  EXPECT_NE(ErrorsOf(WithBody("launch(1, threads=0) (%c, %v) {\n  barrier(v) {author}\n}\n")), "");
}

// T.sync_all is a barrier(all) that also meets every core of the launch: printed apart.
TEST(IrParser, SyncAllRoundTripsAndIsAGridBarrierOnAllPipes) {
  std::string text =
      WithBody("launch(1, threads=0) (%cid, %vid) {\n  barrier(all)\n  sync_all()\n}\n");
  Result<Kernel> k = ParseTileIrString(text);
  ASSERT_TRUE(k.ok()) << k.status();
  const auto& body = As<SeqNode>(As<KernelNode>(k->body).body).stmts;
  ASSERT_EQ(body.size(), 2u);
  EXPECT_FALSE(As<BarrierNode>(body[0]).grid);
  EXPECT_TRUE(As<BarrierNode>(body[1]).grid);
  EXPECT_EQ(As<BarrierNode>(body[1]).pipe, Pipe::kAll);
  EXPECT_EQ(PrintKernel(*k), text);
  EXPECT_NE(ErrorsOf(WithBody("launch(1, threads=0) (%c, %v) {\n  sync_all(v)\n}\n")), "");
}

TEST(IrParser, SourceLocsPointIntoTheIrText) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  std::string text = WithBody("launch(1, threads=0) (%c, %v) {\n  barrier(all)\n}\n");
  Result<Kernel> k = ParseTileIr(text, &sources, &diag, "k.tir");
  ASSERT_TRUE(k.ok()) << diag.RenderAll();
  const auto& launch = As<KernelNode>(k->body);
  EXPECT_EQ(launch.loc.line, 5u);
  EXPECT_EQ(launch.loc.column, 1u);
  EXPECT_EQ(launch.body->loc.line, 6u);
  EXPECT_EQ(launch.body->loc.column, 3u);
  EXPECT_EQ(sources.Describe(launch.body->loc), "k.tir:6:3");
  EXPECT_EQ(k->params[1]->loc.line, 2u);
}

TEST(IrParser, ReportsUndefinedNameAtItsLineAndColumn) {
  std::string errors =
      ErrorsOf(WithBody("launch(1, threads=0) (%c, %v) {\n  fill(%p0, %nope)\n}\n"));
  EXPECT_NE(errors.find("<tile_ir>:6:13: error: undefined name %nope"), std::string::npos)
      << errors;
  EXPECT_NE(errors.find("^"), std::string::npos) << errors;
}

TEST(IrParser, ReportsUndefinedBuffer) {
  std::string errors = ErrorsOf(WithBody("launch(1, threads=0) (%c, %v) {\n  %q[0] = 1\n}\n"));
  EXPECT_NE(errors.find("6:3: error: undefined buffer %q"), std::string::npos) << errors;
}

TEST(IrParser, ReportsUnknownStatement) {
  std::string errors = ErrorsOf(WithBody("frobnicate(%p0)\n"));
  EXPECT_NE(errors.find("5:1: error: unknown statement 'frobnicate'"), std::string::npos) << errors;
}

TEST(IrParser, ReportsUnknownDTypeScopeAndPipe) {
  EXPECT_NE(ErrorsOf("param %a: gm float99[4]\nout_idx = []\nworkspace_idx = []\n")
                .find("1:14: error: unknown dtype 'float99'"),
            std::string::npos);
  EXPECT_NE(ErrorsOf("param %a: hbm float32[4]\nout_idx = []\nworkspace_idx = []\n")
                .find("unknown memory scope 'hbm'"),
            std::string::npos);
  EXPECT_NE(ErrorsOf(WithBody("barrier(mte9)\n")).find("unknown pipe 'mte9'"), std::string::npos);
}

TEST(IrParser, ReportsMissingHeader) {
  EXPECT_NE(ErrorsOf("launch(1, threads=0) (%c, %v) {\n}\n")
                .find("1:1: error: expected 'param' or 'out_idx', found 'launch'"),
            std::string::npos);
}

TEST(IrParser, ReportsUnclosedBlockAtEnd) {
  std::string errors = ErrorsOf(WithBody("launch(1, threads=0) (%c, %v) {\n  barrier(v)\n"));
  EXPECT_NE(errors.find("expected '}', found end of input"), std::string::npos) << errors;
}

TEST(IrParser, RejectsChainedComparison) {
  std::string errors = ErrorsOf(WithBody("let %a = 1 < 2 < 3\n"));
  EXPECT_NE(errors.find("chained comparison"), std::string::npos) << errors;
}

TEST(IrParser, RejectsRegionWithTooManyDimensions) {
  std::string errors = ErrorsOf(WithBody("copy(%p0[0:+1, :, :], %p1)\n"));
  EXPECT_NE(errors.find("region has more dimensions than its buffer"), std::string::npos) << errors;
}

TEST(IrParser, RejectsRedefinitionOfABuffer) {
  std::string errors = ErrorsOf(WithBody("alloc %p0: ub float32[4]\n"));
  EXPECT_NE(errors.find("5:7: error: redefinition of %p0"), std::string::npos) << errors;
}

TEST(IrParser, RejectsOutOfRangeIntegerLiteral) {
  std::string errors = ErrorsOf(WithBody("let %a = 99999999999999999999\n"));
  EXPECT_NE(errors.find("integer literal out of range"), std::string::npos) << errors;
}

TEST(IrParser, RejectsDeepNestingWithoutCrashing) {
  std::string deep = "let %a = " + std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_NE(ErrorsOf(WithBody(deep)).find("nesting too deep"), std::string::npos);
  std::string negs = "let %a = " + std::string(100000, '-') + "%b";
  EXPECT_NE(ErrorsOf(WithBody(negs)).find("nesting too deep"), std::string::npos);
  std::string blocks;
  for (int i = 0; i < 5000; ++i) blocks += "scope cube {\n";
  EXPECT_NE(ErrorsOf(WithBody(blocks)).find("nesting too deep"), std::string::npos);
}

TEST(IrParser, ReadsFloatsBitIdentically) {
  const double values[] = {0.1, 1e-05, 5e-324, -0.0, 1.7976931348623157e308, 1.0 / 3.0};
  for (double v : values) {
    std::string text = WithBody("let %a: float32 = " + FormatDouble(v) + "\n");
    Result<Kernel> k = ParseTileIrString(text);
    ASSERT_TRUE(k.ok()) << k.status();
    const auto& imm = As<FloatImmNode>(As<LetNode>(k->body).value);
    EXPECT_EQ(std::bit_cast<uint64_t>(imm.value), std::bit_cast<uint64_t>(v)) << v;
  }
}

TEST(IrParser, ReadsRandomDoublesBitIdentically) {
  std::mt19937_64 rng(7);
  std::string body;
  std::vector<double> values;
  for (int i = 0; i < 2000; ++i) {
    double v = std::bit_cast<double>(rng());
    if (std::isnan(v)) continue;
    values.push_back(v);
    body += "let %a" + std::to_string(i) + ": float32 = " + FormatDouble(v) + "\n";
  }
  Result<Kernel> k = ParseTileIrString(WithBody(body));
  ASSERT_TRUE(k.ok()) << k.status();
  Stmt s = k->body;
  for (double v : values) {
    const auto& let = As<LetNode>(s);
    ASSERT_EQ(std::bit_cast<uint64_t>(As<FloatImmNode>(let.value).value),
              std::bit_cast<uint64_t>(v));
    s = let.body;
  }
}

TEST(IrParser, DistinguishesRegionsFromScalarLoads) {
  std::string text = WithBody(
      "launch(1, threads=0) (%c, %v) {\n"
      "  alloc %r: ub float32[32]\n"
      "  mul(%p1[%c:+1, :], %p0[0:+1, :], %r[%c])\n"
      "  mul(%p1, %p0, %r[%c] * 2.0)\n"
      "}\n");
  Result<Kernel> k = ParseTileIrString(text);
  ASSERT_TRUE(k.ok()) << k.status();
  const auto& body = As<SeqNode>(As<KernelNode>(k->body).body);
  const auto& mul = As<TileOpNode>(body.stmts[1]);
  ASSERT_TRUE(std::holds_alternative<Region>(mul.args[0]));
  ASSERT_TRUE(std::holds_alternative<Expr>(mul.args[2]));
  EXPECT_EQ(std::get<Expr>(mul.args[2])->kind, ExprKind::kLoad);
  const auto& mul2 = As<TileOpNode>(body.stmts[2]);
  EXPECT_EQ(std::get<Region>(mul2.args[0]).ranges.size(), 2u);
  EXPECT_EQ(std::get<Expr>(mul2.args[2])->kind, ExprKind::kBinary);
}

TEST(IrParser, ReadsAttributeValueTypes) {
  std::string text = WithBody(
      "launch(1, threads=0) (%c, %v) {\n"
      "  copy(%p0, %p1) {a=true, b=-3, c=2.5, d=\"s\", e=expr(4), f=%c == 0, g=-inf}\n"
      "}\n");
  Result<Kernel> k = ParseTileIrString(text);
  ASSERT_TRUE(k.ok()) << k.status();
  const auto& op = As<TileOpNode>(As<KernelNode>(k->body).body);
  EXPECT_EQ(std::get<bool>(*op.FindAttr("a")), true);
  EXPECT_EQ(std::get<int64_t>(*op.FindAttr("b")), -3);
  EXPECT_EQ(std::get<double>(*op.FindAttr("c")), 2.5);
  EXPECT_EQ(std::get<std::string>(*op.FindAttr("d")), "s");
  EXPECT_EQ(AsConstInt(std::get<Expr>(*op.FindAttr("e"))), 4);
  EXPECT_EQ(std::get<Expr>(*op.FindAttr("f"))->kind, ExprKind::kBinary);
  EXPECT_TRUE(std::isinf(std::get<double>(*op.FindAttr("g"))));
}

TEST(IrParser, RejectsDuplicateAttribute) {
  std::string errors = ErrorsOf(WithBody("copy(%p0, %p1) {transpose=true, transpose=false}\n"));
  EXPECT_NE(errors.find("duplicate attribute 'transpose'"), std::string::npos) << errors;
}

TEST(IrParser, ReportsGarbageCharacter) {
  std::string errors = ErrorsOf(WithBody("let %a = 1 $ 2\n"));
  EXPECT_NE(errors.find("5:12: error: unexpected character '$'"), std::string::npos) << errors;
}

}  // namespace
}  // namespace tilejit::ir
