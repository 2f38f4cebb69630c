// SPDX-License-Identifier: Apache-2.0
// Codegen of the copy tile op into and out of L1 (GM -> L1 with tails and pad values, L1 -> GM,
// multi-buffered slots) on the simulator in checked mode, and the diagnostics for the copy
// geometries and attributes the lowering rejects.
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

// ---- GM <-> L1 -------------------------------------------------------------------------------

// A [40, 48] fp16 tensor through 32 x 32 L1 tiles (zN) and back with copy_l1_gm: block 1
// holds 8 valid rows, block 3 8 rows x 16 columns. p2 gets whole tiles (zeros past the
// tensor).
constexpr char kL1RoundTrip[] = R"(
param %p0: gm $T[40, 48] input
param %p1: gm $T[40, 48] output
param %p2: gm $T[64, 64] output
out_idx = [1, 2]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 $T[32, 32] @0
  scope cube {
    let %v0 = %cid // 2
    let %v1 = %cid % 2
    copy(%l1_0, %p0[%v0 * 32:+32, %v1 * 32:+32])
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1[%v0 * 32:+32, %v1 * 32:+32], %l1_0)
    copy(%p2[%v0 * 32:+32, %v1 * 32:+32], %l1_0)
  }
}
)";

TEST(CopyL1, GmToL1AndBackWithTailsInFp16AndBf16) {
  const std::vector<float> x = Quarters(40 * 48, 7);
  std::vector<float> whole(64 * 64, 0.0f);
  for (int r = 0; r < 40; ++r) {
    for (int c = 0; c < 48; ++c) whole[r * 64 + c] = x[r * 48 + c];
  }
  for (const char* t : {"float16", "bfloat16"}) {
    SCOPED_TRACE(t);
    const bool f16 = std::string(t) == "float16";
    auto run =
        RunIr(Subst(kL1RoundTrip, {{"$T", t}}), {f16 ? F16({40, 48}, x) : BF16({40, 48}, x)});
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectNoFindings(run->report);
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), x, 0, 0));
    EXPECT_TRUE(AllClose(ToFloats(run->outputs[1]), whole, 0, 0));
  }
}

// A nonzero pad value with only a row tail: the rows past the tensor get the pad value.
constexpr char kL1RowPad[] = R"(
param %p0: gm float32[20, 16] input
param %p1: gm float32[64, 16] output
out_idx = [1]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 float32[32, 16] @0
  scope cube {
    copy(%l1_0, %p0[%cid * 32:+32, :]) {pad_value=2.5}
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1[%cid * 32:+32, :], %l1_0)
  }
}
)";

TEST(CopyL1, NonzeroPadValueFillsTheRowTail) {
  const std::vector<float> x = Quarters(20 * 16, 8);
  auto run = RunIr(kL1RowPad, {F32({20, 16}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), PaddedRows(x, 20, 16, 64, 2.5f), 0, 0));
}

// Rows spliced into one zN tile at rows that are not multiples of 16 (upstream's gm_to_l1
// splice tests): copy_gm_l1_nz writes only its rows, so the second copy's rows are not
// overwritten by padding of the first (nor raced with: both run on MTE2 without a barrier).
constexpr char kL1Splice[] = R"(
param %p0: gm float16[40, 32] input
param %p1: gm float16[40, 32] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 float16[40, 32] @0
  scope cube {
    copy(%l1_0[0:+5, :], %p0[0:+5, :])
    copy(%l1_0[5:+30, :], %p0[5:+30, :])
    copy(%l1_0[35:+5, :], %p0[35:+5, :])
    set_flag(mte2, mte3, 0)
    wait_flag(mte2, mte3, 0)
    copy(%p1, %l1_0)
  }
}
)";

TEST(CopyL1, RowsSplicedAtAnyRowKeepEachOther) {
  const std::vector<float> x = Quarters(40 * 32, 10);
  auto run = RunIr(kL1Splice, {F16({40, 32}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), x, 0, 0));
}

// Multi-buffered L1 slots selected by a loop variable.
constexpr char kL1Slots[] = R"(
param %p0: gm float16[128, 32] input
param %p1: gm float16[128, 32] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 float16[2, 32, 32] @0
  scope cube {
    for %v0 in serial(0, 4) {
      copy(%l1_0[%v0 % 2:+1, :, :], %p0[%v0 * 32:+32, :])
      set_flag(mte2, mte3, 0)
      wait_flag(mte2, mte3, 0)
      copy(%p1[%v0 * 32:+32, :], %l1_0[%v0 % 2:+1, :, :])
      set_flag(mte3, mte2, 0)
      wait_flag(mte3, mte2, 0)
    }
  }
}
)";

TEST(CopyL1, MultiBufferedSlotsSelectedAtRunTime) {
  const std::vector<float> x = Quarters(128 * 32, 9);
  auto run = RunIr(kL1Slots, {F16({128, 32}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), x, 0, 0));
}

