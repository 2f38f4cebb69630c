// SPDX-License-Identifier: Apache-2.0
#include "compiler/frontend/parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/frontend/ast_dump.h"
#include "tests/compiler/frontend/syntax_test_util.h"

namespace tilejit::frontend {
namespace {

using testing::CountUnsupported;
using testing::ParseText;

std::string DumpOf(const std::string& expr) {
  SourceManager sources;
  uint32_t id = sources.AddFile("expr.py", expr);
  DiagnosticEngine diag(&sources);
  Result<ExprPtr> e = ParseExpression(sources, id, &diag);
  if (!e.ok()) return "error: " + diag.RenderAll();
  return DumpExpr(**e);
}

std::vector<std::string> KernelFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(testing::KernelsDir())) {
    if (entry.path().extension() == ".py") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Parser, ParsesEverySharedKernelWithoutUnsupportedStatements) {
  std::vector<std::string> files = KernelFiles();
  ASSERT_GE(files.size(), 10u);
  for (const std::string& f : files) {
    auto p = ParseText(testing::ReadFile(f), f);
    EXPECT_GT(p.module.body.size(), 0u) << f;
    EXPECT_EQ(CountUnsupported(p.module), 0) << f << "\n" << DumpModule(p.module);
  }
}

TEST(Parser, KernelDumpsParseBackToTheSameTree) {
  for (const std::string& f : KernelFiles()) {
    auto first = ParseText(testing::ReadFile(f), f);
    std::string dump = DumpModule(first.module);
    auto second = ParseText(dump, "dump.py");
    EXPECT_EQ(CountUnsupported(second.module), 0) << dump;
    EXPECT_EQ(DumpModule(second.module), dump) << f;
  }
}

TEST(Parser, FactoryShapeOfAKernel) {
  auto p = ParseText(testing::ReadFile(testing::KernelsDir() + "/gemm_developer.py"));
  const Stmt* factory = nullptr;
  for (const StmtPtr& s : p.module.body) {
    if (s->kind == StmtKind::kFunctionDef) factory = s.get();
  }
  ASSERT_NE(factory, nullptr);
  ASSERT_EQ(factory->decorators.size(), 1u);
  EXPECT_EQ(factory->decorators[0]->kind, ExprKind::kCall);
  const Stmt* inner = nullptr;
  for (const StmtPtr& s : factory->body) {
    if (s->kind == StmtKind::kFunctionDef) inner = s.get();
  }
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->name, "main");
  EXPECT_EQ(DumpExpr(*inner->decorators[0]), "T.prim_func");
  ASSERT_FALSE(inner->params.empty());
  EXPECT_NE(inner->params[0].annotation, nullptr);
  EXPECT_EQ(factory->body.back()->kind, StmtKind::kReturn);
}

struct PrecedenceCase {
  const char* input;
  const char* dump;
};

class PrecedenceTest : public ::testing::TestWithParam<PrecedenceCase> {};

