// GPU fragmentation as "Beware of Fragmentation" (Weng et al., USENIX ATC
// 2023, the FGD paper) measures it, in thousandths of a GPU. The target
// workload is the set of most common pod shapes (cpu, GPU count, per-GPU
// share, allowed models) with their popularity; a node's idle GPU share
// counts as fragmented for a shape when the shape cannot run there at all
// (no GPU share wanted, too little CPU, too few GPUs with enough free
// share, wrong model), else only the free share of GPUs too small for it.
// A node's fragmentation is the popularity-weighted sum over shapes
// (hkust-adsl/kubernetes-scheduler-simulator pkg/utils/frag.go,
// NodeGpuShareFragAmount / FragAmountSumExceptQ3).
#ifndef DRAPLANE_SCHEDULER_FRAGMENTATION_H_
#define DRAPLANE_SCHEDULER_FRAGMENTATION_H_

#include <cstdint>
#include <string>
#include <vector>

namespace draplane::scheduler {

// One pod shape. `gpu_milli` is per GPU (1..999 shares one GPU, 1000 is
// whole GPUs, 0 with gpu_count 0 is a CPU-only pod).
struct PodShape {
  int64_t cpu_milli = 0;
  int gpu_count = 0;
  int64_t gpu_milli = 0;
  std::vector<std::string> models;  // allowed GPU models, sorted; empty = any

  int64_t GpuMilli() const { return gpu_count * gpu_milli; }
  friend bool operator==(const PodShape&, const PodShape&) = default;
  // The simulator's PodResource.Less: cpu, share, count, models.
  friend bool operator<(const PodShape& a, const PodShape& b);
};

struct WeightedShape {
  PodShape shape;
  double popularity = 0;  // the shares of all shapes sum to 1
};
using TargetWorkload = std::vector<WeightedShape>;

// The FGD paper's target workload from a list of pods (one shape per
// pod): shapes by count (most common first; equal counts: larger shape
// first), cut at the smallest prefix covering `coverage_pct` % of the
// pods, popularity renormalised over the kept shapes.
// `gpu_weight` > 0 counts a pod with whole GPUs as 1 + GPUs x weight pods
// (the simulator's GpuResWeight; the paper uses 0).
TargetWorkload TypicalWorkload(const std::vector<PodShape>& pods,
                               double coverage_pct = 95, double gpu_weight = 0);

// What fragmentation depends on in a node.
struct NodeGpuState {
  std::string_view model;               // GPU model ("" on a node without GPUs)
  int64_t cpu_left_milli = 0;           // allocatable minus requested
  std::vector<int64_t> gpu_left_milli;  // free share per GPU, 0..1000
};

// Whether `shape` may run on GPUs of `model` (no models = any model; a
// node without GPU model accepts no GPU pod that names models).
bool ModelAllowed(const PodShape& shape, std::string_view model);

// The node's fragmented GPU share (thousandths of a GPU) for `workload`.
double FragmentationAmount(const NodeGpuState& node,
                           const TargetWorkload& workload);
// The same from its parts.
double FragmentationAmount(std::string_view model, int64_t cpu_left_milli,
                           const int64_t* gpu_left_milli, size_t gpus,
                           const TargetWorkload& workload);

// Beyond the paper: for each free share g = 0..1000 of one GPU, what is
// left of g once filled as closely as sums of the workload's sharing sizes
// allow (each size used any number of times). Only the sizes (gpu_count 1,
// 1..999 thousandths) that at least `min_ratio` times as many pods ask
// for as the most common sharing size count: the gaps the common sizes
// leave are too many for the rarer ones to count on. Sizes add up over
// shapes (a size asked with several cpu requests or models); the shapes'
// cpu and GPU models are not looked at.
std::vector<int64_t> UnfillableShare(const TargetWorkload& workload,
                                     double min_ratio);

}  // namespace draplane::scheduler

#endif  // DRAPLANE_SCHEDULER_FRAGMENTATION_H_
