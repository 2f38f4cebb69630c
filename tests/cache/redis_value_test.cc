// SPDX-License-Identifier: Apache-2.0
// The signed Redis value format: round trips, and refusal of truncated, flipped, unsigned,
// foreign-key, unknown-key and hostile (correctly signed but inconsistent) values.
#include "cache/redis_value.h"

#include <gtest/gtest.h>

#include <string>

#include "cache_test_util.h"
#include "common/sha256.h"

namespace tilejit::cache {
namespace {

using testing::KeyFor;
using testing::MakeEntry;

constexpr uint64_t kCap = 1 << 20;
constexpr int64_t kCreated = 1'700'000'123'456;

ClusterKeyRing RingOf(char fill) {
  Result<ClusterKeyRing> ring = ClusterKeyRing::FromKeys({std::string(32, fill)});
  EXPECT_TRUE(ring.ok()) << ring.status();
  return std::move(ring).value();
}

std::string U64Bytes(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// A complete signed value around a hand-made `body`, as a key holder could write it.
std::string SignedValue(const std::string& body, const ClusterKeyRing& ring) {
  const uint64_t total = kRedisValueHeaderBytes + body.size() + kRedisValueTrailerBytes;
  std::string value = std::string(kRedisValueMagic) + '\x01' + '\x01' + '\0' + '\0';
  value += U64Bytes(total) + body;
  value.append(reinterpret_cast<const char*>(ring.current_id().data()), kClusterKeyIdBytes);
  const ClusterMac mac = ring.Sign(value);
  return value.append(reinterpret_cast<const char*>(mac.data()), mac.size());
}

// One blob record with a correct digest unless `digest` is given.
std::string BlobRecord(const std::string& name, const std::string& bytes,
                       uint64_t size_field = UINT64_MAX, std::string digest = {}) {
  if (digest.empty()) {
    const Digest d = Sha256Digest(bytes);
    digest.assign(reinterpret_cast<const char*>(d.data()), d.size());
  }
  const uint64_t size = size_field == UINT64_MAX ? bytes.size() : size_field;
  return std::string(1, static_cast<char>(name.size())) + name + U64Bytes(size) + digest + bytes;
}

std::string BodyHead(const std::string& key, int blobs) {
  return std::string(1, static_cast<char>(key.size())) + key + U64Bytes(kCreated) +
         std::string(1, static_cast<char>(blobs));
}

class RedisValueTest : public ::testing::Test {
 protected:
  std::string Encode(const Entry& entry) {
    Result<std::string> value = EncodeRedisValue(entry, kCreated, ring_, kCap);
    EXPECT_TRUE(value.ok()) << value.status();
    return value.ok() ? *value : std::string();
  }
  ValueVerdict VerdictOf(const std::string& value, const std::string& key) {
    return DecodeRedisValue(value, key, ring_, kCap).verdict;
  }

  ClusterKeyRing ring_ = RingOf('k');
  Entry entry_ = MakeEntry(1, 200);
};

TEST_F(RedisValueTest, RoundTripsEveryByte) {
  entry_.binary[3] = '\0';
  entry_.side["diagnostics"] = "";
  entry_.side["z.bin"] = std::string("\0\xff\n", 3);
  const DecodedValue decoded = DecodeRedisValue(Encode(entry_), entry_.key, ring_, kCap);
  ASSERT_EQ(decoded.verdict, ValueVerdict::kOk) << decoded.problem;
  EXPECT_EQ(decoded.entry.key, entry_.key);
  EXPECT_EQ(decoded.entry.binary, entry_.binary);
  EXPECT_EQ(decoded.entry.side, entry_.side);
  EXPECT_EQ(decoded.entry.created_ms, kCreated);
  EXPECT_TRUE(decoded.problem.empty());
}

TEST_F(RedisValueTest, EveryTruncationIsMalformed) {
  const std::string value = Encode(entry_);
  for (size_t n = 0; n < value.size(); ++n) {
    const DecodedValue decoded = DecodeRedisValue(value.substr(0, n), entry_.key, ring_, kCap);
    EXPECT_EQ(decoded.verdict, ValueVerdict::kMalformed) << "prefix of " << n << " bytes";
  }
  EXPECT_EQ(VerdictOf(value + "x", entry_.key), ValueVerdict::kMalformed);
}

TEST_F(RedisValueTest, EveryBitFlipIsRefused) {
  const std::string value = Encode(entry_);
  for (size_t i = 0; i < value.size(); ++i) {
    std::string flipped = value;
    flipped[i] = static_cast<char>(flipped[i] ^ (1 << (i % 8)));
    const ValueVerdict verdict = VerdictOf(flipped, entry_.key);
    EXPECT_NE(verdict, ValueVerdict::kOk) << "byte " << i;
    // Past the fixed header, only the signature can notice.
    if (i >= kRedisValueHeaderBytes) {
      EXPECT_EQ(verdict, ValueVerdict::kBadSignature) << "byte " << i;
    }
  }
}

TEST_F(RedisValueTest, ValueForAnotherKeyIsRefused) {
  const std::string value = Encode(entry_);
  const DecodedValue decoded = DecodeRedisValue(value, KeyFor(2), ring_, kCap);
  EXPECT_EQ(decoded.verdict, ValueVerdict::kWrongKey);
  EXPECT_NE(decoded.problem.find(entry_.key), std::string::npos);
}

TEST_F(RedisValueTest, UnsignedValueIsNamedUnsigned) {
  std::string value = Encode(entry_);
  value.resize(value.size() - kRedisValueTrailerBytes);
  value[kRedisValueSignatureKindOffset] = static_cast<char>(kRedisValueUnsigned);
  value.replace(8, 8, U64Bytes(value.size()));
  EXPECT_EQ(VerdictOf(value, entry_.key), ValueVerdict::kUnsigned);
}

TEST_F(RedisValueTest, KeyOutsideTheRingIsABadSignature) {
  const std::string value = Encode(entry_);
  const DecodedValue decoded = DecodeRedisValue(value, entry_.key, RingOf('o'), kCap);
  EXPECT_EQ(decoded.verdict, ValueVerdict::kBadSignature);
  EXPECT_NE(decoded.problem.find(ClusterKeyIdHex(ring_.current_id())), std::string::npos);
  // A ring that lists the signing key as a previous key accepts it.
  Result<ClusterKeyRing> rotated =
      ClusterKeyRing::FromKeys({std::string(32, 'n'), std::string(32, 'k')});
  ASSERT_TRUE(rotated.ok());
  EXPECT_EQ(DecodeRedisValue(value, entry_.key, *rotated, kCap).verdict, ValueVerdict::kOk);
}

TEST_F(RedisValueTest, CapsTheValueSize) {
  Result<std::string> big = EncodeRedisValue(MakeEntry(1, 5000), kCreated, ring_, 4096);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
  const std::string value = Encode(entry_);
  EXPECT_EQ(DecodeRedisValue(value, entry_.key, ring_, value.size() - 1).verdict,
            ValueVerdict::kMalformed);
  EXPECT_EQ(DecodeRedisValue(value, entry_.key, ring_, value.size()).verdict, ValueVerdict::kOk);
}

TEST_F(RedisValueTest, EncodeRefusesInvalidEntries) {
  entry_.key = "NOT-HEX";
  Result<std::string> value = EncodeRedisValue(entry_, kCreated, ring_, kCap);
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(RedisValueTest, HandMadeBodyDecodes) {
  // The layout documented in redis_value.h, built by hand, is what the decoder reads.
  const std::string key = KeyFor(7);
  const std::string body = BodyHead(key, 2) + BlobRecord("binary", "BIN") + BlobRecord("m", "M");
  const DecodedValue decoded = DecodeRedisValue(SignedValue(body, ring_), key, ring_, kCap);
  ASSERT_EQ(decoded.verdict, ValueVerdict::kOk) << decoded.problem;
  EXPECT_EQ(decoded.entry.binary, "BIN");
  EXPECT_EQ(decoded.entry.side.at("m"), "M");
}

TEST_F(RedisValueTest, SignedButInconsistentBodiesAreMalformed) {
  const std::string key = KeyFor(7);
  const std::string bin = BlobRecord("binary", "BIN");
  const std::string bodies[] = {
      BodyHead(key, 1) + BlobRecord("binary", "BIN", uint64_t{1} << 63),  // huge length
      BodyHead(key, 1) + BlobRecord("binary", "BIN", 4),                  // past the end
      BodyHead(key, 1) + BlobRecord("binary", "BIN", 2),                  // leftover byte
      BodyHead(key, 1) + BlobRecord("binary", "BIN", UINT64_MAX, std::string(32, 'x')),
      BodyHead(key, 0),                                                      // no binary
      BodyHead(key, 200) + bin,                                              // too many blobs
      BodyHead(key, 2) + bin,                                                // missing blob
      BodyHead(key, 3) + bin + BlobRecord("a", "1") + BlobRecord("a", "2"),  // duplicate
      BodyHead(key, 2) + bin + BlobRecord("binary", "again"),                // reserved name
      BodyHead(key, 2) + BlobRecord("meta", "m") + bin,                      // binary not first
      BodyHead(key, 2) + bin + BlobRecord("bad name", "x"),                  // invalid name
      BodyHead("XYZ", 1) + bin,                                              // invalid key
      std::string(1, '\xc8') + key,                                          // key length 200
      bin + BlobRecord("", ""),                                              // nonsense
      std::string(),                                                         // empty body
  };
  for (const std::string& body : bodies) {
    const DecodedValue decoded = DecodeRedisValue(SignedValue(body, ring_), key, ring_, kCap);
    EXPECT_EQ(decoded.verdict, ValueVerdict::kMalformed) << ::testing::PrintToString(body);
    EXPECT_FALSE(decoded.problem.empty());
  }
}

TEST_F(RedisValueTest, ForeignBytesAreMalformed) {
  for (const std::string value : {"", "TJRV", "hello world, this is not a value", "TJRV\x02..."}) {
    EXPECT_EQ(VerdictOf(value, entry_.key), ValueVerdict::kMalformed) << value;
  }
  std::string value = Encode(entry_);
  value[kRedisValueSignatureKindOffset] = 7;
  EXPECT_EQ(VerdictOf(value, entry_.key), ValueVerdict::kMalformed);
}

}  // namespace
}  // namespace tilejit::cache