TEST_P(PrecedenceTest, DumpsFullyParenthesised) {
  EXPECT_EQ(DumpOf(GetParam().input), GetParam().dump);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PrecedenceTest,
    ::testing::Values(
        PrecedenceCase{"-2**2", "(-(2 ** 2))"}, PrecedenceCase{"2**-1", "(2 ** (-1))"},
        PrecedenceCase{"2**3**2", "(2 ** (3 ** 2))"},
        PrecedenceCase{"-x**-y**z", "(-(x ** (-(y ** z))))"},
        PrecedenceCase{"a + b * c - d", "((a + (b * c)) - d)"},
        PrecedenceCase{"a // b % c * d", "(((a // b) % c) * d)"},
        PrecedenceCase{"a | b ^ c & d << e + f", "(a | (b ^ (c & (d << (e + f)))))"},
        PrecedenceCase{"a @ b + c", "((a @ b) + c)"},
        PrecedenceCase{"not a == b and c or d", "(((not (a == b)) and c) or d)"},
        PrecedenceCase{"a < b <= c != d", "(a < b <= c != d)"},
        PrecedenceCase{"a is not b", "(a is not b)"},
        PrecedenceCase{"a not in b in c", "(a not in b in c)"},
        PrecedenceCase{"x if c else y if d else z", "(x if c else (y if d else z))"},
        PrecedenceCase{"a or b if c else d", "((a or b) if c else d)"},
        PrecedenceCase{"~-a", "(~(-a))"}, PrecedenceCase{"2.0**30", "(2.0 ** 30)"},
        PrecedenceCase{"(1.0 / dim) ** 0.5", "((1.0 / dim) ** 0.5)"},
        PrecedenceCase{"f(a, *b, k=1, **d)", "f(a, *b, k=1, **d)"},
        PrecedenceCase{"T.tile.add(x[i, :], y[:n], z[lo:], w[1:2,])",
                       "T.tile.add(x[i, :], y[:n], z[lo:], w[1:2,])"},
        PrecedenceCase{"a.b(c)[d].e", "a.b(c)[d].e"},
        PrecedenceCase{"[1, (2,), (), {'k': 3}]", "[1, (2,), (), {\"k\": 3}]"},
        PrecedenceCase{"'a' \"b\" '''c'''", "\"abc\""}, PrecedenceCase{"1, 2,", "(1, 2)"},
        PrecedenceCase{"None, True, False, 1e-5, 1.", "(None, True, False, 1e-05, 1.0)"},
        PrecedenceCase{"x[()]", "x[()]"}, PrecedenceCase{"f'{a}' 'b{'", "f\"{a}b{{\""}));

TEST(Parser, CallsAndSubscriptsHaveTheRightShape) {
  SourceManager sources;
  uint32_t id = sources.AddFile("e.py", "T.copy(A[b, lo:hi, :], x, pad_value=0)");
  DiagnosticEngine diag(&sources);
  Result<ExprPtr> r = ParseExpression(sources, id, &diag);
  ASSERT_TRUE(r.ok());
  const Expr& call = **r;
  ASSERT_EQ(call.kind, ExprKind::kCall);
  ASSERT_EQ(call.elts.size(), 2u);
  ASSERT_EQ(call.keywords.size(), 1u);
  EXPECT_EQ(call.keywords[0].arg, "pad_value");
  EXPECT_EQ(call.keywords[0].loc, (SourceLoc{id, 1, 27}));
  const Expr& sub = *call.elts[0];
  ASSERT_EQ(sub.kind, ExprKind::kSubscript);
  ASSERT_EQ(sub.right->kind, ExprKind::kTuple);
  ASSERT_EQ(sub.right->elts.size(), 3u);
  EXPECT_EQ(sub.right->elts[1]->kind, ExprKind::kSlice);
  EXPECT_NE(sub.right->elts[1]->left, nullptr);
  EXPECT_EQ(sub.right->elts[2]->kind, ExprKind::kSlice);
  EXPECT_EQ(sub.right->elts[2]->left, nullptr);
  EXPECT_EQ(sub.right->elts[2]->right, nullptr);
  EXPECT_EQ(sub.right->elts[1]->loc, (SourceLoc{id, 1, 13}));
}

// CPython's grammar: a clause's iterable and conditions are disjunctions (no bare ternary),
// its targets may unpack, and a call's generator argument needs no parentheses of its own
// only when it is the sole argument.
TEST(Parser, ComprehensionsAndGeneratorExpressions) {
  EXPECT_EQ(DumpOf("[x * 2 for x in xs if x > 0 if x or y]"),
            "[(x * 2) for x in xs if (x > 0) if (x or y)]");
  EXPECT_EQ(DumpOf("[(i, j) for i in range(n) for j, _ in pairs]"),
            "[(i, j) for i in range(n) for (j, _) in pairs]");
  EXPECT_EQ(DumpOf("{k: v + 1 for k, v in d}"), "{k: (v + 1) for (k, v) in d}");
  EXPECT_EQ(DumpOf("(a for a in b)"), "(a for a in b)");
  EXPECT_EQ(DumpOf("sum(a for a in b)"), "sum((a for a in b))");
  EXPECT_EQ(DumpOf("f((a for a in b), 1)"), "f((a for a in b), 1)");
  EXPECT_NE(DumpOf("f(a for a in b, 1)")
                .find("1:3: error: Generator expression must be "
                      "parenthesized"),
            std::string::npos);
  EXPECT_NE(DumpOf("f(1, a for a in b)").find("Generator expression must be parenthesized"),
            std::string::npos);
  EXPECT_NE(DumpOf("[x for 1 in y]").find("cannot assign to literal"), std::string::npos)
      << DumpOf("[x for 1 in y]");
  EXPECT_NE(DumpOf("[x for x in y if a else b]").find("error"), std::string::npos);
}

