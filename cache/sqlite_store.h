// SPDX-License-Identifier: Apache-2.0
// SqliteStore: the daemon's local, persistent kernel cache in one SQLite file.
//
// What it guarantees:
// - Whole entries: a Put is one transaction (entry row, every blob, evictions), so a reader
//   never sees a binary with another compile's metadata, and a crash never publishes half an
//   entry. WAL journal with synchronous=NORMAL: a killed process loses no committed entry.
// - Verified reads: every blob's SHA-256 is stored and checked on every Get. A mismatch is
//   counted (Stats().corruptions), the entry is deleted, and Get reports a miss (NotFound), so
//   the caller recompiles and the next Put heals the entry.
// - Bounded size: `max_bytes` caps the sum of entry sizes; a Put evicts least recently used
//   unpinned entries until the store fits. An entry larger than the cap, or one that cannot fit
//   because pinned entries hold the space, is refused (ResourceExhausted).
// - TTL: with `ttl_ms` set, an entry older than the TTL (counted from its write) is a miss and
//   is removed; Puts also sweep expired entries. Pinned entries never expire, are never evicted
//   by LRU, and Evict refuses them until they are unpinned.
// - Integrity at open: PRAGMA quick_check (or integrity_check). A corrupt file, or one that is
//   not a database, is renamed to `<path>.corrupt-<UTC timestamp>` (with its -wal) and a fresh
//   store is started; OpenReport says so, for the daemon to log loudly. A valid database that is
//   not a tilejit cache, or one written by a newer schema, is an error and left untouched.
// - One owner: the store holds an exclusive flock on `<path>.lock`, so a second daemon on the
//   same file fails to open with a clear message instead of racing (sccache's "one dir per
//   server"). Read-only stores take no lock.
// - Failure isolation: when writes fail (disk full, read-only file system, the `max_db_pages`
//   limit), Put returns the Status and Stats().write_failures counts it, while Gets keep
//   serving. When the database cannot be opened for writing but exists, the store opens
//   read-only (an immutable snapshot when the directory is not writable and no WAL exists) and
//   says so in OpenReport.
//
// Threading: all methods are safe to call concurrently from many threads of one process.
// Reads run on a pool of reader connections (WAL lets them proceed in parallel with a write);
// every write runs on one writer connection under a mutex. A hit's access time is recorded in
// memory and written in the next write transaction (or when many are pending), so hits do not
// serialise on the writer; after a crash the LRU order may lag by those pending hits only.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cache/clock.h"
#include "cache/entry.h"
#include "cache/store.h"
#include "common/result.h"
#include "common/status.h"

namespace tilejit::cache {

namespace sqlite {
class Connection;
}

struct SqliteStoreOptions {
  std::string path{};          // the database file; its directory is created if missing
  uint64_t max_bytes = 0;      // cap on the sum of entry sizes; 0: unlimited
  int64_t ttl_ms = 0;          // entry lifetime from its write; 0: no TTL
  int busy_timeout_ms = 5000;  // how long a connection waits for a lock before failing
  bool read_only = false;      // open without writing anything (inspection, read-only replicas)
  bool full_integrity_check = false;  // integrity_check instead of quick_check at open
  int64_t max_db_pages = 0;           // hard limit on the file's size in pages; 0: SQLite's default
  Clock clock{};                      // Unix milliseconds; default SystemNowMs
};

// What happened at open, for the daemon's log.
struct OpenReport {
  std::string path;
  bool created = false;      // a fresh database was initialised
  int found_version = 0;     // schema version on disk before migration (0: none)
  bool migrated = false;     // migrated from found_version to the current version
  bool quarantined = false;  // the old file was corrupt and was moved aside
  std::string quarantine_path;
  std::string quarantine_reason;
  bool read_only = false;  // writes will fail
  std::string read_only_reason;

  // One human-readable line; starts with "CORRUPT" when a file was quarantined.
  std::string ToString() const;
};

struct StoreStats {
  uint64_t entries = 0;  // stored entries (expired ones count until removed)
  uint64_t bytes = 0;    // sum of entry sizes
  uint64_t pinned_entries = 0;
  uint64_t pinned_bytes = 0;
  uint64_t max_bytes = 0;  // the configured cap; 0: unlimited
  // Counters since open.
  uint64_t hits = 0;
  uint64_t misses = 0;          // every Get that returned NotFound
  uint64_t puts = 0;            // successful Puts
  uint64_t evictions = 0;       // entries removed by LRU to respect max_bytes
  uint64_t expirations = 0;     // entries removed because their TTL passed
  uint64_t corruptions = 0;     // reads that found a blob failing its digest (or a corrupt page)
  uint64_t write_failures = 0;  // Puts (and other writes) that failed, excluding invalid input
};

enum class ListOrder {
  kLastAccessDesc,  // most recently used first
  kLastAccessAsc,   // next LRU victims first
  kCreatedDesc,     // newest first
  kBytesDesc,       // largest first
  kKey,             // by key
};

struct ListOptions {
  ListOrder order = ListOrder::kLastAccessDesc;
  size_t limit = 100;    // 0: no limit
  std::string prefix{};  // only keys starting with this (lowercase hex)
};

struct ExportReport {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t skipped_corrupt = 0;  // entries that failed verification and were not exported
};

struct ImportReport {
  uint64_t imported = 0;
  uint64_t already_present = 0;   // key already stored; the local entry was kept
  uint64_t rejected_corrupt = 0;  // a blob did not match its recorded digest
  uint64_t failed = 0;            // a valid entry the store could not write (see write_failures)
};

class SqliteStore final : public Store {
 public:
  // Opens (creating, migrating or quarantining as needed) the store at `options.path`.
  static Result<std::unique_ptr<SqliteStore>> Open(SqliteStoreOptions options);
  // Writes pending access times, then closes every connection and releases the lock.
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  std::string_view name() const override { return "sqlite"; }

