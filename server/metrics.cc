// SPDX-License-Identifier: Apache-2.0
#include "server/metrics.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace tilejit::server {
namespace {

// Label values are escaped as the exposition format requires (backslash, quote, newline).
std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // The shortest text that reads back as the same double ("0.1", not "0.10000000000000001").
  char buf[64];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string Labels(const std::vector<std::string>& names, const std::vector<std::string>& values,
                   const std::string& extra = "") {
  std::string out;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (!out.empty()) out += ",";
    out += names[i] + "=\"" + Escape(values[i]) + "\"";
  }
  if (!extra.empty()) out += (out.empty() ? "" : ",") + extra;
  return out.empty() ? "" : "{" + out + "}";
}

void Header(std::ostringstream& os, const std::string& name, const std::string& help,
            const std::string& type) {
  os << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1)) {}

void Histogram::Observe(double value) {
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(sum_mu_);
  sum_ += value;
}

std::vector<uint64_t> Histogram::CumulativeCounts() const {
  std::vector<uint64_t> out(bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    out[i] = running;
  }
  return out;
}

double Histogram::sum() const {
  std::lock_guard<std::mutex> lock(sum_mu_);
  return sum_;
}

uint64_t Histogram::count() const { return count_.load(std::memory_order_relaxed); }

CounterFamily* MetricsRegistry::AddCounter(std::string name, std::string help,
                                           std::vector<std::string> labels) {
  std::lock_guard<std::mutex> lock(mu_);
  counters_.push_back(std::make_unique<CounterFamily>(std::move(name), std::move(help),
                                                      std::move(labels),
                                                      [] { return std::make_unique<Counter>(); }));
  return counters_.back().get();
}

HistogramFamily* MetricsRegistry::AddHistogram(std::string name, std::string help,
                                               std::vector<std::string> labels,
                                               std::vector<double> bounds) {
  std::lock_guard<std::mutex> lock(mu_);
  histograms_.push_back(
      std::make_unique<HistogramFamily>(std::move(name), std::move(help), std::move(labels),
                                        [bounds] { return std::make_unique<Histogram>(bounds); }));
  return histograms_.back().get();
}

void MetricsRegistry::AddCallback(std::string name, std::string help, std::string type,
                                  std::function<double()> read) {
  std::lock_guard<std::mutex> lock(mu_);
  callbacks_.push_back({std::move(name), std::move(help), std::move(type), std::move(read)});
}

std::string MetricsRegistry::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::ostringstream os;
  for (const auto& family : counters_) {
    Header(os, family->name(), family->help(), "counter");
    family->ForEach([&](const std::vector<std::string>& values, const Counter& c) {
      os << family->name() << Labels(family->labels(), values) << " " << c.value() << "\n";
    });
  }
  for (const auto& family : histograms_) {
    Header(os, family->name(), family->help(), "histogram");
    family->ForEach([&](const std::vector<std::string>& values, const Histogram& h) {
      const std::vector<uint64_t> counts = h.CumulativeCounts();
      for (size_t i = 0; i < counts.size(); ++i) {
        const double le = i < h.bounds().size() ? h.bounds()[i] : INFINITY;
        os << family->name() << "_bucket"
           << Labels(family->labels(), values, "le=\"" + Number(le) + "\"") << " " << counts[i]
           << "\n";
      }
      os << family->name() << "_sum" << Labels(family->labels(), values) << " " << Number(h.sum())
         << "\n";
      os << family->name() << "_count" << Labels(family->labels(), values) << " " << h.count()
         << "\n";
    });
  }
  for (const CallbackMetric& m : callbacks_) {
    Header(os, m.name, m.help, m.type);
    os << m.name << " " << Number(m.read()) << "\n";
  }
  return os.str();
}

std::vector<double> LatencyBuckets() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
          0.1,     0.25,   0.5,     1,      2.5,   5,      10,    30,   60};
}

}  // namespace tilejit::server
