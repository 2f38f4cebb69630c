// SPDX-License-Identifier: Apache-2.0
// A writer killed with SIGKILL mid-burst leaves a store whose every entry verifies.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache/sqlite_store.h"
#include "cache_test_util.h"

namespace tilejit::cache {
namespace {

using testing::MakeEntry;
using testing::ScratchDir;

// The child writes entries of varying sizes forever; it never returns.
[[noreturn]] void WriteUntilKilled(const std::string& path) {
  auto store = SqliteStore::Open({.path = path});
  if (!store.ok()) _exit(2);
  for (int i = 0;; ++i) {
    if (!(*store)->Put(MakeEntry(i, 100 + (i * 131) % 20000)).ok()) _exit(3);
  }
}

TEST(CrashSafety, EveryEntryVerifiesAfterWriterIsKilled) {
  ScratchDir dir;
  const std::string path = dir.File("cache.db");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) WriteUntilKilled(path);

  // Wait (a bounded number of polls) until the child has committed a good number of entries.
  int64_t committed = 0;
  for (int poll = 0; poll < 4000 && committed < 200; ++poll) {
    usleep(5000);
    committed = testing::RawQueryInt(path, "SELECT COUNT(*) FROM entries");
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wstatus)) << "the writer stopped on its own, status " << wstatus;
  ASSERT_GE(committed, 200) << "the writer made too little progress";

  auto store = SqliteStore::Open({.path = path});
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_FALSE((*store)->open_report().quarantined);
  EXPECT_TRUE((*store)->CheckIntegrity(/*full=*/true).ok());
  Result<std::vector<EntryInfo>> infos = (*store)->List({.limit = 0});
  ASSERT_TRUE(infos.ok());
  EXPECT_GE(infos->size(), 200u);
  for (const EntryInfo& info : *infos) {
    Result<Entry> got = (*store)->Get(info.key);
    ASSERT_TRUE(got.ok()) << info.key << ": " << got.status();
  }
  EXPECT_EQ((*store)->Stats()->corruptions, 0u);
}

}  // namespace
}  // namespace tilejit::cache
