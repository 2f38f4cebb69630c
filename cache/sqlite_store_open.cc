// SPDX-License-Identifier: Apache-2.0
// Opening a SqliteStore: directory and owner lock, integrity check with quarantine, WAL setup,
// schema migration, and the read-only fallback.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>

#include "cache/sqlite_schema.h"
#include "cache/sqlite_store.h"
#include "cache/sqlite_store_internal.h"
#include "cache/sqlite_util.h"

namespace tilejit::cache {
namespace fs = std::filesystem;

namespace {

// "20261129T213500Z" for Unix milliseconds `now_ms`.
std::string UtcStamp(int64_t now_ms) {
  const std::time_t seconds = static_cast<std::time_t>(now_ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y%m%dT%H%M%SZ", &tm);
  return buffer;
}

// "file:<percent-encoded path>?immutable=1".
std::string ImmutableUri(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri.push_back(static_cast<char>(c));
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      uri += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return uri + "?immutable=1";
}

// Takes the single-owner lock. AlreadyExists when another process (or store) holds it.
Status TakeOwnerLock(const std::string& db_path, int* fd_out) {
  const std::string lock_path = db_path + ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Unavailable("cannot create lock file '" + lock_path + "': " + std::strerror(errno));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Status(StatusCode::kAlreadyExists,
                  "cache database is in use by another tilejitd (lock '" + lock_path +
                      "' is held); give each daemon its own cache directory");
  }
  // The pid is informational, for an operator looking at the lock file.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::write(fd, pid.data(), pid.size());
  *fd_out = fd;
  return Status::Ok();
}

// Opens `name` (the path, or a file: URI when `extra_flags` has SQLITE_OPEN_URI), checks it,
// configures it and brings its schema up to date.
Status OpenDatabaseInto(const SqliteStoreOptions& options, const std::string& name, int extra_flags,
                        bool read_only, std::unique_ptr<sqlite::Connection>* out,
                        OpenReport* report) {
  const int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  TILEJIT_ASSIGN_OR_RETURN(
      std::unique_ptr<sqlite::Connection> conn,
      sqlite::Connection::Open(name, flags | extra_flags, options.busy_timeout_ms));
  // First statement: a file that is not a database fails here with Corruption.
  TILEJIT_RETURN_IF_ERROR(sqlite::CheckIntegrity(conn.get(), options.full_integrity_check));
  if (!read_only) {
    TILEJIT_RETURN_IF_ERROR(conn->Exec("PRAGMA journal_mode=WAL"));
    TILEJIT_RETURN_IF_ERROR(conn->Exec("PRAGMA synchronous=NORMAL"));
    if (options.max_db_pages > 0) {
      TILEJIT_RETURN_IF_ERROR(
          conn->Exec("PRAGMA max_page_count=" + std::to_string(options.max_db_pages)));
    }
  }
  TILEJIT_ASSIGN_OR_RETURN(const int version, sqlite::ReadSchemaVersion(conn.get()));
  if (version > sqlite::kCurrentSchemaVersion) {
    return InvalidArgument("cache schema v" + std::to_string(version) +
                           " was written by a newer tilejit; this build reads up to v" +
                           std::to_string(sqlite::kCurrentSchemaVersion) +
                           ". Upgrade tilejit or use another cache path");
  }
  if (read_only && version != sqlite::kCurrentSchemaVersion) {
    return Unavailable("a read-only cache must be at schema v" +
                       std::to_string(sqlite::kCurrentSchemaVersion) + ", found v" +
                       std::to_string(version));
  }
  report->found_version = version;
  report->created = version == 0;
  report->migrated = version > 0 && version < sqlite::kCurrentSchemaVersion;
  TILEJIT_RETURN_IF_ERROR(sqlite::MigrateSchema(conn.get(), version));
  *out = std::move(conn);
  return Status::Ok();
}

// Moves a corrupt database (and its WAL, which belongs to it) aside under a timestamped name.
Result<std::string> Quarantine(const std::string& path, int64_t now_ms) {
  std::string target = path + ".corrupt-" + UtcStamp(now_ms);
  for (int n = 1; fs::exists(target); ++n) {
    target = path + ".corrupt-" + UtcStamp(now_ms) + "-" + std::to_string(n);
  }
  std::error_code ec;
  fs::rename(path, target, ec);
  if (ec)
    return Unavailable("cannot move corrupt cache aside to '" + target + "': " + ec.message());
  // A stale WAL would be replayed into the fresh database, so it must go with the old file.
  if (fs::exists(path + "-wal")) fs::rename(path + "-wal", target + "-wal", ec);
  fs::remove(path + "-shm", ec);
  return target;
}

}  // namespace

std::string OpenReport::ToString() const {
  std::string text;
  if (quarantined) {
    text = "CORRUPT cache database " + path + " moved aside to " + quarantine_path + " (" +
           quarantine_reason + "); started a fresh cache";
  } else if (created) {
    text = "created cache database " + path;
  } else if (migrated) {
    text = "migrated cache database " + path + " from schema v" + std::to_string(found_version) +
           " to v" + std::to_string(sqlite::kCurrentSchemaVersion);
  } else {
    text = "opened cache database " + path + " (schema v" + std::to_string(found_version) + ")";
  }
  if (read_only) text += "; READ-ONLY, writes will fail: " + read_only_reason;
  return text;
}

SqliteStore::SqliteStore(SqliteStoreOptions options) : options_(std::move(options)) {}

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(SqliteStoreOptions options) {
  if (options.path.empty()) return InvalidArgument("cache database path is empty");
  if (!options.clock) options.clock = SystemNowMs;
  if (options.busy_timeout_ms < 0) options.busy_timeout_ms = 0;
  std::unique_ptr<SqliteStore> store(new SqliteStore(std::move(options)));
  Status status = store->OpenFiles();
  if (!status.ok()) return status.WithContext("cache '" + store->options_.path + "'");
  return store;
}

Result<std::unique_ptr<sqlite::Connection>> SqliteStore::OpenConnection(bool writer) const {
  // Readers never write, so they open read-only even in a writable store.
  const int flags = (writer && !report_.read_only) ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                                                   : SQLITE_OPEN_READONLY;
  return sqlite::Connection::Open(db_name_, flags | extra_flags_, options_.busy_timeout_ms);
}

Status SqliteStore::OpenFiles() {
  report_.path = options_.path;
  db_name_ = options_.path;
  Status why_read_only = Unavailable("opened read-only by configuration");
  if (!options_.read_only) {
    Status status = OpenWritable();
    // A directory or file we cannot write (read-only mount, permissions) still serves reads.
    if (status.code() != StatusCode::kUnavailable || !fs::exists(options_.path)) return status;
    if (lock_fd_ >= 0) {
      ::close(lock_fd_);
      lock_fd_ = -1;
    }
    why_read_only = status;
  }
  report_.read_only = true;
  report_.read_only_reason = why_read_only.message();
  return OpenReadOnly();
}

Status SqliteStore::OpenWritable() {
  std::error_code ec;
  const fs::path parent = fs::path(options_.path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  TILEJIT_RETURN_IF_ERROR(TakeOwnerLock(options_.path, &lock_fd_));
  Status status = OpenDatabaseInto(options_, db_name_, 0, /*read_only=*/false, &writer_, &report_);
  if (status.code() != StatusCode::kCorruption) return status;
  TILEJIT_ASSIGN_OR_RETURN(report_.quarantine_path, Quarantine(options_.path, Now()));
  report_.quarantined = true;
  report_.quarantine_reason = status.message();
  return OpenDatabaseInto(options_, db_name_, 0, /*read_only=*/false, &writer_, &report_);
}

Status SqliteStore::OpenReadOnly() {
  Status status = OpenDatabaseInto(options_, db_name_, 0, /*read_only=*/true, &writer_, &report_);
  // Reading a WAL database needs its WAL index (-shm), which SQLite cannot create in a directory
  // it cannot write. With no -wal file there is nothing beyond the main file to read, so an
  // immutable open sees exactly the committed contents.
  if (status.code() != StatusCode::kUnavailable || fs::exists(options_.path + "-wal")) {
    return status;
  }
  db_name_ = ImmutableUri(options_.path);
  extra_flags_ = SQLITE_OPEN_URI;
  report_.read_only_reason += "; reading an immutable snapshot";
  return OpenDatabaseInto(options_, db_name_, extra_flags_, /*read_only=*/true, &writer_, &report_);
}

Result<SqliteStore::ReaderLease> SqliteStore::AcquireReader() {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!idle_readers_.empty()) {
      std::unique_ptr<sqlite::Connection> conn = std::move(idle_readers_.back());
      idle_readers_.pop_back();
      return ReaderLease(this, std::move(conn));
    }
  }
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::Connection> conn, OpenConnection(false));
  return ReaderLease(this, std::move(conn));
}

void SqliteStore::ReleaseReader(std::unique_ptr<sqlite::Connection> conn) {
  // Keep enough idle readers for a busy daemon's worker threads; close the rest.
  constexpr size_t kMaxIdleReaders = 16;
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (idle_readers_.size() < kMaxIdleReaders) idle_readers_.push_back(std::move(conn));
}

SqliteStore::~SqliteStore() {
  if (writer_ != nullptr && !report_.read_only) {
    std::lock_guard<std::mutex> lock(writer_mu_);
    (void)FlushTouchesNowLocked();
  }
  idle_readers_.clear();
  writer_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace tilejit::cache
