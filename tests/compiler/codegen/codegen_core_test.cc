// SPDX-License-Identifier: Apache-2.0
// Codegen core, scalar programs on the simulator: block/sub-block indices, lets, static and
// runtime-bound loops, if/else, select, floor division, casts, alloc_var accumulation, float
// scalars and scalar UB/GM memory, each compared with the value computed in C++.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/compiler/codegen/codegen_test_util.h"

namespace tilejit::codegen {
namespace {

using testing::AllClose;
using testing::ExpectNoFindings;
using testing::I32;
using testing::RunIr;
using testing::ToFloats;
using testing::ToInt32;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// Runs `ir` with `inputs` and returns output 0 as int32 (empty on failure).
std::vector<int32_t> RunInts(const std::string& ir, const std::vector<runner::NpyArray>& inputs) {
  auto run = RunIr(ir, inputs);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return {};
  ExpectNoFindings(run->report);
  return ToInt32(run->outputs[0]);
}

TEST(CodegenScalar, StoresBlockIndexArithmeticToGm) {
  auto out = RunInts(R"(param %p0: gm int32[4] output
out_idx = [0]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  scope vector {
    %p0[%cid] = %cid * 10 + 3
  }
}
)",
                     {});
  EXPECT_EQ(out, (std::vector<int32_t>{3, 13, 23, 33}));
}

TEST(CodegenScalar, BothVectorCoresSeeTheirOwnVid) {
  auto out = RunInts(R"(param %p0: gm int32[6] output
out_idx = [0]
workspace_idx = []
launch(3, threads=0) (%cid, %vid) {
  scope vector {
    let %v0 = %cid * 2 + %vid
    %p0[%v0] = %cid * 100 + %vid
  }
}
)",
                     {});
  EXPECT_EQ(out, (std::vector<int32_t>{0, 1, 100, 101, 200, 201}));
}

TEST(CodegenScalar, NestedLoopsAccumulateIntoAllocVar) {
  auto out = RunInts(R"(param %p0: gm int32[2] output
out_idx = [0]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  alloc %var_0: var int32[1]
  scope vector {
    %var_0[0] = 0
    for %v0 in serial(0, 4) {
      for %v1 in serial(1, 3) {
        let %v2 = %v0 * %v1 + %cid
        %var_0[0] = %var_0[0] + %v2
      }
    }
    %p0[%cid] = %var_0[0]
  }
}
)",
                     {});
  std::vector<int32_t> want;
  for (int cid = 0; cid < 2; ++cid) {
    int acc = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = 1; j < 4; ++j) acc += i * j + cid;
    want.push_back(acc);
  }
  EXPECT_EQ(out, want);
}

TEST(CodegenScalar, RuntimeBoundLoopsRunTheirTripCountIncludingNone) {
  // min from GM, extent from the block index and GM: extents -1, 0, 1, 2.
  auto out = RunInts(R"(param %p0: gm int32[2] input
param %p1: gm int32[4] output
out_idx = [1]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  alloc %var_0: var int32[1]
  scope vector {
    %var_0[0] = 0
    for %v0 in serial(%p0[0], %cid + %p0[1]) {
      %var_0[0] = %var_0[0] + %v0 * 10 + 1
    }
    %p1[%cid] = %var_0[0]
  }
}
)",
                     {I32({2}, {2, -1})});
  std::vector<int32_t> want;
  for (int cid = 0; cid < 4; ++cid) {
    int acc = 0;
    for (int i = 2; i < 2 + cid - 1; ++i) acc += i * 10 + 1;
    want.push_back(acc);
  }
  EXPECT_EQ(out, want);
}

TEST(CodegenScalar, IfElseAndSelectPickTheRightValues) {
  auto out = RunInts(R"(param %p0: gm int32[8] output
out_idx = [0]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  scope vector {
    if %cid % 2 == 0 {
      %p0[%cid] = 7
    } else {
      %p0[%cid] = select(%cid < 2, 100, 200)
    }
    %p0[%cid + 4] = 0
    if %cid >= 2 and not %cid == 3 {
      %p0[%cid + 4] = -1
    }
  }
}
)",
                     {});
  EXPECT_EQ(out, (std::vector<int32_t>{7, 100, 7, 200, 0, 0, -1, 0}));
}

