#include "metrics/metrics.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "prometheus/client_metric.h"
#include "prometheus/text_serializer.h"

namespace draplane::metrics {

Registry::Registry() : registry_(std::make_shared<prometheus::Registry>()) {}

std::unique_ptr<Registry::Collector> Registry::AddCollector(CollectFn fn) {
  absl::MutexLock lock(&mu_);
  int id = next_id_++;
  collectors_.emplace(id, std::move(fn));
  return std::unique_ptr<Collector>(new Collector(this, id));
}

Registry::Collector::~Collector() {
  absl::MutexLock lock(&registry_->mu_);
  registry_->collectors_.erase(id_);
}

std::string Registry::Text() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  {
    // Held while collecting so that a collector is never destroyed while
    // it runs.
    absl::MutexLock lock(&mu_);
    for (const auto& [id, fn] : collectors_) {
      std::vector<prometheus::MetricFamily> more = fn();
      for (auto& f : more) families.push_back(std::move(f));
    }
  }
  std::stable_sort(
      families.begin(), families.end(),
      [](const auto& a, const auto& b) { return a.name < b.name; });
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

prometheus::MetricFamily GaugeFamily(
    std::string name, std::string help,
    const std::vector<std::string>& label_names,
    const std::map<std::vector<std::string>, double>& values) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = prometheus::MetricType::Gauge;
  for (const auto& [labels, value] : values) {
    prometheus::ClientMetric m;
    for (size_t i = 0; i < label_names.size() && i < labels.size(); ++i) {
      m.label.push_back({label_names[i], labels[i]});
    }
    // Sorted by name, as the Go client writes them.
    std::sort(m.label.begin(), m.label.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    m.gauge.value = value;
    family.metric.push_back(std::move(m));
  }
  return family;
}

}  // namespace draplane::metrics
