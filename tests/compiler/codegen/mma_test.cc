// SPDX-License-Identifier: Apache-2.0
// Codegen of mma and of the copies around it, as GEMMs run on the simulator in checked mode:
// gm -> l1 -> l0a/l0b -> mma -> l0c -> gm with tails in M and N, each transpose flag, fp16,
// bf16, fp32 and int8, multi-buffered slots, l0c -> gm with a cast and ReLU, l0c -> l1 feeding
// a second mma, the k/n/m splits past the cube's 4095 limit, and the diagnostics.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/compiler/codegen/codegen_test_util.h"
#include "tests/compiler/codegen/move_test_util.h"

namespace tilejit::codegen {
namespace {

using namespace testing;  // NOLINT
using target::CoreType;
using target::Opcode;

// C[40, 48] = A[40, 64] x B[64, 48] in 32 x 32 tiles with 32-deep K steps: blocks in the
// last tile row have 8 valid rows, in the last tile column 16 valid columns. $AT/$BT select
// the transposed storage of A (K x M) / B (N x K), loaded with transpose=true.
constexpr char kGemm[] = R"(
param %p0: gm $T[$ASHAPE] input
param %p1: gm $T[$BSHAPE] input
param %p2: gm float32[40, 48] output
out_idx = [2]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 $T[32, 32] @0
  alloc %l1_1: l1 $T[32, 32] @4096
  alloc %l0a_0: l0a $T[32, 32] @0
  alloc %l0b_0: l0b $T[32, 32] @0
  alloc %l0c_0: l0c float32[32, 32] @0
  scope cube {
    let %v0 = %cid // 2
    let %v1 = %cid % 2
    for %v2 in serial(0, 2) {
      copy(%l1_0, %p0[$AREGION])
      copy(%l1_1, %p1[$BREGION])
      barrier(all)
      copy(%l0a_0, %l1_0) {transpose=$AT}
      copy(%l0b_0, %l1_1) {transpose=$BT}
      barrier(all)
      mma(%l0c_0, %l0a_0, %l0b_0) {init=%v2 == 0}
      barrier(all)
    }
    copy(%p2[%v0 * 32:+32, %v1 * 32:+32], %l0c_0)
  }
}
)";

std::string GemmIr(const std::string& type, bool a_t, bool b_t) {
  return Subst(kGemm,
               {{"$ASHAPE", a_t ? "64, 40" : "40, 64"},
                {"$BSHAPE", b_t ? "48, 64" : "64, 48"},
                {"$AREGION", a_t ? "%v2 * 32:+32, %v0 * 32:+32" : "%v0 * 32:+32, %v2 * 32:+32"},
                {"$BREGION", b_t ? "%v1 * 32:+32, %v2 * 32:+32" : "%v2 * 32:+32, %v1 * 32:+32"},
                {"$AT", a_t ? "true" : "false"},
                {"$BT", b_t ? "true" : "false"},
                {"$T", type}});
}

runner::NpyArray Array(const std::string& type, std::vector<int64_t> shape,
                       const std::vector<float>& v) {
  if (type == "float16") return F16(std::move(shape), v);
  if (type == "bfloat16") return BF16(std::move(shape), v);
  return F32(std::move(shape), v);
}

TEST(MmaGemm, EveryTransposeFlagWithTailsInFp16AndBf16) {
  const std::vector<float> a = Quarters(40 * 64, 1);
  const std::vector<float> b = Quarters(64 * 48, 2);
  for (const char* type : {"float16", "bfloat16"}) {
    for (bool a_t : {false, true}) {
      for (bool b_t : {false, true}) {
        SCOPED_TRACE(std::string(type) + (a_t ? " A^T" : " A") + (b_t ? " B^T" : " B"));
        auto run = RunIr(
            GemmIr(type, a_t, b_t),
            {Array(type, a_t ? std::vector<int64_t>{64, 40} : std::vector<int64_t>{40, 64}, a),
             Array(type, b_t ? std::vector<int64_t>{48, 64} : std::vector<int64_t>{64, 48}, b)});
        ASSERT_TRUE(run.ok()) << run.status();
        ExpectNoFindings(run->report);
        EXPECT_TRUE(
            AllClose(ToFloats(run->outputs[0]), MatMul(a, b, 40, 48, 64, a_t, b_t), 1e-6, 1e-6));
      }
    }
  }
}

