// SPDX-License-Identifier: Apache-2.0
// Opening the SQLite store: creation, persistence, quarantine of corrupt files, schema
// versions and migration, and the single-owner lock.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cache/sqlite_store.h"
#include "cache_test_util.h"

namespace tilejit::cache {
namespace {

namespace fs = std::filesystem;
using testing::FakeClock;
using testing::KeyFor;
using testing::MakeEntry;
using testing::RawExec;
using testing::ScratchDir;

class SqliteOpenTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<SqliteStore>> Open() {
    return SqliteStore::Open({.path = path_, .clock = clock_.AsClock()});
  }
  // Files in the scratch dir whose names start with "cache.db.corrupt-".
  std::vector<std::string> QuarantinedFiles() {
    std::vector<std::string> names;
    for (const auto& item : fs::directory_iterator(dir_.path())) {
      const std::string name = item.path().filename().string();
      if (name.rfind("cache.db.corrupt-", 0) == 0) names.push_back(name);
    }
    return names;
  }

  ScratchDir dir_;
  std::string path_ = dir_.File("cache.db");
  FakeClock clock_;
};

TEST_F(SqliteOpenTest, CreatesDirectoryAndFreshDatabase) {
  path_ = dir_.File("nested/deeper/cache.db");
  auto store = Open();
  ASSERT_TRUE(store.ok()) << store.status();
  const OpenReport& report = (*store)->open_report();
  EXPECT_TRUE(report.created);
  EXPECT_FALSE(report.quarantined);
  EXPECT_FALSE(report.read_only);
  EXPECT_NE(report.ToString().find("created"), std::string::npos);
}

TEST_F(SqliteOpenTest, EntriesSurviveReopen) {
  {
    auto store = Open();
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Put(MakeEntry(1)).ok());
    ASSERT_TRUE((*store)->Pin(KeyFor(1)).ok());
  }
  auto store = Open();
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_FALSE((*store)->open_report().created);
  EXPECT_EQ((*store)->open_report().found_version, 2);
  Result<Entry> got = (*store)->Get(KeyFor(1));
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->pinned);
}

TEST_F(SqliteOpenTest, SecondOwnerOfTheSameFileIsRefused) {
  auto first = Open();
  ASSERT_TRUE(first.ok());
  auto second = Open();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(second.status().message().find("in use"), std::string::npos);
  first->reset();
  EXPECT_TRUE(Open().ok());
}

TEST_F(SqliteOpenTest, ReadOnlyOpenTakesNoOwnerLock) {
  auto owner = Open();
  ASSERT_TRUE(owner.ok());
  ASSERT_TRUE((*owner)->Put(MakeEntry(1)).ok());
  auto reader = SqliteStore::Open({.path = path_, .read_only = true});
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_TRUE((*reader)->Get(KeyFor(1)).ok());
}

TEST_F(SqliteOpenTest, DirectoryAsDatabasePathIsAnError) {
  fs::create_directories(path_);
  auto store = Open();
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(fs::is_directory(path_)) << "a directory is never quarantined";
}

TEST_F(SqliteOpenTest, GarbageFileIsQuarantinedAndFreshStoreStarted) {
  {
    std::ofstream out(path_, std::ios::binary);
    out << std::string(8192, 'G');
  }
  auto store = Open();
  ASSERT_TRUE(store.ok()) << store.status();
  const OpenReport& report = (*store)->open_report();
  EXPECT_TRUE(report.quarantined);
  EXPECT_TRUE(report.created);
  EXPECT_NE(report.ToString().find("CORRUPT"), std::string::npos);
  EXPECT_TRUE(fs::exists(report.quarantine_path));
  EXPECT_NE(report.quarantine_path.find(".corrupt-2023"), std::string::npos)
      << "the name carries the clock's UTC timestamp: " << report.quarantine_path;
  EXPECT_EQ(QuarantinedFiles().size(), 1u);
  ASSERT_TRUE((*store)->Put(MakeEntry(1)).ok());
  EXPECT_TRUE((*store)->Get(KeyFor(1)).ok());
}

