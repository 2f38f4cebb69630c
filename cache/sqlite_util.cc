// SPDX-License-Identifier: Apache-2.0
#include "cache/sqlite_util.h"

#include <string>
#include <utility>

namespace tilejit::cache::sqlite {

Status StatusFromSqlite(sqlite3* db, int rc, std::string_view context) {
  std::string message(context);
  message += ": ";
  // sqlite3_errmsg describes the most recent failure on `db`, which may be more specific than
  // the generic text of the code (for example which constraint failed).
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return ResourceExhausted(std::move(message));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Corruption(std::move(message));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_READONLY:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
      return Unavailable(std::move(message));
    default:
      return Internal(std::move(message));
  }
}

Result<std::unique_ptr<Connection>> Connection::Open(const std::string& path, int flags,
                                                     int busy_timeout_ms) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Status status = StatusFromSqlite(db, rc, "cannot open cache database '" + path + "'");
    sqlite3_close(db);  // sqlite3_open_v2 allocates a handle even on failure
    return status;
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return std::unique_ptr<Connection>(new Connection(db));
}

Connection::~Connection() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

Status Connection::Exec(std::string_view sql) {
  const std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return StatusFromSqlite(db_, rc, text.substr(0, 60));
  return Status::Ok();
}

Result<Statement> Connection::Prepare(std::string_view sql) {
  std::string text(sql);
  auto it = statements_.find(text);
  if (it == statements_.end()) {
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(db_, text.data(), static_cast<int>(text.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return StatusFromSqlite(db_, rc, "prepare " + text.substr(0, 60));
    it = statements_.emplace(std::move(text), stmt).first;
  }
  return Statement(db_, it->second);
}

Result<int64_t> Connection::QueryInt(std::string_view sql, int64_t fallback) {
  TILEJIT_ASSIGN_OR_RETURN(Statement stmt, Prepare(sql));
  TILEJIT_ASSIGN_OR_RETURN(const bool row, stmt.Step());
  return row ? stmt.ColumnInt(0) : fallback;
}

Statement::~Statement() {
  if (stmt_ != nullptr) Reset();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

Status Statement::Bind(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  return rc == SQLITE_OK ? Status::Ok() : StatusFromSqlite(db_, rc, "bind");
}

Status Statement::Bind(int index, std::string_view text) {
  // An empty view may have a null data pointer, which SQLite would bind as NULL, not ''.
  const char* data = text.data() != nullptr ? text.data() : "";
  const int rc =
      sqlite3_bind_text64(stmt_, index, data, text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return rc == SQLITE_OK ? Status::Ok() : StatusFromSqlite(db_, rc, "bind");
}

Status Statement::BindBlob(int index, std::string_view bytes) {
  // A zero-length blob must still bind as a BLOB, not NULL, so pass a non-null pointer.
  static const char kEmpty = 0;
  const char* data = bytes.empty() ? &kEmpty : bytes.data();
  const int rc = sqlite3_bind_blob64(stmt_, index, data, bytes.size(), SQLITE_STATIC);
  return rc == SQLITE_OK ? Status::Ok() : StatusFromSqlite(db_, rc, "bind");
}

Result<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return StatusFromSqlite(db_, rc, "step");
}

Status Statement::Run() {
  while (true) {
    TILEJIT_ASSIGN_OR_RETURN(const bool row, Step());
    if (!row) return Status::Ok();
  }
}

int64_t Statement::ColumnInt(int column) { return sqlite3_column_int64(stmt_, column); }

std::string_view Statement::ColumnText(int column) {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text),
          static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

std::string_view Statement::ColumnBlob(int column) {
  const void* data = sqlite3_column_blob(stmt_, column);
  if (data == nullptr) return {};
  return {static_cast<const char*>(data), static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

Result<Transaction> Transaction::Begin(Connection* conn, std::string_view begin) {
  TILEJIT_RETURN_IF_ERROR(conn->Exec(begin));
  return Transaction(conn);
}

Transaction::~Transaction() {
  // Rolling back an already-aborted transaction fails harmlessly; nothing to report here.
  if (conn_ != nullptr) (void)conn_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  Connection* conn = conn_;
  conn_ = nullptr;
  Status status = conn->Exec("COMMIT");
  if (!status.ok()) (void)conn->Exec("ROLLBACK");
  return status;
}

}  // namespace tilejit::cache::sqlite
