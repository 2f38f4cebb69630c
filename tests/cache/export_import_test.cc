// SPDX-License-Identifier: Apache-2.0
// Export and Import between SQLite stores through the export file format.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cache/export_format.h"
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

class ExportImportTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteStore> OpenStore(const std::string& name, int64_t ttl_ms = 0) {
    auto store =
        SqliteStore::Open({.path = dir_.File(name), .ttl_ms = ttl_ms, .clock = clock_.AsClock()});
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  void WriteFile(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  ScratchDir dir_;
  FakeClock clock_;
  std::string export_path_ = dir_.File("warm.tjcache");
};

TEST_F(ExportImportTest, RoundTripIntoFreshStore) {
  auto source = OpenStore("a.db");
  for (int i = 0; i < 10; ++i) {
    Entry entry = MakeEntry(i, 10 * i);  // entry 0 has an empty binary
    entry.binary += std::string("\0\n\r", 3);
    ASSERT_TRUE(source->Put(entry).ok());
  }
  ASSERT_TRUE(source->Pin(KeyFor(3)).ok());
  Result<ExportReport> exported = source->Export(export_path_);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(exported->entries, 10u);
  EXPECT_EQ(exported->skipped_corrupt, 0u);

  auto target = OpenStore("b.db");
  Result<ImportReport> imported = target->Import(export_path_);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->imported, 10u);
  EXPECT_EQ(imported->rejected_corrupt, 0u);
  for (int i = 0; i < 10; ++i) {
    Result<Entry> a = source->Get(KeyFor(i));
    Result<Entry> b = target->Get(KeyFor(i));
    ASSERT_TRUE(a.ok() && b.ok()) << i;
    EXPECT_EQ(a->binary, b->binary);
    EXPECT_EQ(a->side, b->side);
    EXPECT_EQ(a->pinned, b->pinned) << i;
  }
  // Importing again changes nothing.
  imported = target->Import(export_path_);
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ(imported->already_present, 10u);
  EXPECT_EQ(imported->imported, 0u);
}

TEST_F(ExportImportTest, ExportWithPrefixSkipsOthers) {
  auto source = OpenStore("a.db");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(source->Put(MakeEntry(i)).ok());
  Result<ExportReport> exported = source->Export(export_path_, KeyFor(2).substr(0, 8));
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ(exported->entries, 1u);
}

TEST_F(ExportImportTest, ExportSkipsCorruptAndExpiredEntries) {
  auto source = OpenStore("a.db", /*ttl_ms=*/1000);
  ASSERT_TRUE(source->Put(MakeEntry(1)).ok());
  clock_.Advance(600);
  ASSERT_TRUE(source->Put(MakeEntry(2)).ok());
  ASSERT_TRUE(source->Put(MakeEntry(3)).ok());
  clock_.Advance(600);  // entry 1 expired
  RawExec(dir_.File("a.db"),
          "UPDATE blobs SET data = CAST('evil' AS BLOB) WHERE name = 'binary' AND entry_id = "
          "(SELECT id FROM entries WHERE key = '" +
              KeyFor(2) + "')");
  Result<ExportReport> exported = source->Export(export_path_);
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ(exported->entries, 1u);
  EXPECT_EQ(exported->skipped_corrupt, 1u);
}

TEST_F(ExportImportTest, ImportRejectsEntriesWhoseBytesDoNotMatchTheirDigest) {
  auto source = OpenStore("a.db");
  Entry entry = MakeEntry(1);
  entry.binary = "ORIGINAL-BINARY";
  ASSERT_TRUE(source->Put(entry).ok());
  ASSERT_TRUE(source->Put(MakeEntry(2)).ok());
  ASSERT_TRUE(source->Export(export_path_).ok());
  std::string bytes = ReadFile(export_path_);
  const size_t at = bytes.find("ORIGINAL-BINARY");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'X';  // same length, so the file still parses
  WriteFile(export_path_, bytes);

  auto target = OpenStore("b.db");
  Result<ImportReport> imported = target->Import(export_path_);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->imported, 1u);
  EXPECT_EQ(imported->rejected_corrupt, 1u);
  EXPECT_EQ(target->Get(KeyFor(1)).status().code(), StatusCode::kNotFound);
}

TEST_F(ExportImportTest, TruncatedFileIsAnErrorAfterKeepingCompleteEntries) {
  auto source = OpenStore("a.db");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(source->Put(MakeEntry(i, 1000)).ok());
  ASSERT_TRUE(source->Export(export_path_).ok());
  const std::string bytes = ReadFile(export_path_);
  WriteFile(export_path_, bytes.substr(0, bytes.size() - 1500));

  auto target = OpenStore("b.db");
  Result<ImportReport> imported = target->Import(export_path_);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), StatusCode::kCorruption);
  EXPECT_NE(imported.status().message().find("truncated"), std::string::npos) << imported.status();
  EXPECT_NE(imported.status().message().find("after 1 entries"), std::string::npos)
      << imported.status();
  EXPECT_EQ(target->Stats()->entries, 1u);
}

TEST_F(ExportImportTest, ImportOfNonExportFileIsInvalid) {
  WriteFile(export_path_, "hello\n");
  auto target = OpenStore("b.db");
  EXPECT_EQ(target->Import(export_path_).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(target->Import(dir_.File("missing")).ok());
}

TEST_F(ExportImportTest, ReaderRejectsHugeDeclaredBlobWithoutAllocating) {
  WriteFile(export_path_, "tilejit-cache-export 1\nentry " + KeyFor(1) +
                              " pinned=0 blobs=1\nblob binary 999999999 " + Sha256Hex("") +
                              "\nshort\n");
  Result<ExportReader> reader = ExportReader::Open(export_path_);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->Next().status().code(), StatusCode::kCorruption);
}

TEST_F(ExportImportTest, RepeatedSideBlobNameMarksEntryDamaged) {
  const std::string x = Sha256Hex("x");
  WriteFile(export_path_, "tilejit-cache-export 1\nentry " + KeyFor(1) +
                              " pinned=0 blobs=3\nblob binary 1 " + x + "\nx\nblob m 1 " + x +
                              "\nx\nblob m 1 " + x + "\nx\nend entries=1\n");
  auto target = OpenStore("b.db");
  Result<ImportReport> imported = target->Import(export_path_);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->rejected_corrupt, 1u);
  EXPECT_EQ(imported->imported, 0u);
}

TEST_F(ExportImportTest, ReaderChecksTheEndCount) {
  WriteFile(export_path_, "tilejit-cache-export 1\nend entries=3\n");
  Result<ExportReader> reader = ExportReader::Open(export_path_);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->Next().status().code(), StatusCode::kCorruption);
}

TEST_F(ExportImportTest, FailedExportLeavesNoFileBehind) {
  auto source = OpenStore("a.db");
  ASSERT_TRUE(source->Put(MakeEntry(1)).ok());
  EXPECT_FALSE(source->Export(dir_.File("no/such/dir/out")).ok());
  EXPECT_FALSE(fs::exists(dir_.File("no/such/dir/out")));
}

}  // namespace
}  // namespace tilejit::cache
