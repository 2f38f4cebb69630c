// SPDX-License-Identifier: Apache-2.0
// service_bench: issue 6 item 7, against a running tilejitd (bench/service/run.sh starts one
// on a random loopback port with an empty cache directory and stops it afterwards).
//
// Measured in this one run, every figure beside its baseline:
//   1. cold compile latency of every cases.json kernel (the daemon's cache starts empty);
//   2. p50/p99 of a cache-hit Compile of the full gemm_expert source (full response: handle,
//      metadata, diagnostics, timings) against grpc.health.v1.Health/Check, interleaved call
//      by call on the same channel (one tilejit::Client) so drift hits both alike;
//   3. throughput of 32 threads sharing that channel, hit Compile against Health/Check,
//      alternating rounds;
//   4. SQLite get and put p50/p99 (cache/sqlite_store.h directly, in --store-dir) with entries
//      made of the real binaries and metadata the daemon returned in step 1;
//   5. with --auth-address and --token (a second daemon, started with --auth-tokens): the cost
//      of authorization per call, as the p50 of a cache-hit Compile carrying the token on that
//      daemon against the same hit without a token on the first, interleaved call by call
//      (ABBA), beside the check alone timed in process; and steps 2 and 3's hit/health ratios
//      on the daemon with tokens.
// Prints a table of numbers and ratios; targets are printed, not enforced.
// Flags: --address=HOST:PORT --kernels=DIR --store-dir=DIR [--calls=N] [--threads=N]
//        [--per-thread=N] [--rounds=N] [--store-ops=N] [--auth-address=HOST:PORT --token=T]
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_stats.h"
#include "cache/sqlite_store.h"
#include "client/client.h"
#include "common/sha256.h"
#include "server/auth.h"

namespace {

namespace v1 = tilejit::v1;
using tilejit::bench::Percentile;
using tilejit::bench::Timer;
using tilejit::client::Client;

std::string Flag(int argc, char** argv, const std::string& name, const std::string& def) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--" + name + "=", 0) == 0) return a.substr(name.size() + 3);
  }
  return def;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Case {
  std::string name;  // file:entry(args)
  std::string file;
  v1::CompileRequest request;
};

v1::TypedValue Typed(const nlohmann::json& j) {
  v1::TypedValue v;
  if (j.is_boolean()) {
    v.set_bool_value(j.get<bool>());
  } else if (j.is_number_integer()) {
    v.set_int_value(j.get<int64_t>());
  } else if (j.is_number()) {
    v.set_float_value(j.get<double>());
  } else {
    v.set_string_value(j.dump());
  }
  return v;
}

std::vector<Case> LoadCases(const std::string& dir) {
  std::ifstream in(dir + "/cases.json");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::vector<Case> out;
  if (j.is_discarded() || !j.contains("cases")) return out;
  for (const auto& c : j["cases"]) {
    Case k;
    k.file = c.value("file", "");
    tilejit::client::KernelSpec spec;
    spec.source = ReadFile(dir + "/" + k.file);
    spec.file_name = k.file;
    spec.entry = c.value("entry", "");
    std::string args;
    for (const auto& a : c["args"]) {
      spec.args.push_back(Typed(a));
      args += (args.empty() ? "" : ",") + a.dump();
    }
    k.name = k.file + " (" + args + ")";
    k.request = tilejit::client::BuildCompileRequest(spec);
    out.push_back(std::move(k));
  }
  return out;
}

// Step 1. Returns the responses of the kernels that compiled, in case order.
std::vector<v1::CompileResponse> ColdCompiles(Client& client, const std::vector<Case>& cases) {
  std::printf("cold compile (empty cache), client-observed latency\n");
  std::printf("  %-52s %10s  %s\n", "kernel (args)", "ms", "tier / result");
  std::vector<v1::CompileResponse> compiled;
  for (const Case& c : cases) {
    Timer t;
    auto r = client.Compile(c.request);
    const double ms = t.Elapsed() * 1e3;
    if (!r.ok()) {
      const std::string text = r.status().ToString();
      std::printf("  %-52s %10s  rpc error: %s\n", c.name.c_str(), "-",
                  text.substr(0, text.find('\n')).c_str());
    } else if (!r->ok()) {
      const std::string first = r->error().substr(0, r->error().find('\n'));
      std::printf("  %-52s %10s  does not compile: %s\n", c.name.c_str(), "-", first.c_str());
    } else {
      std::printf("  %-52s %10.1f  %s\n", c.name.c_str(), ms, r->tier().c_str());
      compiled.push_back(*r);
    }
  }
  return compiled;
}

