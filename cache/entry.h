// SPDX-License-Identifier: Apache-2.0
// What the kernel cache stores per key.
//
// An Entry is one compiled kernel: its cache key (a lowercase hex string, compiler/key.cc), the
// kernel binary, and named opaque side blobs that let the service answer a hit exactly like a
// miss (for example "metadata.json" with the response metadata and "diagnostics" with the
// compiler's warnings). The cache never interprets any of these bytes. Every blob is stored with
// its SHA-256 and checked on every read, so a hit always returns the bytes that were put.
//
// Entries are plain values: thread-compatible, copied or moved freely. Stores hand out
// std::shared_ptr<const Entry> where an entry is shared between threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace tilejit::cache {

// The blob name under which the kernel binary is stored. Side blobs may not use it.
inline constexpr std::string_view kBinaryBlobName = "binary";

// Limits that keep a store bounded and its export format parseable.
inline constexpr size_t kMaxKeyLength = 128;
inline constexpr size_t kMaxBlobNameLength = 64;
inline constexpr size_t kMaxSideBlobs = 64;

// Side blobs by name. Names are 1-64 characters of [A-Za-z0-9._-].
using SideBlobs = std::map<std::string, std::string, std::less<>>;

struct Entry {
  std::string key;     // lowercase hex, 1..kMaxKeyLength characters
  std::string binary;  // the kernel binary (may be empty for a cached compile result without one)
  SideBlobs side;      // opaque side blobs

  // On Put: store the entry pinned (an existing pin on the key is kept either way).
  // On Get: whether the entry is pinned now.
  bool pinned = false;

  // Filled in by a store on Get; ignored on Put (the store stamps its own clock).
  int64_t created_ms = 0;      // Unix milliseconds when the entry was written
  int64_t last_access_ms = 0;  // Unix milliseconds of the last hit (or the write)
  int64_t expires_ms = 0;      // Unix milliseconds when the TTL ends; 0: never (no TTL, or pinned)

  // Bytes the entry accounts for against a size cap: binary plus every side blob.
  uint64_t ByteSize() const;
};

// One stored blob as listed (bytes not loaded).
struct BlobInfo {
  std::string name;
  uint64_t size = 0;
  std::string sha256;  // lowercase hex of the blob's SHA-256
};

// An entry's description, as returned by SqliteStore::List.
struct EntryInfo {
  std::string key;
  uint64_t bytes = 0;  // Entry::ByteSize() of the stored entry
  int64_t created_ms = 0;
  int64_t last_access_ms = 0;
  int64_t expires_ms = 0;     // 0: never
  uint64_t access_count = 0;  // hits served by the store for this entry
  bool pinned = false;
  std::vector<BlobInfo> blobs;  // the binary first, then side blobs by name
};

// True when `key` is a valid cache key: 1..kMaxKeyLength lowercase hex digits.
bool IsValidKey(std::string_view key);

// True when `name` is a valid side-blob name (and not kBinaryBlobName).
bool IsValidSideBlobName(std::string_view name);

// OK, or InvalidArgument naming the first problem (bad key, bad or reserved blob name, too many
// side blobs).
Status ValidateEntry(const Entry& entry);

}  // namespace tilejit::cache
