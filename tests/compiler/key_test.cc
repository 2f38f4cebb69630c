// SPDX-License-Identifier: Apache-2.0
// Keys are compared for equality and inequality only, never against literal values.
#include "compiler/key.h"

#include <gtest/gtest.h>

#include "compiler/ir/ir_parser.h"

namespace tilejit::compiler {
namespace {

constexpr std::string_view kKernel = R"(param %p0: gm float32[8] input
param %p1: gm float32[8] output
out_idx = [1]
workspace_idx = []
launch(1, threads=0) (%cid, %vid) {
  alloc %ub_0: ub float32[8]
  copy(%ub_0, %p0)
  copy(%p1, %ub_0)
}
)";

ir::Kernel TestKernel() {
  Result<ir::Kernel> k = ir::ParseTileIrString(kKernel);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : ir::Kernel{};
}

std::string KeyWith(const std::vector<PassConfigEntry>& configs) {
  Result<NormalizedPassConfigs> n = NormalizePassConfigs(configs);
  EXPECT_TRUE(n.ok()) << n.status();
  return ComputeCacheKey(TestKernel(), "frontend-0.1", "ascend910b2", *n);
}

TEST(CacheKey, EmptyConfigsEqualAllFourKeysFalse) {
  EXPECT_EQ(KeyWith({}), KeyWith({{"TL_ASCEND_MEMORY_PLANNING", false},
                                  {"TL_ASCEND_AUTO_CV_COMBINE", false},
                                  {"TL_ASCEND_AUTO_CV_SYNC", false},
                                  {"TL_ASCEND_AUTO_SYNC", false}}));
}

TEST(CacheKey, EnumAndStringSpellingsGiveOneKey) {
  EXPECT_EQ(KeyWith({{"TL_ASCEND_AUTO_SYNC", true}}), KeyWith({{"tl.ascend_auto_sync", true}}));
  EXPECT_EQ(KeyWith({{"tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC", true}}),
            KeyWith({{"tl.ascend_auto_cross_core_sync", true}}));
}

TEST(CacheKey, IgnoredKeysLeaveKeyUnchanged) {
  EXPECT_EQ(KeyWith({}), KeyWith({{"tir.merge_static_smem", true}}));
  EXPECT_EQ(KeyWith({{"TL_ASCEND_AUTO_SYNC", true}}),
            KeyWith({{"TL_ASCEND_AUTO_SYNC", true}, {"tl.disable_tma_lower", true}}));
}

TEST(CacheKey, EachKnownNonDefaultKeyChangesKey) {
  std::string base = KeyWith({});
  std::set<std::string> keys = {base};
  for (const std::string& k : KnownPassConfigKeys()) {
    std::string key = KeyWith({{k, true}});
    EXPECT_NE(key, base) << k;
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), KnownPassConfigKeys().size() + 1);  // all distinct
}

TEST(CacheKey, ExplicitMultiBufferEqualToItsDefaultEqualsUnset) {
  EXPECT_EQ(KeyWith({{"TL_ASCEND_MEMORY_PLANNING", true}}),
            KeyWith({{"TL_ASCEND_MEMORY_PLANNING", true}, {"tilejit.auto_multi_buffer", true}}));
  EXPECT_NE(KeyWith({{"TL_ASCEND_MEMORY_PLANNING", true}}),
            KeyWith({{"TL_ASCEND_MEMORY_PLANNING", true}, {"tilejit.auto_multi_buffer", false}}));
  EXPECT_EQ(KeyWith({}), KeyWith({{"tilejit.auto_multi_buffer", false}}));
}

KeyInputs BaseInputs() {
  KeyInputs in;
  in.compiler_fingerprint = "frontend-0.1";
  in.target_hash = "ascend910b2";
  in.ir_hash = "abc";
  in.pass_configs = *NormalizePassConfigs({});
  in.out_idx = {1};
  return in;
}

TEST(CacheKey, EveryFieldChangesKey) {
  std::string base = ComputeCacheKey(BaseInputs());
  EXPECT_EQ(base, ComputeCacheKey(BaseInputs()));
  EXPECT_EQ(base.size(), 64u);
  KeyInputs in = BaseInputs();
  in.compiler_fingerprint = "frontend-0.2";
  EXPECT_NE(ComputeCacheKey(in), base);
  in = BaseInputs();
  in.target_hash = "ascend910b4";
  EXPECT_NE(ComputeCacheKey(in), base);
  in = BaseInputs();
  in.ir_hash = "abd";
  EXPECT_NE(ComputeCacheKey(in), base);
  in = BaseInputs();
  in.out_idx = {0};
  EXPECT_NE(ComputeCacheKey(in), base);
  in = BaseInputs();
  in.workspace_idx = {1};
  EXPECT_NE(ComputeCacheKey(in), base);
}

TEST(CacheKey, FieldBoundariesAreUnambiguous) {
  KeyInputs a = BaseInputs(), b = BaseInputs();
  a.compiler_fingerprint = "ab";
  a.target_hash = "c";
  b.compiler_fingerprint = "a";
  b.target_hash = "bc";
  EXPECT_NE(ComputeCacheKey(a), ComputeCacheKey(b));
  a = BaseInputs();
  b = BaseInputs();
  a.out_idx = {1, 2};
  b.out_idx = {12};
  EXPECT_NE(ComputeCacheKey(a), ComputeCacheKey(b));
  a.out_idx = {};
  a.workspace_idx = {1};
  b.out_idx = {1};
  b.workspace_idx = {};
  EXPECT_NE(ComputeCacheKey(a), ComputeCacheKey(b));
}

TEST(CacheKey, KernelOutIdxChangesKey) {
  Result<NormalizedPassConfigs> n = NormalizePassConfigs({});
  ir::Kernel k = TestKernel();
  std::string base = ComputeCacheKey(k, "f", "ascend910b2", *n);
  k.out_idx = {0};
  EXPECT_NE(ComputeCacheKey(k, "f", "ascend910b2", *n), base);
}

TEST(NormalizeParamIndices, ResolvesNegativesAndRejectsBadIndices) {
  Result<std::vector<int>> r = NormalizeParamIndices({-1, 0}, 3, "out_idx");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<int>{2, 0}));
  EXPECT_FALSE(NormalizeParamIndices({3}, 3, "out_idx").ok());
  EXPECT_FALSE(NormalizeParamIndices({-4}, 3, "out_idx").ok());
  Result<std::vector<int>> dup = NormalizeParamIndices({2, -1}, 3, "out_idx");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("twice"), std::string::npos);
}

}  // namespace
}  // namespace tilejit::compiler
