// SPDX-License-Identifier: Apache-2.0
#include "cache/entry.h"

#include <string>

namespace tilejit::cache {

uint64_t Entry::ByteSize() const {
  uint64_t total = binary.size();
  for (const auto& [name, bytes] : side) total += bytes.size();
  return total;
}

bool IsValidKey(std::string_view key) {
  if (key.empty() || key.size() > kMaxKeyLength) return false;
  for (char c : key) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (!hex) return false;
  }
  return true;
}

bool IsValidSideBlobName(std::string_view name) {
  if (name.empty() || name.size() > kMaxBlobNameLength || name == kBinaryBlobName) return false;
  for (char c : name) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Status ValidateEntry(const Entry& entry) {
  // Names are restricted so that they are safe in the export format's text lines and in logs.
  if (!IsValidKey(entry.key)) {
    return InvalidArgument("cache key must be 1-" + std::to_string(kMaxKeyLength) +
                           " lowercase hex digits, got '" + entry.key.substr(0, 40) + "'");
  }
  if (entry.side.size() > kMaxSideBlobs) {
    return InvalidArgument("cache entry has " + std::to_string(entry.side.size()) +
                           " side blobs; at most " + std::to_string(kMaxSideBlobs) + " allowed");
  }
  for (const auto& [name, bytes] : entry.side) {
    if (!IsValidSideBlobName(name)) {
      return InvalidArgument("invalid side blob name '" + name.substr(0, 40) +
                             "' (1-64 of [A-Za-z0-9._-], not 'binary')");
    }
  }
  return Status::Ok();
}

}  // namespace tilejit::cache
