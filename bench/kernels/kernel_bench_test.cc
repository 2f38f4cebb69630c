// SPDX-License-Identifier: Apache-2.0
// Smoke test of the bench/kernels harness at a small shape: the Expert GEMMs compile, run and
// produce sane figures; a Developer kernel either runs or reports why it does not compile.
// No assertion on cycle targets: the bench prints those.
#include "bench/kernels/kernel_bench.h"

#include <gtest/gtest.h>

#include <string>

namespace tilejit::bench {
namespace {

const std::string kKernels = std::string(TILEJIT_TESTDATA_DIR) + "/kernels";
const std::string kBench = std::string(TILEJIT_SOURCE_DIR) + "/bench/kernels";

void ExpectSaneRun(const VariantResult& r) {
  ASSERT_TRUE(r.ran) << r.error;
  EXPECT_GT(r.kernel_cycles, 0u);
  EXPECT_EQ(r.blocks, 4);  // (256 / 128) x (512 / 256)
  EXPECT_GT(r.min_efficiency, 0.0);
  EXPECT_LE(r.min_efficiency, r.median_efficiency);
  EXPECT_LE(r.median_efficiency, 1.0);
  EXPECT_EQ(r.median_overlap, 0.0);  // cube-only kernels
  EXPECT_EQ(r.output_dtype, "float32");
  EXPECT_GE(r.max_rel_error, 0.0);
  EXPECT_LT(r.max_rel_error, 1e-3);
}

TEST(KernelBench, ExpertGemmsRunAtASmallShapeWithSaneFigures) {
  const std::vector<int64_t> args = {256, 512, 128, 128, 256, 64};
  ExpectSaneRun(RunVariant(GemmVariant("e", kKernels + "/gemm_expert.py", "matmul", args)));
  ExpectSaneRun(
      RunVariant(GemmVariant("p", kKernels + "/gemm_pingpong_expert.py", "matmul_pingpong", args)));
}

// The Developer passes are work in progress: the harness must either run the kernel or say
// why not, in one of its two forms; whether the kernel is right is the shared-kernel tests' job.
TEST(KernelBench, DeveloperGemmRunsOrSaysWhyNot) {
  const std::vector<int64_t> args = {256, 512, 128, 128, 256, 64};
  VariantResult r =
      RunVariant(GemmVariant("d", kBench + "/gemm_developer_fp32.py", "matmul", args));
  if (r.ran) {
    EXPECT_EQ(r.output_dtype, "float32");
    EXPECT_GT(r.kernel_cycles, 0u);
    EXPECT_EQ(r.block_reports.size(), 4u);
    return;
  }
  const std::string prefix = r.compiled ? "launch failed: " : "does not compile yet: ";
  EXPECT_EQ(r.error.rfind(prefix, 0), 0u) << r.error;
  EXPECT_GT(r.error.size(), prefix.size());
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << "one line per row";
}

TEST(KernelBench, MissingSourceIsAnErrorNotACrash) {
  VariantResult r = RunVariant(GemmVariant("x", kBench + "/no_such.py", "matmul", {1, 1, 1}));
  EXPECT_FALSE(r.compiled);
  EXPECT_NE(r.error.find("cannot read"), std::string::npos);
}

TEST(KernelBench, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(Median({}), 0.0);
  EXPECT_EQ(Median({3, 1, 2}), 2.0);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace tilejit::bench
