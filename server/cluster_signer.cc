// SPDX-License-Identifier: Apache-2.0
// The MAC covers the binary's digest rather than its bytes so that verifying an entry costs
// one SHA-256 of the binary (which the stores compute anyway) and a short HMAC. The domain
// tag keeps these MACs apart from the Redis values', which are made with the same keys.
#include "server/cluster_signer.h"

#include <algorithm>

#include "common/sha256.h"

namespace tilejit::server {
namespace {

std::string SignedBytes(std::string_view key, std::string_view binary) {
  const Digest digest = Sha256Digest(binary);
  std::string bytes = "tilejit-entry-mac-v1\n";
  bytes.append(key);
  bytes.push_back('\n');
  bytes.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  return bytes;
}

}  // namespace

std::string ClusterSigner::Sign(std::string_view key, std::string_view binary) const {
  const cache::ClusterMac mac = keys_->Sign(SignedBytes(key, binary));
  const cache::ClusterKeyId& id = keys_->current_id();
  std::string out(id.begin(), id.end());
  out.append(mac.begin(), mac.end());
  return out;
}

bool ClusterSigner::Verify(std::string_view key, std::string_view binary,
                           std::string_view signature) const {
  if (signature.size() != cache::kClusterKeyIdBytes + cache::kClusterMacBytes) return false;
  cache::ClusterKeyId id{};
  std::copy_n(signature.begin(), id.size(), id.begin());
  if (!keys_->Contains(id)) return false;
  return keys_->Verify(id, SignedBytes(key, binary), signature.substr(id.size()));
}

}  // namespace tilejit::server
