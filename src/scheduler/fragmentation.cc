#include "scheduler/fragmentation.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace draplane::scheduler {

bool operator<(const PodShape& a, const PodShape& b) {
  return std::tie(a.cpu_milli, a.gpu_milli, a.gpu_count, a.models) <
         std::tie(b.cpu_milli, b.gpu_milli, b.gpu_count, b.models);
}

TargetWorkload TypicalWorkload(const std::vector<PodShape>& pods,
                               double coverage_pct, double gpu_weight) {
  std::map<PodShape, double> counts;
  double total = 0;
  for (const PodShape& p : pods) {
    double w = 1;
    if (gpu_weight > 0 && p.gpu_milli == 1000) w += p.gpu_count * gpu_weight;
    counts[p] += w;
    total += w;
  }
  std::vector<std::pair<PodShape, double>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) {
                     if (a.second != b.second) return a.second > b.second;
                     return b.first < a.first;
                   });
  const double expected = coverage_pct * total / 100;
  double kept_count = 0;
  size_t kept = 0;
  while (kept < sorted.size() && kept_count < expected) {
    kept_count += sorted[kept].second;
    ++kept;
  }
  TargetWorkload out;
  for (size_t i = 0; i < kept; ++i) {
    out.push_back(
        WeightedShape{sorted[i].first, sorted[i].second / kept_count});
  }
  return out;
}

bool ModelAllowed(const PodShape& shape, std::string_view model) {
  if (shape.models.empty()) return true;
  if (model.empty()) return false;
  return std::find(shape.models.begin(), shape.models.end(), model) !=
         shape.models.end();
}

double FragmentationAmount(const NodeGpuState& node,
                           const TargetWorkload& workload) {
  return FragmentationAmount(node.model, node.cpu_left_milli,
                             node.gpu_left_milli.data(),
                             node.gpu_left_milli.size(), workload);
}

double FragmentationAmount(std::string_view model, int64_t cpu_left_milli,
                           const int64_t* gpu_left_milli, size_t gpus,
                           const TargetWorkload& workload) {
  int64_t idle = 0;
  for (size_t i = 0; i < gpus; ++i) idle += gpu_left_milli[i];
  if (idle == 0) return 0;
  double frag = 0;
  for (const WeightedShape& w : workload) {
    const PodShape& s = w.shape;
    bool runs = s.gpu_milli > 0 && cpu_left_milli >= s.cpu_milli &&
                ModelAllowed(s, model);
    int64_t too_small = 0;
    if (runs) {
      int fitting = 0;
      for (size_t i = 0; i < gpus; ++i) {
        if (gpu_left_milli[i] >= s.gpu_milli) {
          ++fitting;
        } else {
          too_small += gpu_left_milli[i];
        }
      }
      runs = fitting >= s.gpu_count;
    }
    frag += w.popularity * static_cast<double>(runs ? too_small : idle);
  }
  return frag;
}

std::vector<int64_t> UnfillableShare(const TargetWorkload& workload,
                                     double min_ratio) {
  std::map<int64_t, double> share_of_size;
  for (const WeightedShape& w : workload) {
    if (w.shape.gpu_count == 1 && w.shape.gpu_milli > 0 &&
        w.shape.gpu_milli < 1000) {
      share_of_size[w.shape.gpu_milli] += w.popularity;
    }
  }
  double most = 0;
  for (const auto& [size, share] : share_of_size) most = std::max(most, share);
  std::vector<int64_t> sizes;
  for (const auto& [size, share] : share_of_size) {
    if (share >= min_ratio * most) sizes.push_back(size);
  }
  // reachable[g]: g is a sum of the sizes.
  std::vector<char> reachable(1001, 0);
  reachable[0] = 1;
  for (size_t g = 1; g < reachable.size(); ++g) {
    for (int64_t size : sizes) {
      if (static_cast<size_t>(size) <= g && reachable[g - size]) {
        reachable[g] = 1;
        break;
      }
    }
  }
  std::vector<int64_t> left(reachable.size(), 0);
  int64_t filled = 0;
  for (size_t g = 0; g < reachable.size(); ++g) {
    if (reachable[g]) filled = static_cast<int64_t>(g);
    left[g] = static_cast<int64_t>(g) - filled;
  }
  return left;
}

}  // namespace draplane::scheduler
