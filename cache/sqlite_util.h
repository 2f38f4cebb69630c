// SPDX-License-Identifier: Apache-2.0
// Thin RAII helpers over the SQLite C API, private to the cache library: a connection that
// caches its prepared statements, a statement cursor, and a transaction that rolls back unless
// committed. Every failure becomes a Status whose code says what kind of failure it was
// (see StatusFromSqlite).
//
// Threading: a Connection and everything obtained from it belong to one thread at a time (the
// connection is opened with SQLITE_OPEN_NOMUTEX); callers serialise access.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/result.h"
#include "common/status.h"

namespace tilejit::cache::sqlite {

// Maps a SQLite result code to a Status: SQLITE_FULL -> ResourceExhausted (disk or page limit
// full), SQLITE_CORRUPT/SQLITE_NOTADB -> Corruption, SQLITE_BUSY/LOCKED/READONLY/IOERR/
// CANTOPEN/PERM -> Unavailable, anything else -> Internal. The message names `context` and
// SQLite's own message for `db` (which may be null).
Status StatusFromSqlite(sqlite3* db, int rc, std::string_view context);

class Statement;

// An open database connection. Move-only; closes on destruction.
class Connection {
 public:
  // Opens `path` with sqlite3_open_v2 `flags` (SQLITE_OPEN_NOMUTEX is added) and sets the busy
  // timeout.
  static Result<std::unique_ptr<Connection>> Open(const std::string& path, int flags,
                                                  int busy_timeout_ms);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* raw() { return db_; }

  // Runs one or more statements that return no rows of interest.
  Status Exec(std::string_view sql);

  // Returns a cursor over a cached prepared statement for `sql` (prepared on first use). The
  // statement is reset when the cursor is destroyed; at most one cursor per `sql` may be live.
  Result<Statement> Prepare(std::string_view sql);

  // Runs a query whose first row's first column is an integer; `fallback` when no row.
  Result<int64_t> QueryInt(std::string_view sql, int64_t fallback);

 private:
  explicit Connection(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

// A cursor over one prepared statement. Bind parameters are 1-based, columns 0-based.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;

  Status Bind(int index, int64_t value);
  Status Bind(int index, std::string_view text);  // bound as TEXT
  Status BindBlob(int index, std::string_view bytes);

  // Advances: true when a row is available, false when done.
  Result<bool> Step();
  // Steps to completion, for statements that return no rows.
  Status Run();
  // Rewinds for another execution and clears the bindings.
  void Reset();

  int64_t ColumnInt(int column);
  std::string_view ColumnText(int column);
  std::string_view ColumnBlob(int column);

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

// BEGIN ... COMMIT with rollback on destruction unless Commit() succeeded.
class Transaction {
 public:
  // `begin` is "BEGIN" (deferred, for reads) or "BEGIN IMMEDIATE" (for writes).
  static Result<Transaction> Begin(Connection* conn, std::string_view begin);
  ~Transaction();
  Transaction(Transaction&& other) noexcept : conn_(other.conn_) { other.conn_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;

  Status Commit();

 private:
  explicit Transaction(Connection* conn) : conn_(conn) {}
  Connection* conn_;  // null once committed or rolled back
};

}  // namespace tilejit::cache::sqlite
