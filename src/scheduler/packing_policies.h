// GPU-sharing scoring policies (see scoring_policy.h for the contract).
//
// The six policies of "Beware of Fragmentation" (Weng et al., USENIX ATC
// 2023) as the authors' simulator (hkust-adsl/kubernetes-scheduler-
// simulator, pkg/simulator/plugin) computes them, with that simulator's
// GPU choice inside a node and its integer truncations (they decide ties,
// and ties are broken at random like kube-scheduler's selectHost):
//   random          a uniformly random feasible node, a random GPU.
//   dotprod         lowest dot product of the node's free (cpu, GPU) and
//                   the pod's demand, each over 128 cores / 8 GPUs;
//                   best-fit GPU.
//   gpu-clustering  prefer nodes running only pods of the pod's class
//                   (GPU-sharing, or k whole GPUs), then busier nodes.
//   gpu-packing     prefer partly used GPUs, then partly used nodes,
//                   then idle nodes.
//   bestfit         least cpu + GPU left after placement (equal weights).
//   fgd             fragmentation gradient descent: the placement (node
//                   and GPU) that increases the node's fragmentation for
//                   the target workload least (scheduler/fragmentation.h).
//   draplane        draplane's own (docs/scheduling-policies.md).
//
// Beyond the paper's setting: the pod's GPU demand is read from the DRA
// allocation each placement would get (devices and consumed capacity),
// the node's from the devices published for it, so the policies work on
// any driver whose devices are whole GPUs or shares of one.
#ifndef DRAPLANE_SCHEDULER_PACKING_POLICIES_H_
#define DRAPLANE_SCHEDULER_PACKING_POLICIES_H_

#include <memory>
#include <string_view>

#include "scheduler/scoring_policy.h"

namespace draplane::scheduler {

// The policy `name` when it is one of the GPU-sharing policies, else
// nullptr.
std::unique_ptr<ScoringPolicy> NewPackingPolicy(std::string_view name,
                                                const PolicyOptions& options);

// The GPU model of a node's devices: the first device's productName
// attribute (plain or qualified by its driver), "" when none.
std::string_view NodeGpuModel(
    const std::vector<ClusterState::DeviceUse>& devices);

}  // namespace draplane::scheduler

#endif  // DRAPLANE_SCHEDULER_PACKING_POLICIES_H_
