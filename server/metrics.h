// SPDX-License-Identifier: Apache-2.0
// A small Prometheus metrics registry: counter and histogram families with labels, plus
// callback metrics sampled at scrape time (queue depth, store counters), rendered in the
// Prometheus text exposition format (version 0.0.4).
//
//   MetricsRegistry registry;
//   CounterFamily* requests = registry.AddCounter("tilejit_requests_total", "...",
//                                                 {"method", "code"});
//   requests->With({"Compile", "OK"}).Inc();
//   std::string text = registry.Render();
//
// Families are owned by the registry and live as long as it. Children returned by With() are
// stable references. Everything is thread-safe; increments are lock-free once a child exists.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tilejit::server {

class Counter {
 public:
  void Inc(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);
  // Cumulative counts per bound, then +Inf; and the sum and count.
  std::vector<uint64_t> CumulativeCounts() const;
  double sum() const;
  uint64_t count() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1
  std::atomic<uint64_t> count_{0};
  mutable std::mutex sum_mu_;
  double sum_ = 0;
};

template <typename Child>
class Family {
 public:
  using Factory = std::function<std::unique_ptr<Child>()>;
  Family(std::string name, std::string help, std::vector<std::string> labels, Factory factory)
      : name_(std::move(name)),
        help_(std::move(help)),
        labels_(std::move(labels)),
        factory_(std::move(factory)) {}

  // The child for these label values (one per label name, in order).
  Child& With(const std::vector<std::string>& values) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = children_[values];
    if (!slot) slot = factory_();
    return *slot;
  }

  template <typename Fn>
  void ForEach(Fn fn) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [values, child] : children_) fn(values, *child);
  }

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& labels() const { return labels_; }

 private:
  std::string name_;
  std::string help_;
  std::vector<std::string> labels_;
  Factory factory_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Child>> children_;
};

using CounterFamily = Family<Counter>;
using HistogramFamily = Family<Histogram>;

class MetricsRegistry {
 public:
  CounterFamily* AddCounter(std::string name, std::string help, std::vector<std::string> labels);
  HistogramFamily* AddHistogram(std::string name, std::string help, std::vector<std::string> labels,
                                std::vector<double> bounds);
  // A value read at scrape time; `type` is "gauge" or "counter".
  void AddCallback(std::string name, std::string help, std::string type,
                   std::function<double()> read);

  std::string Render() const;

 private:
  struct CallbackMetric {
    std::string name, help, type;
    std::function<double()> read;
  };
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<CounterFamily>> counters_;
  std::vector<std::unique_ptr<HistogramFamily>> histograms_;
  std::vector<CallbackMetric> callbacks_;
};

// Latency buckets in seconds, 50 us to 60 s.
std::vector<double> LatencyBuckets();

}  // namespace tilejit::server
