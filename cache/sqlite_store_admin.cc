// SPDX-License-Identifier: Apache-2.0
// SqliteStore's admin operations: Evict, Pin/Unpin, List, Stats, Export, Import, TTL sweep and
// the integrity check.
#include <string>
#include <utility>
#include <vector>

#include "cache/export_format.h"
#include "cache/sqlite_schema.h"
#include "cache/sqlite_store.h"
#include "cache/sqlite_store_internal.h"
#include "cache/sqlite_util.h"

namespace tilejit::cache {

using sqlite::Statement;
using sqlite::Transaction;

namespace {

Status PrefixError(std::string_view prefix) {
  return InvalidArgument("invalid key prefix '" + std::string(prefix.substr(0, 40)) +
                         "' (expected lowercase hex)");
}

// ORDER BY clauses come from this fixed table, never from request text.
const char* OrderBy(ListOrder order) {
  switch (order) {
    case ListOrder::kLastAccessDesc:
      return "last_access_ms DESC, id DESC";
    case ListOrder::kLastAccessAsc:
      return "last_access_ms ASC, id ASC";
    case ListOrder::kCreatedDesc:
      return "created_ms DESC, id DESC";
    case ListOrder::kBytesDesc:
      return "bytes DESC, id DESC";
    case ListOrder::kKey:
      return "key ASC";
  }
  return "key ASC";
}

Status ListBlobs(sqlite::Connection* conn, int64_t id, std::vector<BlobInfo>* blobs) {
  TILEJIT_ASSIGN_OR_RETURN(
      Statement stmt,
      conn->Prepare("SELECT name, length(data), sha256 FROM blobs WHERE entry_id = ?1 "
                    "ORDER BY name <> 'binary', name"));
  TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, id));
  while (true) {
    TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
    if (!row) return Status::Ok();
    blobs->push_back(BlobInfo{std::string(stmt.ColumnText(0)),
                              static_cast<uint64_t>(stmt.ColumnInt(1)),
                              std::string(stmt.ColumnText(2))});
  }
}

}  // namespace

Status SqliteStore::Evict(std::string_view key) {
  if (!IsValidKey(key)) return internal::KeyError(key);
  TILEJIT_RETURN_IF_ERROR(CheckWritable("evict"));
  std::lock_guard<std::mutex> lock(writer_mu_);
  Status status = [&]() -> Status {
    TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(writer_.get(), "BEGIN IMMEDIATE"));
    int64_t id = 0;
    {
      TILEJIT_ASSIGN_OR_RETURN(Statement stmt,
                               writer_->Prepare("SELECT id, pinned FROM entries WHERE key = ?1"));
      TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, key));
      TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
      if (!row) return NotFound("no cache entry " + std::string(key));
      if (stmt.ColumnInt(1) != 0) {
        return InvalidArgument("cache entry " + std::string(key) + " is pinned; unpin it first");
      }
      id = stmt.ColumnInt(0);
    }
    TILEJIT_RETURN_IF_ERROR(DeleteLocked(id));
    return tx.Commit();
  }();
  return IsWriteFailure(status) ? WriteFailure(status) : status;
}

Status SqliteStore::SetPinned(std::string_view key, bool pinned) {
  if (!IsValidKey(key)) return internal::KeyError(key);
  TILEJIT_RETURN_IF_ERROR(CheckWritable(pinned ? "pin" : "unpin"));
  const int64_t now = Now();
  std::lock_guard<std::mutex> lock(writer_mu_);
  Status status = [&]() -> Status {
    TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(writer_.get(), "BEGIN IMMEDIATE"));
    int64_t id = 0;
    {
      TILEJIT_ASSIGN_OR_RETURN(
          Statement stmt,
          writer_->Prepare("SELECT id, created_ms, pinned FROM entries WHERE key = ?1"));
      TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, key));
      TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
      // An expired entry is a miss everywhere, so it cannot be revived by pinning it.
      if (!row || Expired(stmt.ColumnInt(1), stmt.ColumnInt(2) != 0, now)) {
        return NotFound("no cache entry " + std::string(key));
      }
      id = stmt.ColumnInt(0);
    }
    TILEJIT_ASSIGN_OR_RETURN(Statement stmt,
                             writer_->Prepare("UPDATE entries SET pinned = ?1 WHERE id = ?2"));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, int64_t{pinned ? 1 : 0}));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(2, id));
    TILEJIT_RETURN_IF_ERROR(stmt.Run());
    return tx.Commit();
  }();
  return IsWriteFailure(status) ? WriteFailure(status) : status;
}

