// SPDX-License-Identifier: Apache-2.0
// ClusterSigner: EntrySigner (entry_signer.h) under the cluster key ring. A signature is the
// signing key's 8-byte id followed by HMAC-SHA256 over a domain tag, the key and the binary's
// SHA-256; any key of the ring verifies (rotation as in docs/redis_tier.md).
//
// Ownership and threading: shares the immutable ring; safe to call concurrently.
#pragma once

#include <memory>

#include "cache/cluster_key.h"
#include "server/entry_signer.h"

namespace tilejit::server {

class ClusterSigner final : public EntrySigner {
 public:
  explicit ClusterSigner(std::shared_ptr<const cache::ClusterKeyRing> keys)
      : keys_(std::move(keys)) {}
  std::string Sign(std::string_view key, std::string_view binary) const override;
  bool Verify(std::string_view key, std::string_view binary,
              std::string_view signature) const override;

 private:
  std::shared_ptr<const cache::ClusterKeyRing> keys_;
};

}  // namespace tilejit::server
