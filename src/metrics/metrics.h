// The process's Prometheus metrics (prometheus-cpp): one Registry that the
// components register their counters and histograms into, plus collectors
// that compute their samples when scraped (cluster gauges read from
// informers). Text() renders everything in the Prometheus text format
// 0.0.4, which /metrics serves. Thread-safe.
#ifndef DRAPLANE_METRICS_METRICS_H_
#define DRAPLANE_METRICS_METRICS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"

namespace draplane::metrics {

inline constexpr std::string_view kTextContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// Samples computed at scrape time.
using CollectFn = std::function<std::vector<prometheus::MetricFamily>()>;

class Registry {
 public:
  Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // For prometheus::BuildCounter()...Register(registry.prometheus()).
  prometheus::Registry& prometheus() { return *registry_; }

  // Adds a scrape-time collector; it runs until the returned handle is
  // destroyed (destroy it before what `fn` reads goes away).
  class Collector;
  [[nodiscard]] std::unique_ptr<Collector> AddCollector(CollectFn fn);

  // Every family, sorted by name, in the text format.
  std::string Text() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  mutable absl::Mutex mu_;
  std::map<int, CollectFn> collectors_ ABSL_GUARDED_BY(mu_);
  int next_id_ ABSL_GUARDED_BY(mu_) = 0;
};

class Registry::Collector {
 public:
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

 private:
  friend class Registry;
  Collector(Registry* registry, int id) : registry_(registry), id_(id) {}
  Registry* registry_;
  int id_;
};

// A gauge family with one sample per entry of `values` (label values in
// the order of `label_names`; the samples' labels are written sorted by
// name).
prometheus::MetricFamily GaugeFamily(
    std::string name, std::string help,
    const std::vector<std::string>& label_names,
    const std::map<std::vector<std::string>, double>& values);

}  // namespace draplane::metrics

#endif  // DRAPLANE_METRICS_METRICS_H_
