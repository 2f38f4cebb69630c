// SPDX-License-Identifier: Apache-2.0
// The back end's diagnostics for Expert-mode mistakes, each checked through the whole compiler
// (frontend + pipeline) with the exact facts the message must carry.
#include <gtest/gtest.h>

#include <string>

#include "compiler/compiler.h"

namespace tilejit::compiler {
namespace {

// An Expert kernel body inside a factory with M, N, K = 128, 256, 64 and fp16 inputs.
std::string Kernel(const std::string& body) {
  return "import tilelang\n"
         "import tilelang.language as T\n"
         "\n"
         "@tilelang.jit(out_idx=[-1])\n"
         "def kernel(M=128, N=256, K=64):\n"
         "    @T.prim_func\n"
         "    def main(A: T.Tensor((M, K), \"float16\"), B: T.Tensor((K, N), \"float16\"),\n"
         "             C: T.Tensor((M, N), \"float\")):\n"
         "        with T.Kernel(1, is_npu=True) as (cid, vid):\n" +
         body + "    return main\n";
}

// Compiles and returns the rendered diagnostics ("" when the compile succeeded).
std::string Diagnostics(const std::string& source) {
  frontend::FrontendRequest req;
  req.source = source;
  req.file_name = "k.py";
  req.entry = "kernel";
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<CompiledKernel> k = Compile({req, {}}, &sources, &diag);
  EXPECT_TRUE(k.ok() || k.status().code() == StatusCode::kCompileError) << k.status();
  return k.ok() ? "" : diag.RenderAll();
}

TEST(BackEndDiagnostics, A600KiBL1TileNamesBufferMemoryAndBytes) {
  std::string d =
      Diagnostics(Kernel("            big = T.alloc_L1((1200, 256), \"float16\")\n"
                         "            T.copy(A[0, 0], big[0:128, 0:64])\n"));
  EXPECT_NE(d.find("k.py:10:"), std::string::npos) << d;
  EXPECT_NE(d.find("'big'"), std::string::npos) << d;
  EXPECT_NE(d.find("l1 buffer 'big' needs 614400 bytes but only 524288"), std::string::npos) << d;
}

TEST(BackEndDiagnostics, UbToL0aCopyNamesThePathAndTheLegalOnes) {
  std::string d =
      Diagnostics(Kernel("            a_ub = T.alloc_ub((128, 64), \"float16\")\n"
                         "            a_l0 = T.alloc_L0A((128, 64), \"float16\")\n"
                         "            T.copy(A[0, 0], a_ub)\n"
                         "            T.copy(a_ub, a_l0)\n"));
  EXPECT_NE(d.find("k.py:13:"), std::string::npos) << d;
  EXPECT_NE(d.find("ub -> l0a"), std::string::npos) << d;
  EXPECT_NE(d.find("l1 -> l0a"), std::string::npos) << d;  // the legal way into L0A
}

TEST(BackEndDiagnostics, GemmOnUbOperandsNamesTheOperandAndTheRequiredScopes) {
  std::string d =
      Diagnostics(Kernel("            a_ub = T.alloc_ub((128, 64), \"float16\")\n"
                         "            b_ub = T.alloc_ub((64, 256), \"float16\")\n"
                         "            c = T.alloc_L0C((128, 256), \"float\")\n"
                         "            T.tile.fill(a_ub, 1.0)\n"
                         "            T.tile.fill(b_ub, 1.0)\n"
                         "            T.gemm_v0(a_ub, b_ub, c, init=True)\n"));
  EXPECT_NE(d.find("k.py:15:"), std::string::npos) << d;
  EXPECT_NE(d.find("gemm_v0 operand A is in ub; gemm_v0 needs A and B in l1 and C in l0c"),
            std::string::npos)
      << d;
}

TEST(BackEndDiagnostics, MixedWorkWithoutScopesNamesBothFixes) {
  std::string d =
      Diagnostics(Kernel("            a = T.alloc_L1((128, 64), \"float16\")\n"
                         "            b = T.alloc_L1((64, 256), \"float16\")\n"
                         "            c = T.alloc_L0C((128, 256), \"float\")\n"
                         "            u = T.alloc_ub((128, 256), \"float\")\n"
                         "            T.copy(A[0, 0], a)\n"
                         "            T.copy(B[0, 0], b)\n"
                         "            T.barrier_all()\n"
                         "            T.gemm_v0(a, b, c, init=True)\n"
                         "            T.barrier_all()\n"
                         "            T.copy(c, C[0, 0])\n"
                         "            T.tile.fill(u, 0.0)\n"));
  EXPECT_NE(d.find("T.Scope"), std::string::npos) << d;
  EXPECT_NE(d.find("TL_ASCEND_AUTO_CV_COMBINE"), std::string::npos) << d;
}

TEST(BackEndDiagnostics, RowVectorOfTheWrongLengthIsAShapeMismatch) {
  // [C] = [256] against an [R, C] = [128, 256] destination: per-row needs [128].
  std::string d =
      Diagnostics(Kernel("            x = T.alloc_ub((128, 256), \"float\")\n"
                         "            r = T.alloc_ub((256,), \"float\")\n"
                         "            with T.Scope(\"V\"):\n"
                         "                T.tile.fill(r, 1.0)\n"
                         "                T.tile.fill(x, 1.0)\n"
                         "                T.tile.add(x, x, r)\n"));
  EXPECT_NE(d.find("k.py:15:"), std::string::npos) << d;
  EXPECT_NE(d.find("[128, 256]"), std::string::npos) << d;
  EXPECT_NE(d.find("[256]"), std::string::npos) << d;
}

TEST(BackEndDiagnostics, ReservedEventIdsAroundAGemmAreNamed) {
  std::string d =
      Diagnostics(Kernel("            a = T.alloc_L1((128, 64), \"float16\")\n"
                         "            b = T.alloc_L1((64, 256), \"float16\")\n"
                         "            c = T.alloc_L0C((128, 256), \"float\")\n"
                         "            T.copy(A[0, 0], a)\n"
                         "            T.copy(B[0, 0], b)\n"
                         "            T.set_flag(\"mte1\", \"m\", 6)\n"
                         "            T.wait_flag(\"mte1\", \"m\", 6)\n"
                         "            T.gemm_v0(a, b, c, init=True)\n"
                         "            T.barrier_all()\n"
                         "            T.copy(c, C[0, 0])\n"));
  EXPECT_NE(d.find("k.py:15:"), std::string::npos) << d;
  EXPECT_NE(d.find("set_flag on mte1 -> m uses event id 6, reserved"), std::string::npos) << d;
  EXPECT_NE(d.find("note: gemm_v0 expanded here"), std::string::npos) << d;
}

// Developer mode: a buffer the compiler placed is still reported at the user's alloc_shared
// line, in the memory scope inference chose for it.
TEST(BackEndDiagnostics, AnOversizedSharedTileIsReportedAtItsAllocInTheInferredMemory) {
  std::string d =
      Diagnostics(Kernel("            a = T.alloc_shared((1024, 128), \"float16\")\n"
                         "            T.copy(A[0, 0], a[0:128, 0:64])\n"
                         "            T.tile.exp(a, a)\n"));
  EXPECT_NE(d.find("k.py:10:"), std::string::npos) << d;
  EXPECT_NE(d.find("ub buffer 'a' needs 262144 bytes"), std::string::npos) << d;
}

}  // namespace
}  // namespace tilejit::compiler
