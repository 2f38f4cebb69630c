// SPDX-License-Identifier: Apache-2.0
// Codegen of the copy tile op between GM and UB and within UB, run on the simulator in
// checked mode and compared with C++ references: whole tiles, row and column tails with pad
// values (static and runtime), tiles entirely outside the tensor, sub-regions, 1-D and
// batched regions, fp32/fp16/bf16/int8, and UB -> UB in both forms. The L1 paths and the
// diagnostics are in copy_l1_test.cc; GEMM-shaped chains (L1 -> L0A/L0B, L0C -> GM/L1) in
// mma_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/codegen/codegen_test_util.h"
#include "tests/compiler/codegen/move_test_util.h"

namespace tilejit::codegen {
namespace {

using namespace testing;  // NOLINT
using target::CoreType;
using target::Opcode;

// ---- GM <-> UB -------------------------------------------------------------------------------

constexpr char kUbRoundTrip[] = R"(
param %p0: gm $T[64, 96] input
param %p1: gm $T[64, 96] output
out_idx = [1]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  alloc %ub_0: ub $T[32, 96] @0
  scope vector {
    copy(%ub_0, %p0[%cid * 32:+32, :])
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1[%cid * 32:+32, :], %ub_0)
  }
}
)";

TEST(CopyGmUb, WholeTilesRoundTripInFp32Fp16AndBf16) {
  const std::vector<float> x = Quarters(64 * 96, 1);
  for (const char* t : {"float32", "float16", "bfloat16"}) {
    SCOPED_TRACE(t);
    const std::string type = t;
    runner::NpyArray in = type == "float32"   ? F32({64, 96}, x)
                          : type == "float16" ? F16({64, 96}, x)
                                              : BF16({64, 96}, x);
    auto run = RunIr(Subst(kUbRoundTrip, {{"$T", type}}), {in});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), x, 0, 0));
    // Whole tiles need no tail code: one load and one store, no branches.
    EXPECT_EQ(CountOp(run->binary, CoreType::kAiv, Opcode::kBz), 0);
    EXPECT_EQ(CountOp(run->binary, CoreType::kAiv, Opcode::kFillUb), 0);
  }
}

// A [200, 64] tensor in 128-row tiles (block 1 has 72 valid rows) and a grid of 3, so block
// 2 lies entirely outside. p1 receives the clipped stores; p2 the whole tiles, showing the
// pad value in the rows past the tensor.
constexpr char kUbRowTail[] = R"(
param %p0: gm float32[200, 64] input
param %p1: gm float32[200, 64] output
param %p2: gm float32[384, 64] output
out_idx = [1, 2]
workspace_idx = []
launch(3, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[128, 64] @0
  scope vector {
    copy(%ub_0, %p0[%cid * 128:+128, :]) $PAD
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1[%cid * 128:+128, :], %ub_0)
    copy(%p2[%cid * 128:+128, :], %ub_0)
  }
}
)";

TEST(CopyGmUb, RowTailIsClippedOnStoreAndPaddedOnLoad) {
  const std::vector<float> x = Quarters(200 * 64, 2);
  for (const auto& [attr, pad] :
       std::vector<std::pair<std::string, float>>{{"", 0.0f}, {"{pad_value=-1.5}", -1.5f}}) {
    SCOPED_TRACE(attr);
    auto run = RunIr(Subst(kUbRowTail, {{"$PAD", attr}}), {F32({200, 64}, x)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), x, 0, 0));
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[1]), PaddedRows(x, 200, 64, 384, pad), 0, 0));
  }
}

// Columns: a [16, 100] tensor in 64-column tiles (block 1 has 36 valid columns, 144 bytes per
// row: not a multiple of 32) and block 2 entirely outside.
constexpr char kUbColTail[] = R"(
param %p0: gm float32[16, 100] input
param %p1: gm float32[16, 100] output
param %p2: gm float32[16, 192] output
out_idx = [1, 2]
workspace_idx = []
launch(3, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[16, 64] @0
  scope vector {
    copy(%ub_0, %p0[:, %cid * 64:+64]) {pad_value=7.0}
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1[:, %cid * 64:+64], %ub_0)
    copy(%p2[:, %cid * 64:+64], %ub_0)
  }
}
)";

TEST(CopyGmUb, ColumnTailAndOutOfBoundsTileArePadded) {
  const std::vector<float> x = Quarters(16 * 100, 3);
  auto run = RunIr(kUbColTail, {F32({16, 100}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), x, 0, 0));
  std::vector<float> want(16 * 192, 7.0f);
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 100; ++c) want[r * 192 + c] = x[r * 100 + c];
  }
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[1]), want, 0, 0));
}

