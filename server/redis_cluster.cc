// SPDX-License-Identifier: Apache-2.0
// Why one heartbeat thread and not one per lease: leases are held only by running compiles,
// so there are at most as many as workers, and one thread renewing them all in one pass keeps
// the renewal period the same however many there are. A renewal that finds the lease gone
// marks it lost (the holder's compile goes on: its Put is still good, and the next holder
// double-checks the store before compiling).
#include "server/redis_cluster.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace tilejit::server {
namespace {

std::string DefaultNodeId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') std::snprintf(host, 8, "node");
  std::string id;
  for (const char* p = host; *p != '\0' && id.size() < 64; ++p) {
    id.push_back(*p > ' ' && *p < 127 ? *p : '_');
  }
  return id + ":" + std::to_string(getpid());
}

nlohmann::json DiagnosticJson(const DiagnosticInfo& d) {
  nlohmann::json notes = nlohmann::json::array();
  for (const DiagnosticInfo& n : d.notes) notes.push_back(DiagnosticJson(n));
  return {{"severity", static_cast<int>(d.severity)},
          {"file", d.file},
          {"line", d.line},
          {"column", d.column},
          {"message", d.message},
          {"rendered", d.rendered},
          {"notes", std::move(notes)}};
}

bool DiagnosticFromJson(const nlohmann::json& j, int depth, DiagnosticInfo* out) {
  if (!j.is_object() || depth > kMaxSharedNoteDepth) return false;
  const int severity = j.value("severity", -1);
  if (severity < static_cast<int>(Severity::kNote) ||
      severity > static_cast<int>(Severity::kError)) {
    return false;
  }
  out->severity = static_cast<Severity>(severity);
  out->file = j.value("file", "");
  out->line = j.value("line", 0u);
  out->column = j.value("column", 0u);
  out->message = j.value("message", "");
  out->rendered = j.value("rendered", "");
  const nlohmann::json& notes = j.at("notes");
  if (!notes.is_array()) return false;
  for (const nlohmann::json& n : notes) {
    if (!DiagnosticFromJson(n, depth + 1, &out->notes.emplace_back())) return false;
  }
  return true;
}

}  // namespace

std::string EncodeSharedError(const SharedError& error) {
  nlohmann::json diagnostics = nlohmann::json::array();
  for (const DiagnosticInfo& d : error.diagnostics) diagnostics.push_back(DiagnosticJson(d));
  return nlohmann::json{{"message", error.message}, {"diagnostics", std::move(diagnostics)}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<SharedError> DecodeSharedError(std::string_view json) {
  try {
    const nlohmann::json j = nlohmann::json::parse(json);
    SharedError error;
    error.message = j.at("message").get<std::string>();
    const nlohmann::json& diagnostics = j.at("diagnostics");
    if (!diagnostics.is_array()) return std::nullopt;
    for (const nlohmann::json& d : diagnostics) {
      if (!DiagnosticFromJson(d, 0, &error.diagnostics.emplace_back())) return std::nullopt;
    }
    return error;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

class RedisClusterFlights::Lease final : public ClusterLease {
 public:
  Lease(RedisClusterFlights* flights, std::shared_ptr<Held> held)
      : flights_(flights), held_(std::move(held)) {}
  ~Lease() override { flights_->Drop(held_); }
  void ShareError(const SharedError& error) override { flights_->ShareError(held_->key, error); }

 private:
  RedisClusterFlights* flights_;
  std::shared_ptr<Held> held_;
};

Result<std::unique_ptr<RedisClusterFlights>> RedisClusterFlights::Create(
    std::shared_ptr<cache::RedisClient> client, std::shared_ptr<const cache::ClusterKeyRing> keys,
    RedisClusterOptions options) {
  if (options.lease_ms < 30 || options.lease_ms > cache::kMaxLeaseTtlMs) {
    return InvalidArgument("the cluster lease TTL must be 30 ms to 24 h");
  }
  if (options.error_ttl_ms < 1) return InvalidArgument("the shared error TTL must be positive");
  if (options.node_id.empty()) options.node_id = DefaultNodeId();
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<cache::RedisLease> leases,
                           cache::RedisLease::Create(client, options.key_namespace));
  cache::RedisStoreOptions error_options;
  error_options.keys = std::move(keys);
  error_options.ttl_ms = options.error_ttl_ms;
  error_options.max_value_bytes = kMaxSharedErrorBytes;
  error_options.key_namespace = options.key_namespace + "error:";
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<cache::RedisStore> errors,
                           cache::RedisStore::Open(std::move(error_options), std::move(client)));
  return std::unique_ptr<RedisClusterFlights>(
      new RedisClusterFlights(std::move(leases), std::move(errors), std::move(options)));
}

RedisClusterFlights::RedisClusterFlights(std::unique_ptr<cache::RedisLease> leases,
                                         std::unique_ptr<cache::RedisStore> errors,
                                         RedisClusterOptions options)
    : leases_(std::move(leases)), errors_(std::move(errors)), options_(std::move(options)) {
  heartbeat_ = std::thread([this] { Heartbeat(); });
}

RedisClusterFlights::~RedisClusterFlights() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  heartbeat_.join();
}

Result<std::unique_ptr<ClusterLease>> RedisClusterFlights::TryLead(const std::string& key) {
  auto held = std::make_shared<Held>();
  held->key = key;
  held->owner = options_.node_id + ":" + std::to_string(next_owner_.fetch_add(1));
  TILEJIT_ASSIGN_OR_RETURN(bool acquired, leases_->TryAcquire(key, held->owner, options_.lease_ms));
  if (!acquired) return std::unique_ptr<ClusterLease>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_.insert(held);
  }
  return std::unique_ptr<ClusterLease>(new Lease(this, std::move(held)));
}

