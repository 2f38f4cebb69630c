// SPDX-License-Identifier: Apache-2.0
#include "common/source_loc.h"

#include <gtest/gtest.h>

namespace tilejit {
namespace {

TEST(SourceManager, ReturnsLinesWithoutNewlines) {
  SourceManager sm;
  uint32_t id = sm.AddFile("k.py", "first\r\nsecond\nthird");
  EXPECT_EQ(sm.LineText(id, 1), "first");
  EXPECT_EQ(sm.LineText(id, 2), "second");
  EXPECT_EQ(sm.LineText(id, 3), "third");
  EXPECT_EQ(sm.LineText(id, 4), "");
  EXPECT_EQ(sm.LineText(99, 1), "");
}

TEST(SourceManager, DescribesLocations) {
  SourceManager sm;
  uint32_t id = sm.AddFile("k.py", "x\n");
  EXPECT_EQ(sm.Describe(SourceLoc{id, 1, 1}), "k.py:1:1");
  EXPECT_EQ(sm.Describe(SourceLoc{}), "<unknown>");
}

}  // namespace
}  // namespace tilejit
