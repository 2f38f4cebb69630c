// SPDX-License-Identifier: Apache-2.0
// DecisionDb: values survive reopening, replace by key, keep only the newest max_entries, and
// a file that is not a database (or of a newer schema) is refused at Open.
#include "cache/decision_db.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/cache/cache_test_util.h"

namespace tilejit::cache {
namespace {

using testing::ScratchDir;

TEST(DecisionDb, KeepsValuesAcrossReopening) {
  ScratchDir dir;
  {
    Result<std::unique_ptr<DecisionDb>> db = DecisionDb::Open(dir.File("d.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Put("k1", "one").ok());
    ASSERT_TRUE((*db)->Put("k1", "uno").ok());
    ASSERT_TRUE((*db)->Put("k2", "two").ok());
    Result<std::optional<std::string>> none = (*db)->Get("k3");
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
  }
  Result<std::unique_ptr<DecisionDb>> db = DecisionDb::Open(dir.File("d.sqlite"));
  ASSERT_TRUE(db.ok()) << db.status();
  Result<std::optional<std::string>> v = (*db)->Get("k1");
  ASSERT_TRUE(v.ok() && v->has_value());
  EXPECT_EQ(**v, "uno");
  EXPECT_EQ(*(*db)->Count(), 2);
}

TEST(DecisionDb, KeepsOnlyTheNewestEntries) {
  ScratchDir dir;
  Result<std::unique_ptr<DecisionDb>> db = DecisionDb::Open(dir.File("d.sqlite"), 3);
  ASSERT_TRUE(db.ok()) << db.status();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*db)->Put("k" + std::to_string(i), "v").ok());
  EXPECT_EQ(*(*db)->Count(), 3);
  EXPECT_FALSE((*db)->Get("k1")->has_value());
  EXPECT_TRUE((*db)->Get("k4")->has_value());
}

TEST(DecisionDb, RefusesAFileThatIsNotADatabase) {
  ScratchDir dir;
  std::ofstream(dir.File("junk.sqlite")) << std::string(8192, 'x');
  EXPECT_FALSE(DecisionDb::Open(dir.File("junk.sqlite")).ok());
}

}  // namespace
}  // namespace tilejit::cache
