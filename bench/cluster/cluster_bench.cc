// SPDX-License-Identifier: Apache-2.0
// bench/cluster (issue 17, acceptance 4 and 7); bench/cluster/run.sh starts redis-server and
// the daemons and calls the two modes.
//
// store --redis-port P [--calls N]: for entries of 4 KiB (a kernel of the shared set),
//   64 KiB and 1 MiB, the p50/p99 of
//     local hit   SqliteStore::Get (the tier a node serves a kernel from after its first use),
//     raw GET     one RedisClient GET of a plain value of the entry's encoded size,
//     Redis hit   RedisStore::Get: the same GET plus signature and digest checks,
//     first hit   TieredCache (SQLite over Redis, no memory tier) Get of a key only in Redis:
//                 the Redis hit plus its backfill into SQLite, as a node's first request pays;
//   and the ratio the issue targets: Redis hit / (raw GET + local hit) below 2.
// hits --server ADDR --label L [--calls N]: p50/p99 of a cache-hit Compile of gemm_expert through
//   the daemon, one row labelled L (run.sh calls it with Redis healthy, stopped, paused and
//   replaced by a garbage server).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench/bench_stats.h"
#include "cache/cluster_key.h"
#include "cache/redis_client.h"
#include "cache/redis_store.h"
#include "cache/sqlite_store.h"
#include "cache/tiered_cache.h"
#include "client/client.h"

namespace tilejit::bench {
namespace {

std::string Flag(int argc, char** argv, const std::string& name, const std::string& def) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with(prefix)) return arg.substr(prefix.size());
    if (arg == "--" + name && i + 1 < argc) return argv[i + 1];
  }
  return def;
}

struct Figures {
  double p50_us = 0, p99_us = 0;
};

template <typename Fn>
Figures Measure(int calls, Fn&& fn) {
  std::vector<double> us;
  us.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    Timer t;
    if (!fn(i)) {
      std::fprintf(stderr, "cluster_bench: a measured call failed\n");
      std::exit(1);
    }
    us.push_back(t.Elapsed() * 1e6);
  }
  return {Percentile(us, 50), Percentile(us, 99)};
}

cache::Entry MakeEntry(const std::string& key, size_t bytes) {
  cache::Entry e;
  e.key = key;
  e.binary.resize(bytes);
  for (size_t i = 0; i < bytes; ++i) e.binary[i] = static_cast<char>((i * 131 + key[0]) & 0xff);
  e.side.emplace("metadata.json", R"({"kernel_name":"bench"})");
  return e;
}

std::string HexKey(int size_index, int i) {
  char buf[65];
  std::snprintf(buf, sizeof(buf), "%02x%062x", size_index, i);
  return buf;
}

