// SPDX-License-Identifier: Apache-2.0
// The cluster key ring: key file parsing (with line numbers in errors), signing, verification,
// rotation and tampering.
#include "cache/cluster_key.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "cache_test_util.h"

namespace tilejit::cache {
namespace {

using testing::ScratchDir;

// 32 bytes as 64 hex digits; `fill` picks the digit.
std::string HexKey(char fill, size_t digits = 64) { return std::string(digits, fill); }

ClusterKeyRing ParseRing(const std::string& text) {
  Result<ClusterKeyRing> ring = ClusterKeyRing::Parse(text, "test");
  EXPECT_TRUE(ring.ok()) << ring.status();
  return std::move(ring).value();
}

std::string MacString(const ClusterMac& mac) {
  return std::string(reinterpret_cast<const char*>(mac.data()), mac.size());
}

void ExpectParseError(const std::string& text, const std::string& needle) {
  Result<ClusterKeyRing> ring = ClusterKeyRing::Parse(text, "keys.txt");
  ASSERT_FALSE(ring.ok()) << "parsed: " << text;
  EXPECT_EQ(ring.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(ring.status().message().find(needle), std::string::npos) << ring.status();
}

TEST(ClusterKeyRing, ParsesCurrentAndPreviousKeysSkippingCommentsAndBlanks) {
  const ClusterKeyRing ring = ParseRing("# cluster keys\n\n  " + HexKey('a') + "  \n" +
                                        "# previous\n" + HexKey('B', 128) + "\r\n");
  EXPECT_EQ(ring.size(), 2u);
  const ClusterKeyRing only_first = ParseRing(HexKey('a'));
  EXPECT_EQ(ring.current_id(), only_first.current_id());
}

TEST(ClusterKeyRing, ReportsTheLineOfABadKey) {
  ExpectParseError("# c\n" + HexKey('a') + "\n\n" + HexKey('a', 63) + "\n", "keys.txt' line 4");
  ExpectParseError(HexKey('a') + "\n" + HexKey('a', 62) + "zz\n", "line 2: not a hex digit");
  ExpectParseError(HexKey('a', 62) + "\n", "line 1: key is 31 bytes");
  ExpectParseError(HexKey('a', 130) + "\n", "line 1: key is 65 bytes");
  ExpectParseError(HexKey('a') + "\n" + HexKey('A') + "\n", "line 2: repeats an earlier key");
}

TEST(ClusterKeyRing, RefusesEmptyFilesAndTooManyKeys) {
  ExpectParseError("# nothing\n\n", "has no keys");
  std::string text;
  for (int i = 0; i < 17; ++i) text += Sha256Hex("key " + std::to_string(i)) + "\n";
  ExpectParseError(text, "line 17: more than 16 keys");
}

TEST(ClusterKeyRing, LoadsAFileAndReportsWhetherOthersCanReadIt) {
  ScratchDir dir;
  const std::string path = dir.File("cluster.key");
  std::ofstream(path) << HexKey('5') << "\n";
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  bool readable = true;
  ASSERT_TRUE(ClusterKeyRing::LoadFile(path, &readable).ok());
  EXPECT_FALSE(readable);
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  ASSERT_TRUE(ClusterKeyRing::LoadFile(path, &readable).ok());
  EXPECT_TRUE(readable);
  Result<ClusterKeyRing> missing = ClusterKeyRing::LoadFile(dir.File("absent"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("absent"), std::string::npos);
}

TEST(ClusterKeyRing, SignedBytesVerifyAndAnyTamperingFails) {
  const ClusterKeyRing ring = ParseRing(HexKey('1'));
  const std::string message = "kernel bytes \x01\x02";
  const std::string mac = MacString(ring.Sign(message));
  EXPECT_TRUE(ring.Verify(ring.current_id(), message, mac));
  EXPECT_TRUE(ring.VerifyAny(message, mac));
  for (size_t i = 0; i < message.size(); ++i) {
    std::string tampered = message;
    tampered[i] ^= 0x01;
    EXPECT_FALSE(ring.Verify(ring.current_id(), tampered, mac)) << "byte " << i;
  }
  for (size_t i = 0; i < mac.size(); ++i) {
    std::string bad_mac = mac;
    bad_mac[i] ^= 0x80;
    EXPECT_FALSE(ring.Verify(ring.current_id(), message, bad_mac)) << "mac byte " << i;
  }
  EXPECT_FALSE(ring.Verify(ring.current_id(), message, mac.substr(0, 31)));
  EXPECT_FALSE(ring.Verify(ring.current_id(), message + "x", mac));
}

TEST(ClusterKeyRing, RotationAcceptsPreviousKeysUntilTheyAreDropped) {
  const ClusterKeyRing old_ring = ParseRing(HexKey('1'));
  const std::string message = "entry";
  const std::string mac = MacString(old_ring.Sign(message));
  const ClusterKeyRing rotated = ParseRing(HexKey('2') + "\n" + HexKey('1') + "\n");
  EXPECT_NE(rotated.current_id(), old_ring.current_id());
  EXPECT_TRUE(rotated.Contains(old_ring.current_id()));
  EXPECT_TRUE(rotated.Verify(old_ring.current_id(), message, mac));
  EXPECT_TRUE(rotated.VerifyAny(message, mac));
  // New signatures use the new current key, which the old ring does not know.
  EXPECT_FALSE(old_ring.VerifyAny(message, MacString(rotated.Sign(message))));
  const ClusterKeyRing dropped = ParseRing(HexKey('2'));
  EXPECT_FALSE(dropped.Contains(old_ring.current_id()));
  EXPECT_FALSE(dropped.Verify(old_ring.current_id(), message, mac));
  EXPECT_FALSE(dropped.VerifyAny(message, mac));
}

TEST(ClusterKeyRing, KeyIdIsTheFirstBytesOfTheKeysSha256) {
  const std::string raw(32, '\x11');
  Result<ClusterKeyRing> ring = ClusterKeyRing::FromKeys({raw});
  ASSERT_TRUE(ring.ok()) << ring.status();
  EXPECT_EQ(ClusterKeyIdHex(ring->current_id()), Sha256Hex(raw).substr(0, 16));
  EXPECT_FALSE(ClusterKeyRing::FromKeys({}).ok());
  EXPECT_FALSE(ClusterKeyRing::FromKeys({std::string(31, 'x')}).ok());
}

}  // namespace
}  // namespace tilejit::cache