Status SqliteStore::Pin(std::string_view key) { return SetPinned(key, true); }
Status SqliteStore::Unpin(std::string_view key) { return SetPinned(key, false); }

bool SqliteStore::IsWriteFailure(const Status& status) {
  // NotFound and InvalidArgument are answers about the request, not failures of the store.
  return !status.ok() && status.code() != StatusCode::kNotFound &&
         status.code() != StatusCode::kInvalidArgument;
}

Result<std::vector<EntryInfo>> SqliteStore::List(const ListOptions& options) {
  if (!internal::IsValidKeyPrefix(options.prefix)) return PrefixError(options.prefix);
  if (!report_.read_only) {
    // So that the listed access times and order include recent hits. A failure here only
    // makes the order slightly stale.
    std::lock_guard<std::mutex> lock(writer_mu_);
    (void)FlushTouchesNowLocked();
  }
  TILEJIT_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  sqlite::Connection* conn = lease.get();
  TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(conn, "BEGIN"));
  std::vector<EntryInfo> infos;
  std::vector<int64_t> ids;
  {
    const std::string sql =
        std::string(
            "SELECT id, key, bytes, created_ms, last_access_ms, pinned, access_count "
            "FROM entries WHERE substr(key, 1, ?1) = ?2 ORDER BY ") +
        OrderBy(options.order) + " LIMIT ?3";
    TILEJIT_ASSIGN_OR_RETURN(Statement stmt, conn->Prepare(sql));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, static_cast<int64_t>(options.prefix.size())));
    TILEJIT_RETURN_IF_ERROR(stmt.Bind(2, options.prefix));
    TILEJIT_RETURN_IF_ERROR(
        stmt.Bind(3, options.limit == 0 ? int64_t{-1} : static_cast<int64_t>(options.limit)));
    while (true) {
      TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
      if (!row) break;
      EntryInfo info;
      ids.push_back(stmt.ColumnInt(0));
      info.key = std::string(stmt.ColumnText(1));
      info.bytes = static_cast<uint64_t>(stmt.ColumnInt(2));
      info.created_ms = stmt.ColumnInt(3);
      info.last_access_ms = stmt.ColumnInt(4);
      info.pinned = stmt.ColumnInt(5) != 0;
      info.access_count = static_cast<uint64_t>(stmt.ColumnInt(6));
      info.expires_ms = ExpiresAt(info.created_ms, info.pinned);
      infos.push_back(std::move(info));
    }
  }
  for (size_t i = 0; i < infos.size(); ++i) {
    TILEJIT_RETURN_IF_ERROR(ListBlobs(conn, ids[i], &infos[i].blobs));
  }
  TILEJIT_RETURN_IF_ERROR(tx.Commit());
  return infos;
}

Result<StoreStats> SqliteStore::Stats() {
  StoreStats stats;
  {
    TILEJIT_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
    sqlite::Connection* conn = lease.get();
    TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(conn, "BEGIN"));
    {
      TILEJIT_ASSIGN_OR_RETURN(Statement stmt,
                               conn->Prepare("SELECT entries, bytes FROM totals WHERE id = 0"));
      TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
      if (row) {
        stats.entries = static_cast<uint64_t>(stmt.ColumnInt(0));
        stats.bytes = static_cast<uint64_t>(stmt.ColumnInt(1));
      }
    }
    {
      TILEJIT_ASSIGN_OR_RETURN(
          Statement stmt,
          conn->Prepare("SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM entries WHERE pinned = 1"));
      TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
      if (row) {
        stats.pinned_entries = static_cast<uint64_t>(stmt.ColumnInt(0));
        stats.pinned_bytes = static_cast<uint64_t>(stmt.ColumnInt(1));
      }
    }
    TILEJIT_RETURN_IF_ERROR(tx.Commit());
  }
  stats.max_bytes = options_.max_bytes;
  stats.hits = hits_;
  stats.misses = misses_;
  stats.puts = puts_;
  stats.evictions = evictions_;
  stats.expirations = expirations_;
  stats.corruptions = corruptions_;
  stats.write_failures = write_failures_;
  return stats;
}

