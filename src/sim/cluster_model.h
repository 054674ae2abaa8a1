// The trace as DRA objects, the way draplane's scheduler sees a GPU
// cluster: every GPU node is a Node (cpu and memory allocatable, a label
// with its GPU model) with one ResourceSlice of driver gpu.nvidia.com
// whose devices gpu-0.. carry productName = the trace's model and a
// consumable capacity `share` of 1 GPU with allowMultipleAllocations
// (KEP-5075), so GPU-sharing pods take a fraction of one device and
// whole-GPU pods the whole of it. Every GPU pod gets one ResourceClaim:
// one request of class gpu.nvidia.com for num_gpu devices, asking for
// share = gpu_milli/1000 when it shares a GPU, with a CEL selector on
// productName when the pod names GPU models. CPU-only pods have no claim.
//
// Objects are decoded and validated by the API's own codec, so they are
// exactly what draplane's API server would store.
#ifndef DRAPLANE_SIM_CLUSTER_MODEL_H_
#define DRAPLANE_SIM_CLUSTER_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "sim/trace.h"

namespace draplane::sim {

using ObjectPtr = std::shared_ptr<const api::Object>;

inline constexpr char kGpuDriver[] = "gpu.nvidia.com";
inline constexpr char kGpuClass[] = "gpu.nvidia.com";
inline constexpr char kShareCapacity[] = "share";
inline constexpr char kModelLabel[] = "draplane.dev/gpu-model";
inline constexpr char kSimNamespace[] = "sim";

struct ClusterModel {
  std::vector<ObjectPtr> nodes;
  std::vector<ObjectPtr> slices;  // one per GPU node
  ObjectPtr device_class;
  int64_t gpus = 0;  // GPUs in the cluster
};

// Nodes, slices and the class for `nodes`. Errors name the node.
absl::StatusOr<ClusterModel> BuildCluster(const std::vector<TraceNode>& nodes);

// The same cluster with node i (in `model.nodes` order) renamed
// `new_names[i]` (its slice and pool follow). The paper's simulator
// renames nodes "<position>-<name>" to give them a random order per seed.
ClusterModel RenameNodes(const ClusterModel& model,
                         const std::vector<std::string>& new_names);

// A pod and its claim (nullptr for CPU-only pods), named `name` in
// namespace sim; the pod refers to the claim `<name>-gpu` by name.
struct PodObjects {
  api::Pod pod;
  std::shared_ptr<const api::Object> claim;
};
// Builds the objects of `pod` named `name` (not the trace's name: a
// resampled pod appears several times).
absl::StatusOr<PodObjects> BuildPod(const TracePod& pod,
                                    const std::string& name);

// Reuses decoded objects per distinct pod shape: BuildPod decodes JSON
// (slow); Instantiate copies the shape's decoded objects and renames them.
// Instantiate is thread-safe (it only reads the templates).
class PodFactory {
 public:
  // Decodes one template per distinct shape of `pods`.
  static absl::StatusOr<PodFactory> Create(const std::vector<TracePod>& pods);
  PodObjects Instantiate(size_t index, const std::string& name) const;

 private:
  PodFactory() = default;
  std::vector<std::shared_ptr<const PodObjects>> templates_;  // per pod
};

}  // namespace draplane::sim

#endif  // DRAPLANE_SIM_CLUSTER_MODEL_H_
