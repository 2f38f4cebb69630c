// SPDX-License-Identifier: Apache-2.0
// SqliteStore's entry operations: verified reads, whole-entry writes with LRU eviction and TTL
// sweeps, and the deferred recording of hits.
#include "cache/sqlite_store.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cache/sqlite_store_internal.h"
#include "cache/sqlite_util.h"
#include "common/sha256.h"

namespace tilejit::cache {

using sqlite::Statement;
using sqlite::Transaction;

namespace {

// Pending hit records beyond which a Get tries to write them out itself.
constexpr size_t kMaxPendingTouches = 256;

}  // namespace

namespace internal {

Result<bool> LoadVerifiedBlobs(sqlite::Connection* conn, int64_t id, uint64_t bytes, Entry* entry) {
  TILEJIT_ASSIGN_OR_RETURN(
      Statement stmt, conn->Prepare("SELECT name, data, sha256 FROM blobs WHERE entry_id = ?1"));
  TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, id));
  bool have_binary = false;
  uint64_t total = 0;
  while (true) {
    TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
    if (!row) break;
    const std::string_view name = stmt.ColumnText(0);
    const std::string_view data = stmt.ColumnBlob(1);
    if (Sha256Hex(data) != stmt.ColumnText(2)) return false;
    total += data.size();
    if (name == kBinaryBlobName) {
      entry->binary.assign(data);
      have_binary = true;
    } else {
      entry->side.emplace(std::string(name), std::string(data));
    }
  }
  return have_binary && total == bytes;
}

bool IsValidKeyPrefix(std::string_view prefix) { return prefix.empty() || IsValidKey(prefix); }

Status KeyError(std::string_view key) {
  return InvalidArgument("invalid cache key '" + std::string(key.substr(0, 40)) +
                         "' (expected lowercase hex)");
}

}  // namespace internal

bool SqliteStore::Expired(int64_t created_ms, bool pinned, int64_t now) const {
  return options_.ttl_ms > 0 && !pinned && now >= created_ms + options_.ttl_ms;
}

int64_t SqliteStore::ExpiresAt(int64_t created_ms, bool pinned) const {
  return (options_.ttl_ms > 0 && !pinned) ? created_ms + options_.ttl_ms : 0;
}

Result<SqliteStore::Found> SqliteStore::ReadEntry(sqlite::Connection* conn, std::string_view key,
                                                  int64_t now) {
  // One read transaction, so the entry row and its blobs come from the same snapshot.
  TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(conn, "BEGIN"));
  Found found;
  uint64_t bytes = 0;
  {
    TILEJIT_ASSIGN_OR_RETURN(
        Statement stmt,
        conn->Prepare("SELECT id, bytes, created_ms, last_access_ms, pinned FROM entries "
                      "WHERE key = ?1"));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, key));
    TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
    if (!row) return found;  // kAbsent
    found.id = stmt.ColumnInt(0);
    bytes = static_cast<uint64_t>(stmt.ColumnInt(1));
    found.entry.created_ms = stmt.ColumnInt(2);
    found.entry.last_access_ms = std::max(stmt.ColumnInt(3), now);
    found.entry.pinned = stmt.ColumnInt(4) != 0;
  }
  if (Expired(found.entry.created_ms, found.entry.pinned, now)) {
    found.state = Found::State::kExpired;
    return found;
  }
  TILEJIT_ASSIGN_OR_RETURN(const bool verified,
                           internal::LoadVerifiedBlobs(conn, found.id, bytes, &found.entry));
  TILEJIT_RETURN_IF_ERROR(tx.Commit());
  found.state = verified ? Found::State::kHit : Found::State::kCorrupt;
  found.entry.key = std::string(key);
  found.entry.expires_ms = ExpiresAt(found.entry.created_ms, found.entry.pinned);
  return found;
}

