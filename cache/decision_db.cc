// SPDX-License-Identifier: Apache-2.0
#include "cache/decision_db.h"

#include <utility>

#include "cache/sqlite_util.h"

namespace tilejit::cache {
namespace {

constexpr int64_t kSchemaVersion = 1;
constexpr int kBusyTimeoutMs = 5000;

constexpr std::string_view kSchema =
    "CREATE TABLE IF NOT EXISTS decisions ("
    "  key TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL,"
    "  seq INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS decisions_seq ON decisions(seq);";

}  // namespace

Result<std::unique_ptr<DecisionDb>> DecisionDb::Open(const std::string& path, int64_t max_entries) {
  TILEJIT_ASSIGN_OR_RETURN(
      std::unique_ptr<sqlite::Connection> conn,
      sqlite::Connection::Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, kBusyTimeoutMs));
  TILEJIT_ASSIGN_OR_RETURN(int64_t version, conn->QueryInt("PRAGMA user_version", 0));
  if (version > kSchemaVersion) {
    return InvalidArgument(path + " has decision schema " + std::to_string(version) +
                           ", newer than this daemon's " + std::to_string(kSchemaVersion));
  }
  TILEJIT_RETURN_IF_ERROR(conn->Exec("PRAGMA journal_mode=WAL"));
  TILEJIT_RETURN_IF_ERROR(conn->Exec(kSchema));
  TILEJIT_RETURN_IF_ERROR(conn->Exec("PRAGMA user_version=" + std::to_string(kSchemaVersion)));
  auto db = std::unique_ptr<DecisionDb>(new DecisionDb(std::move(conn), max_entries));
  TILEJIT_ASSIGN_OR_RETURN(db->next_seq_,
                           db->conn_->QueryInt("SELECT MAX(seq) + 1 FROM decisions", 0));
  return db;
}

DecisionDb::DecisionDb(std::unique_ptr<sqlite::Connection> conn, int64_t max_entries)
    : conn_(std::move(conn)), max_entries_(max_entries < 1 ? 1 : max_entries) {}

DecisionDb::~DecisionDb() = default;

Result<std::optional<std::string>> DecisionDb::Get(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  TILEJIT_ASSIGN_OR_RETURN(sqlite::Statement st,
                           conn_->Prepare("SELECT value FROM decisions WHERE key = ?1"));
  TILEJIT_RETURN_IF_ERROR(st.Bind(1, key));
  TILEJIT_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(std::string(st.ColumnText(0)));
}

Status DecisionDb::Put(std::string_view key, std::string_view value) {
  std::lock_guard<std::mutex> lock(mu_);
  {
    TILEJIT_ASSIGN_OR_RETURN(
        sqlite::Statement st,
        conn_->Prepare("INSERT OR REPLACE INTO decisions(key, value, seq) VALUES (?1, ?2, ?3)"));
    TILEJIT_RETURN_IF_ERROR(st.Bind(1, key));
    TILEJIT_RETURN_IF_ERROR(st.Bind(2, value));
    TILEJIT_RETURN_IF_ERROR(st.Bind(3, next_seq_++));
    TILEJIT_RETURN_IF_ERROR(st.Run());
  }
  TILEJIT_ASSIGN_OR_RETURN(sqlite::Statement trim,
                           conn_->Prepare("DELETE FROM decisions WHERE seq < ?1"));
  TILEJIT_RETURN_IF_ERROR(trim.Bind(1, next_seq_ - max_entries_));
  return trim.Run();
}

Result<int64_t> DecisionDb::Count() {
  std::lock_guard<std::mutex> lock(mu_);
  return conn_->QueryInt("SELECT COUNT(*) FROM decisions", 0);
}

}  // namespace tilejit::cache
