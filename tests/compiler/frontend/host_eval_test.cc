// SPDX-License-Identifier: Apache-2.0
// The host evaluator: Python semantics of constants and operators, module-level laziness,
// imports, helpers and the decorator, checked by evaluating small modules.
#include "compiler/frontend/host_eval.h"

#include <gtest/gtest.h>

#include <cmath>

#include "compiler/frontend/parser.h"
#include "tests/compiler/frontend/frontend_test_util.h"

namespace tilejit::frontend {
namespace {

using fetest::EvalExpr;
using fetest::EvalName;

std::string ReprOf(const std::string& expr) {
  std::string diags;
  auto v = EvalExpr(expr, &diags);
  return v ? Repr(*v) : "error: " + diags;
}

TEST(HostEval, IntegerDivisionAndModuloFollowPythonSigns) {
  EXPECT_EQ(ReprOf("7 // 2"), "3");
  EXPECT_EQ(ReprOf("-7 // 2"), "-4");
  EXPECT_EQ(ReprOf("7 // -2"), "-4");
  EXPECT_EQ(ReprOf("-7 % 3"), "2");
  EXPECT_EQ(ReprOf("7 % -3"), "-2");
  EXPECT_EQ(ReprOf("-7.5 // 2"), "-4.0");
  EXPECT_EQ(ReprOf("-7.5 % 2"), "0.5");
  EXPECT_EQ(ReprOf("64.0 // 2"), "32.0");
}

TEST(HostEval, TrueDivisionGivesFloat) {
  EXPECT_EQ(ReprOf("6 / 3"), "2.0");
  EXPECT_EQ(ReprOf("1 / 4"), "0.25");
  EXPECT_EQ(TypeName(*EvalExpr("128 / 2")), "float");
}

TEST(HostEval, PowerHasIntOrFloatResults) {
  EXPECT_EQ(ReprOf("2 ** 30"), "1073741824");
  EXPECT_EQ(ReprOf("2 ** -1"), "0.5");
  EXPECT_EQ(ReprOf("2.0 ** 3"), "8.0");
  EXPECT_EQ(ReprOf("-(2 ** 30)"), "-1073741824");
  EXPECT_EQ(ReprOf("(1.0 / 64) ** 0.5"), "0.125");
}

TEST(HostEval, ReportsIntegerOverflowAndDivisionByZero) {
  std::string d;
  EXPECT_FALSE(EvalExpr("2 ** 64", &d));
  EXPECT_NE(d.find("integer overflow"), std::string::npos) << d;
  EXPECT_FALSE(EvalExpr("1 // 0", &d));
  EXPECT_NE(d.find("division or modulo by zero"), std::string::npos) << d;
  EXPECT_FALSE(EvalExpr("1.0 / 0", &d));
  EXPECT_NE(d.find("division by zero"), std::string::npos) << d;
}

TEST(HostEval, BoolOpsShortCircuitAndReturnOperands) {
  EXPECT_EQ(ReprOf("0 or 5"), "5");
  EXPECT_EQ(ReprOf("3 and 'x'"), "'x'");
  EXPECT_EQ(ReprOf("[] and undefined_name"), "[]");
  EXPECT_EQ(ReprOf("1 or undefined_name"), "1");
  EXPECT_EQ(ReprOf("not 0"), "True");
}

TEST(HostEval, ComparisonsChainAndConditionalExpressions) {
  EXPECT_EQ(ReprOf("1 < 2 < 3"), "True");
  EXPECT_EQ(ReprOf("1 < 3 < 2"), "False");
  EXPECT_EQ(ReprOf("1 == 1.0"), "True");
  EXPECT_EQ(ReprOf("'a' in ['a', 'b']"), "True");
  EXPECT_EQ(ReprOf("None is None"), "True");
  EXPECT_EQ(ReprOf("'y' if 2 > 1 else 'n'"), "'y'");
  EXPECT_EQ(ReprOf("-3 if False else -4"), "-4");
}

TEST(HostEval, ContainersAndSubscripts) {
  EXPECT_EQ(ReprOf("[1, 2] + [3]"), "[1, 2, 3]");
  EXPECT_EQ(ReprOf("(1,)"), "(1,)");
  EXPECT_EQ(ReprOf("{'a': 1, 'b': 2}['b']"), "2");
  EXPECT_EQ(ReprOf("[4, 5, 6][-1]"), "6");
  EXPECT_EQ(ReprOf("len((1, 2, 3))"), "3");
  EXPECT_EQ(ReprOf("{'a': 1, 'a': 2}"), "{'a': 2}");
}

TEST(HostEval, TileLangHelpersOnConstants) {
  EXPECT_EQ(ReprOf("T.ceildiv(1000, 128)"), "8");
  EXPECT_EQ(ReprOf("T.max(3, 9)"), "9");
  EXPECT_EQ(ReprOf("T.min(3, 9)"), "3");
  EXPECT_EQ(ReprOf("tilelang.cdiv(7, 2)"), "4");
  EXPECT_EQ(ReprOf("T.if_then_else(True, 1, 2)"), "1");
  EXPECT_EQ(ReprOf("-T.infinity('float32')"), "-inf");
  // tilelang.math as upstream defines it: 1 << (x - 1).bit_length().
  EXPECT_EQ(ReprOf("tilelang.math.next_power_of_2(17)"), "32");
  EXPECT_EQ(ReprOf("tilelang.math.next_power_of_2(64)"), "64");
  EXPECT_EQ(ReprOf("tilelang.next_power_of_2(1)"), "1");
  EXPECT_EQ(ReprOf("tilelang.math.next_power_of_2(0)"), "2");
  EXPECT_EQ(ReprOf("tilelang.math.cdiv(9, 4)"), "3");
}

// CATLASS's GemmIdentityBlockSwizzle::GetBlockCoord (catlass/gemm/block/block_swizzle.hpp),
// worked by hand: 4 x 4 tiles in bands of 2 rows; 2 x 4 tiles in bands of 3 columns.
TEST(HostEval, UseSwizzleOnConstantTasks) {
  // Task 5: band 0, column 2, row 1 -> tile 6. Task 9: band 1 (odd: right to left), row 3,
  // column 3 -> 15. Task 21 wraps to task 5.
  EXPECT_EQ(ReprOf("T.use_swizzle(5, 512, 512, 64, 128, 128, 2)"), "6");
  EXPECT_EQ(ReprOf("T.use_swizzle(9, 512, 512, 64, 128, 128, off=2, dir=0)"), "15");
  EXPECT_EQ(ReprOf("T.use_swizzle(21, 512, 512, 64, 128, 128, 2)"), "6");
  // Task 7: band 1 is the last (one column, 3), odd so bottom to top: row 0 -> tile 3.
  EXPECT_EQ(ReprOf("T.use_swizzle(7, 256, 512, 64, 128, 128, off=3, dir=1)"), "3");
  std::string d;
  EXPECT_FALSE(EvalExpr("T.use_swizzle(0, 500, 512, 64, 128, 128)", &d));
  EXPECT_NE(d.find("needs m and n positive multiples of block_m and block_n"), std::string::npos)
      << d;
}

TEST(HostEval, DataTypeBitsAndPassConfigKeys) {
  EXPECT_EQ(EvalName("from tvm import DataType\nX = DataType('float16').bits\n", "X")->i, 16);
  EXPECT_EQ(ReprOf("64 * 128 * DataType('float').bits // 8"), "32768");
  EXPECT_EQ(ReprOf("tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC"), "'tl.ascend_auto_sync'");
  EXPECT_EQ(ReprOf("tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC"),
            "'tl.ascend_auto_cross_core_sync'");
  std::string d;
  EXPECT_FALSE(EvalExpr("tilelang.PassConfigKey.NOPE", &d));
  EXPECT_NE(d.find("unknown pass config key"), std::string::npos) << d;
}

TEST(HostEval, ModuleLevelNamesAreLazyAndTakeTheLastBinding) {
  // The unsupported class is never needed, so it is never reported.
  std::string src =
      "class Foo:\n    x = [i for i in range(3)]\n"
      "B, S = 1, 128\nS = S * 2\nY = B + S\n";
  std::string d;
  auto v = EvalName(src, "Y", &d);
  ASSERT_TRUE(v) << d;
  EXPECT_EQ(v->i, 257);
  EXPECT_TRUE(d.empty()) << d;
}

TEST(HostEval, UsingAnUnsupportedStatementIsReportedWhereItIs) {
  std::string d;
  EXPECT_FALSE(EvalName("class Foo:\n    pass\nY = Foo\n", "Y", &d));
  EXPECT_NE(d.find("m.py:1:"), std::string::npos) << d;
}

TEST(HostEval, ImportAliasesResolveToTheSameNames) {
  std::string src =
      "import tilelang as tl\nfrom tilelang import language as L\nimport tilelang.language as T\n"
      "A = tl.language.ceildiv(9, 4)\nB = L.ceildiv(9, 4)\nC = T.ceildiv(9, 4)\n";
  EXPECT_EQ(EvalName(src, "A")->i, 3);
  EXPECT_EQ(EvalName(src, "B")->i, 3);
  EXPECT_EQ(EvalName(src, "C")->i, 3);
}

TEST(HostEval, NestedHelpersReturnValuesAndTuples) {
  std::string src =
      "def split(n, parts=2):\n"
      "    def half(x):\n        return x // parts\n"
      "    return half(n), n % parts\n"
      "A, B = split(9)\nC = split(10, parts=3)\n";
  EXPECT_EQ(EvalName(src, "A")->i, 4);
  EXPECT_EQ(EvalName(src, "B")->i, 1);
  EXPECT_EQ(Repr(*EvalName(src, "C")), "(3, 1)");
}

TEST(HostEval, LambdasCloseOverTheirScopeAndTakeDefaults) {
  std::string src =
      "def make(k):\n    return lambda x, y=1: x * k + y\n"
      "f = make(3)\nA = f(2)\nB = f(2, y=0)\nC = (lambda: 7)()\n"
      "D = (lambda a, b: a if a > b else b)(4, 9)\n";
  EXPECT_EQ(EvalName(src, "A")->i, 7);
  EXPECT_EQ(EvalName(src, "B")->i, 6);
  EXPECT_EQ(EvalName(src, "C")->i, 7);
  EXPECT_EQ(EvalName(src, "D")->i, 9);
  std::string d;
  EXPECT_FALSE(EvalName("f = lambda x: x\nX = f(1, 2)\n", "X", &d));
  EXPECT_NE(d.find("2 were given"), std::string::npos) << d;
}

TEST(HostEval, HelperArityErrorsAreDiagnostics) {
  std::string d;
  EXPECT_FALSE(EvalName("def f(a):\n    return a\nX = f(1, 2)\n", "X", &d));
  EXPECT_NE(d.find("takes 1 positional argument but 2 were given"), std::string::npos) << d;
  EXPECT_FALSE(EvalName("def f(a):\n    return a\nX = f(b=1)\n", "X", &d));
  EXPECT_NE(d.find("unexpected keyword argument 'b'"), std::string::npos) << d;
}

TEST(HostEval, RecursionIsBounded) {
  std::string d;
  EXPECT_FALSE(EvalName("def f(n):\n    return f(n + 1)\nX = f(0)\n", "X", &d));
  EXPECT_NE(d.find("call depth"), std::string::npos) << d;
}

TEST(HostEval, SymbolicShapesAreNotSupportedYet) {
  std::string d;
  EXPECT_FALSE(EvalExpr("T.symbolic('M')", &d));
  EXPECT_NE(d.find("T.symbolic is not supported yet (dynamic shapes)"), std::string::npos) << d;
}

TEST(HostEval, UnknownTileLangNamesAreReported) {
  std::string d;
  EXPECT_FALSE(EvalExpr("T.no_such_thing", &d));
  EXPECT_NE(d.find("unknown name 'T.no_such_thing'"), std::string::npos) << d;
}

std::vector<std::pair<std::string, std::string>> Bindings(const std::string& text) {
  SourceManager sources;
  auto module = ParseModule(sources, sources.AddFile("imports.py", text));
  std::vector<std::pair<std::string, std::string>> out;
  EXPECT_TRUE(module.ok());
  if (!module.ok() || module->body.size() != 1) return out;
  EXPECT_EQ(module->body[0]->kind, StmtKind::kImport);
  EXPECT_TRUE(ImportBindings(*module->body[0], &out)) << text;
  return out;
}

TEST(HostEval, BindsEveryImportForm) {
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(Bindings("import tilelang.language as T\n"),
            (std::vector<Pair>{{"T", "tilelang.language"}}));
  EXPECT_EQ(Bindings("import tilelang.language\n"), (std::vector<Pair>{{"tilelang", "tilelang"}}));
  EXPECT_EQ(Bindings("import tilelang.language as tilelang\n"),
            (std::vector<Pair>{{"tilelang", "tilelang.language"}}));
  EXPECT_EQ(Bindings("from tilelang import language as T, jit\n"),
            (std::vector<Pair>{{"T", "tilelang.language"}, {"jit", "tilelang.jit"}}));
  // Parenthesised over several lines: the bindings come from the AST, not the first line.
  EXPECT_EQ(Bindings("from tilelang import (\n    language as T,\n    jit,\n)\n"),
            (std::vector<Pair>{{"T", "tilelang.language"}, {"jit", "tilelang.jit"}}));
  SourceManager sources;
  auto star = ParseModule(sources, sources.AddFile("star.py", "from tilelang import *\n"));
  ASSERT_TRUE(star.ok());
  std::vector<Pair> out;
  EXPECT_FALSE(ImportBindings(*star->body[0], &out));
}

TEST(HostEval, GetattrResolvesBuiltinsThroughTheRegistry) {
  // Upstream tests pick tile operations by name: getattr(T.tile, "add").
  EXPECT_EQ(ReprOf("getattr(T.tile, 'add')"), "<T.tile.add>");
  EXPECT_EQ(ReprOf("getattr(tilelang, 'cdiv')"), "<T.ceildiv>");
  EXPECT_EQ(ReprOf("getattr(T, 'tile')"), ReprOf("T.tile"));
  EXPECT_EQ(ReprOf("getattr(T.tile, 'no_such_op', 3)"), "3");
  EXPECT_EQ(ReprOf("getattr(T.float16, 'bits', None)"), "None");
  std::string d;
  EXPECT_FALSE(EvalExpr("getattr(T.tile, 'no_such_op')", &d));
  EXPECT_NE(d.find("unknown name 'T.tile.no_such_op'"), std::string::npos) << d;
  EXPECT_FALSE(EvalExpr("getattr(T.tile, 3)", &d));
  EXPECT_NE(d.find("attribute name must be a str, not int"), std::string::npos) << d;
}

TEST(HostEval, DataTypeResolvesUnderEveryModuleSpelling) {
  const std::string prelude =
      "import tilelang\nimport tilelang.language as T\nimport tvm\n"
      "from tvm import tir\nfrom tilelang import tvm as tl_tvm\n";
  for (const char* spelling :
       {"DataType", "tvm.DataType", "tir.DataType", "tl_tvm.DataType", "tvm.tir.DataType"}) {
    std::string d;
    auto v = EvalName(prelude + "X = " + spelling + "('float16').bits\n", "X", &d);
    ASSERT_TRUE(v) << spelling << ": " << d;
    EXPECT_EQ(Repr(*v), "16") << spelling;
  }
  // Dtype names used as values, and Python's int and float as TVM reads them.
  EXPECT_EQ(ReprOf("DataType(T.bfloat16)"), "DataType('bfloat16')");
  EXPECT_EQ(ReprOf("DataType(int)"), "DataType('int32')");
  EXPECT_EQ(ReprOf("DataType(float).bits"), "32");
}

TEST(HostEval, LogicalBuiltinsAndMinMaxFoldOnHostValues) {
  EXPECT_EQ(ReprOf("T.And(1, 0)"), "False");
  EXPECT_EQ(ReprOf("T.Or(0, 2)"), "True");
  EXPECT_EQ(ReprOf("T.min(3, 2)"), "2");
  EXPECT_EQ(ReprOf("max([1, 7, 3])"), "7");
  EXPECT_EQ(ReprOf("min(4, 2, 9)"), "2");
  std::string d;
  EXPECT_FALSE(EvalExpr("T.max(1, 2, 3)", &d));
  EXPECT_NE(d.find("takes at most 2 arguments"), std::string::npos) << d;
  EXPECT_FALSE(EvalExpr("max(1, 2, key=3)", &d));
  EXPECT_NE(d.find("takes no keyword arguments"), std::string::npos) << d;
}

}  // namespace
}  // namespace tilejit::frontend
