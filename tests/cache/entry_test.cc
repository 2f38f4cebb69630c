// SPDX-License-Identifier: Apache-2.0
#include "cache/entry.h"

#include <gtest/gtest.h>

#include "cache_test_util.h"

namespace tilejit::cache {
namespace {

TEST(Entry, ByteSizeCountsBinaryAndSideBlobs) {
  Entry entry;
  entry.binary = "12345";
  entry.side["a"] = "xy";
  entry.side["b"] = "";
  EXPECT_EQ(entry.ByteSize(), 7u);
}

TEST(Entry, KeysMustBeLowercaseHex) {
  EXPECT_TRUE(IsValidKey("0123456789abcdef"));
  EXPECT_FALSE(IsValidKey(""));
  EXPECT_FALSE(IsValidKey("ABCDEF"));
  EXPECT_FALSE(IsValidKey("12 34"));
  EXPECT_FALSE(IsValidKey("../etc/passwd"));
  EXPECT_FALSE(IsValidKey(std::string(kMaxKeyLength + 1, 'a')));
}

TEST(Entry, ValidateRejectsReservedAndMalformedSideBlobNames) {
  Entry entry = testing::MakeEntry(1);
  EXPECT_TRUE(ValidateEntry(entry).ok());
  entry.side["binary"] = "x";
  EXPECT_EQ(ValidateEntry(entry).code(), StatusCode::kInvalidArgument);
  entry.side.erase("binary");
  entry.side["has space"] = "x";
  EXPECT_EQ(ValidateEntry(entry).code(), StatusCode::kInvalidArgument);
  entry.side.erase("has space");
  entry.side["line\nbreak"] = "x";
  EXPECT_EQ(ValidateEntry(entry).code(), StatusCode::kInvalidArgument);
}

TEST(Entry, ValidateRejectsTooManySideBlobs) {
  Entry entry = testing::MakeEntry(1);
  for (size_t i = 0; i <= kMaxSideBlobs; ++i) entry.side["b" + std::to_string(i)] = "x";
  const Status status = ValidateEntry(entry);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("side blobs"), std::string::npos);
}

}  // namespace
}  // namespace tilejit::cache
