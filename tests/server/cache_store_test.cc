// SPDX-License-Identifier: Apache-2.0
// The service over the real kernel cache (memory tier over SQLite): a restarted service finds
// its kernels in SQLite, and admin calls reach the store.
#include "server/cache_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "runner/sim/sim_device.h"
#include "server/cluster_signer.h"
#include "server/service.h"
#include "tests/server/fake_backend.h"

namespace tilejit::server {
namespace {

using testing::FakeBackend;
using testing::FakeSource;

class CacheStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tilejit_server_cache_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<CompileService> Start(FakeBackend::Counters* counters,
                                        std::shared_ptr<const EntrySigner> signer = nullptr) {
    CacheStoreOptions options;
    options.path = (dir_ / "kernels.sqlite").string();
    options.signer = std::move(signer);
    std::string report;
    auto store = CacheKernelStore::Open(options, &report);
    EXPECT_TRUE(store.ok()) << store.status();
    return std::make_unique<CompileService>(
        ServiceOptions{}, std::make_unique<FakeBackend>(counters), std::move(store).value(),
        runner::sim::SimDeviceFactory());
  }

  static frontend::FrontendRequest Request() {
    frontend::FrontendRequest r;
    r.source = FakeSource("persisted");
    r.entry = "kernel";
    return r;
  }

  std::filesystem::path dir_;
};

TEST_F(CacheStoreTest, RestartedServiceHitsSqlite) {
  FakeBackend::Counters before, after;
  std::string handle;
  target::KernelMetadata metadata;
  {
    auto service = Start(&before);
    Result<CompileReply> r = service->Compile(Request(), {}, {});
    ASSERT_TRUE(r.ok() && r->ok) << r.status();
    EXPECT_EQ(r->tier, "compiled");
    Result<CompileReply> again = service->Compile(Request(), {}, {});
    EXPECT_EQ(again->tier, "memory");
    handle = r->handle;
    metadata = r->metadata;
  }
  auto service = Start(&after);
  Result<CompileReply> r = service->Compile(Request(), {}, {});
  ASSERT_TRUE(r.ok() && r->ok) << r.status();
  EXPECT_EQ(r->tier, "sqlite");
  EXPECT_EQ(r->handle, handle);
  EXPECT_EQ(r->metadata, metadata);
  EXPECT_EQ(after.lower.load(), 0);
  EXPECT_EQ(service->Stats().store.entries, 1u);
}

TEST_F(CacheStoreTest, AdminCallsReachTheStore) {
  FakeBackend::Counters counters;
  auto service = Start(&counters);
  Result<CompileReply> r = service->Compile(Request(), {}, {});
  ASSERT_TRUE(r.ok() && r->ok);
  auto list = service->List(10);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].key, r->key);
  ASSERT_TRUE(service->Pin(r->handle).ok());
  EXPECT_TRUE((*service->List(10))[0].pinned);
  ASSERT_TRUE(service->Unpin(r->handle).ok());
  EXPECT_EQ(*service->Evict({r->handle}), 1u);
  EXPECT_EQ(service->GetKernel(r->handle).status().code(), StatusCode::kNotFound);
}

TEST(DefaultCachePath, FollowsXdgCacheHome) {
  const char* old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(DefaultCachePath(), "/tmp/xdg-test/tilejit/kernels.sqlite");
  if (old) {
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    unsetenv("XDG_CACHE_HOME");
  }
}

std::shared_ptr<const EntrySigner> Signer(std::vector<std::string> keys) {
  Result<cache::ClusterKeyRing> ring = cache::ClusterKeyRing::FromKeys(keys);
  EXPECT_TRUE(ring.ok()) << ring.status();
  return std::make_shared<const ClusterSigner>(
      std::make_shared<const cache::ClusterKeyRing>(std::move(ring).value()));
}

TEST(ClusterSigner, VerifiesItsOwnSignaturesOnlyForThatKeyAndBinary) {
  const std::string a(32, 'a'), b(32, 'b');
  auto signer = Signer({a});
  const std::string sig = signer->Sign("00ff", "binary");
  EXPECT_EQ(sig.size(), 40u);
  EXPECT_TRUE(signer->Verify("00ff", "binary", sig));
  EXPECT_FALSE(signer->Verify("00fe", "binary", sig)) << "moved to another key";
  EXPECT_FALSE(signer->Verify("00ff", "binarY", sig)) << "another binary";
  EXPECT_FALSE(signer->Verify("00ff", "binary", ""));
  EXPECT_FALSE(signer->Verify("00ff", "binary", sig.substr(0, 39)));
  EXPECT_FALSE(Signer({b})->Verify("00ff", "binary", sig)) << "an unknown key";
  EXPECT_TRUE(Signer({b, a})->Verify("00ff", "binary", sig)) << "a previous key of the ring";
}

TEST_F(CacheStoreTest, SignedEntriesVerifyOnReadAndOthersAreDroppedAndRecompiled) {
  const std::string a(32, 'a'), b(32, 'b');
  FakeBackend::Counters first, same, stranger, unsigned_reader;
  {
    auto service = Start(&first, Signer({a}));
    ASSERT_TRUE(service->Compile(Request(), {}, {})->ok);
  }
  {
    auto service = Start(&same, Signer({b, a}));  // rotated: a is a previous key
    EXPECT_EQ(service->Compile(Request(), {}, {})->tier, "sqlite");
    EXPECT_EQ(same.lower.load(), 0);
  }
  {
    auto service = Start(&stranger, Signer({std::string(32, 'c')}));
    Result<CompileReply> r = service->Compile(Request(), {}, {});
    ASSERT_TRUE(r.ok() && r->ok) << r.status();
    EXPECT_EQ(r->tier, "compiled");
    EXPECT_EQ(stranger.lower.load(), 1);
    EXPECT_EQ(service->Stats().store.corruptions, 1u);
  }
  auto service = Start(&unsigned_reader);  // no cluster key: the signature is not checked
  EXPECT_EQ(service->Compile(Request(), {}, {})->tier, "sqlite");
}

}  // namespace
}  // namespace tilejit::server