void RedisClusterFlights::Drop(const std::shared_ptr<Held>& held) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_.erase(held);
  }
  if (held->lost.load()) return;
  // Compare-and-delete: a lapsed lease that another node holds now stays theirs.
  Result<bool> released = leases_->Release(held->key, held->owner);
  if (!released.ok()) {
    spdlog::warn("cluster lease for key={} not released ({}); it lapses in {} ms",
                 held->key.substr(0, 16), released.status().message(), options_.lease_ms);
  }
}

void RedisClusterFlights::ShareError(const std::string& key, const SharedError& error) {
  cache::Entry entry;
  entry.key = key;
  entry.binary = EncodeSharedError(error);
  if (Status put = errors_->Put(entry); !put.ok()) {
    spdlog::warn("compile error of key={} not shared: {}", key.substr(0, 16), put.message());
  }
}

std::optional<SharedError> RedisClusterFlights::FindError(const std::string& key) {
  Result<cache::Entry> entry = errors_->Get(key);
  if (!entry.ok()) return std::nullopt;
  std::optional<SharedError> error = DecodeSharedError(entry->binary);
  if (!error) spdlog::warn("shared compile error of key={} is unreadable", key.substr(0, 16));
  return error;
}

std::string RedisClusterFlights::Holder(const std::string& key) {
  Result<std::optional<std::string>> holder = leases_->Holder(key);
  if (!holder.ok() || !holder->has_value()) return "another node";
  return **holder;
}

size_t RedisClusterFlights::held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_.size();
}

void RedisClusterFlights::Heartbeat() {
  const auto period = std::chrono::milliseconds(std::max<int64_t>(10, options_.lease_ms / 3));
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    const std::vector<std::shared_ptr<Held>> held(held_.begin(), held_.end());
    lock.unlock();
    for (const std::shared_ptr<Held>& h : held) {
      Result<bool> extended = leases_->Extend(h->key, h->owner, options_.lease_ms);
      // Unavailable: try again next period; the lease lapses if Redis stays away that long.
      if (extended.ok() && !*extended && !h->lost.exchange(true)) {
        ++leases_lost_;
        spdlog::warn(
            "cluster lease for key={} was lost while compiling; another node may "
            "compile it too",
            h->key.substr(0, 16));
      }
    }
    lock.lock();
  }
}

void RegisterRedisMetrics(MetricsRegistry* registry, const cache::RedisStore* store) {
  struct Row {
    const char* name;
    const char* help;
    const char* type;
    uint64_t (*read)(const cache::RedisStoreStats&);
  };
  static constexpr Row kRows[] = {
      {"tilejit_redis_misses_total", "Redis tier reads that found no valid entry", "counter",
       [](const cache::RedisStoreStats& s) { return s.misses; }},
      {"tilejit_redis_puts_total", "Entries written to the Redis tier", "counter",
       [](const cache::RedisStoreStats& s) { return s.puts; }},
      {"tilejit_redis_signature_failures_total",
       "Redis values refused: unsigned, bad MAC, unknown key or another key's entry", "counter",
       [](const cache::RedisStoreStats& s) { return s.signature_failures; }},
      {"tilejit_redis_malformed_total", "Redis values refused as malformed", "counter",
       [](const cache::RedisStoreStats& s) { return s.malformed; }},
      {"tilejit_redis_errors_total", "Redis calls that failed (network, timeout, garbage)",
       "counter", [](const cache::RedisStoreStats& s) { return s.client.errors; }},
      {"tilejit_redis_timeouts_total", "Redis calls that timed out", "counter",
       [](const cache::RedisStoreStats& s) { return s.client.timeouts; }},
      {"tilejit_redis_breaker_opens_total", "Times the Redis circuit breaker opened", "counter",
       [](const cache::RedisStoreStats& s) { return s.client.breaker.opens; }},
      {"tilejit_redis_breaker_rejected_total", "Redis calls failed fast by the open breaker",
       "counter", [](const cache::RedisStoreStats& s) { return s.client.breaker.rejected; }},
      {"tilejit_redis_breaker_open", "1 while the Redis circuit breaker is open or half-open",
       "gauge",
       [](const cache::RedisStoreStats& s) {
         return uint64_t{s.client.breaker.state != cache::BreakerState::kClosed};
       }},
      {"tilejit_redis_connections", "Open connections to Redis", "gauge",
       [](const cache::RedisStoreStats& s) { return s.client.open_connections; }},
  };
  for (const Row& row : kRows) {
    registry->AddCallback(row.name, row.help, row.type, [store, read = row.read] {
      return static_cast<double>(read(store->Stats()));
    });
  }
}

}  // namespace tilejit::server
