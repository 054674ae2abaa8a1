// The process and build metrics every draplane component exposes, as
// Prometheus' process collector (client_golang's, which Kubernetes
// components register) names them:
//   process_cpu_seconds_total, process_resident_memory_bytes,
//   process_virtual_memory_bytes, process_start_time_seconds,
//   process_open_fds, process_max_fds (read from /proc/self at scrape time),
// and draplane_build_info{version, kubernetes_version, compiler} 1.
#ifndef DRAPLANE_METRICS_PROCESS_METRICS_H_
#define DRAPLANE_METRICS_PROCESS_METRICS_H_

#include <memory>
#include <string>
#include <vector>

#include "metrics/metrics.h"

namespace draplane::metrics {

// Registers both; they are collected until the handle is destroyed.
[[nodiscard]] std::unique_ptr<Registry::Collector> AddProcessMetrics(
    Registry& registry, const std::string& version,
    const std::string& kubernetes_version);

// The families AddProcessMetrics collects (for tests).
std::vector<prometheus::MetricFamily> CollectProcessMetrics(
    const std::string& version, const std::string& kubernetes_version);

}  // namespace draplane::metrics

#endif  // DRAPLANE_METRICS_PROCESS_METRICS_H_
