// SPDX-License-Identifier: Apache-2.0
#include "common/result.h"

#include <gtest/gtest.h>

#include <string>

namespace tilejit {
namespace {

Result<int> ParsePositive(int x) {
  if (x <= 0) return InvalidArgument("not positive");
  return x;
}

Result<std::string> Describe(int x) {
  TILEJIT_ASSIGN_OR_RETURN(int v, ParsePositive(x));
  return std::to_string(v * 2);
}

TEST(Result, HoldsValueOrStatus) {
  Result<int> ok = ParsePositive(3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  Result<int> bad = ParsePositive(0);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(Result, AssignOrReturnPropagates) {
  EXPECT_EQ(*Describe(4), "8");
  EXPECT_EQ(Describe(-1).status().message(), "not positive");
}

TEST(Result, ValueOnErrorThrowsInternalError) {
  Result<int> bad = ParsePositive(0);
  EXPECT_THROW((void)bad.value(), InternalError);
}

TEST(Check, FailureCarriesConditionAndMessage) {
  try {
    TILEJIT_CHECK(1 + 1 == 3) << "math is "
                              << "broken";
    FAIL() << "check did not throw";
  } catch (const InternalError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("1 + 1 == 3"), std::string::npos) << what;
    EXPECT_NE(what.find("math is broken"), std::string::npos) << what;
    EXPECT_NE(what.find("result_test.cc"), std::string::npos) << what;
  }
}

TEST(Check, PassingCheckDoesNotEvaluateMessage) {
  int evaluated = 0;
  auto side_effect = [&] { return ++evaluated; };
  TILEJIT_CHECK(true) << side_effect();
  EXPECT_EQ(evaluated, 0);
}

}  // namespace
}  // namespace tilejit
