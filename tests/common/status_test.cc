// SPDX-License-Identifier: Apache-2.0
#include "common/status.h"

#include <gtest/gtest.h>

namespace tilejit {
namespace {

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(Status, ToStringIncludesCodeAndMessage) {
  Status s = InvalidArgument("bad arg");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "INVALID_ARGUMENT: bad arg");
}

TEST(Status, WithContextPrefixesMessageAndKeepsCode) {
  Status s = NotFound("kernel abc").WithContext("GetKernel");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "GetKernel: kernel abc");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

Status FailIfNegative(int x) {
  if (x < 0) return InvalidArgument("negative");
  return Status::Ok();
}

Status Chain(int x) {
  TILEJIT_RETURN_IF_ERROR(FailIfNegative(x));
  return Internal("reached the end");
}

TEST(Status, ReturnIfErrorPropagatesOnlyErrors) {
  EXPECT_EQ(Chain(-1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Chain(1).code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace tilejit
