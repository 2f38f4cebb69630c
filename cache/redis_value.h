// SPDX-License-Identifier: Apache-2.0
// The bytes of one cache entry as stored in a single Redis string value, signed with the
// cluster key (cache/cluster_key.h). docs/redis_tier.md has the same layout with rationale.
//
// Format version 1. Integers are little-endian; offsets in bytes.
//   header (16 bytes)
//     0  4  magic "TJRV"
//     4  1  format version, 1
//     5  1  signature kind: 0 unsigned (no trailer), 1 HMAC-SHA256 (40-byte trailer)
//     6  2  reserved, 0
//     8  8  total length of the value, header and trailer included
//   body
//     u8   key length (1..kMaxKeyLength), then the key (lowercase hex)
//     u64  created time, Unix milliseconds
//     u8   blob count (1..kMaxSideBlobs + 1); the first blob is the binary
//     per blob: u8 name length, name ("binary" first, then side blobs in name order),
//               u64 size, 32-byte SHA-256 of the bytes, the bytes
//   trailer (signature kind 1)
//     8   key id of the signing key (ClusterKeyRing)
//     32  HMAC-SHA256 under that key of every byte before the MAC (header, body, key id)
//
// The MAC covers the key the entry claims, so a valid value copied under another Redis key is
// refused (kWrongKey). Decoding checks the framing (magic, version, declared length, size cap),
// then the signature, and only then parses the body, so unauthenticated bytes are never parsed
// beyond the fixed header. Every length is bounded by the bytes that remain and by entry.h's
// limits; nothing is read past the end; blob digests are recomputed.
//
// Unsigned values (kind 0) are part of the format so that a decoder can name them, but this
// module never writes one and no decoder accepts one: the Redis tier requires a cluster key.
//
// Threading: free functions, safe to call concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cache/cluster_key.h"
#include "cache/entry.h"
#include "common/result.h"

namespace tilejit::cache {

inline constexpr std::string_view kRedisValueMagic = "TJRV";
inline constexpr uint8_t kRedisValueVersion = 1;
inline constexpr size_t kRedisValueHeaderBytes = 16;
inline constexpr size_t kRedisValueTrailerBytes = kClusterKeyIdBytes + kClusterMacBytes;
// Offset of the signature-kind byte in the header.
inline constexpr size_t kRedisValueSignatureKindOffset = 5;
inline constexpr uint8_t kRedisValueUnsigned = 0;
inline constexpr uint8_t kRedisValueHmacSha256 = 1;

// The default cap on one encoded value (RedisStoreOptions::max_value_bytes).
inline constexpr uint64_t kDefaultMaxRedisValueBytes = 64ull << 20;

// What decoding made of a value. Anything but kOk is never served.
enum class ValueVerdict {
  kOk,
  kUnsigned,      // the value carries no signature
  kBadSignature,  // the MAC does not verify, or the signing key is not in the ring
  kWrongKey,      // correctly signed, but for another cache key than the one asked for
  kMalformed,     // not a value of this format, truncated, oversized or inconsistent
};

std::string_view ValueVerdictName(ValueVerdict verdict);

struct DecodedValue {
  ValueVerdict verdict = ValueVerdict::kMalformed;
  Entry entry;          // valid only when verdict == kOk (key, binary, side, created_ms)
  std::string problem;  // what was wrong, for logs; empty when kOk
};

// Encodes and signs `entry` (validated with ValidateEntry) stamped `created_ms`.
// InvalidArgument for an invalid entry; ResourceExhausted when the value would exceed
// `max_bytes`.
Result<std::string> EncodeRedisValue(const Entry& entry, int64_t created_ms,
                                     const ClusterKeyRing& ring, uint64_t max_bytes);

// Decodes `value` read from the Redis key of `expected_key`. Never fails in any other way than
// through the verdict; never reads outside `value`.
DecodedValue DecodeRedisValue(std::string_view value, std::string_view expected_key,
                              const ClusterKeyRing& ring, uint64_t max_bytes);

}  // namespace tilejit::cache
