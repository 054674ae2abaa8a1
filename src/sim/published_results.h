// The FGD authors' published result curves
// (experiments/analysis/expected_results/analysis_allo_discrete.csv of
// hkust-adsl/kubernetes-scheduler-simulator): GPU allocation % at every
// arrived-demand percentage 0..130, per workload, policy and seed.
#ifndef DRAPLANE_SIM_PUBLISHED_RESULTS_H_
#define DRAPLANE_SIM_PUBLISHED_RESULTS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/fgd_simulator.h"

namespace draplane::sim {

// The file's sc_policy for a draplane policy name ("fgd" -> "06-FGD"),
// "" for policies the paper does not have.
std::string PaperPolicyName(std::string_view policy);

// The workload name of a pod list path: its file name without ".csv"
// ("…/openb_pod_list_default.csv" -> "openb_pod_list_default").
std::string WorkloadName(std::string_view pods_path);

struct PublishedRun {
  std::string workload;
  std::string policy;  // the file's sc_policy
  double tune = 0;
  int seed = 0;
  Curve allocated_pct;
};

// Parses analysis_allo_discrete.csv (or the fragmentation files, same
// layout). Errors name file:line.
absl::StatusOr<std::vector<PublishedRun>> LoadPublishedRuns(
    const std::string& path);

// Unallocated % = 100 - allocation, mean and sample SD over the runs of
// `workload` and `paper_policy` at tune 1.3; empty when none.
struct PublishedCurve {
  int runs = 0;
  Curve unallocated_mean;
  Curve unallocated_sd;
};
PublishedCurve Published(const std::vector<PublishedRun>& runs,
                         std::string_view workload,
                         std::string_view paper_policy);

}  // namespace draplane::sim

#endif  // DRAPLANE_SIM_PUBLISHED_RESULTS_H_
