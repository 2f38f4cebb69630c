// SPDX-License-Identifier: Apache-2.0
// Kernel lookup, statistics, metrics registration and cache administration of
// CompileService. Admin calls go straight to the store: they are rare and must see its
// current state, never a memo.
#include <spdlog/spdlog.h>

#include <span>
#include <utility>

#include "compiler/target/binary.h"
#include "server/handle.h"
#include "server/service.h"

namespace tilejit::server {

void CompileService::RegisterMetrics() {
  requests_ = metrics_.AddCounter("tilejit_requests_total", "Requests by method and status code",
                                  {"method", "code"});
  phase_seconds_ =
      metrics_.AddHistogram("tilejit_phase_seconds", "Wall time of each phase of a compile request",
                            {"phase"}, LatencyBuckets());
  hits_ = metrics_.AddCounter("tilejit_cache_hits_total", "Kernel cache hits by tier", {"tier"});
  // The local tiers are always exported, so a scrape shows a zero instead of no series.
  for (const char* tier : {"memory", "sqlite"}) hits_->With({tier});
  auto single = [this](const char* name, const char* help) {
    return &metrics_.AddCounter(name, help, {})->With({});
  };
  misses_ = single("tilejit_cache_misses_total", "Kernel cache misses (back end needed)");
  backend_runs_ = single("tilejit_backend_compiles_total", "Back-end (Lower) runs");
  compile_errors_ = single("tilejit_compile_errors_total", "Requests with kernel compile errors");
  joins_ = single("tilejit_single_flight_joins_total",
                  "Requests that joined a compile already in flight");
  memo_hits_ = single("tilejit_memo_hits_total", "Requests answered by the request memo");
  error_cache_hits_ =
      single("tilejit_error_cache_hits_total", "Requests answered by the compile-error cache");
  frontend_runs_ = single("tilejit_frontend_runs_total", "Frontend (Specialize) runs");
  import_refusals_ = single("tilejit_import_refusals_total",
                            "Import entries refused (not reproduced by compiling them here)");
  signed_imports_ =
      single("tilejit_import_signed_total",
             "Import entries taken on their valid cluster signature (not recompiled)");
  stopped_compiles_ = single("tilejit_stopped_compiles_total",
                             "Back-end runs stopped because every caller waiting for them gave up");
  cluster_leads_ = single("tilejit_cluster_leases_total",
                          "Cluster leases taken: compiles this node ran for the cluster");
  cluster_waits_ = single("tilejit_cluster_lease_waits_total",
                          "Compiles this node waited for while another node held the lease");
  cluster_remote_kernels_ = single("tilejit_cluster_remote_kernels_total",
                                   "Lease waits that ended with another node's kernel");
  cluster_remote_errors_ = single("tilejit_cluster_remote_errors_total",
                                  "Lease waits that ended with another node's compile error");
  cluster_takeovers_ = single("tilejit_cluster_takeovers_total",
                              "Lease waits that ended with this node taking a lapsed lease");
  cluster_unavailable_ = single("tilejit_cluster_unavailable_total",
                                "Cluster leases that could not be asked for: compiled locally");
  RegisterTuneMetrics();
  if (cluster_ != nullptr) {
    metrics_.AddCallback("tilejit_cluster_leases_held", "Cluster leases this node holds", "gauge",
                         [this] { return static_cast<double>(cluster_->held()); });
    metrics_.AddCallback("tilejit_cluster_leases_lost_total",
                         "Leases that lapsed or were taken over while compiling", "counter",
                         [this] { return static_cast<double>(cluster_->leases_lost()); });
  }
  refused_calls_ = metrics_.AddCounter(
      "tilejit_admission_refusals_total",
      "Compile/Launch calls refused at admission (limit: caller or all)", {"limit"});
  metrics_.AddCallback("tilejit_queue_depth", "Compiles waiting for a worker", "gauge",
                       [this] { return static_cast<double>(pool_.queue_depth()); });
  metrics_.AddCallback("tilejit_compiles_in_flight", "Distinct keys being compiled", "gauge",
                       [this] { return static_cast<double>(flights_.in_flight()); });
  metrics_.AddCallback("tilejit_memo_entries", "Request digests in the memo", "gauge",
                       [this] { return static_cast<double>(memo_.size()); });
  metrics_.AddCallback("tilejit_cache_evictions_total", "Entries evicted from the store", "counter",
                       [this] { return static_cast<double>(store_->Stats().evictions); });
  metrics_.AddCallback("tilejit_cache_corruptions_total", "Stored entries that failed verification",
                       "counter",
                       [this] { return static_cast<double>(store_->Stats().corruptions); });
  metrics_.AddCallback("tilejit_cache_write_failures_total", "Failed store writes", "counter",
                       [this] { return static_cast<double>(store_->Stats().write_failures); });
  metrics_.AddCallback("tilejit_cache_quarantined_files",
                       "Corrupt cache database files moved aside when the store opened", "gauge",
                       [this] { return static_cast<double>(store_->Stats().quarantined); });
  metrics_.AddCallback("tilejit_cache_entries", "Entries in the store", "gauge",
                       [this] { return static_cast<double>(store_->Stats().entries); });
  metrics_.AddCallback("tilejit_cache_bytes", "Bytes in the store", "gauge",
                       [this] { return static_cast<double>(store_->Stats().bytes); });
}

Result<KernelInfo> CompileService::GetKernel(std::string_view handle) {
  Result<std::string> key = KeyFromHandle(handle);
  if (!key.ok()) {
    CountRequest("GetKernel", key.status());
    return key.status();
  }
  Result<StoreHit> hit = store_->Get(*key);
  if (!hit.ok()) {
    Status s = hit.status().code() == StatusCode::kNotFound
                   ? NotFound("no kernel with handle " + std::string(handle) +
                              " (never compiled here, or evicted)")
                   : hit.status();
    CountRequest("GetKernel", s);
    return s;
  }
  CountRequest("GetKernel", Status::Ok());
  return KernelInfo{std::string(handle), hit->kernel, hit->tier};
}

ServiceStats CompileService::Stats() {
  CountRequest("Stats", Status::Ok());
  ServiceStats s;
  s.store = store_->Stats();
  hits_->ForEach([&](const std::vector<std::string>& labels, const Counter& c) {
    s.hits_by_tier.emplace_back(labels.empty() ? "" : labels[0], c.value());
  });
  s.misses = misses_->value();
  s.compiles = backend_runs_->value();
  s.compile_errors = compile_errors_->value();
  s.single_flight_joins = joins_->value();
  s.queue_depth = pool_.queue_depth();
  s.memo_entries = memo_.size();
  s.cluster_leads = cluster_leads_->value();
  s.cluster_waits = cluster_waits_->value();
  s.cluster_remote_kernels = cluster_remote_kernels_->value();
  s.cluster_remote_errors = cluster_remote_errors_->value();
  s.cluster_takeovers = cluster_takeovers_->value();
  s.cluster_unavailable = cluster_unavailable_->value();
  if (cluster_ != nullptr) s.cluster_leases_lost = cluster_->leases_lost();
  s.tune_simulations = tune_simulations_->value();
  s.tune_decisions = tune_decisions_->value();
  s.tune_decisions_cached = tune_cached_->value();
  return s;
}

Result<std::vector<StoreEntryInfo>> CompileService::List(size_t limit) {
  return Counted("List", store_->List(limit == 0 ? 1000 : limit));
}

Result<size_t> CompileService::Evict(const std::vector<std::string>& handles) {
  return Counted("Evict", EvictKeys(handles));
}

Result<size_t> CompileService::EvictKeys(const std::vector<std::string>& handles) {
  std::vector<std::string> keys;
  for (const std::string& h : handles) {
    TILEJIT_ASSIGN_OR_RETURN(std::string key, KeyFromHandle(h));
    keys.push_back(std::move(key));
  }
  size_t evicted = 0;
  for (const std::string& key : keys) {
    Status s = store_->Evict(key);
    if (s.ok()) {
      ++evicted;
    } else if (s.code() != StatusCode::kNotFound) {
      return s;
    }
  }
  return evicted;
}

Status CompileService::Pin(std::string_view handle) {
  Result<std::string> key = KeyFromHandle(handle);
  return Counted("Pin", key.ok() ? store_->Pin(*key) : key.status());
}

Status CompileService::Unpin(std::string_view handle) {
  Result<std::string> key = KeyFromHandle(handle);
  return Counted("Unpin", key.ok() ? store_->Unpin(*key) : key.status());
}

Result<std::vector<std::shared_ptr<const KernelRecord>>> CompileService::Export(
    const std::vector<std::string>& handles, size_t limit) {
  std::vector<std::shared_ptr<const KernelRecord>> out;
  Result<size_t> sent = ExportKernels(handles, limit, [&](const KernelRecord& k) {
    out.push_back(std::make_shared<const KernelRecord>(k));
    return true;
  });
  CountRequest("Export", sent.status());
  if (!sent.ok()) return sent.status();
  return out;
}

Result<size_t> CompileService::ExportEach(const std::vector<std::string>& handles, size_t limit,
                                          const ExportSink& sink) {
  return Counted("ExportStream", ExportKernels(handles, limit, sink));
}

Result<size_t> CompileService::ExportKernels(const std::vector<std::string>& handles, size_t limit,
                                             const ExportSink& sink) {
  std::vector<std::string> keys;
  if (handles.empty()) {
    TILEJIT_ASSIGN_OR_RETURN(std::vector<StoreEntryInfo> all, store_->List(limit));
    for (StoreEntryInfo& e : all) keys.push_back(std::move(e.key));
  }
  for (const std::string& h : handles) {
    TILEJIT_ASSIGN_OR_RETURN(std::string key, KeyFromHandle(h));
    keys.push_back(std::move(key));
  }
  size_t sent = 0;
  for (const std::string& key : keys) {
    Result<StoreHit> hit = store_->Get(key);
    if (hit.ok()) {
      if (!sink(*hit->kernel)) break;
      ++sent;
    } else if (!handles.empty()) {
      return NotFound("no kernel with handle " + HandleFromKey(key));
    }
  }
  return sent;
}

}  // namespace tilejit::server