TEST_F(SqliteOpenTest, TruncatedDatabaseIsQuarantined) {
  {
    auto store = Open();
    ASSERT_TRUE(store.ok());
    for (int i = 0; i < 40; ++i) ASSERT_TRUE((*store)->Put(MakeEntry(i, 3000)).ok());
  }
  ASSERT_FALSE(fs::exists(path_ + "-wal")) << "closing should have checkpointed the WAL";
  const auto size = fs::file_size(path_);
  fs::resize_file(path_, size / 2);
  auto store = Open();
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->open_report().quarantined) << (*store)->open_report().ToString();
  EXPECT_EQ((*store)->Get(KeyFor(1)).status().code(), StatusCode::kNotFound);
}

TEST_F(SqliteOpenTest, DamagedHeaderIsQuarantined) {
  {
    auto store = Open();
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Put(MakeEntry(1)).ok());
  }
  {
    std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(0);
    file << "NOT SQLITE AT ALL";
  }
  auto store = Open();
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->open_report().quarantined);
}

TEST_F(SqliteOpenTest, TwoQuarantinesInOneSecondGetDistinctNames) {
  for (int round = 0; round < 2; ++round) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << std::string(4096, 'x');
    auto store = Open();
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_TRUE((*store)->open_report().quarantined);
  }
  EXPECT_EQ(QuarantinedFiles().size(), 2u);
}

TEST_F(SqliteOpenTest, NewerSchemaIsAClearErrorAndFileIsKept) {
  {
    auto store = Open();
    ASSERT_TRUE(store.ok());
  }
  RawExec(path_, "UPDATE schema_version SET version = 99");
  auto store = Open();
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("newer"), std::string::npos) << store.status();
  EXPECT_TRUE(QuarantinedFiles().empty());
  EXPECT_TRUE(fs::exists(path_));
}

TEST_F(SqliteOpenTest, ForeignDatabaseIsLeftUntouched) {
  RawExec(path_, "CREATE TABLE customers(name TEXT); INSERT INTO customers VALUES('x');");
  auto store = Open();
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("not a tilejit cache"), std::string::npos);
  EXPECT_TRUE(QuarantinedFiles().empty());
}

// The version 1 layout exactly as that release wrote it (frozen here as a test fixture).
constexpr const char* kVersion1Schema = R"sql(
  CREATE TABLE schema_version(version INTEGER NOT NULL);
  INSERT INTO schema_version(version) VALUES(1);
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
)sql";

TEST_F(SqliteOpenTest, MigratesVersionOneDatabase) {
  const std::string binary = "kernel-bytes";
  const std::string meta = "{}";
  RawExec(path_, std::string(kVersion1Schema) +
                     "INSERT INTO entries(key, bytes, created_ms, last_access_ms, pinned) "
                     "VALUES('" +
                     KeyFor(1) +
                     "', 14, 1, 1, 1);"
                     "INSERT INTO blobs VALUES(1, 'binary', CAST('" +
                     binary + "' AS BLOB), '" + Sha256Hex(binary) +
                     "');"
                     "INSERT INTO blobs VALUES(1, 'metadata.json', CAST('" +
                     meta + "' AS BLOB), '" + Sha256Hex(meta) + "');");
  auto store = Open();
  ASSERT_TRUE(store.ok()) << store.status();
  const OpenReport& report = (*store)->open_report();
  EXPECT_TRUE(report.migrated);
  EXPECT_EQ(report.found_version, 1);
  EXPECT_NE(report.ToString().find("from schema v1 to v2"), std::string::npos);
  Result<Entry> got = (*store)->Get(KeyFor(1));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->binary, binary);
  EXPECT_TRUE(got->pinned);
  // Totals were computed from the migrated rows.
  Result<StoreStats> stats = (*store)->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->entries, 1u);
  EXPECT_EQ(stats->bytes, 14u);
  ASSERT_TRUE((*store)->Put(MakeEntry(2)).ok());
  EXPECT_EQ((*store)->Stats()->entries, 2u);
}

TEST_F(SqliteOpenTest, EmptyPathIsInvalid) {
  EXPECT_EQ(SqliteStore::Open({}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tilejit::cache
