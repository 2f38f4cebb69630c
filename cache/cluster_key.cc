// SPDX-License-Identifier: Apache-2.0
#include "cache/cluster_key.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>

#include "common/sha256.h"

namespace tilejit::cache {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view Trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// Decodes one key line; on failure returns nullopt and sets `problem`.
std::optional<std::string> DecodeHexKey(std::string_view hex, std::string* problem) {
  if (hex.size() % 2 != 0) {
    *problem = "odd number of hex digits";
    return std::nullopt;
  }
  std::string bytes;
  bytes.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexDigit(hex[i]);
    const int lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      OPENSSL_cleanse(bytes.data(), bytes.size());
      *problem = "not a hex digit at column " + std::to_string(i + (hi < 0 ? 1 : 2));
      return std::nullopt;
    }
    bytes.push_back(static_cast<char>(hi * 16 + lo));
  }
  return bytes;
}

std::string SizeProblem(size_t bytes) {
  return "key is " + std::to_string(bytes) + " bytes; keys must be " +
         std::to_string(kMinClusterKeyBytes) + " to " + std::to_string(kMaxClusterKeyBytes) +
         " bytes (" + std::to_string(2 * kMinClusterKeyBytes) + " to " +
         std::to_string(2 * kMaxClusterKeyBytes) + " hex digits)";
}

// Appends the key of every key line of `text` to `keys`; the first bad line is an error.
Status CollectKeys(std::string_view text, const std::string& where,
                   std::vector<std::string>* keys) {
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = Trim(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.empty() || line.front() == '#') continue;
    const std::string at = where + " line " + std::to_string(line_no) + ": ";
    std::string problem;
    std::optional<std::string> key = DecodeHexKey(line, &problem);
    if (!key) return InvalidArgument(at + problem);
    // Moved in first, so that every decoded key is wiped by the caller whatever happens next.
    keys->push_back(std::move(*key));
    const std::string& added = keys->back();
    if (added.size() < kMinClusterKeyBytes || added.size() > kMaxClusterKeyBytes) {
      return InvalidArgument(at + SizeProblem(added.size()));
    }
    if (keys->size() > kMaxClusterKeys) {
      return InvalidArgument(at + "more than " + std::to_string(kMaxClusterKeys) + " keys");
    }
    for (size_t i = 0; i + 1 < keys->size(); ++i) {
      if ((*keys)[i] == added) return InvalidArgument(at + "repeats an earlier key");
    }
  }
  return Status::Ok();
}

}  // namespace

std::string ClusterKeyIdHex(const ClusterKeyId& id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : id) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

ClusterKeyRing::~ClusterKeyRing() {
  for (Key& key : keys_) OPENSSL_cleanse(key.bytes.data(), key.bytes.size());
}

Result<ClusterKeyRing> ClusterKeyRing::FromKeys(const std::vector<std::string>& raw_keys) {
  if (raw_keys.empty()) return InvalidArgument("a cluster key ring needs at least one key");
  if (raw_keys.size() > kMaxClusterKeys) {
    return InvalidArgument("a cluster key ring holds at most " + std::to_string(kMaxClusterKeys) +
                           " keys, got " + std::to_string(raw_keys.size()));
  }
  ClusterKeyRing ring;
  for (size_t i = 0; i < raw_keys.size(); ++i) {
    const std::string& raw = raw_keys[i];
    if (raw.size() < kMinClusterKeyBytes || raw.size() > kMaxClusterKeyBytes) {
      return InvalidArgument("cluster key " + std::to_string(i + 1) + ": " +
                             SizeProblem(raw.size()));
    }
    Key key{raw, {}};
    const Digest digest = Sha256Digest(raw);
    std::memcpy(key.id.data(), digest.data(), key.id.size());
    if (ring.Find(key.id) != nullptr) {
      return InvalidArgument("cluster key " + std::to_string(i + 1) + " repeats an earlier key");
    }
    ring.keys_.push_back(std::move(key));
  }
  return ring;
}

Result<ClusterKeyRing> ClusterKeyRing::Parse(std::string_view text, std::string_view origin) {
  const std::string where = "cluster key file '" + std::string(origin) + "'";
  if (text.size() > kMaxClusterKeyFileBytes) {
    return InvalidArgument(where + " is larger than " + std::to_string(kMaxClusterKeyFileBytes) +
                           " bytes");
  }
  std::vector<std::string> raw_keys;
  Status status = CollectKeys(text, where, &raw_keys);
  if (status.ok() && raw_keys.empty()) status = InvalidArgument(where + " has no keys");
  Result<ClusterKeyRing> ring = status.ok() ? FromKeys(raw_keys) : Result<ClusterKeyRing>(status);
  for (std::string& raw : raw_keys) OPENSSL_cleanse(raw.data(), raw.size());
  return ring;
}

Result<ClusterKeyRing> ClusterKeyRing::LoadFile(const std::string& path, bool* readable_by_others) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return InvalidArgument("cannot read cluster key file '" + path + "': " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return InvalidArgument("cluster key file '" + path + "' is not a regular file");
  }
  // Checked before reading, so a huge or endless file is not slurped.
  if (static_cast<uint64_t>(st.st_size) > kMaxClusterKeyFileBytes) {
    return InvalidArgument("cluster key file '" + path + "' is larger than " +
                           std::to_string(kMaxClusterKeyFileBytes) + " bytes");
  }
  if (readable_by_others != nullptr) *readable_by_others = (st.st_mode & (S_IRGRP | S_IROTH)) != 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InvalidArgument("cannot read cluster key file '" + path + "': " + std::strerror(errno));
  }
  std::string text(kMaxClusterKeyFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  Result<ClusterKeyRing> ring = Parse(text, path);
  OPENSSL_cleanse(text.data(), text.size());
  return ring;
}

const ClusterKeyRing::Key* ClusterKeyRing::Find(const ClusterKeyId& id) const {
  for (const Key& key : keys_) {
    if (key.id == id) return &key;
  }
  return nullptr;
}

bool ClusterKeyRing::MacMatches(const Key& key, std::string_view bytes, std::string_view mac) {
  if (mac.size() != kClusterMacBytes) return false;
  ClusterMac expected{};
  unsigned int size = 0;
  const unsigned char* out = HMAC(
      EVP_sha256(), key.bytes.data(), static_cast<int>(key.bytes.size()),
      reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), expected.data(), &size);
  // CRYPTO_memcmp: the time taken does not reveal how many leading bytes matched.
  return out != nullptr && size == expected.size() &&
         CRYPTO_memcmp(expected.data(), mac.data(), expected.size()) == 0;
}

ClusterMac ClusterKeyRing::Sign(std::string_view bytes) const {
  const Key& key = keys_.front();
  ClusterMac mac{};
  unsigned int size = 0;
  const unsigned char* out =
      HMAC(EVP_sha256(), key.bytes.data(), static_cast<int>(key.bytes.size()),
           reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), mac.data(), &size);
  TILEJIT_CHECK(out != nullptr && size == mac.size()) << "HMAC-SHA256 failed";
  return mac;
}

bool ClusterKeyRing::Verify(const ClusterKeyId& id, std::string_view bytes,
                            std::string_view mac) const {
  const Key* key = Find(id);
  return key != nullptr && MacMatches(*key, bytes, mac);
}

bool ClusterKeyRing::VerifyAny(std::string_view bytes, std::string_view mac) const {
  bool any = false;
  // Every key is tried (no early exit), so timing does not tell which key matched.
  for (const Key& key : keys_) any |= MacMatches(key, bytes, mac);
  return any;
}

}  // namespace tilejit::cache
