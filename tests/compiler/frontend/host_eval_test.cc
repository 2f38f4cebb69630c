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
  EXPECT_EQ(ReprOf("'abc'[1]"), "'b'");
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

TEST(HostEval, SymbolicDimsAreRuntimeInt32AndArithmeticOnThemBuildsIr) {
  std::string d;
  auto v = EvalExpr("T.ceildiv(T.symbolic('M'), 64) * 2", &d);
  ASSERT_TRUE(v) << d;
  ASSERT_EQ(v->kind, ValueKind::kExpr);
  EXPECT_EQ(ir::PrintExpr(v->expr), "(%v0 + 63) // 64 * 2");
  EXPECT_EQ(v->expr->dtype, ir::DType::kInt32);
  auto dyn = EvalExpr("T.dynamic('M', 'int64')", &d);
  ASSERT_TRUE(dyn) << d;
  EXPECT_EQ(dyn->kind, ValueKind::kExpr);
  EXPECT_FALSE(EvalExpr("T.symbolic('not a name')", &d));
  EXPECT_NE(d.find("needs an identifier string"), std::string::npos) << d;
  EXPECT_FALSE(EvalExpr("T.symbolic('M', 'float32')", &d));
  EXPECT_NE(d.find("dtype float32 is not"), std::string::npos) << d;
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

std::string ReprOfName(const std::string& src, const std::string& name) {
  std::string diags;
  auto v = EvalName(src, name, &diags);
  return v ? Repr(*v) : "error: " + diags;
}

// Python 3.11 gives each of these; the comments are what CPython prints.
TEST(HostEval, WhileLoopsRunWithBreakContinueAndElse) {
  std::string src =
      "def pow2_at_least(n):\n"
      "    p = 1\n"
      "    while p < n:\n"
      "        p *= 2\n"
      "    return p\n"
      "def first_multiple(xs, k):\n"
      "    i = 0\n"
      "    while i < len(xs):\n"
      "        if xs[i] % k == 0:\n"
      "            break\n"
      "        i += 1\n"
      "    else:\n"
      "        return -1\n"
      "    return xs[i]\n"
      "def odd_sum(n):\n"
      "    s = 0\n"
      "    i = 0\n"
      "    while True:\n"
      "        i += 1\n"
      "        if i > n:\n"
      "            return s\n"
      "        if i % 2 == 0:\n"
      "            continue\n"
      "        s += i\n"
      "A = pow2_at_least(100)\n"                // 128
      "B = first_multiple([5, 7, 9, 12], 3)\n"  // 9
      "C = first_multiple([5, 7], 3)\n"         // -1 (the else ran)
      "D = odd_sum(9)\n";                       // 25
  EXPECT_EQ(ReprOfName(src, "A"), "128");
  EXPECT_EQ(ReprOfName(src, "B"), "9");
  EXPECT_EQ(ReprOfName(src, "C"), "-1");
  EXPECT_EQ(ReprOfName(src, "D"), "25");
}

TEST(HostEval, ForElseRunsOnlyWhenTheLoopWasNotBroken) {
  std::string src =
      "def find(xs, v):\n"
      "    for x in xs:\n"
      "        if x == v:\n"
      "            break\n"
      "    else:\n"
      "        return 'missing'\n"
      "    return 'found'\n"
      "def nested():\n"
      "    out = []\n"
      "    for i in range(3):\n"
      "        for j in range(3):\n"
      "            if j == i:\n"
      "                break\n"
      "        else:\n"
      "            out = out + [i]\n"
      "    return out\n"
      "A = find([1, 2], 2)\nB = find([1, 2], 3)\nC = nested()\n";
  EXPECT_EQ(ReprOfName(src, "A"), "'found'");
  EXPECT_EQ(ReprOfName(src, "B"), "'missing'");
  EXPECT_EQ(ReprOfName(src, "C"), "[]");
}

TEST(HostEval, ListAndDictComprehensionsAndGeneratorExpressions) {
  EXPECT_EQ(ReprOf("[x * x for x in range(5)]"), "[0, 1, 4, 9, 16]");
  EXPECT_EQ(ReprOf("[x for x in range(10) if x % 3 == 0 if x > 0]"), "[3, 6, 9]");
  EXPECT_EQ(ReprOf("[(i, j) for i in range(3) for j in range(i)]"), "[(1, 0), (2, 0), (2, 1)]");
  EXPECT_EQ(ReprOf("[a + b for a, b in [(1, 2), (3, 4)]]"), "[3, 7]");
  EXPECT_EQ(ReprOf("{k: k * 2 for k in ['a', 'b']}"), "{'a': 'aa', 'b': 'bb'}");
  EXPECT_EQ(ReprOf("{k % 2: k for k in range(5)}"), "{0: 4, 1: 3}");  // later keys win
  EXPECT_EQ(ReprOf("[k for k in {'x': 1, 'y': 2}]"), "['x', 'y']");   // a dict's keys
  EXPECT_EQ(ReprOf("[[c for c in range(r)] for r in range(3)]"), "[[], [0], [0, 1]]");
  EXPECT_EQ(ReprOf("(x + 1 for x in (1, 2))"), "[2, 3]");  // evaluated at once, to a list
  EXPECT_EQ(ReprOf("max(x % 7 for x in range(20))"), "6");
  EXPECT_EQ(ReprOf("[]"), "[]");
}

TEST(HostEval, ComprehensionTargetsDoNotLeakAndSeeTheEnclosingScope) {
  std::string src =
      "def f(n):\n"
      "    x = 'kept'\n"
      "    ys = [x * n for x in range(3)]\n"
      "    return x, ys\n"
      "def g(rows):\n"
      "    rows = [r for r in range(rows) if r < rows - 1]\n"  // first iter: the enclosing rows
      "    return rows\n"
      "A = f(2)\nB = g(4)\n";
  EXPECT_EQ(ReprOfName(src, "A"), "('kept', [0, 2, 4])");
  EXPECT_EQ(ReprOfName(src, "B"), "[0, 1, 2]");
}

// Their budgets: host_budget_test.
TEST(HostEval, ComprehensionErrorsAreLocated) {
  std::string d;
  EXPECT_FALSE(EvalExpr("[x for x in 5]", &d));
  EXPECT_NE(d.find("cannot iterate over a int"), std::string::npos) << d;
  EXPECT_FALSE(EvalExpr("[y for x in range(2)]", &d));
  EXPECT_NE(d.find("m.py:3:6: error: name 'y' is not defined"), std::string::npos) << d;
  EXPECT_FALSE(EvalExpr("{x for x in range(2)}", &d));
  EXPECT_NE(d.find("set comprehensions are not supported"), std::string::npos) << d;
}

// Each expected value is what CPython 3.11 prints for the same expression.
TEST(HostEval, SequenceBuiltinsFollowPython) {
  EXPECT_EQ(ReprOf("sum([1, 2, 3])"), "6");
  EXPECT_EQ(ReprOf("sum((0.5, 1), 10)"), "11.5");
  EXPECT_EQ(ReprOf("sum(x * x for x in (1, 2, 3))"), "14");
  EXPECT_EQ(ReprOf("sum([[1], [2]], [])"), "[1, 2]");
  EXPECT_EQ(ReprOf("any([0, '', 3])"), "True");
  EXPECT_EQ(ReprOf("any([])"), "False");
  EXPECT_EQ(ReprOf("all(x > 0 for x in [1, 2])"), "True");
  EXPECT_EQ(ReprOf("all([1, 0])"), "False");
  EXPECT_EQ(ReprOf("all(())"), "True");
  EXPECT_EQ(ReprOf("list((1, 2))"), "[1, 2]");
  EXPECT_EQ(ReprOf("tuple([1, 2])"), "(1, 2)");
  EXPECT_EQ(ReprOf("tuple(x for x in [3])"), "(3,)");
  EXPECT_EQ(ReprOf("list()"), "[]");
  EXPECT_EQ(ReprOf("tuple({'a': 1, 'b': 2})"), "('a', 'b')");
  EXPECT_EQ(ReprOf("list(enumerate(['a', 'b']))"), "[(0, 'a'), (1, 'b')]");
  EXPECT_EQ(ReprOf("[i * v for i, v in enumerate([5, 6], start=1)]"), "[5, 12]");
  EXPECT_EQ(ReprOf("list(zip([1, 2, 3], 'ab' and ['a', 'b']))"), "[(1, 'a'), (2, 'b')]");
  EXPECT_EQ(ReprOf("list(zip())"), "[]");
  EXPECT_EQ(ReprOf("{k: v for k, v in zip(['m', 'n'], [64, 32])}"), "{'m': 64, 'n': 32}");
}

// Expected values are CPython 3.11's for the same expressions.
TEST(HostEval, SlicesFollowPythonsClampingAndSteps) {
  EXPECT_EQ(ReprOf("[0, 1, 2, 3, 4][1:3]"), "[1, 2]");
  EXPECT_EQ(ReprOf("[0, 1, 2, 3, 4][::-1]"), "[4, 3, 2, 1, 0]");
  EXPECT_EQ(ReprOf("[0, 1, 2, 3, 4][-2:]"), "[3, 4]");
  EXPECT_EQ(ReprOf("[0, 1, 2, 3, 4][:-9]"), "[]");
  EXPECT_EQ(ReprOf("[0, 1, 2, 3, 4][4:0:-2]"), "[4, 2]");
  EXPECT_EQ(ReprOf("(0, 1, 2, 3)[::2]"), "(0, 2)");
  EXPECT_EQ(ReprOf("'abcdef'[1:5:2]"), "'bd'");
  EXPECT_EQ(ReprOf("[0, 1, 2][10:]"), "[]");
  EXPECT_EQ(ReprOf("[0, 1, 2][None:None:-1]"), "[2, 1, 0]");
  EXPECT_EQ(ReprOf("[0, 1, 2][-100:100]"), "[0, 1, 2]");
  EXPECT_NE(ReprOf("[1][::0]").find("slice step cannot be zero"), std::string::npos);
  EXPECT_NE(ReprOf("[1][0.5:]").find("slice indices must be integers or None, not float"),
            std::string::npos);
  EXPECT_NE(ReprOf("{'a': 1}[0:1]").find("slicing a dict is not supported"), std::string::npos);
}

TEST(HostEval, RangeAsAValueIsAListOfItsItems) {
  EXPECT_EQ(ReprOf("list(range(4))"), "[0, 1, 2, 3]");
  EXPECT_EQ(ReprOf("sum(range(1, 11))"), "55");
  EXPECT_EQ(ReprOf("len(range(10, 0, -3))"), "4");
  EXPECT_EQ(ReprOf("tuple(range(5, 5))"), "()");
  EXPECT_EQ(ReprOf("list(range(True, 3))"), "[1, 2]");
  EXPECT_NE(ReprOf("list(range(2 ** 40))").find("memory"), std::string::npos)
      << ReprOf("list(range(2 ** 40))");
}

TEST(HostEval, StarredItemsUnpackIntoDisplaysAndTargets) {
  EXPECT_EQ(ReprOf("[*[1, 2], 3, *(4,)]"), "[1, 2, 3, 4]");
  EXPECT_EQ(ReprOf("(*[1], *[])"), "(1,)");
  std::string src = "R = list(range(4))\na, *b = [1, 2, 3]\n*c, d = (1,)\ne, *f, g = R\n";
  std::vector<std::pair<std::string, std::string>> want = {
      {"a", "1"}, {"b", "[2, 3]"}, {"c", "[]"}, {"d", "1"},
      {"e", "0"}, {"f", "[1, 2]"}, {"g", "3"}};
  for (const auto& [name, repr] : want) {
    std::string diags;
    auto v = EvalName(src, name, &diags);
    ASSERT_TRUE(v) << name << ": " << diags;
    EXPECT_EQ(Repr(*v), repr) << name;
  }
  std::string diags;
  EXPECT_FALSE(EvalName("a, *b, c = [1]\n", "a", &diags));
  EXPECT_NE(diags.find("not enough values to unpack (expected at least 2, got 1)"),
            std::string::npos)
      << diags;
  EXPECT_NE(ReprOf("[*3]").find("can only unpack a list or tuple with *, not int"),
            std::string::npos);
}

// Expected values are CPython 3.11's for the same f-strings.
TEST(HostEval, FStringFieldsAreEvaluatedAndFormattedAsPythonDoes) {
  EXPECT_EQ(ReprOf("f\"{1 + 2}\""), "'3'");
  EXPECT_EQ(ReprOf("f\"{'a'!r}\""), "\"'a'\"");
  EXPECT_EQ(ReprOf("f\"{3.14159:.2f}\""), "'3.14'");
  EXPECT_EQ(ReprOf("f\"{255:#x}\""), "'0xff'");
  EXPECT_EQ(ReprOf("f\"{42:>6}\""), "'    42'");
  EXPECT_EQ(ReprOf("f\"{'ab':^6}\""), "'  ab  '");
  EXPECT_EQ(ReprOf("f\"{1234567:,}\""), "'1,234,567'");
  EXPECT_EQ(ReprOf("f\"{0.125:%}\""), "'12.500000%'");
  EXPECT_EQ(ReprOf("f\"{-5:05}\""), "'-0005'");
  EXPECT_EQ(ReprOf("f\"{1/3:10.4}\""), "'    0.3333'");
  EXPECT_EQ(ReprOf("f\"{2.5:e}\""), "'2.500000e+00'");
  EXPECT_EQ(ReprOf("f\"{7:{3}}\""), "'  7'");
  EXPECT_EQ(ReprOf("f\"{{x}} {1}\""), "'{x} 1'");
  EXPECT_EQ(ReprOf("f\"{[1, 2]}\""), "'[1, 2]'");
  EXPECT_EQ(ReprOf("f\"{True:d}\""), "'1'");
  EXPECT_EQ(ReprOf("f\"a\" \"b{2}\""), "'ab{2}'");
  EXPECT_EQ(ReprOf("f\"{10.0}\""), "'10.0'");
  EXPECT_EQ(ReprOf("f\"{1==1}\""), "'True'");
  std::string diags;
  auto v = EvalName("x = 5\nA = f\"{x=} {x = }\"\n", "A", &diags);
  ASSERT_TRUE(v) << diags;
  EXPECT_EQ(Repr(*v), "'x=5 x = 5'");
  EXPECT_NE(ReprOf("f\"{1.5:d}\"").find("Unknown format code 'd' for object of type 'float'"),
            std::string::npos);
  EXPECT_NE(ReprOf("f\"{3:.2d}\"").find("Precision not allowed in integer format specifier"),
            std::string::npos);
  EXPECT_NE(ReprOf("f\"{}\"").find("f-string: empty expression not allowed"), std::string::npos);
  EXPECT_NE(ReprOf("f\"{1!x}\"").find("invalid conversion character"), std::string::npos);
  EXPECT_NE(ReprOf("f\"a}\"").find("single '}' is not allowed"), std::string::npos);
  EXPECT_NE(ReprOf("f\"{1:{2:{3}}}\"").find("nested too deeply"), std::string::npos);
  EXPECT_NE(ReprOf("f\"{1:99999999}\"").find("not supported"), std::string::npos);
  // A field's diagnostics point at its bytes in the file (X = f"ab{zz}": zz is column 10).
  EXPECT_NE(ReprOf("f\"ab{zz}\"").find("m.py:3:10: error: name 'zz' is not defined"),
            std::string::npos)
      << ReprOf("f\"ab{zz}\"");
}

TEST(HostEval, FloatsPrintAsPythonsRepr) {
  EXPECT_EQ(ReprOf("10.0"), "10.0");
  EXPECT_EQ(ReprOf("1e16"), "1e+16");
  EXPECT_EQ(ReprOf("1e15"), "1000000000000000.0");
  EXPECT_EQ(ReprOf("1.5e-5"), "1.5e-05");
  EXPECT_EQ(ReprOf("0.0001"), "0.0001");
  EXPECT_EQ(ReprOf("0.1 + 0.2"), "0.30000000000000004");
  EXPECT_EQ(ReprOf("-0.0"), "-0.0");
  EXPECT_EQ(ReprOf("2 ** 0.5"), "1.4142135623730951");
  EXPECT_EQ(ReprOf("1e300 * 1e10"), "inf");
}

TEST(HostEval, SequenceBuiltinErrorsNameTheFunction) {
  EXPECT_NE(ReprOf("sum(3)").find("sum() needs a list, a tuple or a dict here, not int"),
            std::string::npos)
      << ReprOf("sum(3)");
  EXPECT_NE(ReprOf("sum(['a'], '')").find("sum() can't sum strings"), std::string::npos);
  EXPECT_NE(ReprOf("enumerate([1], start=0.5)").find("start must be an int"), std::string::npos);
  EXPECT_NE(ReprOf("any()").find("missing"), std::string::npos) << ReprOf("any()");
}

TEST(HostEval, PythonsMathModuleOnHostNumbers) {
  std::string src =
      "import math\nfrom math import ceil as c\n"
      "A = math.ceil(7 / 2)\nB = math.floor(-7 / 2)\nC = math.log2(1024)\n"
      "D = math.sqrt(2.25)\nE = c(5)\nF = math.log(8, 2)\nG = math.isqrt(99)\n"
      "H = math.gcd(12, 18)\nI = math.pow(2, 10)\nJ = math.exp(0)\nK = math.log10(1000)\n"
      "L = math.isqrt(9223372036854775807)\n";
  std::vector<std::pair<std::string, std::string>> want = {
      {"A", "4"}, {"B", "-4"}, {"C", "10.0"},   {"D", "1.5"}, {"E", "5"},   {"F", "3.0"},
      {"G", "9"}, {"H", "6"},  {"I", "1024.0"}, {"J", "1.0"}, {"K", "3.0"}, {"L", "3037000499"}};
  for (const auto& [name, value] : want) {
    std::string d;
    auto v = fetest::EvalName(src, name, &d);
    ASSERT_TRUE(v) << name << ": " << d;
    EXPECT_EQ(Repr(*v), value) << name;
  }
  std::string d;
  EXPECT_FALSE(fetest::EvalName("import math\nX = math.sqrt(-1)\n", "X", &d));
  EXPECT_NE(d.find("math.sqrt(): math domain error"), std::string::npos) << d;
  EXPECT_FALSE(fetest::EvalName("import math\nX = math.exp(1000)\n", "X", &d));
  EXPECT_NE(d.find("math range error"), std::string::npos) << d;
  EXPECT_FALSE(fetest::EvalName("import math\nX = math.ceil(1e300)\n", "X", &d));
  EXPECT_NE(d.find("is not a representable int"), std::string::npos) << d;
  EXPECT_FALSE(fetest::EvalName("import math\nX = math.ceil('1')\n", "X", &d));
  EXPECT_NE(d.find("math.ceil() needs a host number, not str"), std::string::npos) << d;
  EXPECT_FALSE(fetest::EvalName("import math\nX = math.gcd(1.5, 2)\n", "X", &d));
  EXPECT_NE(d.find("needs ints"), std::string::npos) << d;
}

}  // namespace
}  // namespace tilejit::frontend