// Both dims clip, in fp16, with the pad value read from a GM scalar at run time.
constexpr char kUbBothTails[] = R"(
param %p0: gm float16[40, 40] input
param %p1: gm float32[1] input
param %p2: gm float16[64, 64] output
out_idx = [2]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float16[32, 32] @0
  scope vector {
    let %v0 = %cid // 2
    let %v1 = %cid % 2
    copy(%ub_0, %p0[%v0 * 32:+32, %v1 * 32:+32]) {pad_value=%p1[0]}
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p2[%v0 * 32:+32, %v1 * 32:+32], %ub_0)
  }
}
)";

TEST(CopyGmUb, BothTailsWithARuntimePadValue) {
  const std::vector<float> x = Quarters(40 * 40, 4);
  auto run = RunIr(kUbBothTails, {F16({40, 40}, x), F32({1}, {-3.25f})});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want(64 * 64, -3.25f);
  for (int r = 0; r < 40; ++r) {
    for (int c = 0; c < 40; ++c) want[r * 64 + c] = x[r * 40 + c];
  }
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 0, 0));
}

// Sub-regions on both sides: a 32 x 16 window of the tensor into ub[32:+32, 48:+16] and back
// out to a different window.
constexpr char kUbSubRegions[] = R"(
param %p0: gm float32[64, 64] input
param %p1: gm float32[64, 64] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[64, 64] @0
  scope vector {
    copy(%ub_0[32:+32, 48:+16], %p0[8:+32, 16:+16])
    copy(%ub_0[0:+1, :], %p0[63:+1, :])
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1[0:+32, 0:+16], %ub_0[32:+32, 48:+16])
    copy(%p1[32:+1, :], %ub_0[0:+1, :])
  }
}
)";

TEST(CopyGmUb, SubRegionsOfBothSides) {
  const std::vector<float> x = Quarters(64 * 64, 5);
  auto run = RunIr(kUbSubRegions, {F32({64, 64}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  const std::vector<float> out = ToFloats(run->outputs[0]);
  for (int r = 0; r < 32; ++r) {
    for (int c = 0; c < 16; ++c) ASSERT_EQ(out[r * 64 + c], x[(r + 8) * 64 + 16 + c]) << r << c;
  }
  for (int c = 0; c < 64; ++c) ASSERT_EQ(out[32 * 64 + c], x[63 * 64 + c]) << c;
}

// Tail code under perturbed timing: the fill, the barrier and the clipped copy must stay
// ordered whatever the latencies.
TEST(CopyGmUb, TailCodeIsOrderedUnderPerturbedTiming) {
  const std::vector<float> x = Quarters(40 * 40, 4);
  std::vector<float> want(64 * 64, -3.25f);
  for (int r = 0; r < 40; ++r) {
    for (int c = 0; c < 40; ++c) want[r * 64 + c] = x[r * 40 + c];
  }
  for (uint64_t seed : {1, 2, 3}) {
    runner::LaunchOptions opt;
    opt.mode = runner::CheckMode::kPerturbed;
    opt.seed = seed;
    auto run = RunIr(kUbBothTails, {F16({40, 40}, x), F32({1}, {-3.25f})}, opt);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_TRUE(run->report.status.ok()) << run->report.status;
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 0, 0)) << "seed " << seed;
  }
}

// int8 rows of 32 bytes with a row tail and an integer pad value.
constexpr char kUbInt8[] = R"(
param %p0: gm int8[50, 32] input
param %p1: gm int8[64, 32] output
out_idx = [1]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  alloc %ub_0: ub int8[32, 32] @0
  scope vector {
    copy(%ub_0, %p0[%cid * 32:+32, :]) {pad_value=-7}
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1[%cid * 32:+32, :], %ub_0)
  }
}
)";

TEST(CopyGmUb, Int8RowTailWithAnIntegerPad) {
  std::vector<int8_t> x(50 * 32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>(i % 251 - 125);
  auto run = RunIr(kUbInt8, {I8({50, 32}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  const std::vector<uint8_t>& got = run->outputs[0].data;
  ASSERT_EQ(got.size(), 64u * 32u);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(static_cast<int8_t>(got[i]), i < x.size() ? x[i] : -7) << i;
  }
}

// Leading (batch) dims: two of three [20, 32] matrices, one DMA list per matrix.
constexpr char kUbBatch[] = R"(
param %p0: gm float32[3, 20, 32] input
param %p1: gm float32[2, 20, 32] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[2, 20, 32] @0
  scope vector {
    copy(%ub_0, %p0[1:+2, :, :])
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1, %ub_0)
  }
}
)";

