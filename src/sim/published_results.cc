#include "sim/published_results.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/numbers.h"
#include "common/str_cat.h"

namespace draplane::sim {

std::string PaperPolicyName(std::string_view policy) {
  static const std::map<std::string, std::string, std::less<>> kNames = {
      {"random", "01-Random"},
      {"dotprod", "02-DotProd"},
      {"gpu-clustering", "03-GpuClustering"},
      {"gpu-packing", "04-GpuPacking"},
      {"bestfit", "05-BestFit"},
      {"fgd", "06-FGD"}};
  auto it = kNames.find(policy);
  return it == kNames.end() ? "" : it->second;
}

std::string WorkloadName(std::string_view pods_path) {
  size_t slash = pods_path.find_last_of('/');
  std::string_view base =
      slash == std::string_view::npos ? pods_path : pods_path.substr(slash + 1);
  if (base.size() > 4 && base.substr(base.size() - 4) == ".csv") {
    base.remove_suffix(4);
  }
  return std::string(base);
}

absl::StatusOr<std::vector<PublishedRun>> LoadPublishedRuns(
    const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(StrCat(path, ": cannot open"));
  std::string line;
  std::vector<std::string> header;
  std::vector<PublishedRun> runs;
  int line_no = 0;
  auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::stringstream ss(l);
    std::string f;
    while (std::getline(ss, f, ',')) out.push_back(f);
    if (!l.empty() && l.back() == ',') out.emplace_back();
    return out;
  };
  std::map<std::string, size_t> col;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> f = split(line);
    if (header.empty()) {
      header = f;
      for (size_t i = 0; i < f.size(); ++i) col[f[i]] = i;
      for (const char* need : {"workload", "sc_policy", "tune", "seed", "0"}) {
        if (col.count(need) == 0) {
          return absl::InvalidArgumentError(
              StrCat(path, ":1: missing column \"", need, "\""));
        }
      }
      continue;
    }
    if (f.size() > header.size()) {
      return absl::InvalidArgumentError(
          StrCat(path, ":", line_no, ": more fields than the header"));
    }
    f.resize(header.size());
    PublishedRun run;
    run.workload = f[col["workload"]];
    run.policy = f[col["sc_policy"]];
    if (!absl::SimpleAtod(f[col["tune"]], &run.tune) ||
        !absl::SimpleAtoi(f[col["seed"]], &run.seed)) {
      return absl::InvalidArgumentError(
          StrCat(path, ":", line_no, ": bad tune or seed"));
    }
    run.allocated_pct.fill(std::numeric_limits<double>::quiet_NaN());
    for (int p = 0; p <= kMaxArrivedPct; ++p) {
      auto it = col.find(std::to_string(p));
      if (it == col.end() || f[it->second].empty()) continue;
      double v = 0;
      if (!absl::SimpleAtod(f[it->second], &v)) {
        return absl::InvalidArgumentError(
            StrCat(path, ":", line_no, ": column ", p, ": \"", f[it->second],
                   "\" is not a number"));
      }
      run.allocated_pct[p] = v;
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

PublishedCurve Published(const std::vector<PublishedRun>& runs,
                         std::string_view workload,
                         std::string_view paper_policy) {
  PublishedCurve out;
  out.unallocated_mean.fill(std::numeric_limits<double>::quiet_NaN());
  out.unallocated_sd.fill(std::numeric_limits<double>::quiet_NaN());
  std::vector<const PublishedRun*> chosen;
  for (const PublishedRun& r : runs) {
    if (r.workload == workload && r.policy == paper_policy &&
        std::abs(r.tune - 1.3) < 1e-9) {
      chosen.push_back(&r);
    }
  }
  out.runs = static_cast<int>(chosen.size());
  for (int p = 0; p <= kMaxArrivedPct; ++p) {
    double s = 0;
    int n = 0;
    for (const PublishedRun* r : chosen) {
      if (std::isnan(r->allocated_pct[p])) continue;
      s += 100 - r->allocated_pct[p];
      ++n;
    }
    if (n == 0) continue;
    const double mean = s / n;
    out.unallocated_mean[p] = mean;
    if (n > 1) {
      double v = 0;
      for (const PublishedRun* r : chosen) {
        if (std::isnan(r->allocated_pct[p])) continue;
        const double d = 100 - r->allocated_pct[p] - mean;
        v += d * d;
      }
      out.unallocated_sd[p] = std::sqrt(v / (n - 1));
    }
  }
  return out;
}

}  // namespace draplane::sim