Result<Entry> SqliteStore::Get(std::string_view key) {
  if (!IsValidKey(key)) return internal::KeyError(key);
  const int64_t now = Now();
  Result<Found> found = [&]() -> Result<Found> {
    TILEJIT_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
    return ReadEntry(lease.get(), key, now);
  }();
  if (!found.ok()) {
    // A failing read is a miss for the caller (it recompiles); a corrupt page is also counted.
    ++misses_;
    if (found.status().code() == StatusCode::kCorruption) ++corruptions_;
    return found.status().WithContext("cache read of " + std::string(key));
  }
  switch (found->state) {
    case Found::State::kAbsent:
      ++misses_;
      return NotFound("no cache entry " + std::string(key));
    case Found::State::kExpired:
      ++misses_;
      DropById(found->id, /*expired=*/true);
      return NotFound("cache entry " + std::string(key) + " expired");
    case Found::State::kCorrupt:
      ++misses_;
      ++corruptions_;
      DropById(found->id, /*expired=*/false);
      return NotFound("cache entry " + std::string(key) +
                      " failed its SHA-256 check and was dropped");
    case Found::State::kHit:
      break;
  }
  ++hits_;
  RecordTouch(found->id, now);
  return std::move(found->entry);
}

void SqliteStore::RecordTouch(int64_t id, int64_t now) {
  size_t pending = 0;
  {
    std::lock_guard<std::mutex> lock(touch_mu_);
    PendingTouch& touch = touches_[id];
    touch.last_ms = std::max(touch.last_ms, now);
    ++touch.count;
    pending = touches_.size() + key_touches_.size();
  }
  MaybeFlushTouches(pending);
}

void SqliteStore::Touch(std::string_view key) {
  if (report_.read_only || !IsValidKey(key)) return;
  const int64_t now = Now();
  size_t pending = 0;
  {
    std::lock_guard<std::mutex> lock(touch_mu_);
    auto [it, inserted] = key_touches_.try_emplace(std::string(key));
    it->second.last_ms = std::max(it->second.last_ms, now);
    ++it->second.count;
    pending = touches_.size() + key_touches_.size();
  }
  MaybeFlushTouches(pending);
}

void SqliteStore::MaybeFlushTouches(size_t pending) {
  // Never block a hit on a writer: if the writer is busy, its own transaction flushes anyway.
  if (pending >= kMaxPendingTouches && !report_.read_only && writer_mu_.try_lock()) {
    (void)FlushTouchesNowLocked();
    writer_mu_.unlock();
  }
}

Status SqliteStore::FlushTouchesLocked() {
  std::unordered_map<int64_t, PendingTouch> pending;
  std::unordered_map<std::string, PendingTouch> pending_keys;
  {
    std::lock_guard<std::mutex> lock(touch_mu_);
    pending.swap(touches_);
    pending_keys.swap(key_touches_);
  }
  if (!pending.empty()) {
    TILEJIT_ASSIGN_OR_RETURN(
        Statement stmt,
        writer_->Prepare("UPDATE entries SET last_access_ms = MAX(last_access_ms, ?1), "
                         "access_count = access_count + ?2 WHERE id = ?3"));
    for (const auto& [id, touch] : pending) {
      // An id that was deleted or replaced meanwhile matches no row, which is what we want.
      TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, touch.last_ms));
      TILEJIT_RETURN_IF_ERROR(stmt.Bind(2, static_cast<int64_t>(touch.count)));
      TILEJIT_RETURN_IF_ERROR(stmt.Bind(3, id));
      TILEJIT_RETURN_IF_ERROR(stmt.Run());
      stmt.Reset();
    }
  }
  if (pending_keys.empty()) return Status::Ok();
  // Uses served by a faster tier name the key: the entry they saw may be this row or an
  // older one under the same key, and either way the key was used.
  TILEJIT_ASSIGN_OR_RETURN(
      Statement stmt,
      writer_->Prepare("UPDATE entries SET last_access_ms = MAX(last_access_ms, ?1), "
                       "access_count = access_count + ?2 WHERE key = ?3"));
  for (const auto& [key, touch] : pending_keys) {
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, touch.last_ms));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(2, static_cast<int64_t>(touch.count)));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(3, key));
    TILEJIT_RETURN_IF_ERROR(stmt.Run());
    stmt.Reset();
  }
  return Status::Ok();
}

