// SPDX-License-Identifier: Apache-2.0
#include "cache/redis_value.h"

#include <cstring>
#include <utility>

#include "common/sha256.h"

namespace tilejit::cache {
namespace {

constexpr size_t kDigestBytes = 32;

void PutU8(std::string* out, uint8_t v) { out->push_back(static_cast<char>(v)); }

void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t LoadU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

void PutBlob(std::string* out, std::string_view name, std::string_view bytes) {
  PutU8(out, static_cast<uint8_t>(name.size()));
  out->append(name);
  PutU64(out, bytes.size());
  const Digest digest = Sha256Digest(bytes);
  out->append(reinterpret_cast<const char*>(digest.data()), digest.size());
  out->append(bytes);
}

// Bounds-checked sequential reads over the authenticated body. Every read checks the bytes
// that remain first, so a length field can never move the cursor outside the value.
class BodyReader {
 public:
  explicit BodyReader(std::string_view data) : data_(data) {}
  bool U8(uint8_t* v) {
    if (data_.size() - pos_ < 1) return false;
    *v = static_cast<uint8_t>(data_[pos_++]);
    return true;
  }
  bool U64(uint64_t* v) {
    if (data_.size() - pos_ < 8) return false;
    *v = LoadU64(data_.data() + pos_);
    pos_ += 8;
    return true;
  }
  bool Bytes(uint64_t n, std::string_view* out) {
    if (n > data_.size() - pos_) return false;
    *out = data_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return true;
  }
  bool at_end() const { return pos_ == data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

DecodedValue Verdict(ValueVerdict verdict, std::string problem) {
  DecodedValue decoded;
  decoded.verdict = verdict;
  decoded.problem = std::move(problem);
  return decoded;
}

// Reads one blob record; false with `problem` set when it is malformed or fails its digest.
bool ReadBlob(BodyReader* in, std::string_view* name, std::string_view* bytes,
              std::string* problem) {
  uint8_t name_len = 0;
  uint64_t size = 0;
  std::string_view digest;
  if (!in->U8(&name_len) || name_len == 0 || name_len > kMaxBlobNameLength ||
      !in->Bytes(name_len, name) || !in->U64(&size) || !in->Bytes(kDigestBytes, &digest) ||
      !in->Bytes(size, bytes)) {
    *problem = "blob record truncated or out of bounds";
    return false;
  }
  const Digest actual = Sha256Digest(*bytes);
  if (std::memcmp(actual.data(), digest.data(), kDigestBytes) != 0) {
    *problem = "blob '" + std::string(*name) + "' fails its SHA-256";
    return false;
  }
  return true;
}

// Parses the authenticated body into `entry`; false with `problem` set on any inconsistency.
bool ParseBody(std::string_view body, Entry* entry, std::string* problem) {
  BodyReader in(body);
  uint8_t key_len = 0;
  std::string_view key;
  uint64_t created = 0;
  uint8_t blobs = 0;
  if (!in.U8(&key_len) || !in.Bytes(key_len, &key) || !in.U64(&created) || !in.U8(&blobs)) {
    *problem = "entry header truncated";
    return false;
  }
  if (!IsValidKey(key) || blobs < 1 || blobs > kMaxSideBlobs + 1) {
    *problem = "invalid key or blob count";
    return false;
  }
  entry->key = std::string(key);
  entry->created_ms = static_cast<int64_t>(created);
  for (uint8_t i = 0; i < blobs; ++i) {
    std::string_view name;
    std::string_view bytes;
    if (!ReadBlob(&in, &name, &bytes, problem)) return false;
    const bool is_binary = i == 0;
    if (is_binary != (name == kBinaryBlobName) || (!is_binary && !IsValidSideBlobName(name))) {
      *problem = "blob '" + std::string(name) + "' is misplaced or badly named";
      return false;
    }
    if (is_binary) {
      entry->binary = std::string(bytes);
    } else if (!entry->side.emplace(std::string(name), std::string(bytes)).second) {
      *problem = "blob '" + std::string(name) + "' appears twice";
      return false;
    }
  }
  if (!in.at_end()) {
    *problem = "bytes after the last blob";
    return false;
  }
  return true;
}

// Framing checks on the fixed header; an empty string means the framing is sound.
std::string FramingProblem(std::string_view value, uint64_t max_bytes) {
  if (value.size() > max_bytes) {
    return "value of " + std::to_string(value.size()) + " bytes exceeds the cap of " +
           std::to_string(max_bytes);
  }
  if (value.size() < kRedisValueHeaderBytes) return "shorter than the header";
  if (value.substr(0, kRedisValueMagic.size()) != kRedisValueMagic) return "not a tilejit value";
  if (static_cast<uint8_t>(value[4]) != kRedisValueVersion) {
    return "unsupported format version " + std::to_string(static_cast<uint8_t>(value[4]));
  }
  if (value[6] != 0 || value[7] != 0) return "reserved header bytes are not zero";
  if (LoadU64(value.data() + 8) != value.size()) return "declared length disagrees (truncated?)";
  return {};
}

}  // namespace

std::string_view ValueVerdictName(ValueVerdict verdict) {
  switch (verdict) {
    case ValueVerdict::kOk:
      return "ok";
    case ValueVerdict::kUnsigned:
      return "unsigned";
    case ValueVerdict::kBadSignature:
      return "bad signature";
    case ValueVerdict::kWrongKey:
      return "wrong key";
    case ValueVerdict::kMalformed:
      return "malformed";
  }
  return "unknown";
}

Result<std::string> EncodeRedisValue(const Entry& entry, int64_t created_ms,
                                     const ClusterKeyRing& ring, uint64_t max_bytes) {
  TILEJIT_RETURN_IF_ERROR(ValidateEntry(entry));
  uint64_t total = kRedisValueHeaderBytes + 1 + entry.key.size() + 8 + 1 + kRedisValueTrailerBytes;
  const auto blob_bytes = [](std::string_view name, std::string_view bytes) {
    return 1 + name.size() + 8 + kDigestBytes + bytes.size();
  };
  total += blob_bytes(kBinaryBlobName, entry.binary);
  for (const auto& [name, bytes] : entry.side) total += blob_bytes(name, bytes);
  if (total > max_bytes) {
    return ResourceExhausted("cache entry " + entry.key + " encodes to " + std::to_string(total) +
                             " bytes; the Redis value cap is " + std::to_string(max_bytes));
  }
  std::string out;
  out.reserve(static_cast<size_t>(total));
  out.append(kRedisValueMagic);
  PutU8(&out, kRedisValueVersion);
  PutU8(&out, kRedisValueHmacSha256);
  PutU8(&out, 0);
  PutU8(&out, 0);
  PutU64(&out, total);
  PutU8(&out, static_cast<uint8_t>(entry.key.size()));
  out.append(entry.key);
  PutU64(&out, static_cast<uint64_t>(created_ms));
  PutU8(&out, static_cast<uint8_t>(entry.side.size() + 1));
  PutBlob(&out, kBinaryBlobName, entry.binary);
  for (const auto& [name, bytes] : entry.side) PutBlob(&out, name, bytes);
  const ClusterKeyId& id = ring.current_id();
  out.append(reinterpret_cast<const char*>(id.data()), id.size());
  const ClusterMac mac = ring.Sign(out);
  out.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  TILEJIT_CHECK(out.size() == total) << "Redis value size miscomputed";
  return out;
}

DecodedValue DecodeRedisValue(std::string_view value, std::string_view expected_key,
                              const ClusterKeyRing& ring, uint64_t max_bytes) {
  if (std::string problem = FramingProblem(value, max_bytes); !problem.empty()) {
    return Verdict(ValueVerdict::kMalformed, std::move(problem));
  }
  const auto kind = static_cast<uint8_t>(value[kRedisValueSignatureKindOffset]);
  if (kind == kRedisValueUnsigned) return Verdict(ValueVerdict::kUnsigned, "value is unsigned");
  if (kind != kRedisValueHmacSha256) {
    return Verdict(ValueVerdict::kMalformed, "unknown signature kind " + std::to_string(kind));
  }
  if (value.size() < kRedisValueHeaderBytes + kRedisValueTrailerBytes) {
    return Verdict(ValueVerdict::kMalformed, "too short for its signature");
  }
  const size_t mac_at = value.size() - kClusterMacBytes;
  ClusterKeyId id{};
  std::memcpy(id.data(), value.data() + mac_at - id.size(), id.size());
  if (!ring.Contains(id)) {
    return Verdict(ValueVerdict::kBadSignature,
                   "signed with key id " + ClusterKeyIdHex(id) + ", which is not in the ring");
  }
  if (!ring.Verify(id, value.substr(0, mac_at), value.substr(mac_at))) {
    return Verdict(ValueVerdict::kBadSignature, "MAC does not verify");
  }
  DecodedValue decoded;
  const std::string_view body = value.substr(
      kRedisValueHeaderBytes, value.size() - kRedisValueHeaderBytes - kRedisValueTrailerBytes);
  if (!ParseBody(body, &decoded.entry, &decoded.problem)) {
    return Verdict(ValueVerdict::kMalformed, std::move(decoded.problem));
  }
  if (decoded.entry.key != expected_key) {
    return Verdict(ValueVerdict::kWrongKey, "value is signed for key " + decoded.entry.key);
  }
  decoded.verdict = ValueVerdict::kOk;
  return decoded;
}

}  // namespace tilejit::cache