TEST(Parser, NodesCarryLineAndColumn) {
  auto p = ParseText("x = 1\n\ndef f(a,\n      b=2):\n    if a:\n        return a + b * 3\n");
  const auto& body = p.module.body;
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(body[0]->loc, (SourceLoc{p.file_id, 1, 1}));
  EXPECT_EQ(body[0]->end_loc, (SourceLoc{p.file_id, 1, 6}));
  EXPECT_EQ(body[0]->value->loc, (SourceLoc{p.file_id, 1, 5}));
  const Stmt& f = *body[1];
  EXPECT_EQ(f.loc, (SourceLoc{p.file_id, 3, 1}));
  EXPECT_EQ(f.end_loc, (SourceLoc{p.file_id, 6, 25}));
  EXPECT_EQ(f.params[1].loc, (SourceLoc{p.file_id, 4, 7}));
  EXPECT_EQ(f.params[1].default_value->loc, (SourceLoc{p.file_id, 4, 9}));
  const Stmt& ifs = *f.body[0];
  EXPECT_EQ(ifs.loc, (SourceLoc{p.file_id, 5, 5}));
  const Stmt& ret = *ifs.body[0];
  EXPECT_EQ(ret.loc, (SourceLoc{p.file_id, 6, 9}));
  const Expr& sum = *ret.value;
  EXPECT_EQ(sum.loc, (SourceLoc{p.file_id, 6, 16}));
  EXPECT_EQ(sum.right->loc, (SourceLoc{p.file_id, 6, 20}));
  EXPECT_EQ(sum.right->right->loc, (SourceLoc{p.file_id, 6, 24}));
}

TEST(Parser, ParsesParameterKinds) {
  auto p = ParseText("def f(a, b: int = 2, /, *args, c, d=3, **kw) -> int:\n    pass\n");
  ASSERT_EQ(CountUnsupported(p.module), 0) << DumpModule(p.module);
  const Stmt& f = *p.module.body[0];
  ASSERT_EQ(f.params.size(), 6u);
  using PK = Param::Kind;
  std::vector<PK> kinds;
  for (const Param& q : f.params) kinds.push_back(q.kind);
  EXPECT_EQ(kinds, (std::vector<PK>{PK::kPositional, PK::kPositional, PK::kVarArgs,
                                    PK::kKeywordOnly, PK::kKeywordOnly, PK::kVarKeywords}));
  EXPECT_NE(f.returns, nullptr);
  auto bare = ParseText("def g(*, k):\n    pass\n");
  ASSERT_EQ(bare.module.body[0]->params.size(), 1u);
  EXPECT_EQ(bare.module.body[0]->params[0].kind, PK::kKeywordOnly);
}

