#include "metrics/process_metrics.h"

#include <fcntl.h>
#include <unistd.h>

#include <ctime>
#include <map>
#include <string>

#include "gtest/gtest.h"

namespace draplane::metrics {
namespace {

std::map<std::string, prometheus::MetricFamily> ByName() {
  std::map<std::string, prometheus::MetricFamily> out;
  for (auto& f : CollectProcessMetrics("1.2.3", "v1.37.2+draplane.1.2.3")) {
    out[f.name] = f;
  }
  return out;
}

double Value(const prometheus::MetricFamily& f) {
  return f.type == prometheus::MetricType::Counter ? f.metric[0].counter.value
                                                   : f.metric[0].gauge.value;
}

TEST(ProcessMetricsTest, ThisProcessAsPrometheusProcessCollectorNamesIt) {
  auto before = ByName();
  for (const char* name :
       {"process_cpu_seconds_total", "process_resident_memory_bytes",
        "process_virtual_memory_bytes", "process_start_time_seconds",
        "process_open_fds", "process_max_fds", "draplane_build_info"}) {
    ASSERT_EQ(before.count(name), 1u) << name;
  }
  EXPECT_EQ(before["process_cpu_seconds_total"].type,
            prometheus::MetricType::Counter);
  EXPECT_GT(Value(before["process_resident_memory_bytes"]), 1 << 20);
  EXPECT_GE(Value(before["process_virtual_memory_bytes"]),
            Value(before["process_resident_memory_bytes"]));
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_LE(Value(before["process_start_time_seconds"]), now + 1);
  EXPECT_GT(Value(before["process_start_time_seconds"]), now - 24 * 3600);
  // Three more descriptors are three more open fds.
  const int fds[3] = {open("/dev/null", O_RDONLY), open("/dev/null", O_RDONLY),
                      open("/dev/null", O_RDONLY)};
  auto after = ByName();
  for (int fd : fds) close(fd);
  EXPECT_EQ(Value(after["process_open_fds"]),
            Value(before["process_open_fds"]) + 3);
  // CPU time only grows.
  volatile double spin = 0;
  for (int i = 0; i < 50'000'000; ++i) spin = spin + i;
  EXPECT_GT(Value(ByName()["process_cpu_seconds_total"]),
            Value(before["process_cpu_seconds_total"]));
  const auto& info = before["draplane_build_info"].metric[0];
  std::map<std::string, std::string> labels;
  for (const auto& l : info.label) labels[l.name] = l.value;
  EXPECT_EQ(labels["version"], "1.2.3");
  EXPECT_EQ(labels["kubernetes_version"], "v1.37.2+draplane.1.2.3");
  EXPECT_FALSE(labels["compiler"].empty());
}

}  // namespace
}  // namespace draplane::metrics
