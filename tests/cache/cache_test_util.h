// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the cache tests: a scratch directory per test, a settable clock, entry
// builders, and raw SQLite access for injecting damage.
#pragma once

#include <sqlite3.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <string>

#include "cache/clock.h"
#include "cache/entry.h"
#include "common/sha256.h"
#include "gtest/gtest.h"

namespace tilejit::cache::testing {

// A fresh directory under the gtest temp dir, removed with everything in it on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "/tilejit_cache_XXXXXX";
    path_ = mkdtemp(pattern.data()) != nullptr ? pattern : std::string();
    EXPECT_FALSE(path_.empty()) << "mkdtemp failed";
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A clock the test moves by hand.
class FakeClock {
 public:
  explicit FakeClock(int64_t start_ms = 1'700'000'000'000) : now_(start_ms) {}
  Clock AsClock() {
    return [this] { return now_.load(); };
  }
  void Advance(int64_t ms) { now_ += ms; }

 private:
  std::atomic<int64_t> now_;
};

// A valid key derived from `n`.
inline std::string KeyFor(int n) { return Sha256Hex("key-" + std::to_string(n)); }

// An entry with a binary of `binary_bytes` bytes and one metadata side blob.
inline Entry MakeEntry(int n, size_t binary_bytes = 100) {
  Entry entry;
  entry.key = KeyFor(n);
  entry.binary.assign(binary_bytes, static_cast<char>('A' + n % 26));
  entry.side["metadata.json"] = "{\"n\": " + std::to_string(n) + "}";
  return entry;
}

// Runs `sql` on a separate raw connection to the database file, as an outside agent would.
inline void RawExec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

// Runs a query returning one integer on a separate raw connection; -1 when it returns no row.
inline int64_t RawQueryInt(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t value = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      value = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return value;
}

}  // namespace tilejit::cache::testing