TEST(MmaGemm, TiledGemmIsCorrectUnderPerturbedTiming) {
  const std::vector<float> a = Quarters(40 * 64, 1);
  const std::vector<float> b = Quarters(64 * 48, 2);
  for (uint64_t seed : {1, 7}) {
    runner::LaunchOptions opt;
    opt.mode = runner::CheckMode::kPerturbed;
    opt.seed = seed;
    auto run = RunIr(GemmIr("float16", true, false), {F16({64, 40}, a), F16({64, 48}, b)}, opt);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_TRUE(run->report.status.ok()) << run->report.status;
    EXPECT_TRUE(
        AllClose(ToFloats(run->outputs[0]), MatMul(a, b, 40, 48, 64, true, false), 1e-6, 1e-6));
  }
}

TEST(MmaGemm, Fp32Operands) {
  const std::vector<float> a = Quarters(40 * 64, 3);
  const std::vector<float> b = Quarters(64 * 48, 4);
  auto run = RunIr(GemmIr("float32", false, false), {F32({40, 64}, a), F32({64, 48}, b)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), MatMul(a, b, 40, 48, 64), 1e-6, 1e-6));
}

// int8 x int8 -> int32, K = 64 in one step (C0 = 32 for int8), single block.
constexpr char kGemmS8[] = R"(
param %p0: gm int8[32, 64] input
param %p1: gm int8[64, 32] input
param %p2: gm int32[32, 32] output
out_idx = [2]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 int8[32, 64] @0
  alloc %l1_1: l1 int8[64, 32] @4096
  alloc %l0a_0: l0a int8[32, 64] @0
  alloc %l0b_0: l0b int8[64, 32] @0
  alloc %l0c_0: l0c int32[32, 32] @0
  scope cube {
    copy(%l1_0, %p0)
    copy(%l1_1, %p1)
    barrier(all)
    copy(%l0a_0, %l1_0)
    copy(%l0b_0, %l1_1)
    barrier(all)
    mma(%l0c_0, %l0a_0, %l0b_0) {init=true}
    barrier(all)
    copy(%p2, %l0c_0)
  }
}
)";

std::vector<int8_t> SmallInts(size_t n, int seed) {
  std::vector<int8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int8_t>((i * 5 + seed * 11) % 23 - 11);
  return v;
}

TEST(MmaGemm, Int8AccumulatesInInt32) {
  const std::vector<int8_t> a = SmallInts(32 * 64, 1), b = SmallInts(64 * 32, 2);
  auto run = RunIr(kGemmS8, {I8({32, 64}, a), I8({64, 32}, b)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  const std::vector<int32_t> got = ToInt32(run->outputs[0]);
  ASSERT_EQ(got.size(), 32u * 32u);
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 32; ++j) {
      int32_t s = 0;
      for (int p = 0; p < 64; ++p) s += a[i * 64 + p] * b[p * 32 + j];
      ASSERT_EQ(got[i * 32 + j], s) << i << "," << j;
    }
  }
}

// Double-buffered L1 and L0 slots indexed by the K step, fp16 output with ReLU through the
// fixpipe, and the product copied l0c -> l1 to feed a second mma (D = relu(C) x B2).
constexpr char kChain[] = R"(
param %p0: gm float16[32, 64] input
param %p1: gm float16[64, 32] input
param %p2: gm float16[32, 32] input
param %p3: gm float16[32, 32] output
param %p4: gm float32[32, 32] output
out_idx = [3, 4]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 float16[2, 32, 32] @0
  alloc %l1_1: l1 float16[2, 32, 32] @4096
  alloc %l1_2: l1 float16[32, 32] @8192
  alloc %l1_3: l1 float16[32, 32] @10240
  alloc %l0a_0: l0a float16[2, 32, 32] @0
  alloc %l0b_0: l0b float16[2, 32, 32] @0
  alloc %l0c_0: l0c float32[32, 32] @0
  alloc %l0c_1: l0c float32[32, 32] @4096
  scope cube {
    for %v0 in serial(0, 2) {
      copy(%l1_0[%v0:+1, :, :], %p0[:, %v0 * 32:+32])
      copy(%l1_1[%v0:+1, :, :], %p1[%v0 * 32:+32, :])
      barrier(all)
      copy(%l0a_0[%v0:+1, :, :], %l1_0[%v0:+1, :, :])
      copy(%l0b_0[%v0:+1, :, :], %l1_1[%v0:+1, :, :])
      barrier(all)
      mma(%l0c_0, %l0a_0[%v0:+1, :, :], %l0b_0[%v0:+1, :, :]) {init=%v0 == 0}
      barrier(all)
    }
    copy(%p3, %l0c_0) {enable_relu=true}
    copy(%l1_2, %l0c_0) {enable_relu=true}
    copy(%l1_3, %p2)
    barrier(all)
    copy(%l0a_0[0:+1, :, :], %l1_2)
    copy(%l0b_0[0:+1, :, :], %l1_3)
    barrier(all)
    mma(%l0c_1, %l0a_0[0:+1, :, :], %l0b_0[0:+1, :, :]) {init=true}
    barrier(all)
    copy(%p4, %l0c_1)
  }
}
)";

