#include "metrics/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace draplane::metrics {
namespace {

prometheus::MetricFamily Single(std::string name, std::string help,
                                prometheus::MetricType type, double value) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(std::move(metric));
  return family;
}

int OpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int n = 0;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory's own descriptor
}

}  // namespace

std::vector<prometheus::MetricFamily> CollectProcessMetrics(
    const std::string& version, const std::string& kubernetes_version) {
  std::vector<prometheus::MetricFamily> out;
  // /proc/self/stat: fields after the command name (which may hold spaces
  // and ends at the last ')'): state is field 3, utime 14, stime 15,
  // starttime 22, vsize 23, rss 24 (pages).
  std::ifstream stat_file("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)),
                   std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  const long ticks = sysconf(_SC_CLK_TCK);
  const long page = sysconf(_SC_PAGESIZE);
  if (paren != std::string::npos && ticks > 0) {
    std::istringstream fields(stat.substr(paren + 2));
    std::vector<std::string> f;
    for (std::string s; fields >> s;) f.push_back(s);
    // f[0] is field 3.
    if (f.size() >= 22) {
      const double utime = std::stod(f[11]);
      const double stime = std::stod(f[12]);
      const double starttime = std::stod(f[19]);
      const double vsize = std::stod(f[20]);
      const double rss = std::stod(f[21]);
      out.push_back(Single("process_cpu_seconds_total",
                           "Total user and system CPU time spent in seconds.",
                           prometheus::MetricType::Counter,
                           (utime + stime) / static_cast<double>(ticks)));
      out.push_back(Single(
          "process_resident_memory_bytes", "Resident memory size in bytes.",
          prometheus::MetricType::Gauge, rss * static_cast<double>(page)));
      out.push_back(Single("process_virtual_memory_bytes",
                           "Virtual memory size in bytes.",
                           prometheus::MetricType::Gauge, vsize));
      // Boot time from /proc/stat's btime.
      std::ifstream proc_stat("/proc/stat");
      for (std::string line; std::getline(proc_stat, line);) {
        if (line.rfind("btime ", 0) == 0) {
          const double btime = std::stod(line.substr(6));
          out.push_back(
              Single("process_start_time_seconds",
                     "Start time of the process since unix epoch in seconds.",
                     prometheus::MetricType::Gauge,
                     btime + starttime / static_cast<double>(ticks)));
          break;
        }
      }
    }
  }
  if (const int fds = OpenFds(); fds >= 0) {
    out.push_back(Single("process_open_fds", "Number of open file descriptors.",
                         prometheus::MetricType::Gauge, fds));
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    out.push_back(Single(
        "process_max_fds", "Maximum number of open file descriptors.",
        prometheus::MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
  }
  out.push_back(GaugeFamily(
      "draplane_build_info",
      "A metric with a constant '1' value labeled by the draplane version, "
      "the Kubernetes version it serves and implements, and the compiler "
      "that built it.",
      {"version", "kubernetes_version", "compiler"},
      {{{version, kubernetes_version,
#if defined(__clang__)
         "clang " __clang_version__
#elif defined(__GNUC__)
         "gcc " __VERSION__
#else
         "unknown"
#endif
        },
        1}}));
  return out;
}

std::unique_ptr<Registry::Collector> AddProcessMetrics(
    Registry& registry, const std::string& version,
    const std::string& kubernetes_version) {
  return registry.AddCollector([version, kubernetes_version] {
    return CollectProcessMetrics(version, kubernetes_version);
  });
}

}  // namespace draplane::metrics