bool HitIsComplete(const v1::CompileResponse& r) {
  return r.ok() && !r.handle().empty() && r.metadata().params_size() > 0 && r.timings_size() > 0 &&
         (r.tier() == "memory" || r.tier() == "sqlite");
}

struct LatencyFigures {
  std::vector<double> health, hit;
  // The daemon's own phase timings of each hit ("digest", "memo", "store_get", "total").
  std::map<std::string, std::vector<double>> phases;
  bool all_ok = true;
};

// Step 2: health and hit calls interleaved one by one.
LatencyFigures Latencies(Client& client, const v1::CompileRequest& hit, int calls) {
  LatencyFigures f;
  for (int i = 0; i < calls; ++i) {
    Timer th;
    auto h = client.Health();
    f.health.push_back(th.Elapsed());
    Timer tc;
    auto c = client.Compile(hit);
    f.hit.push_back(tc.Elapsed());
    f.all_ok = f.all_ok && h.ok() && c.ok() && HitIsComplete(*c);
    if (!c.ok()) continue;
    for (const auto& t : c->timings()) {
      f.phases[t.phase()].push_back(t.millis() / 1e3);
    }
  }
  return f;
}

// Step 3: `threads` threads each make `per_thread` calls of one kind; calls per second.
double Throughput(Client& client, const v1::CompileRequest* hit, int threads, int per_thread,
                  bool* all_ok) {
  std::vector<std::thread> pool;
  std::vector<int> failures(threads, 0);
  Timer t;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      for (int n = 0; n < per_thread; ++n) {
        const bool ok = hit == nullptr ? client.Health().ok() : client.Compile(*hit).ok();
        if (!ok) ++failures[i];
      }
    });
  }
  for (auto& th : pool) th.join();
  const double secs = t.Elapsed();
  for (int f : failures) *all_ok = *all_ok && f == 0;
  return threads * per_thread / secs;
}