TEST(MmaGemm, SlotsReluCastAndL0cToL1Chain) {
  const std::vector<float> a = Quarters(32 * 64, 5), b = Quarters(64 * 32, 6);
  const std::vector<float> b2 = Quarters(32 * 32, 7);
  auto run = RunIr(kChain, {F16({32, 64}, a), F16({64, 32}, b), F16({32, 32}, b2)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> c = MatMul(a, b, 32, 32, 64);
  for (float& v : c) v = std::max(v, 0.0f);
  const std::vector<float> c16 = RoundToHalf(c);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), c16, 0, 0));
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[1]), MatMul(c16, b2, 32, 32, 32), 1e-6, 1e-5));
}

// ---- splits past 4095 ------------------------------------------------------------------------

// k = 4096 int8 (m = n = 16): L0A and L0B are exactly full; two mmads, init on the first.
constexpr char kKSplit[] = R"(
param %p0: gm int8[16, 4096] input
param %p1: gm int8[4096, 16] input
param %p2: gm int32[16, 16] output
out_idx = [2]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 int8[16, 4096] @0
  alloc %l1_1: l1 int8[4096, 16] @65536
  alloc %l0a_0: l0a int8[16, 4096] @0
  alloc %l0b_0: l0b int8[4096, 16] @0
  alloc %l0c_0: l0c int32[16, 16] @0
  scope cube {
    copy(%l1_0, %p0)
    copy(%l1_1, %p1)
    barrier(all)
    copy(%l0a_0, %l1_0)
    copy(%l0b_0, %l1_1)
    barrier(all)
    mma(%l0c_0, %l0a_0, %l0b_0) {init=true}
    barrier(all)
    copy(%p2, %l0c_0)
  }
}
)";

TEST(MmaSplit, KPastTheLimitAccumulatesInTwoParts) {
  const std::vector<int8_t> a = SmallInts(16 * 4096, 3), b = SmallInts(4096 * 16, 4);
  auto run = RunIr(kKSplit, {I8({16, 4096}, a), I8({4096, 16}, b)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_EQ(CountOp(run->binary, CoreType::kAic, Opcode::kMmad), 2);
  const std::vector<int32_t> got = ToInt32(run->outputs[0]);
  ASSERT_EQ(got.size(), 256u);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      int32_t s = 0;
      for (int p = 0; p < 4096; ++p) s += a[i * 4096 + p] * b[p * 16 + j];
      ASSERT_EQ(got[i * 16 + j], s) << i << "," << j;
    }
  }
}

// A target with L0 buffers large enough for n or m past 4095 (the 910B's are not).
const target::NpuTarget& BigL0Target() {
  static const target::NpuTarget* t = [] {
    auto* big = new target::NpuTarget(target::Ascend910B2());
    for (auto& m : big->mems) {
      if (m.mem == target::Mem::kL0A || m.mem == target::Mem::kL0B || m.mem == target::Mem::kL0C) {
        m.bytes.value = 1 << 20;
      }
    }
    return big;
  }();
  return *t;
}

// fp16, k = 16: n = 4112 (m = 16) or m = 4112 (n = 16).
constexpr char kWide[] = R"(
param %p0: gm float16[$M, 16] input
param %p1: gm float16[16, $N] input
param %p2: gm float32[$M, $N] output
out_idx = [2]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 float16[$M, 16] @0
  alloc %l1_1: l1 float16[16, $N] @262144
  alloc %l0a_0: l0a float16[$M, 16] @0
  alloc %l0b_0: l0b float16[16, $N] @0
  alloc %l0c_0: l0c float32[$M, $N] @0
  scope cube {
    copy(%l1_0, %p0)
    copy(%l1_1, %p1)
    barrier(all)
    copy(%l0a_0, %l1_0)
    copy(%l0b_0, %l1_1)
    barrier(all)
    mma(%l0c_0, %l0a_0, %l0b_0) {init=true}
    barrier(all)
    copy(%p2, %l0c_0)
  }
}
)";