TEST(CodegenScalar, FloorDivisionAndModuloOfNegativesMatchPython) {
  // Per block: x // 3, x % 3, x // 4, x % 4, x // d, x % d with x = cid - 5, d = cid - 9
  // (runtime, negative); block 0 also stores constant folds.
  auto out = RunInts(R"(param %p0: gm int32[52] output
out_idx = [0]
workspace_idx = []
launch(8, threads=1) (%cid, %vid) {
  scope vector {
    let %v0 = %cid - 5
    let %v1 = %cid - 9
    %p0[%cid * 6] = %v0 // 3
    %p0[%cid * 6 + 1] = %v0 % 3
    %p0[%cid * 6 + 2] = %v0 // 4
    %p0[%cid * 6 + 3] = %v0 % 4
    %p0[%cid * 6 + 4] = %v0 // %v1
    %p0[%cid * 6 + 5] = %v0 % %v1
    if %cid == 0 {
      %p0[48] = -7 // 2
      %p0[49] = -7 % 2
      %p0[50] = 7 // -2
      %p0[51] = 7 % -2
    }
  }
}
)",
                     {});
  std::vector<int32_t> want;
  for (int cid = 0; cid < 8; ++cid) {
    const int64_t x = cid - 5, d = cid - 9;
    for (int64_t v : {FloorDiv(x, 3), FloorMod(x, 3), FloorDiv(x, 4), FloorMod(x, 4),
                      FloorDiv(x, d), FloorMod(x, d)})
      want.push_back(static_cast<int32_t>(v));
  }
  for (int64_t v : {FloorDiv(-7, 2), FloorMod(-7, 2), FloorDiv(7, -2), FloorMod(7, -2)})
    want.push_back(static_cast<int32_t>(v));
  EXPECT_EQ(out, want);
}

TEST(CodegenScalar, CastsWrapNarrowIntsAndTruncateFloats) {
  auto out = RunInts(R"(param %p0: gm int32[8] output
out_idx = [0]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  scope vector {
    %p0[%cid] = cast<int8>(%cid * 100)
    %p0[%cid + 4] = cast<int32>(cast<float32>(%cid) * 1.5 - 1.0)
  }
}
)",
                     {});
  std::vector<int32_t> want;
  for (int cid = 0; cid < 4; ++cid) want.push_back(static_cast<int8_t>(cid * 100));
  for (int cid = 0; cid < 4; ++cid) want.push_back(static_cast<int32_t>(cid * 1.5f - 1.0f));
  EXPECT_EQ(out, want);
}

TEST(CodegenScalar, FloatLetsArithmeticAndComparisons) {
  auto run = RunIr(R"(param %p0: gm float32[4] input
param %p1: gm float32[12] output
out_idx = [1]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  scope vector {
    let %v0: float32 = cast<float32>(%cid) * 0.5 + 1.0
    %p1[%cid] = select(%v0 > 1.75, %v0 * 2.0, -%v0)
    %p1[%cid + 4] = max(%p0[%cid], %v0) / 2.0 - min(%p0[%cid], 0.0)
    %p1[%cid + 8] = select(%p0[%cid] <= %v0, 1.0, 0.0)
  }
}
)",
                   {testing::F32({4}, {3.0f, -2.0f, 2.0f, 0.25f})});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  const std::vector<float> in = {3.0f, -2.0f, 2.0f, 0.25f};
  std::vector<float> want(12);
  for (int cid = 0; cid < 4; ++cid) {
    const float v = static_cast<float>(cid) * 0.5f + 1.0f;
    want[cid] = v > 1.75f ? v * 2.0f : -v;
    want[cid + 4] = std::max(in[cid], v) / 2.0f - std::min(in[cid], 0.0f);
    want[cid + 8] = in[cid] <= v ? 1.0f : 0.0f;
  }
  EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 0, 0));
}

TEST(CodegenScalar, ScalarUbStoreAndLoadOnTheVectorCore) {
  auto out = RunInts(R"(param %p0: gm int32[4] output
out_idx = [0]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  alloc %ub_0: ub int32[2, 8] @0
  scope vector {
    %ub_0[1, %cid] = %cid + 5
    %p0[%cid] = %ub_0[1, %cid] * 2
  }
}
)",
                     {});
  EXPECT_EQ(out, (std::vector<int32_t>{10, 12, 14, 16}));
}

TEST(CodegenScalar, GuardedLoadInSelectDoesNotReadOutOfBounds) {
  // Block 3 would read %p0[3], past the 3-element input, if the arm ran unconditionally.
  auto out = RunInts(R"(param %p0: gm int32[3] input
param %p1: gm int32[4] output
out_idx = [1]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  scope vector {
    %p1[%cid] = select(%cid < 3, %p0[%cid], -1)
  }
}
)",
                     {I32({3}, {4, 5, 6})});
  EXPECT_EQ(out, (std::vector<int32_t>{4, 5, 6, -1}));
}

}  // namespace
}  // namespace tilejit::codegen