  // The entry with every blob verified; NotFound on an absent, expired or corrupt entry.
  Result<Entry> Get(std::string_view key) override;
  // Publishes `entry` in one transaction, replacing any entry under its key (a pin is kept).
  Status Put(const Entry& entry) override;
  // Removes one entry; NotFound when absent, InvalidArgument when pinned.
  Status Evict(std::string_view key) override;
  Status Pin(std::string_view key) override;
  Status Unpin(std::string_view key) override;
  // A use served by a faster tier: recorded like a hit's access time (written with the next
  // write transaction), so LRU eviction sees it.
  void Touch(std::string_view key) override;

  Result<std::vector<EntryInfo>> List(const ListOptions& options);
  Result<StoreStats> Stats();

  // Writes every verified, unexpired entry whose key starts with `prefix` to `path` (atomic:
  // the file appears complete or not at all).
  Result<ExportReport> Export(const std::string& path, std::string_view prefix = {});
  // Adds the entries of an export file, each verified and written in its own transaction.
  // Entries read before a structural error stay imported; the error names the byte offset.
  Result<ImportReport> Import(const std::string& path);

  // Removes every expired, unpinned entry now; returns how many.
  Result<uint64_t> RemoveExpired();
  // Runs the integrity check on the live database (quick, or full when `full`).
  Status CheckIntegrity(bool full);

  const OpenReport& open_report() const { return report_; }

 private:
  class ReaderLease;
  struct PendingTouch {
    int64_t last_ms = 0;
    uint64_t count = 0;
  };
  struct Found;

  explicit SqliteStore(SqliteStoreOptions options);
  Status OpenFiles();
  Status OpenWritable();
  Status OpenReadOnly();
  Result<std::unique_ptr<sqlite::Connection>> OpenConnection(bool writer) const;
  Result<ReaderLease> AcquireReader();
  void ReleaseReader(std::unique_ptr<sqlite::Connection> conn);

  int64_t Now() const { return options_.clock(); }
  bool Expired(int64_t created_ms, bool pinned, int64_t now) const;
  int64_t ExpiresAt(int64_t created_ms, bool pinned) const;

  Result<Found> ReadEntry(sqlite::Connection* conn, std::string_view key, int64_t now);
  void RecordTouch(int64_t id, int64_t now);
  void MaybeFlushTouches(size_t pending);
  void DropById(int64_t id, bool expired);
  Status PutLocked(const Entry& entry, const std::vector<std::string>& digests, uint64_t* evicted,
                   uint64_t* expired);
  Status FlushTouchesLocked();            // inside a write transaction
  Status FlushTouchesNowLocked();         // in a transaction of its own
  Result<bool> DeleteLocked(int64_t id);  // true when a row was removed
  Status InsertLocked(const Entry& entry, const std::vector<std::string>& digests, bool pinned,
                      int64_t now, int64_t* id);
  Result<uint64_t> RemoveExpiredLocked(int64_t now);
  Status EnforceCapLocked(int64_t keep_id, uint64_t* evicted);
  Status SetPinned(std::string_view key, bool pinned);
  Result<bool> Contains(std::string_view key);
  Status WriteFailure(Status status);
  static bool IsWriteFailure(const Status& status);
  Status CheckWritable(std::string_view what);

  SqliteStoreOptions options_;
  OpenReport report_;
  int lock_fd_ = -1;
  std::string db_name_;  // what sqlite3_open_v2 is given: the path, or a file: URI
  int extra_flags_ = 0;  // SQLITE_OPEN_URI when db_name_ is a URI

  std::mutex writer_mu_;
  std::unique_ptr<sqlite::Connection> writer_;  // guarded by writer_mu_

  std::mutex pool_mu_;
  std::vector<std::unique_ptr<sqlite::Connection>> idle_readers_;  // guarded by pool_mu_

  std::mutex touch_mu_;
  std::unordered_map<int64_t, PendingTouch>
      touches_;  // entry id -> pending hits; guarded by touch_mu_
  // key -> pending uses served by a faster tier (Touch); guarded by touch_mu_
  std::unordered_map<std::string, PendingTouch> key_touches_;

  std::atomic<uint64_t> hits_{0}, misses_{0}, puts_{0}, evictions_{0}, expirations_{0},
      corruptions_{0}, write_failures_{0};
};

}  // namespace tilejit::cache
