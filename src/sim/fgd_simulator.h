// The FGD paper's experiment ("Beware of Fragmentation", USENIX ATC 2023,
// as hkust-adsl/kubernetes-scheduler-simulator runs it) with draplane's
// own scheduler: the trace's pods, sorted by name, are shuffled with the
// seed; pods drawn at random with replacement from the name-sorted list
// are appended until the next draw's per-GPU share would push the summed
// GPU demand past `target` x the cluster's GPUs (the simulator's
// tuneUpPods, quirk included), or random pods are dropped while it is
// above; then every pod arrives once, in that order, and is scheduled by
// SchedulingCycle (the real filters, DRA allocator and the chosen scoring
// policy) or fails; nothing leaves and nothing is retried.
//
// Metrics follow the authors' analysis scripts: after every pod, the
// allocated GPU share and the cluster's fragmentation; each arrival
// percentage 0..130 (summed GPU demand of the pods arrived so far,
// failed ones included, over the cluster's GPUs, rounded half to even)
// gets the mean of the values of the pods in it (or, when none, of the
// neighbouring percentages).
//
// Randomness: one std::mt19937_64 per seed drives the shuffle, the draws
// and the scheduler's tie-breaks, so a run is reproducible for a seed,
// but it is not Go's math/rand stream: the same seed gives a different
// (statistically equivalent) sample than the paper's runs.
#ifndef DRAPLANE_SIM_FGD_SIMULATOR_H_
#define DRAPLANE_SIM_FGD_SIMULATOR_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/fragmentation.h"
#include "sim/trace.h"

namespace draplane::sim {

inline constexpr int kMaxArrivedPct = 130;
using Curve = std::array<double, kMaxArrivedPct + 1>;  // NaN = no value

struct FgdOptions {
  std::string policy = "draplane";
  std::vector<uint64_t> seeds = {42, 43, 44, 45, 46, 47, 48, 49, 50, 51};
  double target = 1.3;       // the paper's tune ratio
  int jobs = 0;              // seeds run in parallel; 0 = hardware threads
  double coverage_pct = 95;  // the target workload's share of pods
  // Called after every 1 % of all pods of all seeds (from any thread,
  // serialised): pods done, pods in all.
  std::function<void(int64_t done, int64_t total)> progress;
};

// What one GPU node holds at the end of a run.
struct NodeOccupancy {
  std::string name;
  std::string model;
  std::vector<int64_t> gpu_used_milli;  // per GPU
  double cpu_used_fraction = 0;
};

struct SeedRun {
  uint64_t seed = 0;
  int64_t pods = 0;
  int64_t scheduled = 0;
  int64_t arrived_gpu_milli = 0;
  // Failed pods by type: "cpu" (no GPU), "share" (a fraction of one GPU),
  // "1-gpu", "multi-gpu".
  std::map<std::string, int64_t> failed;
  Curve allocated_pct;      // allocated GPU share, % of the cluster's
  Curve frag_pct_of_total;  // fragmented GPU share, % of the cluster's
  Curve frag_pct_of_idle;   // fragmented GPU share, % of the idle share
  std::vector<NodeOccupancy> nodes;  // at the end (GPU nodes)
  double seconds = 0;
};

struct FgdResult {
  std::string policy;
  double target = 0;
  int64_t gpus = 0;
  scheduler::TargetWorkload workload;  // the fragmentation measure's
  std::vector<SeedRun> runs;           // in seed order
  double wall_seconds = 0;
};

// The protocol's arrival order for `seed`: indices into `pods`.
std::vector<size_t> ArrivalOrder(const std::vector<TracePod>& pods,
                                 int64_t cluster_gpu_milli, double target,
                                 uint64_t seed);

// Runs the experiment. Errors: an unknown policy, a trace that does not
// map onto valid objects, a scheduler error (not a failed pod).
absl::StatusOr<FgdResult> RunFgd(const std::vector<TraceNode>& nodes,
                                 const std::vector<TracePod>& pods,
                                 const FgdOptions& options);

// Mean over seeds of one curve (NaN where no seed has a value), and the
// sample standard deviation.
Curve MeanCurve(const FgdResult& result, Curve SeedRun::*curve);
Curve SdCurve(const FgdResult& result, Curve SeedRun::*curve);

}  // namespace draplane::sim

#endif  // DRAPLANE_SIM_FGD_SIMULATOR_H_
