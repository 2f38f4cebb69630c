// SPDX-License-Identifier: Apache-2.0
// Dynamic shapes through the C runtime (tj_launch): the hand-built copy_rows binary launched
// at several M, its module info for a symbolic kernel, and mismatched buffers' errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runner/runtime/tilejit_runtime.h"
#include "tests/runner/symbolic_kernel.h"

namespace {

using ::testing::HasSubstr;

class RuntimeSymbolic : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::vector<uint8_t> file = tilejit::testing::CopyRowsFile();
    ASSERT_EQ(tj_module_load(file.data(), file.size(), &module_), TJ_OK) << tj_last_error();
  }
  void TearDown() override { tj_module_unload(module_); }

  // Launches with A [a_rows, 8] and B [b_rows, 8]; on TJ_OK fills *blocks and B's bytes.
  tj_status Launch(int64_t a_rows, int64_t b_rows, std::vector<uint8_t>* out, int64_t* blocks) {
    in_ = tilejit::testing::CopyRowsInput(a_rows);
    out->assign(static_cast<size_t>(b_rows * 32), 0xee);
    shape_a_[0] = a_rows;
    shape_b_[0] = b_rows;
    tj_buffer buffers[2] = {{in_.data(), shape_a_, 2, TJ_DTYPE_INT32},
                            {out->data(), shape_b_, 2, TJ_DTYPE_INT32}};
    tj_launch_args args;
    tj_launch_args_init(&args);
    args.buffer_count = 2;
    args.buffers = buffers;
    tj_report* report = nullptr;
    const tj_status s = tj_launch(module_, &args, &report);
    if (s != TJ_OK) return s;
    tj_report_summary summary;
    EXPECT_EQ(tj_report_get_summary(report, &summary), TJ_OK);
    EXPECT_EQ(summary.ok, 1) << summary.message;
    *blocks = summary.block_count;
    tj_report_free(report);
    return s;
  }

  tj_module* module_ = nullptr;
  std::vector<uint8_t> in_;
  int64_t shape_a_[2] = {0, 8};
  int64_t shape_b_[2] = {0, 8};
};

TEST_F(RuntimeSymbolic, ModuleInfoMarksSymbolicDims) {
  tj_module_info info;
  ASSERT_EQ(tj_module_get_info(module_, &info), TJ_OK);
  EXPECT_EQ(info.block_count, 0);  // the grid depends on M
  tj_param_info p;
  ASSERT_EQ(tj_module_get_param(module_, 1, &p), TJ_OK);
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.shape[0], 0);
  EXPECT_EQ(p.shape[1], 8);
  EXPECT_EQ(p.bytes, -1);
}

TEST_F(RuntimeSymbolic, CopiesEveryRowAtEveryM) {
  for (int64_t m : {3, 64, 129, 0}) {
    std::vector<uint8_t> out;
    int64_t blocks = -1;
    ASSERT_EQ(Launch(m, m, &out, &blocks), TJ_OK) << "M=" << m << ": " << tj_last_error();
    EXPECT_EQ(blocks, (m + 63) / 64);
    EXPECT_EQ(out, in_) << "M=" << m;
  }
}

TEST_F(RuntimeSymbolic, OutputShapesMustAgreeWithTheInputs) {
  std::vector<uint8_t> out;
  int64_t blocks = -1;
  EXPECT_EQ(Launch(64, 65, &out, &blocks), TJ_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(tj_last_error(), HasSubstr("symbol M is 64 from A (dim 0) but 65 from B (dim 0)"));
  EXPECT_EQ(out, std::vector<uint8_t>(65 * 32, 0xee));  // nothing written
  shape_b_[1] = 9;
  EXPECT_EQ(Launch(4, 4, &out, &blocks), TJ_ERR_INVALID_ARGUMENT);
  shape_b_[1] = 8;
}

TEST_F(RuntimeSymbolic, StaticDimMismatchAndMaxAreNamed) {
  shape_a_[1] = 7;
  std::vector<uint8_t> out;
  int64_t blocks = -1;
  EXPECT_EQ(Launch(4, 4, &out, &blocks), TJ_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(tj_last_error(), HasSubstr("A: dim 1 is 7 but the kernel was compiled for 8"));
  shape_a_[1] = 8;
  EXPECT_EQ(Launch(5000, 5000, &out, &blocks), TJ_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(tj_last_error(), HasSubstr("symbol M is 5000 from A (dim 0), above its max 4096"));
}

}  // namespace