TEST(Parser, ParsesStatementForms) {
  auto p = ParseText(
      "a = b = c\n"
      "x, (y, z) = t\n"
      "m[i, j] = v; n.k += 1\n"
      "w: int = 3\n"
      "for i, j in T.Parallel(4, 8):\n    pass\nelse:\n    pass\n"
      "while k < 3:\n    break\n"
      "with T.Kernel(n, is_npu=True) as (cid, vid), T.Scope(\"C\"):\n    continue\n"
      "global g1, g2\n"
      "assert a > 0, 'bad'\n");
  ASSERT_EQ(CountUnsupported(p.module), 0) << DumpModule(p.module);
  const auto& b = p.module.body;
  ASSERT_EQ(b.size(), 10u);
  EXPECT_EQ(b[0]->targets.size(), 2u);
  EXPECT_EQ(b[0]->bound_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(b[1]->bound_names, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(b[2]->targets[0]->kind, ExprKind::kSubscript);
  EXPECT_EQ(b[3]->kind, StmtKind::kAugAssign);
  EXPECT_EQ(b[4]->kind, StmtKind::kAnnAssign);
  EXPECT_EQ(b[5]->kind, StmtKind::kFor);
  EXPECT_EQ(b[5]->orelse.size(), 1u);  // parsed and flagged for the tracer
  EXPECT_EQ(b[6]->kind, StmtKind::kWhile);
  ASSERT_EQ(b[7]->items.size(), 2u);
  EXPECT_EQ(b[7]->items[0].target->kind, ExprKind::kTuple);
  EXPECT_EQ(b[7]->items[1].target, nullptr);
  EXPECT_EQ(b[8]->bound_names, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_NE(b[9]->msg, nullptr);
}

TEST(Parser, WithTargetInParenthesesIsAName) {
  auto p = ParseText("with T.Kernel(n, threads=2, is_npu=True) as (cid):\n    pass\n");
  ASSERT_EQ(p.module.body[0]->items[0].target->kind, ExprKind::kName);
}

TEST(Parser, RecordsImportBindings) {
  auto p = ParseText(
      "import tilelang\nimport tilelang.language as T, numpy\n"
      "from a.b import c, d as e\nfrom . import (f,\n  g,)\n");
  ASSERT_EQ(CountUnsupported(p.module), 0) << DumpModule(p.module);
  const auto& b = p.module.body;
  EXPECT_EQ(b[1]->bound_names, (std::vector<std::string>{"T", "numpy"}));
  EXPECT_EQ(b[1]->imports[0].module, "tilelang.language");
  EXPECT_EQ(b[2]->bound_names, (std::vector<std::string>{"c", "e"}));
  EXPECT_EQ(b[2]->imports[1].name, "d");
  EXPECT_EQ(b[2]->imports[1].module, "a.b");
  EXPECT_EQ(b[3]->imports[1].module, ".");
  EXPECT_EQ(b[3]->bound_names, (std::vector<std::string>{"f", "g"}));
}

TEST(Parser, ElifBecomesNestedIf) {
  auto p = ParseText("if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n");
  const Stmt& s = *p.module.body[0];
  ASSERT_EQ(s.orelse.size(), 1u);
  const Stmt& elif = *s.orelse[0];
  EXPECT_EQ(elif.kind, StmtKind::kIf);
  EXPECT_EQ(elif.loc, (SourceLoc{p.file_id, 3, 1}));
  EXPECT_EQ(elif.orelse.size(), 1u);
  EXPECT_EQ(s.end_loc, (SourceLoc{p.file_id, 6, 10}));
}

TEST(Parser, AcceptsWholeFileAroundUnsupportedCode) {
  auto p = ParseText(
      "import torch\n"
      "import tilelang.language as T\n"
      "class Helper:\n"
      "    def f(self):\n"
      "        return 1\n"
      "squares = {i * i for i in range(4)}\n"
      "@tilelang.jit(out_idx=[-1])\n"
      "def factory(M, N):\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((M, N), \"float\")):\n"
      "        with T.Kernel(M, is_npu=True) as (cid, vid):\n"
      "            T.tile.fill(A, 0.0)\n"
      "    return main\n"
      "def uses_ellipsis():\n"
      "    return ...\n"
      "if __name__ == \"__main__\":\n"
      "    a = torch.randn(4, 4)\n"
      "    print({v for v in a})\n"
      "    torch.testing.assert_close(a, a)\n"
      "total = sum(x for x in range(3\n");
  const auto& b = p.module.body;
  ASSERT_EQ(b.size(), 8u) << DumpModule(p.module);
  EXPECT_EQ(b[2]->kind, StmtKind::kUnsupported);
  EXPECT_EQ(b[2]->bound_names, (std::vector<std::string>{"Helper"}));
  EXPECT_NE(b[2]->unsupported_reason.find("class"), std::string::npos);
  EXPECT_EQ(b[2]->end_loc, (SourceLoc{p.file_id, 5, 17}));
  EXPECT_EQ(b[3]->kind, StmtKind::kUnsupported);
  EXPECT_EQ(b[3]->bound_names, (std::vector<std::string>{"squares"}));
  EXPECT_EQ(b[3]->unsupported_loc, (SourceLoc{p.file_id, 6, 18}));
  ASSERT_EQ(b[4]->kind, StmtKind::kFunctionDef);
  EXPECT_EQ(b[4]->name, "factory");
  EXPECT_EQ(b[4]->body.size(), 2u);
  EXPECT_EQ(b[5]->kind, StmtKind::kUnsupported);
  EXPECT_EQ(b[5]->bound_names, (std::vector<std::string>{"uses_ellipsis"}));
  EXPECT_EQ(b[5]->unsupported_loc, (SourceLoc{p.file_id, 15, 12}));
  EXPECT_EQ(b[6]->kind, StmtKind::kUnsupported);
  EXPECT_EQ(b[6]->loc, (SourceLoc{p.file_id, 16, 1}));
  EXPECT_EQ(b[7]->kind, StmtKind::kUnsupported);
  EXPECT_EQ(b[7]->bound_names, (std::vector<std::string>{"total"}));
}

TEST(Parser, UnsupportedStatementsRecordCheaplyKnownBindings) {
  auto p = ParseText(
      "x = 1; y = ...\n"
      "a[i] = b = [k for k in c]\n"
      "n += (...)()\n"
      "z: int = ...\n"
      "f(a=1).b = ...\n"
      "if ...:\n    pass\n"
      "(p, [q, r]) = s, *t = ...\n"
      "@deco(...)\ndef g():\n    pass\n");
  const auto& b = p.module.body;
  ASSERT_EQ(b.size(), 8u) << DumpModule(p.module);
  using V = std::vector<std::string>;
  EXPECT_EQ(b[0]->bound_names, (V{"x", "y"}));
  EXPECT_EQ(b[1]->bound_names, (V{"b"}));
  EXPECT_EQ(b[2]->bound_names, (V{"n"}));
  EXPECT_EQ(b[3]->bound_names, (V{"z"}));
  EXPECT_EQ(b[4]->bound_names, (V{}));
  EXPECT_EQ(b[5]->bound_names, (V{}));
  EXPECT_EQ(b[6]->bound_names, (V{"p", "q", "r", "s", "t"}));
  EXPECT_EQ(b[7]->bound_names, (V{"g"}));
}

TEST(Parser, ReportUnsupportedUsesTheOriginalLocation) {
  auto p = ParseText("x = 1\ny = ...\n", "user.py");
  ASSERT_EQ(p.module.body.size(), 2u);
  DiagnosticEngine diag(p.sources.get());
  ReportUnsupported(*p.module.body[1], &diag);
  EXPECT_NE(diag.RenderAll().find("user.py:2:5: error: '...' (Ellipsis) is not supported"),
            std::string::npos)
      << diag.RenderAll();
  DiagnosticEngine strict(p.sources.get());
  EXPECT_FALSE(ParseModuleStrict(*p.sources, p.file_id, &strict).ok());
}

TEST(Parser, ParseModuleFailsOnlyForFileLevelProblems) {
  SourceManager sources;
  EXPECT_FALSE(ParseModule(sources, 1).ok());
  uint32_t id = sources.AddFile("junk.py", "\x01\x02 )))((( '''");
  EXPECT_TRUE(ParseModule(sources, id).ok());
}

}  // namespace
}  // namespace tilejit::frontend
