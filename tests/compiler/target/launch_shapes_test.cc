// SPDX-License-Identifier: Apache-2.0
// The launch binding: symbols from input shapes, derived output/workspace shapes, the grid, and
// one test per error with its message.
#include "compiler/target/launch_shapes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/target/binary_samples.h"

namespace tilejit::target {
namespace {

using ::testing::HasSubstr;
using Shapes = std::vector<std::vector<int64_t>>;

KernelMetadata SymbolicKernel() { return testing::SampleSymbolicBinary().metadata; }

void ExpectBindError(const Result<LaunchShapes>& r, const std::string& message) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr(message));
}

TEST(LaunchShapes, StaticKernelKeepsItsShapes) {
  const KernelMetadata m = testing::SampleBinary().metadata;
  auto r = BindInputShapes(m, Shapes{{128, 64}, {64, 256}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->symbols.empty());
  EXPECT_EQ(r->block_count, 24);
  EXPECT_EQ(r->shapes[2], (std::vector<int64_t>{128, 256}));
  EXPECT_EQ(r->bytes[3], 24 * 4096);
  EXPECT_EQ(r->total_bytes, 128 * 64 * 2 + 64 * 256 * 2 + 128 * 256 * 4 + 24 * 4096);
}

TEST(LaunchShapes, BindsTwoSymbolsAndDerivesOutputsGridAndWorkspace) {
  const KernelMetadata m = SymbolicKernel();
  auto r = BindInputShapes(m, Shapes{{300, 64}, {64, 40}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->symbols, (std::vector<int64_t>{300, 40}));
  EXPECT_EQ(r->block_count, 3);  // ceil(300 / 128)
  EXPECT_EQ(r->shapes[2], (std::vector<int64_t>{300, 40}));
  EXPECT_EQ(r->shapes[3], (std::vector<int64_t>{3, 4096}));  // kBlockCountDim
  EXPECT_EQ(r->bytes[2], 300 * 40 * 4);
  EXPECT_EQ(r->sources[1].param, 1);
  EXPECT_EQ(r->sources[1].dim, 1);
  EXPECT_EQ(SymbolBindingText(m, r->symbols), "M=300, N=40");
  auto args = LaunchArgs(m, *r, std::vector<uint64_t>{10, 20, 30, 40});
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(*args, (std::vector<uint64_t>{10, 20, 30, 40, 300, 40}));
  EXPECT_FALSE(LaunchArgs(m, *r, std::vector<uint64_t>{10}).ok());
}

TEST(LaunchShapes, ZeroBlocksIsAValidEmptyLaunch) {
  auto r = BindInputShapes(SymbolicKernel(), Shapes{{0, 64}, {64, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->block_count, 0);
  EXPECT_EQ(r->shapes[2], (std::vector<int64_t>{0, 8}));
  EXPECT_EQ(r->shapes[3], (std::vector<int64_t>{0, 4096}));
  EXPECT_EQ(r->bytes[3], 0);
}

TEST(LaunchShapes, RejectsRankAndStaticDimMismatches) {
  const KernelMetadata m = SymbolicKernel();
  ExpectBindError(BindInputShapes(m, Shapes{{300}, {64, 40}}),
                  "A: rank 1 but the kernel expects rank 2");
  ExpectBindError(BindInputShapes(m, Shapes{{300, 65}, {64, 40}}),
                  "A: dim 1 is 65 but the kernel was compiled for 64");
  ExpectBindError(BindInputShapes(m, Shapes{{300, 64}}), "takes 2 inputs, 1 given");
}

TEST(LaunchShapes, RejectsASymbolBoundTwiceNamingBothTensors) {
  KernelMetadata m = SymbolicKernel();
  m.params[1].shape = {0, 0};
  m.params[1].dim_symbols = {0, 1};  // B is [M, N] here
  ExpectBindError(BindInputShapes(m, Shapes{{64, 64}, {65, 8}}),
                  "symbol M is 64 from A (dim 0) but 65 from B (dim 0)");
  // A caller-given output must agree too.
  const KernelMetadata s = SymbolicKernel();
  const std::vector<int64_t> a{64, 64}, b{64, 8}, c{65, 8};
  const GivenShape given[] = {{0, a}, {1, b}, {2, c}};
  ExpectBindError(BindLaunchShapes(s, given),
                  "symbol M is 64 from A (dim 0) but 65 from C (dim 0)");
  const std::vector<int64_t> good{64, 8};
  const GivenShape ok[] = {{0, a}, {1, b}, {2, good}};
  EXPECT_TRUE(BindLaunchShapes(s, ok).ok());
}

TEST(LaunchShapes, RejectsValuesOutsideTheSymbolsRange) {
  const KernelMetadata m = SymbolicKernel();
  ExpectBindError(BindInputShapes(m, Shapes{{64, 64}, {64, 65537}}),
                  "symbol N is 65537 from B (dim 1), above its max 65536");
  ExpectBindError(BindInputShapes(m, Shapes{{-1, 64}, {64, 8}}),
                  "symbol M is -1 from A (dim 0), which is negative");
}

TEST(LaunchShapes, RejectsOverflowingTensorBytes) {
  KernelMetadata m = SymbolicKernel();
  m.symbols[0].max = INT32_MAX;
  m.symbols[1].max = INT32_MAX;
  m.params[2].shape = {0, 0, 1 << 20};
  m.params[2].dim_symbols = {0, 1, kStaticDim};
  ExpectBindError(BindInputShapes(m, Shapes{{INT32_MAX, 64}, {64, INT32_MAX}}),
                  "C: tensor size overflows 64 bits");
}

TEST(LaunchShapes, RejectsBlockCountsOutOfRangeAndDivisionByZero) {
  KernelMetadata m = SymbolicKernel();
  m.grid = {"c0", "s0", "-"};
  ExpectBindError(BindInputShapes(m, Shapes{{5, 64}, {64, 8}}),
                  "block count -5 (M=5, N=8) is outside");
  m.grid = {"s0", "s0", "*", "s0", "*"};
  ExpectBindError(BindInputShapes(m, Shapes{{2000, 64}, {64, 8}}), "is outside [0, 2147483648]");
  m.grid = {"c1", "s0", "//"};
  ExpectBindError(BindInputShapes(m, Shapes{{0, 64}, {64, 8}}), "divides by zero");
}

TEST(LaunchShapes, ChecksCompilerWorkspacesAndGivenBlockCountDims) {
  KernelMetadata m = SymbolicKernel();
  m.params[3].workspace_bytes_per_block = 4097;
  ExpectBindError(BindInputShapes(m, Shapes{{300, 64}, {64, 8}}),
                  "ws0: 3 blocks of 4097 bytes do not fit in its 12288 bytes");
  const KernelMetadata s = SymbolicKernel();
  const std::vector<int64_t> a{300, 64}, b{64, 8}, ws{4, 4096};
  const GivenShape given[] = {{0, a}, {1, b}, {3, ws}};
  ExpectBindError(BindLaunchShapes(s, given), "ws0: dim 0 is 4 but the launch has 3 blocks");
}

TEST(LaunchShapes, RejectsBadGivenLists) {
  const KernelMetadata m = SymbolicKernel();
  const std::vector<int64_t> a{300, 64};
  const GivenShape missing[] = {{0, a}};
  ExpectBindError(BindLaunchShapes(m, missing), "B: input not given");
  const GivenShape twice[] = {{0, a}, {0, a}};
  ExpectBindError(BindLaunchShapes(m, twice), "A: shape given twice");
  const GivenShape bad[] = {{7, a}};
  ExpectBindError(BindLaunchShapes(m, bad), "a shape for param 7");
}

TEST(LaunchShapes, LaunchBlockCountIsForDevices) {
  const KernelMetadata m = SymbolicKernel();
  EXPECT_EQ(*LaunchBlockCount(m, std::vector<int64_t>{129, 1}), 2);
  EXPECT_FALSE(LaunchBlockCount(m, std::vector<int64_t>{129}).ok());
  EXPECT_EQ(*LaunchBlockCount(testing::SampleBinary().metadata, {}), 24);
}

}  // namespace
}  // namespace tilejit::target
