// SPDX-License-Identifier: Apache-2.0
// EntrySigner: the cluster's signature on one kernel entry outside the Redis tier: on the
// entries of the SQLite store and of export bundles. With a cluster key (--cluster-key-file),
// the daemon signs every entry it writes or exports, refuses a local entry whose signature is
// missing or wrong (it is dropped and recompiled, like a corrupt one), and imports a signed
// bundle entry without recompiling it once the signature verifies (service_import.cc).
//
// A signature names the key it claims and the binary's SHA-256, so it cannot be moved to
// another key or another binary. Its bytes are the implementation's (redis_cluster.h signs
// with cache::ClusterKeyRing: 8-byte key id, then HMAC-SHA256).
//
// Threading: implementations are immutable; all methods are safe to call concurrently.
#pragma once

#include <string>
#include <string_view>

namespace tilejit::server {

// The side blob of a cache entry that holds its signature.
inline constexpr std::string_view kSignatureBlob = "cluster.mac";

class EntrySigner {
 public:
  virtual ~EntrySigner() = default;
  virtual std::string Sign(std::string_view key, std::string_view binary) const = 0;
  // True when `signature` is Sign(key, binary) under a key this node accepts.
  virtual bool Verify(std::string_view key, std::string_view binary,
                      std::string_view signature) const = 0;
};

}  // namespace tilejit::server
