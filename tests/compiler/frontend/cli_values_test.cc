// SPDX-License-Identifier: Apache-2.0
// Command-line values are typed as DESIGN.md section 2 says.
#include "client/cli_values.h"

#include <gtest/gtest.h>

namespace tilejit::client {
namespace {

using frontend::ValueKind;

TEST(CliValues, IntsFloatsBoolsAndStrings) {
  EXPECT_EQ(ParseCliValue("64").kind, ValueKind::kInt);
  EXPECT_EQ(ParseCliValue("-3").i, -3);
  EXPECT_EQ(ParseCliValue("64.0").kind, ValueKind::kFloat);
  EXPECT_EQ(ParseCliValue("1e-5").kind, ValueKind::kFloat);
  EXPECT_DOUBLE_EQ(ParseCliValue("1e-5").f, 1e-5);
  EXPECT_EQ(ParseCliValue("true").kind, ValueKind::kBool);
  EXPECT_FALSE(ParseCliValue("False").b);
  EXPECT_EQ(ParseCliValue("float16").kind, ValueKind::kString);
  EXPECT_EQ(ParseCliValue("e5").kind, ValueKind::kString);
  EXPECT_EQ(ParseCliValue("99999999999999999999").kind, ValueKind::kString);
}

TEST(CliValues, NamedValuesSplitAtTheFirstEquals) {
  auto nv = ParseNamedValue("tl.ascend_auto_sync=true");
  ASSERT_TRUE(nv);
  EXPECT_EQ(nv->first, "tl.ascend_auto_sync");
  EXPECT_TRUE(nv->second.b);
  EXPECT_EQ(ParseNamedValue("x=a=b")->second.text, "a=b");
  EXPECT_FALSE(ParseNamedValue("novalue"));
  EXPECT_FALSE(ParseNamedValue("=1"));
}

}  // namespace
}  // namespace tilejit::client