template <typename T>
T OrDie(Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "cluster_bench: %s: %s\n", what, r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

int StoreMode(int argc, char** argv) {
  const int calls = std::atoi(Flag(argc, argv, "calls", "300").c_str());
  const std::string port = Flag(argc, argv, "redis-port", "6379");
  const std::string dir = Flag(argc, argv, "dir", "/tmp");
  auto ring = std::make_shared<const cache::ClusterKeyRing>(
      OrDie(cache::ClusterKeyRing::FromKeys({std::string(32, 'k')}), "cluster key"));
  cache::RedisStoreOptions ro;
  ro.client.url = "redis://127.0.0.1:" + port;
  ro.client.command_timeout_ms = 2000;
  ro.keys = ring;
  std::unique_ptr<cache::RedisStore> redis = OrDie(cache::RedisStore::Open(ro), "redis store");
  cache::SqliteStoreOptions so;
  so.path = dir + "/cluster_bench_" + std::to_string(getpid()) + ".sqlite";
  std::unique_ptr<cache::SqliteStore> sqlite = OrDie(cache::SqliteStore::Open(so), "sqlite");
  cache::TieredCache tiered({/*memory_bytes=*/0, 0, {}}, {sqlite.get(), redis.get()});

  std::printf(
      "| entry | local hit p50/p99 us | raw GET p50/p99 us | Redis hit p50/p99 us | "
      "first hit (+ backfill) p50/p99 us | Redis hit / (raw GET + local hit), p50 |\n");
  std::printf("|---|---|---|---|---|---|\n");
  bool within = true;
  int size_index = 0;
  for (size_t bytes : {size_t{4} << 10, size_t{64} << 10, size_t{1} << 20}) {
    ++size_index;
    const int n = bytes >= (1u << 20) ? std::max(20, calls / 10) : calls;
    std::vector<std::string> keys;
    for (int i = 0; i < n; ++i) keys.push_back(HexKey(size_index, i));
    for (const std::string& k : keys) {
      if (Status put = redis->Put(MakeEntry(k, bytes)); !put.ok()) {
        std::fprintf(stderr, "cluster_bench: redis put: %s\n", put.ToString().c_str());
        return 1;
      }
    }
    const std::string local_key = HexKey(size_index, n);
    if (!sqlite->Put(MakeEntry(local_key, bytes)).ok()) return 1;
    const std::string raw_key = "bench:raw:" + std::to_string(bytes);
    Result<cache::Entry> sample = redis->Get(keys[0]);
    const std::string raw_value(OrDie(std::move(sample), "sample").binary.size() + 256, 'r');
    OrDie(redis->client()->Run({{"SET", raw_key, raw_value}}), "raw set");

    const Figures local = Measure(n, [&](int) { return sqlite->Get(local_key).ok(); });
    const Figures raw = Measure(n, [&](int) {
      Result<std::vector<cache::RedisReply>> r = redis->client()->Run({{"GET", raw_key}});
      return r.ok() && r->front().str.size() == raw_value.size();
    });
    const Figures hit = Measure(n, [&](int i) { return redis->Get(keys[i]).ok(); });
    const Figures first = Measure(n, [&](int i) {
      Result<cache::CacheHit> h = tiered.Get(keys[i]);
      return h.ok() && h->tier == "redis";
    });
    for (const std::string& k : keys) (void)sqlite->Evict(k);
    const double ratio = hit.p50_us / (raw.p50_us + local.p50_us);
    within = within && ratio < 2.0;
    std::printf("| %zu KiB | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.2f |\n",
                bytes >> 10, local.p50_us, local.p99_us, raw.p50_us, raw.p99_us, hit.p50_us,
                hit.p99_us, first.p50_us, first.p99_us, ratio);
  }
  std::printf("\ntarget (Redis hit within 2x of raw GET + local hit): %s\n",
              within ? "met" : "NOT met");
  std::remove(so.path.c_str());
  return within ? 0 : 3;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int HitsMode(int argc, char** argv) {
  const int calls = std::atoi(Flag(argc, argv, "calls", "300").c_str());
  const std::string kernels = Flag(argc, argv, "kernels", "tests/testdata/kernels");
  client::ClientOptions options;
  options.address = Flag(argc, argv, "server", "127.0.0.1:50051");
  std::unique_ptr<client::Client> c = OrDie(client::Client::Connect(options), "connect");
  client::KernelSpec spec;
  spec.file_name = kernels + "/gemm_expert.py";
  spec.source = ReadFile(spec.file_name);
  spec.entry = "matmul";
  for (int64_t a : {256, 512, 384, 128, 256, 64}) {
    v1::TypedValue t;
    t.set_int_value(a);
    spec.args.push_back(t);
  }
  const v1::CompileRequest request = client::BuildCompileRequest(spec);
  Result<v1::CompileResponse> warm = c->Compile(request);
  if (!warm.ok() || !warm->ok()) return 1;
  const Figures f = Measure(calls, [&](int) {
    Result<v1::CompileResponse> r = c->Compile(request);
    return r.ok() && r->ok() && r->tier() == "memory";
  });
  std::printf("| %s | %.0f | %.0f |\n", Flag(argc, argv, "label", "?").c_str(), f.p50_us, f.p99_us);
  return 0;
}

}  // namespace
}  // namespace tilejit::bench

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "store") return tilejit::bench::StoreMode(argc, argv);
  if (mode == "hits") return tilejit::bench::HitsMode(argc, argv);
  std::fprintf(stderr,
               "usage: cluster_bench store --redis-port P | hits --server ADDR --label L\n");
  return 2;
}
