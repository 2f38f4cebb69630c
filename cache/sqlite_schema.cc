// SPDX-License-Identifier: Apache-2.0
#include "cache/sqlite_schema.h"

#include <string>

namespace tilejit::cache::sqlite {
namespace {

// Migration step i takes the database from version i to version i + 1. Steps are history:
// never edit a released step, append a new one and bump kCurrentSchemaVersion instead.
constexpr const char* kSteps[] = {
    // 0 -> 1: the original layout: entries with LRU and pin state, blobs with their digests.
    // AUTOINCREMENT so that an id is never reused: a reader that found a bad entry deletes it
    // by id and so can never delete a good entry written under the same key meanwhile.
    R"sql(
      CREATE TABLE schema_version(version INTEGER NOT NULL);
      INSERT INTO schema_version(version) VALUES(0);
      CREATE TABLE entries(
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        key TEXT NOT NULL UNIQUE,
        bytes INTEGER NOT NULL,
        created_ms INTEGER NOT NULL,
        last_access_ms INTEGER NOT NULL,
        pinned INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE blobs(
        entry_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        data BLOB NOT NULL,
        sha256 TEXT NOT NULL,
        PRIMARY KEY(entry_id, name));
    )sql",
    // 1 -> 2: per-entry hit counts, indexes for LRU and TTL, and exact totals kept by triggers
    // (a size cap check then costs one row read instead of a scan).
    R"sql(
      ALTER TABLE entries ADD COLUMN access_count INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX entries_lru ON entries(pinned, last_access_ms);
      CREATE INDEX entries_age ON entries(pinned, created_ms);
      CREATE TABLE totals(
        id INTEGER PRIMARY KEY CHECK(id = 0),
        entries INTEGER NOT NULL,
        bytes INTEGER NOT NULL);
      INSERT INTO totals(id, entries, bytes)
        SELECT 0, COUNT(*), COALESCE(SUM(bytes), 0) FROM entries;
      CREATE TRIGGER entries_insert AFTER INSERT ON entries BEGIN
        UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.bytes WHERE id = 0;
      END;
      CREATE TRIGGER entries_delete AFTER DELETE ON entries BEGIN
        UPDATE totals SET entries = entries - 1, bytes = bytes - OLD.bytes WHERE id = 0;
      END;
      CREATE TRIGGER entries_resize AFTER UPDATE OF bytes ON entries BEGIN
        UPDATE totals SET bytes = bytes - OLD.bytes + NEW.bytes WHERE id = 0;
      END;
    )sql",
};
static_assert(std::size(kSteps) == kCurrentSchemaVersion, "one migration step per version");

}  // namespace

Result<int> ReadSchemaVersion(Connection* conn) {
  TILEJIT_ASSIGN_OR_RETURN(
      const int64_t tables,
      conn->QueryInt("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'", 0));
  if (tables == 0) return 0;
  TILEJIT_ASSIGN_OR_RETURN(
      const int64_t has_version,
      conn->QueryInt(
          "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_version'",
          0));
  if (has_version == 0) {
    return InvalidArgument(
        "the file is an SQLite database but not a tilejit cache (no schema_version table); "
        "it was left untouched");
  }
  TILEJIT_ASSIGN_OR_RETURN(const int64_t version,
                           conn->QueryInt("SELECT MAX(version) FROM schema_version", -1));
  if (version < 0) return Corruption("the cache's schema_version table is empty");
  return static_cast<int>(version);
}

Status MigrateSchema(Connection* conn, int from_version) {
  for (int version = from_version; version < kCurrentSchemaVersion; ++version) {
    TILEJIT_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(conn, "BEGIN IMMEDIATE"));
    const std::string context =
        "schema migration " + std::to_string(version) + " -> " + std::to_string(version + 1);
    Status status = conn->Exec(kSteps[version]);
    if (status.ok()) {
      status = conn->Exec("UPDATE schema_version SET version = " + std::to_string(version + 1));
    }
    if (status.ok()) status = tx.Commit();
    if (!status.ok()) return status.WithContext(context);
  }
  return Status::Ok();
}

Status CheckIntegrity(Connection* conn, bool full) {
  const char* sql = full ? "PRAGMA integrity_check(20)" : "PRAGMA quick_check(20)";
  TILEJIT_ASSIGN_OR_RETURN(Statement stmt, conn->Prepare(sql));
  std::string findings;
  while (true) {
    TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
    if (!row) break;
    const std::string_view line = stmt.ColumnText(0);
    if (line == "ok") continue;
    if (!findings.empty()) findings += "; ";
    findings += line;
  }
  if (findings.empty()) return Status::Ok();
  return Corruption(std::string(full ? "integrity_check" : "quick_check") + ": " + findings);
}

}  // namespace tilejit::cache::sqlite
