// SPDX-License-Identifier: Apache-2.0
// The tracer: prim_func bodies -> Tile IR, checked on the canonical text of small kernels.
#include "compiler/frontend/tracer.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "tests/compiler/frontend/frontend_test_util.h"

namespace tilejit::frontend {
namespace {

// A vector kernel over A, B: float[M, N] with `body` (lines at kernel-body indentation).
std::string VecKernel(const std::string& body, const std::string& extra_defs = "") {
  std::string src =
      "import tilelang\nimport tilelang.language as T\n\n"
      "@tilelang.jit(out_idx=[-1])\n"
      "def kernel(M=64, N=64):\n" +
      extra_defs +
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((M, N), \"float\"), B: T.Tensor((M, N), \"float\")):\n"
      "        with T.Kernel(2, is_npu=True) as (cid, vid):\n"
      "            a = T.alloc_ub((M, N), \"float\")\n"
      "            r = T.alloc_ub((M,), \"float\")\n"
      "            c = T.alloc_ub((1, N), \"float\")\n";
  std::string indented;
  size_t start = 0;
  while (start < body.size()) {
    size_t nl = body.find('\n', start);
    if (nl == std::string::npos) nl = body.size();
    indented += "            " + body.substr(start, nl - start) + "\n";
    start = nl + 1;
  }
  return src + indented + "    return main\n";
}

std::string Trace(const std::string& src, std::string* diags = nullptr,
                  std::vector<Value> args = {}) {
  auto r = fetest::RunRequest(fetest::SourceRequest(src, "kernel", std::move(args)), diags);
  return r.ok() ? r->ir_text : "";
}

std::string TraceError(const std::string& src) {
  std::string d;
  EXPECT_EQ(Trace(src, &d), "");
  return d;
}

TEST(Tracer, RuntimeAssignmentsAreLetsAndReassignmentShadows) {
  std::string ir = Trace(VecKernel("x = cid * 2\nx = x + 1\nT.copy(A[x, 0], a[0:1, :])"));
  EXPECT_NE(ir.find("let %v0 = %cid * 2"), std::string::npos) << ir;
  EXPECT_NE(ir.find("let %v1 = %v0 + 1"), std::string::npos) << ir;
}

// TVM's spellings, which upstream kernels use beside TileLang's (T.Cast in deepseek_v4's
// act_quant, T.floordiv in the sparse flash attentions), trace to what TileLang's do.
TEST(Tracer, TvmSpellingsTraceAsTheirTileLangEquivalents) {
  const std::string tvm =
      "x = T.Select(cid > 0, T.Cast(\"float\", cid), 1.0)\n"
      "y = T.floordiv(cid - 3, 2) + T.floormod(cid - 3, 2) + T.Min(cid, 1) + T.Max(cid, 1)\n"
      "T.copy(A[y, 0], a[0:1, :])\n"
      "a[0, 0] = x\n";
  const std::string tilelang =
      "x = T.if_then_else(cid > 0, T.cast(cid, \"float\"), 1.0)\n"
      "y = (cid - 3) // 2 + (cid - 3) % 2 + T.min(cid, 1) + T.max(cid, 1)\n"
      "T.copy(A[y, 0], a[0:1, :])\n"
      "a[0, 0] = x\n";
  std::string d;
  const std::string ir = Trace(VecKernel(tvm), &d);
  ASSERT_NE(ir, "") << d;
  EXPECT_EQ(ir, Trace(VecKernel(tilelang)));
  EXPECT_NE(ir.find("//"), std::string::npos) << ir;
  EXPECT_EQ(fetest::EvalExpr("T.floordiv(-7, 2)")->i, -4);
  EXPECT_EQ(fetest::EvalExpr("T.floormod(-7, 3)")->i, 2);
}

// TVM's if frames (upstream's xllm_kernels write them) trace to what Python's `if` does.
// Valid Python outside the subset (an integer past int64, a complex literal) is reported
// only where it is used, unlike a tokenizer error (errors/brackets_past_limit_in_unused_code).
TEST(Tracer, ValidPythonOutsideTheSubsetInUnusedCodeDoesNotRefuseTheFile) {
  const std::string unused = "\nBIG = 123456789012345678901234567890\nZ = 1j\n";
  std::string d;
  EXPECT_NE(Trace(VecKernel("T.copy(A, a)") + unused, &d), "") << d;
  EXPECT_NE(
      TraceError(VecKernel("T.copy(A, a)\nx = BIG") + unused).find("integer literal is too large"),
      std::string::npos);
}

TEST(Tracer, IfFramesTraceAsIfStatements) {
  const std::string frames =
      "with T.If(cid > 0):\n"
      "    with T.Then():\n"
      "        a[0, 0] = 1.0\n"
      "    with T.Else():\n"
      "        with T.If(M > 8), T.Then():\n"  // a host condition: the branch is kept
      "            a[0, 1] = 2.0\n"
      "with T.If(cid < 1), T.Then():\n"
      "    a[0, 2] = 3.0\n";
  const std::string ifs =
      "if cid > 0:\n"
      "    a[0, 0] = 1.0\n"
      "else:\n"
      "    if M > 8:\n"
      "        a[0, 1] = 2.0\n"
      "if cid < 1:\n"
      "    a[0, 2] = 3.0\n";
  std::string d;
  const std::string ir = Trace(VecKernel(frames), &d);
  ASSERT_NE(ir, "") << d;
  EXPECT_EQ(ir, Trace(VecKernel(ifs)));
  EXPECT_NE(ir.find("if %cid > 0"), std::string::npos) << ir;
  EXPECT_NE(ir.find("else"), std::string::npos) << ir;
}

TEST(Tracer, IfFramesOutOfPlaceAreLocatedErrors) {
  EXPECT_NE(TraceError(VecKernel("with T.Then():\n    pass\n"))
                .find("T.Then() belongs directly inside 'with T.If(...)'"),
            std::string::npos);
  EXPECT_NE(TraceError(VecKernel("with T.If(cid > 0):\n    a[0, 0] = 1.0\n"))
                .find("holds 'with T.Then():' and then an optional 'with T.Else():'"),
            std::string::npos);
  EXPECT_NE(TraceError(VecKernel("with T.If(cid > 0):\n    with T.Else():\n        pass\n"))
                .find("holds 'with T.Then():'"),
            std::string::npos);
  EXPECT_NE(TraceError(VecKernel("with T.If(cid > 0):\n    pass\n")).find("holds"),
            std::string::npos);
  EXPECT_NE(TraceError(VecKernel("with T.If(cid > 0), T.Else():\n    pass\n"))
                .find("after T.If(...) comes T.Then()"),
            std::string::npos);
  const std::string d = TraceError(VecKernel("with T.If(cid > 0) as c, T.Then():\n    pass\n"));
  EXPECT_NE(d.find("bind no name"), std::string::npos) << d;
  EXPECT_NE(TraceError(VecKernel("with T.If():\n    pass\n")).find("cond"), std::string::npos);
}

TEST(Tracer, StaticIfFoldsAndRuntimeIfBecomesIf) {
  std::string ir =
      Trace(VecKernel("if M > 32:\n    T.tile.fill(a, 1.0)\nelse:\n    T.tile.fill(a, 2.0)\n"
                      "if cid == 0:\n    T.tile.fill(a, 3.0)"));
  EXPECT_NE(ir.find("fill(%ub_0, 1.0)"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("fill(%ub_0, 2.0)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("if %cid == 0"), std::string::npos) << ir;
}

TEST(Tracer, AndOrOnRuntimeValuesBuildLogicalOps) {
  std::string ir = Trace(VecKernel("if cid > 0 and vid == 1 or cid == 3:\n    T.barrier_all()"));
  EXPECT_NE(ir.find("and"), std::string::npos) << ir;
  EXPECT_NE(ir.find("or"), std::string::npos) << ir;
}

TEST(Tracer, MacrosInlineHygienically) {
  std::string defs =
      "    fill_value = 5.0\n"
      "    @T.macro\n"
      "    def init(buf):\n"
      "        T.tile.fill(buf, fill_value)\n";
  // The call site's own `fill_value` must not leak into the macro.
  std::string ir = Trace(VecKernel("fill_value = 9.0\ninit(a)", defs));
  EXPECT_NE(ir.find("fill(%ub_0, 5.0)"), std::string::npos) << ir;
}

TEST(Tracer, ParallelLoopsKeepStores) {
  std::string ir =
      Trace(VecKernel("for (i, j) in T.Parallel(M, N):\n    a[i, j] = a[i, j] * 2.0 + r[i]\n"
                      "for i in T.Parallel(M):\n    r[i] += 1.0"));
  EXPECT_NE(ir.find("parallel(0, 64)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("%ub_0[%v0, %v1] ="), std::string::npos) << ir;
  EXPECT_NE(ir.find("%ub_1[%v2] = %ub_1[%v2] + 1.0"), std::string::npos) << ir;
}

TEST(Tracer, AllocVarAssignmentIsAStore) {
  std::string ir = Trace(VecKernel("n = T.alloc_var(\"int32\")\nn = cid + 1\nn += 2"));
  EXPECT_NE(ir.find("%var_0[0] = %cid + 1"), std::string::npos) << ir;
  EXPECT_NE(ir.find("%var_0[0] = %var_0[0] + 2"), std::string::npos) << ir;
}

TEST(Tracer, AllocVarInitialisedFromAnotherVarLoadsIt) {
  // upstream's test_alloc_var: b = T.alloc_var(dtype, init=a)
  std::string ir =
      Trace(VecKernel("a = T.alloc_var(\"int32\", init=1)\nb = T.alloc_var(\"int32\", init=a)"));
  EXPECT_NE(ir.find("%var_1[0] = %var_0[0]"), std::string::npos) << ir;
}

TEST(Tracer, AllocVarsAsOperandsAreReadsOfTheirElement) {
  // upstream's xattention: `cur = slot0` copies one alloc_var into another, then
  // `if cur < TOTAL:` compares it; arithmetic, negation, indices and slice bounds read it the
  // same way.
  std::string diags;
  std::string ir = Trace(
      VecKernel(
          "cur = T.alloc_var(\"int32\", init=7)\nslot = T.alloc_var(\"int32\", init=3)\n"
          "cur = slot\nif cur < 7:\n    cur = 1 + slot * 2\nif -cur >= slot:\n    T.barrier_all()\n"
          "r[cur] = r[slot] + 1.0\nT.tile.add(r[slot:slot + 8], r[slot:slot + 8], 1.0)"),
      &diags);
  EXPECT_EQ(diags, "");
  EXPECT_NE(ir.find("%var_0[0] = %var_1[0]\n"), std::string::npos) << ir;
  EXPECT_NE(ir.find("if %var_0[0] < 7 {"), std::string::npos) << ir;
  EXPECT_NE(ir.find("%var_0[0] = 1 + %var_1[0] * 2"), std::string::npos) << ir;
  EXPECT_NE(ir.find("if -%var_0[0] >= %var_1[0] {"), std::string::npos) << ir;
  EXPECT_NE(ir.find("%ub_1[%var_0[0]] = %ub_1[%var_1[0]] + 1.0"), std::string::npos) << ir;
  EXPECT_NE(ir.find("add(%ub_1[%var_1[0]:+8], %ub_1[%var_1[0]:+8], 1.0)"), std::string::npos) << ir;
}

TEST(Tracer, RowBroadcastAppliesEvenWhenRowsEqualColumns) {
  // a is [64, 64] and r is [64]: per row by the rule, although 64 == 64.
  EXPECT_NE(Trace(VecKernel("T.tile.sub(a, a, r)")), "");
  EXPECT_NE(Trace(VecKernel("T.tile.mul(a, a, c)")), "");  // [1, C] per column
}

TEST(Tracer, RowAndColumnVectorsAreTheSameShapeForElementwiseOps) {
  // r is [64]; v is [64, 1]: the same 64 values (DESIGN.md section 2, shape_rules.h).
  const std::string defs = "v = T.alloc_ub((64, 1), \"float\")\n";
  EXPECT_NE(Trace(VecKernel(defs + "T.tile.div(v, r, v)")), "");
  EXPECT_NE(Trace(VecKernel(defs + "T.tile.mul(r, v, v)")), "");
  EXPECT_NE(Trace(VecKernel(defs + "T.tile.exp(r, v)")), "");
  std::string d = TraceError(VecKernel("w = T.alloc_ub((64, 2), \"float\")\nT.tile.exp(r, w)"));
  EXPECT_NE(d.find("destination is [64] but source is [64, 2]"), std::string::npos) << d;
}

TEST(Tracer, GatherMaskTakesABuiltInPatternName) {
  EXPECT_NE(Trace(VecKernel("T.tile.gather_mask(r, a[0, :], \"P1010\")"))
                .find("gather_mask(%ub_1, %ub_0[0:+1, :]) {mode=\"P1010\"}"),
            std::string::npos);
  std::string d = TraceError(VecKernel("T.tile.gather_mask(r, a[0, :], \"P0011\")"));
  EXPECT_NE(d.find("src1Pattern must be a built-in mode: \"P0101\""), std::string::npos) << d;
  d = TraceError(VecKernel("p = T.alloc_ub((8,), \"uint32\")\nT.tile.gather_mask(r, a, p)"));
  EXPECT_NE(d.find("a uint32 pattern buffer (AscendC's user-defined mode) is not supported"),
            std::string::npos)
      << d;
}

TEST(Tracer, SortOpsTakeTheirCountsAsAttributes) {
  std::string ir = Trace(VecKernel("T.tile.topk(a, r, 10, 51)\nT.tile.merge_sort(a, r, c, r)"));
  EXPECT_NE(ir.find("topk(%ub_0, %ub_1) {count=51, k=10}"), std::string::npos) << ir;
  EXPECT_NE(ir.find("merge_sort(%ub_0, %ub_1, %ub_2, %ub_1) {ways=3}"), std::string::npos) << ir;
  std::string d = TraceError(VecKernel("T.tile.sort(a, r, vid + 3)"));
  EXPECT_NE(d.find("T.tile.sort actual_num must be a positive int known at compile time"),
            std::string::npos)
      << d;
  d = TraceError(VecKernel("T.tile.merge_sort(a, r, c, src3=r)"));
  EXPECT_NE(d.find("takes src3 only after src2"), std::string::npos) << d;
}

TEST(Tracer, RawRepeatOpsTakeLiteralCountsAndStrides) {
  std::string ir = Trace(VecKernel("T.tile.wholereducemax(r, a, 64, 2, 1, 1, 8)"));
  EXPECT_NE(ir.find("wholereducemax(%ub_1, %ub_0) {dst_rep=1, mask=64, "
                    "order=\"ORDER_VALUE_INDEX\", repeat=2, src_blk=1, src_rep=8}"),
            std::string::npos)
      << ir;
  std::string d = TraceError(VecKernel("T.tile.block_reduce_sum(r, a, vid, 64, 1, 1, 8)"));
  EXPECT_NE(d.find("block_reduce_sum repeat must be a non-negative int known at compile time"),
            std::string::npos)
      << d;
  d = TraceError(VecKernel("T.tile.wholereducemin(r, a, 64, 2, 1, 1, 8, \"ORDER_MAX\")"));
  EXPECT_NE(d.find("ReduceOrder must be one of ORDER_VALUE_INDEX"), std::string::npos) << d;
}

TEST(Tracer, MismatchedBinaryShapesNameBothShapes) {
  std::string d = TraceError(VecKernel("x = T.alloc_ub((8,), \"float\")\nT.tile.add(a, a, x)"));
  EXPECT_NE(d.find("destination is [64, 64] but the second source is [8]"), std::string::npos) << d;
}

TEST(Tracer, ScalarFromABufferElementStaysALoad) {
  std::string ir = Trace(VecKernel("for i in range(M):\n    T.tile.mul(a[i, :], a[i, :], r[i])"));
  EXPECT_NE(ir.find("mul(%ub_0[%v0:+1, :], %ub_0[%v0:+1, :], %ub_1[%v0])"), std::string::npos)
      << ir;
}

TEST(Tracer, CopyCornerTakesExtentFromTheOtherOperandPaddingRanks) {
  std::string ir = Trace(VecKernel("T.copy(A[cid, 0], r)\nT.copy(A[0:32, :16], a[32:, 48:])"));
  EXPECT_NE(ir.find("copy(%ub_1, %p0[%cid:+1, :])"), std::string::npos) << ir;
  EXPECT_NE(ir.find("copy(%ub_0[32:+32, 48:+16], %p0[0:+32, 0:+16])"), std::string::npos) << ir;
}

TEST(Tracer, CopyShapeMismatchIsADiagnostic) {
  std::string d = TraceError(VecKernel("T.copy(A[0:32, :], a)"));
  EXPECT_NE(d.find("T.copy shape mismatch: source is [32, 64] but destination is [64, 64]"),
            std::string::npos)
      << d;
}

TEST(Tracer, SliceExtentsFoldSymbolically) {
  std::string ir =
      Trace(VecKernel("for j in T.serial(2):\n    T.copy(A[j * 32:(j + 1) * 32, :], a[0:32, :])"));
  EXPECT_NE(ir.find("%p0[%v0 * 32:+32, :]"), std::string::npos) << ir;
  // Upstream's layer norm: vid * B // 2:(vid + 1) * B // 2, exact as 2 divides every
  // coefficient; a floor division that is not exact keeps the extent unknown.
  ir = Trace(VecKernel("T.copy(A[vid * 64 // 2:(vid + 1) * 64 // 2, :], a[0:32, :])"));
  EXPECT_NE(ir.find(":+32, :]"), std::string::npos) << ir;
  EXPECT_NE(TraceError(VecKernel("T.copy(A[vid * 3 // 2:(vid * 3 + 32) // 2, :], a[0:16, :])"))
                .find("the extent of this slice is not a compile-time constant"),
            std::string::npos);
}

TEST(Tracer, SliceExtentsSeeThroughBoundNames) {
  // Upstream's sparse attention: H0 = ...; H1 = H0 + H_per_block; Q[..., H0:H1, :].
  std::string ir =
      Trace(VecKernel("bx = cid % 2\nH0 = cid // 2 * 16 + bx * 8\nH1 = H0 + 16\n"
                      "T.copy(A[H0:H1, :], a[0:16, :])\nT.copy(A[H0:H1 - 8, 8:H1 - H0 + 8], "
                      "a[16:24, 0:16])"));
  EXPECT_NE(ir.find("let %v2 = %v1 + 16\n  copy(%ub_0[0:+16, :], %p0[%v1:+16, :])"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("copy(%ub_0[16:+8, 0:+16], %p0[%v1:+8, 8:+16])"), std::string::npos) << ir;
  // Rebinding a name to twice itself 20 times is seen through once per binding, not 2^20.
  std::string chain = "x = cid\n";
  for (int i = 0; i < 20; ++i) chain += "x = x + x\n";
  std::string chain_diag;
  ir = Trace(VecKernel(chain + "T.copy(A[x - x:x - x + 16, :], a[0:16, :])"), &chain_diag);
  EXPECT_NE(ir.find("copy(%ub_0[0:+16, :], %p0["), std::string::npos) << chain_diag;
  // A name bound to a value read from a buffer is not seen through: the buffer may change
  // between that read and another one.
  std::string d =
      TraceError(VecKernel("idx = T.alloc_ub((8,), \"int32\")\ni0 = idx[0]\n"
                           "T.copy(A[i0:idx[0] + 16, :], a[0:16, :])"));
  EXPECT_NE(d.find("the extent of this slice is not a compile-time constant"), std::string::npos)
      << d;
}

TEST(Tracer, HelperTuplesUnpackIntoLets) {
  std::string defs =
      "    def task_range(i):\n"
      "        return i * 4, i * 4 + 4\n";
  std::string ir = Trace(VecKernel("lo, hi = task_range(cid)\nT.copy(A[lo, 0], c)", defs));
  EXPECT_NE(ir.find("let %v0 = %cid * 4"), std::string::npos) << ir;
  EXPECT_NE(ir.find("let %v1 = %cid * 4 + 4"), std::string::npos) << ir;
}

TEST(Tracer, GemmChecksMNKWithTransposeFlags) {
  std::string src =
      "import tilelang\nimport tilelang.language as T\n"
      "@tilelang.jit\n"
      "def kernel(tb=False):\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((64, 32), \"float16\"), C: T.Tensor((64, 16), \"float\")):\n"
      "        with T.Kernel(1, is_npu=True) as (cid, _):\n"
      "            a = T.alloc_L1((64, 32), \"float16\")\n"
      "            b = T.alloc_L1((16, 32), \"float16\")\n"
      "            c = T.alloc_L0C((64, 16), \"float\")\n"
      "            T.gemm_v0(a, b, c, transpose_B=tb, init=True)\n"
      "    return main\n";
  std::string d;
  EXPECT_NE(Trace(src, &d, {Value::Bool(true)}), "") << d;
  EXPECT_EQ(Trace(src, &d, {Value::Bool(false)}), "");
  EXPECT_NE(d.find("gemm_v0 shape mismatch"), std::string::npos) << d;
}

TEST(Tracer, SingleKindKernelsNeedNoScope) {
  auto cases = fetest::LoadCases();
  for (const auto& c : cases) {
    if (c.file != "gemm_expert.py") continue;
    auto r = fetest::RunRequest(fetest::CaseRequest(c));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->ir_text.find("scope"), std::string::npos);
    EXPECT_EQ(r->kind, KernelKind::kCubeOnly);
  }
}

TEST(Tracer, NodesCarryTheirUserLocations) {
  auto r = fetest::RunRequest(fetest::SourceRequest(VecKernel("T.tile.fill(a, 0.0)")));
  ASSERT_TRUE(r.ok());
  auto table = ir::StmtIdTable(r->kernel);
  ASSERT_FALSE(table.empty());
  const ir::Stmt& last = table.back();
  EXPECT_EQ(last->kind, ir::StmtKind::kTileOp);
  EXPECT_EQ(last->loc.line, 12u);
  EXPECT_EQ(last->loc.column, 13u);
}

// T.printf splices string arguments into its format (escaping their %) and keeps the runtime
// values; prints before and after the launch move into it, first and last.
TEST(Tracer, PrintsSpliceStringsAndMoveIntoTheLaunch) {
  std::string src = VecKernel(
      "T.printf(\"%s cid=%d %5.2f\\n\", \"50%\", cid, 1.5)\n"
      "T.dump_tensor(a[1, 0], 7, 8, (2, 4))");
  src.replace(src.find("        with T.Kernel"), 0,
              "        T.printf(\"first\\n\")\n        T.dump_tensor(A, 1, 4)\n");
  src.replace(src.find("    return main"), 0, "        T.printf(\"last\\n\")\n");
  std::string ir = Trace(src);
  const size_t launch = ir.find("launch(");
  const size_t first = ir.find("printf() {format=\"first\\x0a\"}");
  const size_t dump_a = ir.find("dump_tensor(%p0) {count=4, desc=1, shape=\"\"}");
  const size_t spliced = ir.find("printf(%cid, 1.5) {format=\"50%% cid=%d %5.2f\\x0a\"}");
  const size_t dump = ir.find("dump_tensor(%ub_0[1:+1, 0:+1]) {count=8, desc=7, shape=\"2x4\"}");
  const size_t last = ir.find("printf() {format=\"last\\x0a\"}");
  ASSERT_NE(launch, std::string::npos) << ir;
  EXPECT_TRUE(launch < first && first < dump_a && dump_a < spliced && spliced < dump &&
              dump < last && last != std::string::npos)
      << ir;
}

TEST(Tracer, ThreadsFormBindsOnlyTheBlockIndex) {
  std::string src = VecKernel("T.barrier_all()");
  std::string threads = src;
  threads.replace(threads.find("T.Kernel(2, is_npu=True) as (cid, vid)"),
                  std::string("T.Kernel(2, is_npu=True) as (cid, vid)").size(),
                  "T.Kernel(2, threads=2, is_npu=True) as (cid)");
  std::string ir = Trace(threads);
  EXPECT_NE(ir.find("threads=2"), std::string::npos) << ir;
}

TEST(Tracer, CoversTheRestOfTheVectorAndSyncSurface) {
  std::string body =
      "m = T.alloc_ub((M, N), \"uint8\")\n"
      "h = T.alloc_ub((M, N), \"float16\")\n"
      "col = T.alloc_ub((N,), \"float\")\n"
      "T.annotate_address({a: 0, r: M * N * DataType(\"float\").bits // 8})\n"
      "T.copy(A, a, pad_value=-T.infinity(\"float\"))\n"
      "T.tile.compare(m, a, 0.0, \"GT\")\n"
      "T.tile.select(a, m, a, 0.0, \"VSEL_TENSOR_SCALAR_MODE\")\n"
      "T.tile.axpy(a, a, 0.5)\n"
      "T.tile.cast(h, a, \"CAST_RINT\", M * N)\n"
      "T.reduce_max(a, col, dim=0)\n"
      "T.tile.broadcast(a, r)\n"
      "T.tile.sigmoid(a, a)\n"
      "T.pipe_barrier(\"v\")\n"
      "T.set_cross_flag(\"MTE3\", 3)\n"
      "T.wait_cross_flag(3)\n"
      "for k in T.Pipelined(4, num_stages=2):\n"
      "    T.set_flag(\"mte2\", \"v\", k % 2)\n"
      "    T.wait_flag(\"mte2\", \"v\", k % 2)\n"
      "x = T.if_then_else(cid > 0, T.cast(cid, \"float\"), 1.0)\n"
      "a[0, 0] = x\n";
  std::string d;
  std::string ir = Trace(VecKernel(body), &d);
  ASSERT_NE(ir, "") << d;
  for (const char* want :
       {"pad_value=-inf", "compare(", "mode=\"GT\"", "select(", "axpy(", "cast(", "count=4096",
        "reduce_max(", "dim=0", "broadcast(", "axis=1", "sigmoid(", "pipelined(0, 4, stages=2)",
        "set_flag(mte2, v, %v", "wait_cross_flag", "set_cross_flag"}) {
    EXPECT_NE(ir.find(want), std::string::npos) << want << "\n" << ir;
  }
  auto r = fetest::RunRequest(fetest::SourceRequest(VecKernel(body)));
  ASSERT_TRUE(r.ok());
  for (const ir::Buffer& b : r->kernel.params) EXPECT_FALSE(b->address.has_value());
  auto table = ir::StmtIdTable(r->kernel);
  int annotated = 0;
  for (const ir::Stmt& s : table) {
    if (const auto* alloc = ir::TryAs<ir::AllocateNode>(s)) {
      if (alloc->buffer->address) {
        ++annotated;
        EXPECT_TRUE(*alloc->buffer->address == 0 || *alloc->buffer->address == 16384);
      }
    }
  }
  EXPECT_EQ(annotated, 2);
}

TEST(Tracer, BuiltinsPassedAsValuesAndDtypeNamesTrace) {
  // An operation chosen by name, as upstream factories do, and a dtype given as T.float32.
  std::string body =
      "op = getattr(T.tile, \"max\")\n"
      "op(a, a, a)\n"
      "t = T.alloc_ub((M, N), T.float32)\n"
      "T.tile.clear(t)\n"
      "T.tile.reciprocal(t, a)\n"
      "T.tile.fill(t, value=2.0)\n";
  std::string d;
  std::string ir = Trace(VecKernel(body), &d);
  ASSERT_NE(ir, "") << d;
  for (const char* want : {"max(", "fill(", "reciprocal("})
    EXPECT_NE(ir.find(want), std::string::npos) << want << "\n" << ir;
  EXPECT_NE(TraceError(VecKernel("T.tile.add(a, a, a, a)")).find("takes at most 3 arguments"),
            std::string::npos);
  EXPECT_NE(TraceError(VecKernel("T.tile.fill(a, val=1.0)"))
                .find("unexpected keyword argument 'val' (parameters: dst, value)"),
            std::string::npos);
}

TEST(Tracer, ExplicitNoneMeansNotGiven) {
  std::string d;
  std::string ir = Trace(VecKernel("T.reduce_sum(a, r, dim=-1, real_shape=None)\n"
                                   "T.tile.broadcast(a, r, axis=None)"),
                         &d);
  ASSERT_NE(ir, "") << d;
  EXPECT_NE(ir.find("reduce_sum("), std::string::npos) << ir;
  EXPECT_NE(ir.find("axis=1"), std::string::npos) << ir;
}

TEST(Tracer, DtypeNamesConvertWhenCalled) {
  for (std::string name : {"T.float16", "T.float32", "T.bfloat16", "T.int8", "T.int16", "T.int32",
                           "T.int64", "T.uint8", "T.uint16", "T.uint32", "T.uint64", "T.bool"}) {
    std::string d;
    std::string ir = Trace(VecKernel("x = " + name + "(cid)\na[0, 0] = T.float32(x)\n"), &d);
    ASSERT_NE(ir, "") << name << ": " << d;
    std::string dt = name.substr(2);
    // The printer leaves out the type of a cast to int32, the loop variable's own type.
    std::string want =
        dt == "int32" ? "let %v0 = cast(%cid)" : "let %v0: " + dt + " = cast<" + dt + ">(%cid)";
    EXPECT_NE(ir.find(want), std::string::npos) << ir;
  }
}

TEST(Tracer, TensorSubscriptAnnotationsAndFuncAttrWarnings) {
  const std::string src =
      "import tilelang\nimport tilelang.language as T\n\n"
      "@tilelang.jit(out_idx=[-1])\n"
      "def kernel(M=16, N=32):\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor[(M, N), \"float16\"], B: T.Tensor[(N, M), \"float16\"]):\n"
      "        T.func_attr({\"enable_auto_sync\": True, \"tir.noalias\": True})\n"
      "        with T.Kernel(1, is_npu=True) as (cid, vid):\n"
      "            a = T.alloc_ub((M, N), \"float16\")\n"
      "            t = T.alloc_ub((N, M), \"float16\")\n"
      "            T.copy(A, a)\n"
      "            T.tile.transpose(t, a)\n"
      "            T.copy(t, B)\n"
      "    return main\n";
  std::string d;
  std::string ir = Trace(src, &d);
  ASSERT_NE(ir, "") << d;
  EXPECT_NE(ir.find("param %p0: gm float16[16, 32] input\nparam %p1: gm float16[32, 16] output"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("transpose(%ub_1, %ub_0)"), std::string::npos) << ir;
  EXPECT_NE(d.find("8:9: warning: T.func_attr 'enable_auto_sync' is ignored: tilejit reads no "
                   "function attributes (sync insertion is the pass_config tl.ascend_auto_sync)"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("8:9: warning: T.func_attr 'tir.noalias' is ignored"), std::string::npos) << d;
  EXPECT_NE(TraceError(VecKernel("T.func_attr(1)")).find("T.func_attr takes a dict"),
            std::string::npos);
  EXPECT_NE(TraceError(VecKernel("T.tile.transpose(c, a)"))
                .find("transpose needs a 2-D source and its transpose as the destination; got "
                      "[64, 64] to [64]"),
            std::string::npos);
}

TEST(Tracer, RowExpandAndBrcbSpellingsAreBroadcasts) {
  // Every spelling of a row_expand op is the binary op with a per-row second operand; brcb in
  // its (1, 8) stride form is the per-row broadcast.
  for (const char* spelling : {"T.tile.row_expand_mul", "T.tile.row_expand_mul_experiment"}) {
    std::string d;
    std::string ir = Trace(VecKernel(std::string(spelling) + "(a, a, r, c)"), &d);
    ASSERT_NE(ir, "") << d;
    EXPECT_NE(ir.find("mul(%ub_0, %ub_0, %ub_1)"), std::string::npos) << ir;
  }
  for (const char* spelling :
       {"T.tile.row_expand_sub(a, a, r)", "T.tile.row_expand_div_experiment(a, a, r, c)"}) {
    std::string d;
    EXPECT_NE(Trace(VecKernel(spelling), &d), "") << d;
  }
  EXPECT_NE(TraceError(VecKernel("T.tile.row_expand_sub(a, a, a)"))
                .find("needs dst and src0 of one [R, C] shape and src1 of [R], [R, 1] or "
                      "[R, 8] (one 32-byte block per row); got [64, 64], [64, 64] and [64, 64]"),
            std::string::npos);
  {  // src1 one block per row (brcb's output): one op per column slab of the block's width
    std::string d;
    std::string ir = Trace(VecKernel("w = T.alloc_ub((64, 16), \"float\")\n"
                                     "k = T.alloc_ub((64, 8), \"float\")\n"
                                     "T.tile.row_expand_sub_experiment(w, w, k)"),
                           &d);
    ASSERT_NE(ir, "") << d;
    EXPECT_NE(ir.find("sub(%ub_3[:, 0:+8], %ub_3[:, 0:+8], %ub_4)"), std::string::npos) << ir;
    EXPECT_NE(ir.find("barrier(v)"), std::string::npos) << ir;
    EXPECT_NE(ir.find("sub(%ub_3[:, 8:+8], %ub_3[:, 8:+8], %ub_4)"), std::string::npos) << ir;
  }
  std::string d;
  std::string ir = Trace(VecKernel("v = T.alloc_ub((64, 8), \"float\")\n"
                                   "T.tile.brcb(v, r, 8, 1, 8)"),
                         &d);
  ASSERT_NE(ir, "") << d;
  EXPECT_NE(ir.find("broadcast(%ub_3, %ub_1) {axis=1}"), std::string::npos) << ir;
  ir = Trace(VecKernel("v = T.alloc_ub((64, 8), \"float\")\n"
                       "m = T.alloc_ub((64, 1), \"float\")\n"
                       "T.tile.brcb(v, m, 8, 1, 8)"),
             &d);
  ASSERT_NE(ir, "") << d;  // a [R, 1] source, as upstream's xattention writes it
  EXPECT_NE(ir.find("broadcast(%ub_3, %ub_4) {axis=1}"), std::string::npos) << ir;
  EXPECT_NE(TraceError(VecKernel("v = T.alloc_ub((64, 8), \"float\")\n"
                                 "T.tile.brcb(v, r, 8, 2, 16)"))
                .find("T.tile.brcb supports dst_blk_stride 1 and dst_repeat_stride 8"),
            std::string::npos);
}

TEST(Tracer, CountParametersMustBeTheRegionsElementCount) {
  // Upstream passes the tile's size; a prefix (or a count past the region) is refused.
  std::string d;
  EXPECT_NE(Trace(VecKernel("T.tile.clamp(a, a, -1.0, 1.0, 4096)"), &d), "") << d;
  EXPECT_NE(TraceError(VecKernel("T.tile.clamp(a, a, -1.0, 1.0, 4000)"))
                .find("T.tile.clamp count must be the region's element count 4096, not 4000 (a "
                      "prefix or a count past the region is not supported)"),
            std::string::npos);
  EXPECT_NE(TraceError(VecKernel("T.tile.round(a, a, 64)"))
                .find("T.tile.round count must be the region's element count 4096, not 64"),
            std::string::npos);
  EXPECT_NE(TraceError(VecKernel("T.tile.arith_progression(r, 0.0, 1.0, count=65)"))
                .find("T.tile.arith_progression count must be the region's element count 64, "
                      "not 65"),
            std::string::npos);
}

TEST(Tracer, AnnotateLayoutKeepsZnOnL1AndWarnsOfTheRest) {
  // Upstream's gm_to_l1 tests annotate Q zN and K nZ before gemm_v0(..., transpose_B=True):
  // L1 tiles are zN here, so zN says nothing new and nZ is warned about as ignored.
  const std::string src =
      "import tilelang\nimport tilelang.language as T\n"
      "from tilelang.intrinsics import make_zn_layout\n\n"
      "@tilelang.jit(out_idx=[-1])\n"
      "def kernel(M=32, N=32, K=32):\n"
      "    @T.prim_func\n"
      "    def main(Q: T.Tensor((M, K), \"float16\"), Kt: T.Tensor((N, K), \"float16\"),\n"
      "             S: T.Tensor((M, N), \"float\")):\n"
      "        with T.Kernel(1, is_npu=True) as (cid, vid):\n"
      "            q = T.alloc_L1((M, K), \"float16\")\n"
      "            k = T.alloc_L1((N, K), \"float16\")\n"
      "            u = T.alloc_ub((M, N), \"float\")\n"
      "            c = T.alloc_L0C((M, N), \"float\")\n"
      "            T.annotate_layout({q: make_zn_layout(q), k: "
      "tilelang.intrinsics.make_nz_layout(k),\n"
      "                               u: tilelang.intrinsics.make_zn_layout(u)})\n"
      "            T.copy(Q, q)\n"
      "            T.copy(Kt, k)\n"
      "            T.gemm_v0(q, k, c, transpose_B=True, init=True)\n"
      "            T.copy(c, S)\n"
      "    return main\n";
  std::string d;
  std::string ir = Trace(src, &d);
  ASSERT_NE(ir, "") << d;
  EXPECT_EQ(d.find("'q'"), std::string::npos) << d;
  EXPECT_NE(d.find("15:31: warning: layout nZ of 'k' is ignored: L1 tiles are stored zN; "
                   "gemm_v0's transpose_B reads one transposed"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("warning: layout zN of 'u' is ignored: only L1 tiles have a fractal layout"),
            std::string::npos)
      << d;
  EXPECT_NE(TraceError(VecKernel("T.annotate_layout({a: 1})"))
                .find("the layout of 'a' must be make_zn_layout(buf) or make_nz_layout(buf), "
                      "not 1"),
            std::string::npos);
  EXPECT_NE(TraceError(VecKernel("T.annotate_layout([a])")).find("takes a dict {buffer: layout}"),
            std::string::npos);
}

}  // namespace
}  // namespace tilejit::frontend