TEST(CopyGmUb, LeadingBatchDims) {
  const std::vector<float> x = Quarters(3 * 20 * 32, 10);
  auto run = RunIr(kUbBatch, {F32({3, 20, 32}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(
      AllClose(ToFloats(run->outputs[0]), std::vector<float>(x.begin() + 20 * 32, x.end()), 0, 0));
}

// Rows of 80 bytes: each burst also writes the rest of its last 32-byte block (the buffer's
// row padding), so nothing a vector op reads block-wise stays unwritten.
constexpr char kUbOddRows[] = R"(
param %p0: gm float16[16, 40] input
param %p1: gm float16[16, 40] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float16[16, 40] @0
  scope vector {
    copy(%ub_0, %p0)
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1, %ub_0)
  }
}
)";

TEST(CopyGmUb, RowsOfOddByteWidthAlsoWriteTheirBlockPadding) {
  const std::vector<float> x = Quarters(16 * 40, 11);
  auto run = RunIr(kUbOddRows, {F16({16, 40}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), x, 0, 0));
  bool padded = false;
  for (const auto& in : Program(run->binary, CoreType::kAiv)) {
    if (in.op == Opcode::kCopyGmUb) padded = in.pad == 1 && in.nburst.imm == 16;
  }
  EXPECT_TRUE(padded) << Disasm(run->binary, CoreType::kAiv);
}

// 1-D: a [100] vector in 64-element tiles; the second tile has 36 valid elements.
constexpr char kUb1d[] = R"(
param %p0: gm float32[100] input
param %p1: gm float32[100] output
param %p2: gm float32[128] output
out_idx = [1, 2]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[64] @0
  scope vector {
    copy(%ub_0, %p0[%cid * 64:+64]) {pad_value=-1.0}
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1[%cid * 64:+64], %ub_0)
    copy(%p2[%cid * 64:+64], %ub_0)
  }
}
)";

TEST(CopyGmUb, OneDimensionalTail) {
  const std::vector<float> x = Quarters(100, 12);
  auto run = RunIr(kUb1d, {F32({100}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), x, 0, 0));
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[1]), PaddedRows(x, 100, 1, 128, -1.0f), 0, 0));
}

// A tail known at compile time (constant region start) on a one-row tile: the load reads only
// the tensor's 131 columns (no out-of-bounds read past them) and pads the rest.
constexpr char kUbStaticRowTail[] = R"(
param %p0: gm float32[1, 131] input
param %p1: gm float32[1, 160] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[1, 160] @0
  scope vector {
    copy(%ub_0, %p0[0:+1, 0:+160]) {pad_value=-1.0}
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1, %ub_0)
  }
}
)";

TEST(CopyGmUb, StaticTailOfOneRowIsClipped) {
  const std::vector<float> x = Quarters(131, 13);
  auto run = RunIr(kUbStaticRowTail, {F32({1, 131}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), PaddedRows(x, 131, 1, 160, -1.0f), 0, 0));
}

// ---- UB -> UB --------------------------------------------------------------------------------

constexpr char kUbUb[] = R"(
param %p0: gm float32[64, 64] input
param %p1: gm float32[32, 20] output
param %p2: gm float32[32, 32] output
out_idx = [1, 2]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[64, 64] @0
  alloc %ub_1: ub float32[32, 20] @16384
  alloc %ub_2: ub float32[32, 32] @20480
  scope vector {
    copy(%ub_0, %p0)
    set_flag(mte2, v, 0)
    wait_flag(mte2, v, 0)
    copy(%ub_1, %ub_0[32:+32, 40:+20])
    copy(%ub_2, %ub_0[0:+32, 32:+32])
    set_flag(v, mte3, 0)
    wait_flag(v, mte3, 0)
    copy(%p1, %ub_1)
    copy(%p2, %ub_2)
  }
}
)";

TEST(CopyUbUb, WholeBlockRowsUseBurstsAndOtherRowsUseMaskedMoves) {
  const std::vector<float> x = Quarters(64 * 64, 6);
  auto run = RunIr(kUbUb, {F32({64, 64}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  std::vector<float> want1(32 * 20), want2(32 * 32);
  for (int r = 0; r < 32; ++r) {
    for (int c = 0; c < 20; ++c) want1[r * 20 + c] = x[(r + 32) * 64 + 40 + c];
    for (int c = 0; c < 32; ++c) want2[r * 32 + c] = x[r * 64 + 32 + c];
  }
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want1, 0, 0));
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[1]), want2, 0, 0));
  EXPECT_EQ(CountOp(run->binary, CoreType::kAiv, Opcode::kCopyUbUb), 1);
  EXPECT_EQ(CountOp(run->binary, CoreType::kAiv, Opcode::kVmov), 1);
}

}  // namespace
}  // namespace tilejit::codegen
