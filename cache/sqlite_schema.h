// SPDX-License-Identifier: Apache-2.0
// The SQLite store's schema and its migrations, private to the cache library.
//
// The schema is versioned by a one-row `schema_version` table. A fresh database is built by
// running every migration step from version 0, so a fresh database and a migrated one are the
// same by construction. Each step runs in its own transaction together with the version bump,
// so an interrupted migration leaves the database at a consistent earlier version.
//
// Layout at the current version (2):
//   entries(id AUTOINCREMENT, key UNIQUE, bytes, created_ms, last_access_ms, pinned,
//           access_count)                       one row per cache entry
//   blobs(entry_id, name, data, sha256)          every blob of an entry, binary included
//   totals(entries, bytes)                       one row kept exact by triggers on entries
// Indexes on (pinned, last_access_ms) for LRU eviction and (pinned, created_ms) for TTL sweeps.
#pragma once

#include <string>

#include "cache/sqlite_util.h"
#include "common/result.h"
#include "common/status.h"

namespace tilejit::cache::sqlite {

inline constexpr int kCurrentSchemaVersion = 2;

// The schema version of the database on `conn`: 0 for an empty database (no tables). An error
// when the database has tables but no `schema_version` (not a tilejit cache; it is left alone),
// or when reading fails (a corrupt file reports Corruption).
Result<int> ReadSchemaVersion(Connection* conn);

// Brings the database from `from_version` (0 for empty) to kCurrentSchemaVersion.
Status MigrateSchema(Connection* conn, int from_version);

// Runs PRAGMA quick_check (or integrity_check when `full`). Returns OK for a sound file and
// Corruption with SQLite's findings otherwise (including a file that is not a database).
Status CheckIntegrity(Connection* conn, bool full);

}  // namespace tilejit::cache::sqlite