Status SqliteStore::FlushTouchesNowLocked() {
  TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(writer_.get(), "BEGIN IMMEDIATE"));
  TILEJIT_RETURN_IF_ERROR(FlushTouchesLocked());
  return tx.Commit();
}

Result<bool> SqliteStore::DeleteLocked(int64_t id) {
  {
    TILEJIT_ASSIGN_OR_RETURN(Statement stmt,
                             writer_->Prepare("DELETE FROM blobs WHERE entry_id = ?1"));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, id));
    TILEJIT_RETURN_IF_ERROR(stmt.Run());
  }
  TILEJIT_ASSIGN_OR_RETURN(Statement stmt, writer_->Prepare("DELETE FROM entries WHERE id = ?1"));
  TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, id));
  TILEJIT_RETURN_IF_ERROR(stmt.Run());
  return sqlite3_changes(writer_->raw()) > 0;
}

void SqliteStore::DropById(int64_t id, bool expired) {
  if (report_.read_only) return;
  std::lock_guard<std::mutex> lock(writer_mu_);
  // By id, not by key: if another thread has meanwhile written a fresh entry under the same
  // key, it has a new id and survives.
  Result<bool> removed = [&]() -> Result<bool> {
    TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(writer_.get(), "BEGIN IMMEDIATE"));
    TILEJIT_ASSIGN_OR_RETURN(const bool gone, DeleteLocked(id));
    TILEJIT_RETURN_IF_ERROR(tx.Commit());
    return gone;
  }();
  if (!removed.ok()) {
    ++write_failures_;
  } else if (*removed && expired) {
    ++expirations_;
  }
}

Result<uint64_t> SqliteStore::RemoveExpiredLocked(int64_t now) {
  if (options_.ttl_ms <= 0) return uint64_t{0};
  std::vector<int64_t> ids;
  {
    TILEJIT_ASSIGN_OR_RETURN(
        Statement stmt,
        writer_->Prepare("SELECT id FROM entries WHERE pinned = 0 AND created_ms <= ?1"));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, now - options_.ttl_ms));
    while (true) {
      TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
      if (!row) break;
      ids.push_back(stmt.ColumnInt(0));
    }
  }
  for (int64_t id : ids) TILEJIT_RETURN_IF_ERROR(DeleteLocked(id));
  return static_cast<uint64_t>(ids.size());
}

Status SqliteStore::EnforceCapLocked(int64_t keep_id, uint64_t* evicted) {
  if (options_.max_bytes == 0) return Status::Ok();
  while (true) {
    TILEJIT_ASSIGN_OR_RETURN(const int64_t total,
                             writer_->QueryInt("SELECT bytes FROM totals WHERE id = 0", 0));
    if (static_cast<uint64_t>(total) <= options_.max_bytes) return Status::Ok();
    int64_t victim = 0;
    {
      TILEJIT_ASSIGN_OR_RETURN(
          Statement stmt, writer_->Prepare("SELECT id FROM entries WHERE pinned = 0 AND id <> ?1 "
                                           "ORDER BY last_access_ms, id LIMIT 1"));
      TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, keep_id));
      TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
      if (!row) {
        return ResourceExhausted("cache is full: pinned entries hold the space under the " +
                                 std::to_string(options_.max_bytes) + "-byte cap");
      }
      victim = stmt.ColumnInt(0);
    }
    TILEJIT_RETURN_IF_ERROR(DeleteLocked(victim));
    ++*evicted;
  }
}

