// SPDX-License-Identifier: Apache-2.0
#include "compiler/pass_config.h"

#include <gtest/gtest.h>

namespace tilejit::compiler {
namespace {

NormalizedPassConfigs MustNormalize(const std::vector<PassConfigEntry>& entries) {
  Result<NormalizedPassConfigs> r = NormalizePassConfigs(entries);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : NormalizedPassConfigs{};
}

TEST(PassConfig, DefaultsAreAllFalse) {
  NormalizedPassConfigs n = MustNormalize({});
  EXPECT_EQ(n.configs, PassConfigs{});
  EXPECT_TRUE(n.ignored_keys.empty());
  EXPECT_EQ(n.canonical,
            "tilejit.auto_multi_buffer=false\n"
            "tl.ascend_auto_cross_core_sync=false\n"
            "tl.ascend_auto_cv_combine=false\n"
            "tl.ascend_auto_sync=false\n"
            "tl.ascend_memory_planning=false\n");
}

TEST(PassConfig, AcceptsEnumStringAndDottedEnumSpellings) {
  NormalizedPassConfigs a = MustNormalize({{"TL_ASCEND_AUTO_SYNC", true}});
  NormalizedPassConfigs b = MustNormalize({{"tl.ascend_auto_sync", true}});
  NormalizedPassConfigs c = MustNormalize({{"tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC", true}});
  NormalizedPassConfigs d = MustNormalize({{"PassConfigKey.TL_ASCEND_AUTO_SYNC", true}});
  EXPECT_TRUE(a.configs.auto_sync);
  EXPECT_EQ(a.canonical, b.canonical);
  EXPECT_EQ(a.canonical, c.canonical);
  EXPECT_EQ(a.canonical, d.canonical);
}

TEST(PassConfig, MapsEachSeedKeyToItsSwitch) {
  NormalizedPassConfigs n = MustNormalize({{"TL_ASCEND_MEMORY_PLANNING", true},
                                           {"tl.ascend_auto_cv_combine", true},
                                           {"TL_ASCEND_AUTO_CV_SYNC", true},
                                           {"tl.ascend_auto_sync", false}});
  EXPECT_TRUE(n.configs.memory_planning);
  EXPECT_TRUE(n.configs.auto_cv_combine);
  EXPECT_TRUE(n.configs.auto_cv_sync);
  EXPECT_FALSE(n.configs.auto_sync);
  EXPECT_NE(n.canonical.find("tl.ascend_auto_cross_core_sync=true"), std::string::npos);
}

TEST(PassConfig, AutoMultiBufferFollowsMemoryPlanningUnlessGiven) {
  EXPECT_TRUE(MustNormalize({{"TL_ASCEND_MEMORY_PLANNING", true}}).configs.auto_multi_buffer);
  EXPECT_FALSE(MustNormalize({{"TL_ASCEND_MEMORY_PLANNING", false}}).configs.auto_multi_buffer);
  NormalizedPassConfigs off =
      MustNormalize({{"TL_ASCEND_MEMORY_PLANNING", true}, {"tilejit.auto_multi_buffer", false}});
  EXPECT_FALSE(off.configs.auto_multi_buffer);
  EXPECT_EQ(off.auto_multi_buffer_given, false);
  NormalizedPassConfigs on = MustNormalize({{"tilejit.auto_multi_buffer", true}});
  EXPECT_TRUE(on.configs.auto_multi_buffer);
  EXPECT_FALSE(on.configs.memory_planning);
  EXPECT_FALSE(MustNormalize({}).auto_multi_buffer_given.has_value());
}

TEST(PassConfig, IgnoresTargetIrrelevantKeysAndReportsThem) {
  NormalizedPassConfigs n = MustNormalize({{"tir.merge_static_smem", true},
                                           {"TL_DISABLE_WARP_SPECIALIZED", true},
                                           {"tl.config_index_bitwidth", int64_t{64}},
                                           {"tl.Simplify", std::string("anything")},
                                           {"tir.merge_static_smem", false}});
  EXPECT_EQ(n.ignored_keys,
            (std::vector<std::string>{"tir.merge_static_smem", "tl.Simplify",
                                      "tl.config_index_bitwidth", "tl.disable_warp_specialized"}));
  EXPECT_EQ(n.canonical, MustNormalize({}).canonical);
}

TEST(PassConfig, RejectsUnknownKeyListingKnownOnes) {
  Result<NormalizedPassConfigs> r = NormalizePassConfigs({{"tl.ascend_auto_synk", true}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("unknown pass config key 'tl.ascend_auto_synk'"),
            std::string::npos);
  EXPECT_NE(r.status().message().find("tl.ascend_auto_sync (TL_ASCEND_AUTO_SYNC)"),
            std::string::npos)
      << r.status();
  EXPECT_FALSE(NormalizePassConfigs({{"tilelang.PassConfigKey.tl.ascend_auto_sync", true}}).ok());
}

TEST(PassConfig, RejectsValueOfWrongType) {
  Result<NormalizedPassConfigs> r = NormalizePassConfigs({{"TL_ASCEND_AUTO_SYNC", int64_t{1}}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'tl.ascend_auto_sync' must be a bool"), std::string::npos);
  EXPECT_FALSE(NormalizePassConfigs({{"tir.merge_static_smem", std::string("yes")}}).ok());
  EXPECT_FALSE(NormalizePassConfigs({{"tl.dynamic_alignment", 1.5}}).ok());
}

TEST(PassConfig, WarnsWhenCvSyncIsSetWithoutCvCombine) {
  EXPECT_EQ(MustNormalize({{"TL_ASCEND_AUTO_CV_SYNC", true}}).warnings.size(), 1u);
  EXPECT_TRUE(MustNormalize({{"TL_ASCEND_AUTO_CV_SYNC", true}, {"TL_ASCEND_AUTO_CV_COMBINE", true}})
                  .warnings.empty());
}

TEST(PassConfig, LaterEntryWinsAcrossSpellings) {
  NormalizedPassConfigs n =
      MustNormalize({{"TL_ASCEND_AUTO_SYNC", true}, {"tl.ascend_auto_sync", false}});
  EXPECT_FALSE(n.configs.auto_sync);
}

TEST(PassConfig, CanonicalKeyAndKnownKeyList) {
  EXPECT_EQ(CanonicalPassConfigKey("TL_ASCEND_AUTO_CV_SYNC"), "tl.ascend_auto_cross_core_sync");
  EXPECT_EQ(CanonicalPassConfigKey("tir.disable_vectorize"), "tir.disable_vectorize");
  EXPECT_EQ(CanonicalPassConfigKey("nope"), std::nullopt);
  EXPECT_EQ(KnownPassConfigKeys().size(), 5u);
}

}  // namespace
}  // namespace tilejit::compiler
