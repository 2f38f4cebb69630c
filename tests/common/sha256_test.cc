// SPDX-License-Identifier: Apache-2.0
#include "common/sha256.h"

#include <gtest/gtest.h>

namespace tilejit {
namespace {

// FIPS 180-2 test vectors.
TEST(Sha256, MatchesKnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, IncrementalEqualsOneShot) {
  Sha256 h;
  h.Update("a").Update("bc");
  EXPECT_EQ(ToHex(h.Finish()), Sha256Hex("abc"));
}

TEST(Sha256, FieldsAreLengthPrefixed) {
  Sha256 a, b;
  a.UpdateField("ab").UpdateField("c");
  b.UpdateField("a").UpdateField("bc");
  EXPECT_NE(a.Finish(), b.Finish());
}

}  // namespace
}  // namespace tilejit
