// SPDX-License-Identifier: Apache-2.0
// ClusterKeyRing: the secret keys a cluster's nodes share to sign and verify what they put in
// the shared (Redis) cache tier, with HMAC-SHA256.
//
// Key file format (`--cluster-key-file`), a small text file:
//   # comment lines start with '#'; blank lines are ignored; spaces around a key are ignored
//   <hex key>      the first key line is the CURRENT key: it signs everything this node writes
//   <hex key>      later lines are PREVIOUS keys, still accepted when verifying
// Each key is 32 to 64 bytes written as 64 to 128 hex digits (either case), for example the
// output of `openssl rand -hex 32`. At most kMaxClusterKeys keys; a key may not repeat. Errors
// name the file and the line.
//
// Rotation: add the new key as a previous key on every node; then make it current (move it to
// the first line) on every node; once no value signed with the old key matters any more
// (its TTL has passed), drop the old line. Values signed with a key that is no longer listed
// fail verification.
//
// Each key has a KeyId, the first 8 bytes of the SHA-256 of the key bytes. A signed value
// carries the id of its key, so verification picks the key directly. The id identifies, it
// does not authenticate: knowing it does not help forge a MAC.
//
// Whether the file is readable by group or others is reported, not judged: the daemon decides
// whether to warn. This module never logs.
//
// Ownership and threading: a ring is an immutable value once built; all const methods are
// safe to call concurrently. Key bytes are wiped from memory when the ring is destroyed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/status.h"

namespace tilejit::cache {

inline constexpr size_t kMaxClusterKeys = 16;
inline constexpr size_t kMinClusterKeyBytes = 32;
inline constexpr size_t kMaxClusterKeyBytes = 64;
// A key file larger than this is refused before it is parsed.
inline constexpr size_t kMaxClusterKeyFileBytes = 64 * 1024;

inline constexpr size_t kClusterKeyIdBytes = 8;
inline constexpr size_t kClusterMacBytes = 32;  // HMAC-SHA256

using ClusterKeyId = std::array<uint8_t, kClusterKeyIdBytes>;
using ClusterMac = std::array<uint8_t, kClusterMacBytes>;

// Lowercase hex of a key id, for messages and logs.
std::string ClusterKeyIdHex(const ClusterKeyId& id);

class ClusterKeyRing {
 public:
  // Reads and parses a key file. When `readable_by_others` is given, it is set to whether the
  // file's mode lets group or others read it.
  static Result<ClusterKeyRing> LoadFile(const std::string& path,
                                         bool* readable_by_others = nullptr);
  // Parses key file text; `origin` names it in errors (a path, or "<inline>").
  static Result<ClusterKeyRing> Parse(std::string_view text, std::string_view origin);
  // A ring from raw key bytes, current key first (tests, and callers with keys in hand).
  static Result<ClusterKeyRing> FromKeys(const std::vector<std::string>& raw_keys);

  ClusterKeyRing(const ClusterKeyRing& other) = default;
  ClusterKeyRing& operator=(const ClusterKeyRing& other) = default;
  ClusterKeyRing(ClusterKeyRing&& other) noexcept = default;
  ClusterKeyRing& operator=(ClusterKeyRing&& other) noexcept = default;
  ~ClusterKeyRing();

  // How many keys the ring holds (current plus previous); at least 1.
  size_t size() const { return keys_.size(); }
  const ClusterKeyId& current_id() const { return keys_.front().id; }
  // Whether `id` names one of the ring's keys.
  bool Contains(const ClusterKeyId& id) const { return Find(id) != nullptr; }

  // HMAC-SHA256 of `bytes` under the current key.
  ClusterMac Sign(std::string_view bytes) const;
  // True when `mac` is the HMAC of `bytes` under the key named `id`, which must be in the ring.
  // The comparison takes constant time.
  bool Verify(const ClusterKeyId& id, std::string_view bytes, std::string_view mac) const;
  // True when `mac` is the HMAC of `bytes` under any key of the ring.
  bool VerifyAny(std::string_view bytes, std::string_view mac) const;

 private:
  struct Key {
    std::string bytes;
    ClusterKeyId id{};
  };
  ClusterKeyRing() = default;
  const Key* Find(const ClusterKeyId& id) const;
  static bool MacMatches(const Key& key, std::string_view bytes, std::string_view mac);

  std::vector<Key> keys_;  // current first
};

}  // namespace tilejit::cache
