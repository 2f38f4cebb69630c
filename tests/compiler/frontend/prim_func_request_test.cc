// SPDX-License-Identifier: Apache-2.0
// PRIM_FUNC requests (client_values.h): a prim_func shipped by reference with the values it
// closes over traces to the same IR as the factory that made it; closures hold functions of
// other files, lambdas and builtins; problems are located in the file they are in.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "compiler/frontend/frontend.h"
#include "tests/compiler/frontend/frontend_test_util.h"

namespace tilejit::frontend {
namespace {

using fetest::RunRequest;

ClientValue Const(Value v) {
  ClientValue c;
  c.constant = std::move(v);
  return c;
}
ClientValue Named(ClientValue::Kind kind, std::string name) {
  ClientValue c;
  c.kind = kind;
  c.name = std::move(name);
  return c;
}
ClientValue Fn(uint32_t index) {
  ClientValue c;
  c.kind = ClientValue::Kind::kFunction;
  c.function = index;
  return c;
}
ClientValue TModule() { return Named(ClientValue::Kind::kModule, "tilelang.language"); }

// The 1-based line and column where `needle` starts in `text` (of its `def` or `lambda`).
std::pair<uint32_t, uint32_t> Where(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  const size_t line_start =
      text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  const uint32_t line =
      1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
  return {line, static_cast<uint32_t>(at - line_start + 1)};
}

ClientFunction At(uint32_t file, const std::string& text, const std::string& needle,
                  FunctionKind kind, ClientBindings closure) {
  ClientFunction f;
  f.file = file;
  std::tie(f.line, f.column) = Where(text, needle);
  f.qualname = needle;
  f.kind = kind;
  f.closure = std::move(closure);
  return f;
}

FrontendRequest PrimFuncRequest(std::vector<SourceFile> files, std::vector<ClientFunction> fns) {
  FrontendRequest r;
  r.format = SourceFormat::kPrimFunc;
  r.files = std::move(files);
  r.functions = std::move(fns);
  r.out_idx = std::vector<int>{-1};
  return r;
}

TEST(PrimFuncRequest, TracesTheSameIrAsTheFactoryThatMadeIt) {
  const std::string text = fetest::ReadFile(fetest::KernelsDir() / "gemm_expert.py");
  ClientBindings closure = {{"M", Const(Value::Int(256))},
                            {"N", Const(Value::Int(512))},
                            {"K", Const(Value::Int(384))},
                            {"block_M", Const(Value::Int(128))},
                            {"block_N", Const(Value::Int(256))},
                            {"block_K", Const(Value::Int(64))},
                            {"dtype", Const(Value::Str("float16"))},
                            {"accum_dtype", Const(Value::Str("float"))},
                            {"m_num", Const(Value::Int(2))},
                            {"n_num", Const(Value::Int(2))},
                            {"T", TModule()}};
  auto shipped = RunRequest(PrimFuncRequest(
      {{"gemm_expert.py", text}}, {At(0, text, "def main(", FunctionKind::kPrimFunc, closure)}));
  ASSERT_TRUE(shipped.ok()) << shipped.status();
  FrontendRequest factory = fetest::SourceRequest(text, "matmul");
  for (int64_t a : {256, 512, 384, 128, 256, 64}) factory.args.push_back(Value::Int(a));
  auto evaluated = RunRequest(factory);
  ASSERT_TRUE(evaluated.ok());
  EXPECT_EQ(shipped->ir_text, evaluated->ir_text);
  EXPECT_EQ(shipped->out_idx, std::vector<int>{2});
}

TEST(PrimFuncRequest, SymbolsSentByNameTraceLikeTSymbolic) {
  const std::string text =
      fetest::ReadFile(std::filesystem::path(TILEJIT_TESTDATA_DIR) / "symbolic/rowwise_scale.py");
  ClientBindings closure = {{"M", Named(ClientValue::Kind::kSymbol, "M")},
                            {"N", Const(Value::Int(64))},
                            {"block_M", Const(Value::Int(32))},
                            {"dtype", Const(Value::Str("float32"))},
                            {"T", TModule()}};
  auto shipped = RunRequest(PrimFuncRequest(
      {{"rowwise_scale.py", text}}, {At(0, text, "def main(", FunctionKind::kPrimFunc, closure)}));
  ASSERT_TRUE(shipped.ok()) << shipped.status();
  FrontendRequest factory = fetest::SourceRequest(text, "scale_rows");
  for (int64_t a : {64, 32}) factory.args.push_back(Value::Int(a));
  auto evaluated = RunRequest(factory);
  ASSERT_TRUE(evaluated.ok());
  EXPECT_EQ(shipped->ir_text, evaluated->ir_text);
  EXPECT_NE(shipped->ir_text.find("param %p0: gm float32[%s0, 64] input"), std::string::npos)
      << shipped->ir_text;
  EXPECT_NE(shipped->ir_text.find("launch((%s0 + 31) // 32, threads=0)"), std::string::npos)
      << shipped->ir_text;
}

ClientValue SymExpr(const std::string& op, ClientValue a, ClientValue b) {
  ClientValue c = Named(ClientValue::Kind::kSymbolExpr, op);
  c.items = {std::move(a), std::move(b)};
  return c;
}

// Host arithmetic on symbols done in the client's Python (m_num = T.ceildiv(M, 64), sent as
// (M + 63) // 64) traces like the factory evaluated by the daemon.
TEST(PrimFuncRequest, SymbolExpressionsFromTheClientTraceLikeHostArithmetic) {
  const std::string text =
      fetest::ReadFile(std::filesystem::path(TILEJIT_TESTDATA_DIR) / "symbolic/batched_scale.py");
  const ClientValue m = Named(ClientValue::Kind::kSymbol, "M");
  const ClientValue up = SymExpr("+", m, Const(Value::Int(63)));
  ClientBindings closure = {{"Bt", Named(ClientValue::Kind::kSymbol, "Bt")},
                            {"M", m},
                            {"m_num", SymExpr("//", up, Const(Value::Int(64)))},
                            {"N", Const(Value::Int(32))},
                            {"block_M", Const(Value::Int(64))},
                            {"dtype", Const(Value::Str("float32"))},
                            {"T", TModule()}};
  auto shipped = RunRequest(PrimFuncRequest(
      {{"batched_scale.py", text}}, {At(0, text, "def main(", FunctionKind::kPrimFunc, closure)}));
  ASSERT_TRUE(shipped.ok()) << shipped.status();
  FrontendRequest factory = fetest::SourceRequest(text, "scale_batched");
  for (int64_t a : {32, 64}) factory.args.push_back(Value::Int(a));
  auto evaluated = RunRequest(factory);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status();
  EXPECT_EQ(shipped->ir_text, evaluated->ir_text);

  closure[2].second = SymExpr("**", m, Const(Value::Int(2)));
  auto refused = RunRequest(PrimFuncRequest(
      {{"batched_scale.py", text}}, {At(0, text, "def main(", FunctionKind::kPrimFunc, closure)}));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("a symbol expression is +, -, *, // or % of two"),
            std::string::npos)
      << refused.status();
}

// A vector kernel whose closure holds a macro of a second file, a lambda and a builtin.
const std::string kKernel =
    "import tilelang.language as T\n"
    "from helpers import scale_rows\n"
    "def factory(n, op, red):\n"
    "    cfg = [i for i in range(3)]  # a comprehension: the factory ran in CPython\n"
    "    @T.prim_func\n"
    "    def main(A: T.Tensor((n, 64), \"float\"), B: T.Tensor((n, 64), \"float\")):\n"
    "        with T.Kernel(1, is_npu=True) as (cid, vid):\n"
    "            a = T.alloc_ub((n, 64), \"float\")\n"
    "            T.copy(A, a)\n"
    "            scale_rows(a, op(2, 3))\n"
    "            T.copy(a, B)\n"
    "    return main\n";
const std::string kHelpers =
    "import tilelang.language as T\n"
    "@T.macro\n"
    "def scale_rows(buf, k):\n"
    "    T.tile.mul(buf, buf, k)\n";
const std::string kLambdaFile = "add = lambda a, b: a + b\n";

std::vector<ClientFunction> KernelTable() {
  ClientFunction main =
      At(0, kKernel, "def main(", FunctionKind::kPrimFunc,
         {{"T", TModule()}, {"n", Const(Value::Int(16))}, {"op", Fn(2)}, {"scale_rows", Fn(1)}});
  ClientFunction macro =
      At(1, kHelpers, "def scale_rows", FunctionKind::kMacro, {{"T", TModule()}});
  ClientFunction add = At(2, kLambdaFile, "lambda", FunctionKind::kPlain, {});
  return {main, macro, add};
}

std::vector<SourceFile> KernelFiles() {
  return {{"kernel.py", kKernel}, {"helpers.py", kHelpers}, {"ops.py", kLambdaFile}};
}

TEST(PrimFuncRequest, ClosuresHoldMacrosOfOtherFilesAndLambdas) {
  std::string diags;
  auto r = RunRequest(PrimFuncRequest(KernelFiles(), KernelTable()), &diags);
  ASSERT_TRUE(r.ok()) << diags;
  EXPECT_NE(r->ir_text.find("mul("), std::string::npos) << r->ir_text;
  EXPECT_NE(r->ir_text.find("5.0"), std::string::npos) << r->ir_text;  // op(2, 3) folded
  // The macro's statement is located in its own file.
  bool in_helpers = false;
  for (const SourceLoc& loc : r->source_map)
    in_helpers = in_helpers || (loc.file_id == 2 && loc.line == 4);
  EXPECT_TRUE(in_helpers);
}

TEST(PrimFuncRequest, ProblemsAreReportedInTheFileTheyAreIn) {
  std::string helpers = kHelpers;
  helpers.replace(helpers.find("T.tile.mul(buf, buf, k)"), 23, "T.tile.mul(buf, buf, {k})");
  std::vector<SourceFile> files = KernelFiles();
  files[1].text = helpers;
  std::string diags;
  EXPECT_FALSE(RunRequest(PrimFuncRequest(files, KernelTable()), &diags).ok());
  EXPECT_NE(diags.find("helpers.py:4:"), std::string::npos) << diags;

  std::vector<ClientFunction> table = KernelTable();
  table[0].closure.pop_back();  // scale_rows not sent
  EXPECT_FALSE(RunRequest(PrimFuncRequest(KernelFiles(), table), &diags).ok());
  EXPECT_NE(diags.find("kernel.py:10:13: error: name 'scale_rows' is not defined (the client "
                       "sent no value for it)"),
            std::string::npos)
      << diags;
}

TEST(PrimFuncRequest, BadTablesAreDiagnostics) {
  std::string diags;
  std::vector<ClientFunction> table = KernelTable();
  table[1].line = 1;  // no def there
  EXPECT_FALSE(RunRequest(PrimFuncRequest(KernelFiles(), table), &diags).ok());
  EXPECT_NE(diags.find("helpers.py:1:1: error: no function definition or lambda starts here"),
            std::string::npos)
      << diags;

  table = KernelTable();
  table[0].closure.push_back({"red", Named(ClientValue::Kind::kBuiltin, "T.no_such_thing")});
  EXPECT_FALSE(RunRequest(PrimFuncRequest(KernelFiles(), table), &diags).ok());
  EXPECT_NE(diags.find("'T.no_such_thing', which tilejit does not know"), std::string::npos)
      << diags;

  table = KernelTable();
  table[0].closure[2].second = Fn(9);
  EXPECT_FALSE(RunRequest(PrimFuncRequest(KernelFiles(), table), &diags).ok());
  EXPECT_NE(diags.find("names function 9 of a table of 3"), std::string::npos) << diags;

  table = KernelTable();
  std::swap(table[0], table[1]);  // the first entry must be the prim_func
  EXPECT_FALSE(RunRequest(PrimFuncRequest(KernelFiles(), table), &diags).ok());
  EXPECT_NE(diags.find("is not a @T.prim_func"), std::string::npos) << diags;
}

TEST(PrimFuncRequest, HelpersMayCallThemselvesAndTakeDefaults) {
  const std::string text =
      "import tilelang.language as T\n"
      "def rows(n, step=4):\n"
      "    return n if n <= step else rows(n - step, step)\n"
      "def factory():\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((rows(10), 64), \"float\")):\n"
      "        with T.Kernel(1, is_npu=True) as (cid, vid):\n"
      "            a = T.alloc_ub((2, 64), \"float\")\n"
      "            T.copy(A, a)\n"
      "    return main\n";
  ClientFunction main =
      At(0, text, "def main(", FunctionKind::kPrimFunc, {{"T", TModule()}, {"rows", Fn(1)}});
  ClientFunction rows = At(0, text, "def rows", FunctionKind::kPlain, {{"rows", Fn(1)}});
  rows.defaults = {Const(Value::Int(4))};
  FrontendRequest req = PrimFuncRequest({{"k.py", text}}, {main, rows});
  req.out_idx = std::vector<int>{};
  std::string diags;
  auto r = RunRequest(req, &diags);
  ASSERT_TRUE(r.ok()) << diags;
  EXPECT_NE(r->ir_text.find("float32[2, 64]"), std::string::npos) << r->ir_text;
}

TEST(PrimFuncRequest, TableTextIgnoresClosureOrderAndTypesValues) {
  std::vector<ClientFunction> a = KernelTable();
  std::vector<ClientFunction> b = KernelTable();
  std::reverse(b[0].closure.begin(), b[0].closure.end());
  EXPECT_EQ(ClientTableText(a), ClientTableText(b));
  b[0].closure[0].second = Const(Value::Float(16.0));  // n: 16 -> 16.0
  std::reverse(b[0].closure.begin(), b[0].closure.end());
  EXPECT_NE(ClientTableText(a), ClientTableText(b));
}

}  // namespace
}  // namespace tilejit::frontend