// Step 4: SQLite put and get of realistic entries (the daemon's binaries and metadata).
void SqliteFigures(const std::string& dir, const std::vector<v1::CompileResponse>& compiled,
                   Client& client, int ops) {
  std::vector<tilejit::cache::Entry> protos;
  for (const auto& r : compiled) {
    auto k = client.GetKernel(r.handle());
    if (!k.ok()) continue;
    tilejit::cache::Entry e;
    e.binary = k->binary();
    (void)google::protobuf::util::MessageToJsonString(r.metadata(), &e.side["metadata.json"]);
    std::string diags;
    for (const auto& d : r.diagnostics()) diags += d.rendered();
    e.side["diagnostics"] = diags;
    protos.push_back(std::move(e));
  }
  tilejit::cache::SqliteStoreOptions options;
  options.path = dir + "/bench.sqlite";
  auto store = tilejit::cache::SqliteStore::Open(options);
  if (!store.ok() || protos.empty()) {
    std::printf("sqlite: skipped (%s)\n", store.ok() ? "no compiled kernel" : "cannot open store");
    return;
  }
  std::mt19937_64 rng(3);
  std::vector<std::string> keys;
  std::vector<double> put, get;
  uint64_t bytes = 0;
  for (int i = 0; i < ops; ++i) {
    tilejit::cache::Entry e = protos[i % protos.size()];
    char key[33];
    std::snprintf(key, sizeof key, "%016llx%016llx", static_cast<unsigned long long>(rng()),
                  static_cast<unsigned long long>(rng()));
    e.key = key;
    bytes += e.ByteSize();
    Timer t;
    const bool ok = (*store)->Put(e).ok();
    put.push_back(t.Elapsed());
    if (ok) keys.push_back(e.key);
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  int misses = 0;
  for (const std::string& k : keys) {
    Timer t;
    if (!(*store)->Get(k).ok()) ++misses;
    get.push_back(t.Elapsed());
  }
  std::printf("\nsqlite store (%d entries, mean %.1f KiB: real binaries + metadata JSON)\n", ops,
              bytes / 1024.0 / ops);
  std::printf("  %-40s %10.1f us   p99 %8.1f us\n", "put p50", Percentile(put, 50) * 1e6,
              Percentile(put, 99) * 1e6);
  std::printf("  %-40s %10.1f us   p99 %8.1f us%s\n", "get p50 (verified read)",
              Percentile(get, 50) * 1e6, Percentile(get, 99) * 1e6,
              misses ? "   SOME GETS MISSED" : "");
}

// The daemon's check of one call in process (server/auth.h): the token's SHA-256 and a
// constant-time comparison with each of `entries` digests; seconds per call.
double CheckSeconds(size_t entries) {
  std::string file;
  for (size_t i = 0; i < entries; ++i) {
    file += "compile " + tilejit::Sha256Hex("token-" + std::to_string(i)) + "\n";
  }
  auto table = tilejit::server::TokenTable::Parse(file, "bench");
  const std::string header = "Bearer token-" + std::to_string(entries - 1);
  constexpr int kChecks = 100000;
  int allowed = 0;
  Timer t;
  for (int i = 0; i < kChecks; ++i) {
    using tilejit::server::Authorize;
    if (Authorize(*table, header, tilejit::server::Role::kCompile, "X").allowed()) ++allowed;
  }
  const double seconds = t.Elapsed() / kChecks;
  return allowed == kChecks ? seconds : -1;
}

// Steps 2 and 3's ratios on the daemon with tokens; false when a call failed.
bool TokenedRatios(Client& tokened, const v1::CompileRequest& hit, int calls, int threads,
                   int per_thread, int rounds) {
  LatencyFigures lat = Latencies(tokened, hit, calls);
  const double h50 = Percentile(lat.health, 50), c50 = Percentile(lat.hit, 50);
  std::printf("  %-40s %9.2fx   target <= 1.5x\n", "tokens on: hit p50 / health p50", c50 / h50);
  std::vector<double> health_rate, hit_rate;
  bool tp_ok = true;
  for (int r = 0; r < rounds; ++r) {
    health_rate.push_back(Throughput(tokened, nullptr, threads, per_thread, &tp_ok));
    hit_rate.push_back(Throughput(tokened, &hit, threads, per_thread, &tp_ok));
  }
  std::printf("  %-40s %9.2fx   target >= 0.6x%s\n", "tokens on: hit / health throughput",
              Percentile(hit_rate, 50) / Percentile(health_rate, 50),
              tp_ok ? "" : "   SOME CALLS FAILED");
  return lat.all_ok && tp_ok;
}

// Step 5: hit Compile without a token on `plain` and with one on `tokened`, interleaved, and
// tokened's hit/health ratios (latency, then 32-thread throughput).
bool AuthFigures(Client& plain, Client& tokened, const v1::CompileRequest& hit, int calls,
                 int threads, int per_thread, int rounds) {
  for (int i = 0; i < 200; ++i) (void)tokened.Health(), (void)tokened.Compile(hit);
  std::vector<double> without, with;
  bool ok = true;
  auto timed_hit = [&hit, &ok](Client& client, std::vector<double>* out) {
    Timer t;
    auto r = client.Compile(hit);
    out->push_back(t.Elapsed());
    ok = ok && r.ok() && HitIsComplete(*r);
  };
  for (int i = 0; i < calls; ++i) {  // ABBA: which daemon goes first alternates
    if (i % 2 == 0) timed_hit(plain, &without);
    timed_hit(tokened, &with);
    if (i % 2 == 1) timed_hit(plain, &without);
  }
  const double w50 = Percentile(without, 50), t50 = Percentile(with, 50);
  std::printf("\nauthorization (second daemon with --auth-tokens), %d interleaved calls each\n",
              calls);
  std::printf("  %-40s %10.1f us   p99 %8.1f us\n", "hit p50, no tokens", w50 * 1e6,
              Percentile(without, 99) * 1e6);
  std::printf("  %-40s %10.1f us   p99 %8.1f us%s\n", "hit p50, bearer token checked", t50 * 1e6,
              Percentile(with, 99) * 1e6, ok ? "" : "   SOME CALLS FAILED OR WERE NOT HITS");
  std::printf("  %-40s %9.2fx   (%+.1f us per call)\n", "with token / without", t50 / w50,
              (t50 - w50) * 1e6);
  std::printf("  %-40s %10.2f us   (%.2f us with 100 tokens in the file)\n",
              "the check itself, in process", CheckSeconds(1) * 1e6, CheckSeconds(100) * 1e6);
  return ok && TokenedRatios(tokened, hit, calls, threads, per_thread, rounds);
}

int Main(int argc, char** argv) {
  tilejit::client::ClientOptions options;
  options.address = Flag(argc, argv, "address", "127.0.0.1:50051");
  const std::string kernels = Flag(argc, argv, "kernels", "tests/testdata/kernels");
  const std::string store_dir = Flag(argc, argv, "store-dir", "");
  const int calls = std::stoi(Flag(argc, argv, "calls", "2000"));
  const int threads = std::stoi(Flag(argc, argv, "threads", "32"));
  const int per_thread = std::stoi(Flag(argc, argv, "per-thread", "250"));
  const int rounds = std::stoi(Flag(argc, argv, "rounds", "5"));
  const int store_ops = std::stoi(Flag(argc, argv, "store-ops", "300"));
  const std::string auth_address = Flag(argc, argv, "auth-address", "");
  auto client = Client::Connect(options);
  if (!client.ok() || !(*client)->Health().ok()) {
    std::fprintf(stderr, "no daemon at %s\n", options.address.c_str());
    return 1;
  }
  const std::vector<Case> cases = LoadCases(kernels);
  const Case* expert = nullptr;
  for (const Case& c : cases) {
    if (c.file == "gemm_expert.py") expert = &c;
  }
  if (expert == nullptr) {
    std::fprintf(stderr, "no gemm_expert case in %s/cases.json\n", kernels.c_str());
    return 1;
  }
  const std::vector<v1::CompileResponse> compiled = ColdCompiles(**client, cases);

  // Warm-up: connection, memo and memory tier, thread caches.
  for (int i = 0; i < 200; ++i)
    (void)(*client)->Health(), (void)(*client)->Compile(expert->request);
  LatencyFigures lat = Latencies(**client, expert->request, calls);
  const double h50 = Percentile(lat.health, 50), c50 = Percentile(lat.hit, 50);
  std::printf("\nlatency, %d interleaved calls each, one channel\n", calls);
  std::printf("  %-40s %10.1f us   p99 %8.1f us\n", "grpc.health.v1.Health/Check p50", h50 * 1e6,
              Percentile(lat.health, 99) * 1e6);
  std::printf("  %-40s %10.1f us   p99 %8.1f us%s\n", "Compile gemm_expert, cache hit p50",
              c50 * 1e6, Percentile(lat.hit, 99) * 1e6,
              lat.all_ok ? "" : "   SOME CALLS FAILED OR WERE NOT HITS");
  std::string phases;
  for (const auto& [phase, v] : lat.phases) {
    if (phase == "total") continue;
    char text[64];
    std::snprintf(text, sizeof text, "%s%s %.1f", phases.empty() ? "" : ", ", phase.c_str(),
                  Percentile(v, 50) * 1e6);
    phases += text;
  }
  std::printf("  %-40s %10.1f us   (p50 by phase: %s)\n", "  of which in the compile service",
              Percentile(lat.phases["total"], 50) * 1e6, phases.c_str());
  std::printf("  %-40s %9.2fx   target <= 1.5x\n", "hit p50 / health p50", c50 / h50);

  std::vector<double> health_rate, hit_rate;
  bool tp_ok = true;
  for (int r = 0; r < rounds; ++r) {
    health_rate.push_back(Throughput(**client, nullptr, threads, per_thread, &tp_ok));
    hit_rate.push_back(Throughput(**client, &expert->request, threads, per_thread, &tp_ok));
  }
  const double hr = Percentile(health_rate, 50), cr = Percentile(hit_rate, 50);
  std::printf("\nthroughput, %d threads x %d calls on one channel, median of %d rounds\n", threads,
              per_thread, rounds);
  std::printf("  %-40s %10.0f /s\n", "Health/Check", hr);
  std::printf("  %-40s %10.0f /s%s\n", "Compile gemm_expert, cache hit", cr,
              tp_ok ? "" : "   SOME CALLS FAILED");
  std::printf("  %-40s %9.2fx   target >= 0.6x\n", "hit / health", cr / hr);

  if (!store_dir.empty()) SqliteFigures(store_dir, compiled, **client, store_ops);
  bool auth_ok = true;
  if (!auth_address.empty()) {
    tilejit::client::ClientOptions auth_options;
    auth_options.address = auth_address;
    auth_options.token = Flag(argc, argv, "token", "");
    auto tokened = Client::Connect(auth_options);
    auth_ok = tokened.ok() &&
              AuthFigures(**client, **tokened, expert->request, calls, threads, per_thread, rounds);
  }
  return lat.all_ok && tp_ok && auth_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