Status SqliteStore::InsertLocked(const Entry& entry, const std::vector<std::string>& digests,
                                 bool pinned, int64_t now, int64_t* id) {
  {
    TILEJIT_ASSIGN_OR_RETURN(
        Statement stmt,
        writer_->Prepare("INSERT INTO entries(key, bytes, created_ms, last_access_ms, pinned) "
                         "VALUES(?1, ?2, ?3, ?3, ?4)"));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, entry.key));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(2, static_cast<int64_t>(entry.ByteSize())));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(3, now));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(4, int64_t{pinned ? 1 : 0}));
    TILEJIT_RETURN_IF_ERROR(stmt.Run());
  }
  *id = sqlite3_last_insert_rowid(writer_->raw());
  TILEJIT_ASSIGN_OR_RETURN(
      Statement stmt,
      writer_->Prepare("INSERT INTO blobs(entry_id, name, data, sha256) VALUES(?1, ?2, ?3, ?4)"));
  auto insert = [&](std::string_view name, std::string_view bytes,
                    const std::string& digest) -> Status {
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, *id));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(2, name));
    TILEJIT_RETURN_IF_ERROR(stmt.BindBlob(3, bytes));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(4, digest));
    Status status = stmt.Run();
    stmt.Reset();
    return status;
  };
  TILEJIT_RETURN_IF_ERROR(insert(kBinaryBlobName, entry.binary, digests[0]));
  size_t i = 1;
  for (const auto& [name, bytes] : entry.side) {
    TILEJIT_RETURN_IF_ERROR(insert(name, bytes, digests[i++]));
  }
  return Status::Ok();
}

Status SqliteStore::PutLocked(const Entry& entry, const std::vector<std::string>& digests,
                              uint64_t* evicted, uint64_t* expired) {
  const int64_t now = Now();
  TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(writer_.get(), "BEGIN IMMEDIATE"));
  // Access times first, so that eviction below sees the true LRU order.
  TILEJIT_RETURN_IF_ERROR(FlushTouchesLocked());
  TILEJIT_ASSIGN_OR_RETURN(*expired, RemoveExpiredLocked(now));
  bool pinned = entry.pinned;
  {
    TILEJIT_ASSIGN_OR_RETURN(Statement stmt,
                             writer_->Prepare("SELECT id, pinned FROM entries WHERE key = ?1"));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, entry.key));
    TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
    if (row) {
      const int64_t old_id = stmt.ColumnInt(0);
      pinned = pinned || stmt.ColumnInt(1) != 0;
      stmt.Reset();
      TILEJIT_RETURN_IF_ERROR(DeleteLocked(old_id));
    }
  }
  int64_t id = 0;
  TILEJIT_RETURN_IF_ERROR(InsertLocked(entry, digests, pinned, now, &id));
  TILEJIT_RETURN_IF_ERROR(EnforceCapLocked(id, evicted));
  return tx.Commit();
}

Status SqliteStore::Put(const Entry& entry) {
  TILEJIT_RETURN_IF_ERROR(ValidateEntry(entry));
  const uint64_t bytes = entry.ByteSize();
  if (options_.max_bytes > 0 && bytes > options_.max_bytes) {
    ++write_failures_;
    return ResourceExhausted("cache entry " + entry.key + " is " + std::to_string(bytes) +
                             " bytes, over the cache's " + std::to_string(options_.max_bytes) +
                             "-byte cap");
  }
  TILEJIT_RETURN_IF_ERROR(CheckWritable("write"));
  // Hash outside the writer lock: it is the expensive part for large binaries.
  std::vector<std::string> digests;
  digests.reserve(entry.side.size() + 1);
  digests.push_back(Sha256Hex(entry.binary));
  for (const auto& [name, blob] : entry.side) digests.push_back(Sha256Hex(blob));

  uint64_t evicted = 0;
  uint64_t expired = 0;
  Status status;
  {
    std::lock_guard<std::mutex> lock(writer_mu_);
    status = PutLocked(entry, digests, &evicted, &expired);
  }
  if (!status.ok()) return WriteFailure(status.WithContext("cache write of " + entry.key));
  ++puts_;
  evictions_ += evicted;
  expirations_ += expired;
  return Status::Ok();
}

Status SqliteStore::CheckWritable(std::string_view what) {
  if (!report_.read_only) return Status::Ok();
  ++write_failures_;
  return Unavailable("cache " + std::string(what) + " refused: the cache is read-only (" +
                     report_.read_only_reason + ")");
}

Status SqliteStore::WriteFailure(Status status) {
  ++write_failures_;
  return status;
}

}  // namespace tilejit::cache