Result<ExportReport> SqliteStore::Export(const std::string& path, std::string_view prefix) {
  if (!internal::IsValidKeyPrefix(prefix)) return PrefixError(prefix);
  TILEJIT_ASSIGN_OR_RETURN(ExportWriter writer, ExportWriter::Create(path));
  ExportReport report;
  const int64_t now = Now();
  {
    TILEJIT_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
    sqlite::Connection* conn = lease.get();
    // One read transaction: the export is a consistent snapshot even while writes go on.
    TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(conn, "BEGIN"));
    TILEJIT_ASSIGN_OR_RETURN(Statement rows,
                             conn->Prepare("SELECT id, key, bytes, created_ms, pinned FROM entries "
                                           "WHERE substr(key, 1, ?1) = ?2 ORDER BY key"));
    TILEJIT_RETURN_IF_ERROR(rows.Bind(1, static_cast<int64_t>(prefix.size())));
    TILEJIT_RETURN_IF_ERROR(rows.Bind(2, prefix));
    while (true) {
      TILEJIT_ASSIGN_OR_RETURN(const bool row, rows.Step());
      if (!row) break;
      Entry entry;
      entry.key = std::string(rows.ColumnText(1));
      entry.pinned = rows.ColumnInt(4) != 0;
      const auto bytes = static_cast<uint64_t>(rows.ColumnInt(2));
      if (Expired(rows.ColumnInt(3), entry.pinned, now)) continue;
      TILEJIT_ASSIGN_OR_RETURN(const bool verified,
                               internal::LoadVerifiedBlobs(conn, rows.ColumnInt(0), bytes, &entry));
      if (!verified) {
        ++report.skipped_corrupt;
        ++corruptions_;
        continue;
      }
      TILEJIT_RETURN_IF_ERROR(writer.Write(entry));
      ++report.entries;
      report.bytes += bytes;
    }
    TILEJIT_RETURN_IF_ERROR(tx.Commit());
  }
  TILEJIT_RETURN_IF_ERROR(writer.Finish());
  return report;
}

Result<ImportReport> SqliteStore::Import(const std::string& path) {
  TILEJIT_RETURN_IF_ERROR(CheckWritable("import"));
  TILEJIT_ASSIGN_OR_RETURN(ExportReader reader, ExportReader::Open(path));
  ImportReport report;
  while (true) {
    Result<std::optional<ImportRecord>> next = reader.Next();
    if (!next.ok()) {
      return next.status().WithContext("import of '" + path + "' stopped after " +
                                       std::to_string(report.imported) + " entries");
    }
    if (!next->has_value()) return report;
    ImportRecord& record = **next;
    if (!record.verified || !ValidateEntry(record.entry).ok()) {
      ++report.rejected_corrupt;
      continue;
    }
    TILEJIT_ASSIGN_OR_RETURN(const bool present, Contains(record.entry.key));
    if (present) {
      ++report.already_present;
      continue;
    }
    if (Put(record.entry).ok()) {
      ++report.imported;
    } else {
      ++report.failed;
    }
  }
}

Result<bool> SqliteStore::Contains(std::string_view key) {
  TILEJIT_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  TILEJIT_ASSIGN_OR_RETURN(Statement stmt,
                           lease.get()->Prepare("SELECT 1 FROM entries WHERE key = ?1"));
  TILEJIT_RETURN_IF_ERROR(stmt.Bind(1, key));
  return stmt.Step();
}

Result<uint64_t> SqliteStore::RemoveExpired() {
  TILEJIT_RETURN_IF_ERROR(CheckWritable("TTL sweep"));
  const int64_t now = Now();
  std::lock_guard<std::mutex> lock(writer_mu_);
  Result<uint64_t> removed = [&]() -> Result<uint64_t> {
    TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(writer_.get(), "BEGIN IMMEDIATE"));
    TILEJIT_ASSIGN_OR_RETURN(const uint64_t count, RemoveExpiredLocked(now));
    TILEJIT_RETURN_IF_ERROR(tx.Commit());
    return count;
  }();
  if (!removed.ok()) return WriteFailure(removed.status());
  expirations_ += *removed;
  return removed;
}

Status SqliteStore::CheckIntegrity(bool full) {
  TILEJIT_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  return sqlite::CheckIntegrity(lease.get(), full);
}

}  // namespace tilejit::cache