TEST(MmaSplit, NAndMPastTheLimitSplitAtFractalOffsets) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{16, 4112}, {4112, 16}}) {
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
    const std::vector<float> a = Quarters(m * 16, 8), b = Quarters(16 * n, 9);
    auto run = RunIr(Subst(kWide, {{"$M", std::to_string(m)}, {"$N", std::to_string(n)}}),
                     {F16({m, 16}, a), F16({16, n}, b)}, {}, BigL0Target());
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    EXPECT_EQ(CountOp(run->binary, CoreType::kAic, Opcode::kMmad), 2);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), MatMul(a, b, m, n, 16), 1e-6, 1e-6));
  }
}

// ---- diagnostics -----------------------------------------------------------------------------

std::string MmaKernel(const std::string& c, const std::string& a, const std::string& b,
                      const std::string& call) {
  return "param %p0: gm float32[16, 16] output\nout_idx = [0]\nworkspace_idx = []\n"
         "launch(1, threads=1) (%cid, %vid) {\n  alloc %l0c_0: l0c " +
         c + " @0\n  alloc %l0a_0: l0a " + a + " @0\n  alloc %l0b_0: l0b " + b +
         " @0\n  scope cube {\n    " + call + "\n  }\n}\n";
}

TEST(MmaDiagnostics, RejectsShapesThatDoNotAgree) {
  ExpectCompileError(MmaKernel("float32[32, 32]", "float16[32, 64]", "float16[32, 32]",
                               "mma(%l0c_0, %l0a_0, %l0b_0)"),
                     "mma shapes do not agree: C is 32 x 32, A is 32 x 64, B is 32 x 32");
}

TEST(MmaDiagnostics, RejectsTypeMismatches) {
  ExpectCompileError(MmaKernel("float32[32, 32]", "float16[32, 32]", "bfloat16[32, 32]",
                               "mma(%l0c_0, %l0a_0, %l0b_0)"),
                     "mma operands A and B have different types");
  ExpectCompileError(MmaKernel("float16[32, 32]", "float16[32, 32]", "float16[32, 32]",
                               "mma(%l0c_0, %l0a_0, %l0b_0)"),
                     "mma of float16 accumulates in float32, but C is float16");
  ExpectCompileError(
      MmaKernel("int32[32, 32]", "int16[32, 32]", "int16[32, 32]", "mma(%l0c_0, %l0a_0, %l0b_0)"),
      "the cube does not multiply int16");
}

TEST(MmaDiagnostics, RejectsOperandsInTheWrongMemory) {
  ExpectCompileError(MmaKernel("float32[32, 32]", "float16[32, 32]", "float16[32, 32]",
                               "mma(%l0c_0, %l0b_0, %l0b_0)"),
                     "mma operand A ('l0b_0') must be in l0a, not l0b");
}

TEST(MmaDiagnostics, RejectsRegionsThatDisagreeWithTheBufferLayout) {
  ExpectCompileError(MmaKernel("float32[32, 32]", "float16[32, 64]", "float16[32, 32]",
                               "mma(%l0c_0, %l0a_0[:, 0:+32], %l0b_0)"),
                     "with m > 16 it must span all of them");
  ExpectCompileError(MmaKernel("float32[64, 32]", "float16[32, 32]", "float16[32, 32]",
                               "mma(%l0c_0[0:+32, :], %l0a_0, %l0b_0)"),
                     "has 64 padded rows but mmad writes m = 32 rows");
}

TEST(MmaDiagnostics, RejectsSplitsTheLayoutsCannotExpress) {
  ExpectCompileError(MmaKernel("float32[32, 32]", "float16[32, 8192]", "float16[8192, 32]",
                               "mma(%l0c_0, %l0a_0, %l0b_0)"),
                     "mma k = 8192 exceeds the cube's limit of 4095 and cannot be split");
}

}  // namespace
}  // namespace tilejit::codegen
