// SPDX-License-Identifier: Apache-2.0
// Pieces of SqliteStore shared by its implementation files; not part of the library's API.
#pragma once

#include <memory>
#include <string_view>

#include "cache/entry.h"
#include "cache/sqlite_store.h"
#include "cache/sqlite_util.h"
#include "common/result.h"

namespace tilejit::cache {

// A reader connection borrowed from the store's pool; returned to the pool on destruction.
class SqliteStore::ReaderLease {
 public:
  ReaderLease(SqliteStore* store, std::unique_ptr<sqlite::Connection> conn)
      : store_(store), conn_(std::move(conn)) {}
  ~ReaderLease() {
    if (conn_ != nullptr) store_->ReleaseReader(std::move(conn_));
  }
  ReaderLease(ReaderLease&& other) noexcept = default;
  ReaderLease& operator=(ReaderLease&&) = delete;

  sqlite::Connection* get() { return conn_.get(); }

 private:
  SqliteStore* store_;
  std::unique_ptr<sqlite::Connection> conn_;
};

// The outcome of looking a key up inside one read transaction.
struct SqliteStore::Found {
  enum class State { kAbsent, kExpired, kCorrupt, kHit };
  State state = State::kAbsent;
  int64_t id = 0;
  Entry entry;
};

namespace internal {

// Reads every blob of entry `id` into `entry` and verifies it: each blob's SHA-256 matches the
// stored digest, the binary is present, and the sizes add up to `bytes`. Returns false when
// verification fails (the entry is corrupt), an error when SQLite fails.
Result<bool> LoadVerifiedBlobs(sqlite::Connection* conn, int64_t id, uint64_t bytes, Entry* entry);

// True for "" and for lowercase hex up to kMaxKeyLength characters.
bool IsValidKeyPrefix(std::string_view prefix);

// InvalidArgument naming a malformed key.
Status KeyError(std::string_view key);

}  // namespace internal
}  // namespace tilejit::cache
