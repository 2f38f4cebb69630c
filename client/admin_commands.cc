// SPDX-License-Identifier: Apache-2.0
// Daemon-only commands: health, stats and cache administration. Output is for people first
// (a table for `cache ls`) and scripts second (stats as JSON, exit status for health).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>

#include "client/service_commands.h"
#include "client/service_util.h"

namespace tilejit::client {
namespace {

int CacheList(Client& client, unsigned limit) {
  Result<v1::ListResponse> r = client.List(limit);
  if (!r.ok()) return ReportError(r.status());
  std::printf("%-70s %10s %-6s %-14s %s\n", "handle", "bytes", "pinned", "target", "kernel");
  for (const v1::CacheEntry& e : r->entries()) {
    std::printf("%-70s %10llu %-6s %-14s %s\n", e.handle().c_str(),
                static_cast<unsigned long long>(e.size_bytes()), e.pinned() ? "yes" : "no",
                e.target().c_str(), e.kernel_name().c_str());
  }
  return kExitOk;
}

int CacheExport(Client& client, const CacheCommandOptions& o) {
  if (o.file.empty()) {
    std::cerr << "tilejit: cache export needs -o BUNDLE\n";
    return kExitUsage;
  }
  Result<v1::ExportResponse> r = client.Export(o.handles);
  if (!r.ok()) return ReportError(r.status());
  if (!WriteFileBytes(o.file, r->bundle())) return kExitUsage;
  std::cout << "exported " << r->count() << " kernel(s) to " << o.file << "\n";
  return kExitOk;
}

int CacheImport(Client& client, const CacheCommandOptions& o) {
  std::ifstream in(o.file, std::ios::binary);
  if (!in) {
    std::cerr << "tilejit: cannot read '" << o.file << "'\n";
    return kExitUsage;
  }
  std::string bundle((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Result<v1::ImportResponse> r = client.Import(bundle);
  if (!r.ok()) return ReportError(r.status());
  std::cout << "imported " << r->imported() << ", skipped " << r->skipped()
            << " (already present)\n";
  return kExitOk;
}

int CachePin(Client& client, const CacheCommandOptions& o, bool pin) {
  for (const std::string& h : o.handles) {
    Status st = pin ? client.Pin(h) : client.Unpin(h);
    if (!st.ok()) return ReportError(st);
    std::cout << (pin ? "pinned " : "unpinned ") << h << "\n";
  }
  return kExitOk;
}

}  // namespace

int HealthCommand(const DaemonOptions& d, const std::string& service) {
  auto client = OpenClient(d);
  if (!client) return kExitUsage;
  Result<ServingStatus> s = (*client)->Health(service);
  if (!s.ok()) return ReportError(s.status());
  std::cout << ServingStatusName(*s) << "\n";
  return *s == ServingStatus::kServing ? kExitOk : kExitErrors;
}

int StatsCommand(const DaemonOptions& d) {
  auto client = OpenClient(d);
  if (!client) return kExitUsage;
  Result<v1::StatsResponse> r = (*client)->Stats();
  if (!r.ok()) return ReportError(r.status());
  std::cout << ToJson(*r);
  return kExitOk;
}

int CacheCommand(const DaemonOptions& d, const CacheCommandOptions& o) {
  auto client = OpenClient(d);
  if (!client) return kExitUsage;
  Client& c = **client;
  if (o.action == "ls") return CacheList(c, o.limit);
  if (o.action == "export") return CacheExport(c, o);
  if (o.action == "import") return CacheImport(c, o);
  if (o.action == "pin" || o.action == "unpin") return CachePin(c, o, o.action == "pin");
  if (o.action == "evict") {
    Result<uint32_t> n = c.Evict(o.handles);
    if (!n.ok()) return ReportError(n.status());
    std::cout << "evicted " << *n << " kernel(s)\n";
    return kExitOk;
  }
  std::cerr << "tilejit: unknown cache action '" << o.action << "'\n";
  return kExitUsage;
}

}  // namespace tilejit::client
