// SPDX-License-Identifier: Apache-2.0
// Daemon-only commands: health, stats and cache administration. Output is for people first
// (a table for `cache ls`) and scripts second (stats as JSON, exit status for health).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cache/export_format.h"
#include "client/service_commands.h"
#include "client/service_util.h"
#include "common/sha256.h"

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

// Export and import stream the entries (ExportStream, ImportStream), so a cache of any size
// moves with one kernel in memory at a time, and the file is cache/export_format's: written
// atomically, with per-blob digests and an end line that makes truncation detectable. A file
// from before (a serialised KernelBundle, from the unary Export) still imports.
// The export file's side blob holding an entry's cluster signature (KernelBundle.Entry's
// `signature`), as the daemon's stores name it.
constexpr char kSignatureBlob[] = "cluster.mac";

int CacheExport(Client& client, const CacheCommandOptions& o) {
  if (o.file.empty()) {
    std::cerr << "tilejit: cache export needs -o FILE\n";
    return kExitUsage;
  }
  Result<cache::ExportWriter> writer = cache::ExportWriter::Create(o.file);
  if (!writer.ok()) return ReportError(writer.status());
  Result<uint64_t> n = client.ExportStream(o.handles, [&](const v1::KernelBundle::Entry& e) {
    cache::Entry entry;
    entry.key = e.key();
    entry.binary = e.binary();
    if (!e.signature().empty()) entry.side.emplace(kSignatureBlob, e.signature());
    return writer->Write(entry);
  });
  if (!n.ok()) return ReportError(n.status());
  if (Status s = writer->Finish(); !s.ok()) return ReportError(s);
  std::cout << "exported " << *n << " kernel(s) to " << o.file << "\n";
  return kExitOk;
}

// One entry of an export file as a bundle entry; Corruption when its digest fails.
Result<v1::KernelBundle::Entry> BundleEntryOf(const std::string& file, cache::ImportRecord record) {
  if (!record.verified) {
    return Corruption(file + ": entry " + record.entry.key.substr(0, 16) +
                      " fails its digest check");
  }
  v1::KernelBundle::Entry e;
  e.set_key(record.entry.key);
  e.set_binary(std::move(record.entry.binary));
  e.set_sha256(Sha256Hex(e.binary()));
  if (auto sig = record.entry.side.find(kSignatureBlob); sig != record.entry.side.end()) {
    e.set_signature(sig->second);
  }
  return e;
}

// An export file through ImportStream, or a KernelBundle file (the unary Export's) through
// Import, told apart by the export file's first line.
Result<v1::ImportResponse> ImportFile(Client& client, const std::string& file, std::ifstream& in) {
  std::string first;
  std::getline(in, first);
  if (!first.starts_with("tilejit-cache-export ")) {
    in.clear();
    in.seekg(0);
    return client.Import(
        std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  }
  TILEJIT_ASSIGN_OR_RETURN(cache::ExportReader reader, cache::ExportReader::Open(file));
  return client.ImportStream([&]() -> Result<std::optional<v1::KernelBundle::Entry>> {
    TILEJIT_ASSIGN_OR_RETURN(std::optional<cache::ImportRecord> record, reader.Next());
    if (!record) return std::optional<v1::KernelBundle::Entry>();
    TILEJIT_ASSIGN_OR_RETURN(v1::KernelBundle::Entry e, BundleEntryOf(file, std::move(*record)));
    return std::optional<v1::KernelBundle::Entry>(std::move(e));
  });
}

int CacheImport(Client& client, const CacheCommandOptions& o) {
  std::ifstream in(o.file, std::ios::binary);
  if (!in) {
    std::cerr << "tilejit: cannot read '" << o.file << "'\n";
    return kExitUsage;
  }
  Result<v1::ImportResponse> r = ImportFile(client, o.file, in);
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