// ---- diagnostics -----------------------------------------------------------------------------

std::string Kernel(const std::string& params, const std::string& allocs, const std::string& core,
                   const std::string& body) {
  return params + "out_idx = [1]\nworkspace_idx = []\nlaunch(1, threads=1) (%cid, %vid) {\n" +
         allocs + "  scope " + core + " {\n" + body + "  }\n}\n";
}

constexpr char kParams[] =
    "param %p0: gm float16[64, 64] input\nparam %p1: gm float16[64, 64] output\n";

TEST(CopyDiagnostics, RejectsMismatchedShapes) {
  ExpectCompileError(Kernel(kParams, "  alloc %ub_0: ub float16[64, 64] @0\n", "vector",
                            "    copy(%ub_0, %p0[0:+32, :])\n"),
                     "copy between regions of different shapes: destination [64, 64], source "
                     "[32, 64]");
}

TEST(CopyDiagnostics, RejectsAttributesOnPathsThatLackThem) {
  ExpectCompileError(Kernel(kParams, "  alloc %ub_0: ub float16[64, 64] @0\n", "vector",
                            "    copy(%ub_0, %p0) {transpose=true}\n"),
                     "transpose is only supported on copies from L1 to L0A/L0B");
  ExpectCompileError(Kernel(kParams, "  alloc %ub_0: ub float16[64, 64] @0\n", "vector",
                            "    copy(%ub_0, %p0) {enable_relu=true}\n"),
                     "enable_relu is only supported on copies out of L0C");
}

TEST(CopyDiagnostics, RejectsTypeChangesOutsideTheFixpipe) {
  ExpectCompileError(
      Kernel(kParams, "  alloc %ub_0: ub float32[64, 64] @0\n", "vector", "    copy(%ub_0, %p0)\n"),
      "copy from float16 to float32 changes the element type");
}

TEST(CopyDiagnostics, RejectsPathsWithoutAnInstructionOrOnTheWrongCore) {
  ExpectCompileError(Kernel(kParams, "  alloc %l0a_0: l0a float16[64, 64] @0\n", "cube",
                            "    copy(%l0a_0, %p0)\n"),
                     "copy from gm to l0a has no instruction in this ISA");
  ExpectCompileError(
      Kernel(kParams, "  alloc %ub_0: ub float16[64, 64] @0\n", "cube", "    copy(%ub_0, %p0)\n"),
      "copy from gm to ub runs on the aiv but is in the aic program");
}

TEST(CopyDiagnostics, RejectsL1ColumnsThatSplitAC0BlockInsideTheBuffer) {
  ExpectCompileError(Kernel(kParams, "  alloc %l1_0: l1 float16[64, 64] @0\n", "cube",
                            "    copy(%l1_0[:, 0:+8], %p0[:, 0:+8])\n"),
                     "has 8 columns, not a multiple of 16, and does not end at the buffer's last "
                     "column");
}

TEST(CopyDiagnostics, RejectsANonzeroL1PadValueWithAColumnTail) {
  ExpectCompileError(
      Kernel("param %p0: gm float16[64, 40] input\nparam %p1: gm float16[64, 64] output\n",
             "  alloc %l1_0: l1 float16[64, 32] @0\n", "cube",
             "    copy(%l1_0, %p0[:, %cid * 32 + 32:+32]) {pad_value=1.0}\n"),
      "a nonzero pad_value for an L1 tile whose columns may cross");
}

TEST(CopyDiagnostics, RejectsL0aRegionsThatSplitTheColumns) {
  ExpectCompileError(Kernel(kParams,
                            "  alloc %l1_0: l1 float16[64, 64] @0\n"
                            "  alloc %l0a_0: l0a float16[64, 64] @0\n",
                            "cube", "    copy(%l0a_0[:, 0:+32], %l1_0[:, 0:+32])\n"),
                     "an L0A region must span every column or at most 16 rows");
}

TEST(CopyDiagnostics, RejectsTransposedFp32Loads) {
  ExpectCompileError(
      Kernel("param %p0: gm float32[64, 64] input\nparam %p1: gm float32[64, 64] output\n",
             "  alloc %l1_0: l1 float32[32, 64] @0\n  alloc %l0a_0: l0a float32[64, 32] @0\n",
             "cube", "    copy(%l0a_0, %l1_0) {transpose=true}\n"),
      "a transposed load into L0A needs 16-bit elements");
}

TEST(CopyDiagnostics, RejectsL1ToGmColumnsThatAreNotWholeGroups) {
  ExpectCompileError(Kernel(kParams, "  alloc %l1_0: l1 float16[64, 24] @0\n", "cube",
                            "    copy(%p1[:, 0:+24], %l1_0)\n"),
                     "copy from L1 to GM moves whole groups of 16 columns");
}

}  // namespace
}  // namespace tilejit::codegen
