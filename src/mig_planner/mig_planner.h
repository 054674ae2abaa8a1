// MIG capacity planning (the guide's capacity-planning section):
// given GPUs (A100 40/80GB, H100, H200, ... any MIG-capable model of
// devices/gpu_models.h) and a demand of MIG instances per profile
// (optionally per namespace), choose a MIG layout per GPU that NVIDIA's
// placement rules allow (each profile only at the memory-slice starts
// NVML lists for it, no two instances sharing a memory slice, at most the
// profile's instance count, at most the GPU's compute slices) so that the
// most demand is satisfied, then the fewest GPUs are used.
//
// "Most demand" counts compute slices (a 3g instance weighs three 1g
// ones), so large profiles are not starved by many small ones. The
// planner is greedy over GPUs (each GPU gets the legal layout that covers
// most of the remaining demand, fewest slices on ties) over every legal
// layout of each model; a first-fit baseline (each instance, in demand
// order, at the first legal placement of the first GPU with room, as a
// person partitioning GPUs one request at a time would) is computed for
// comparison.
#ifndef DRAPLANE_MIG_PLANNER_MIG_PLANNER_H_
#define DRAPLANE_MIG_PLANNER_MIG_PLANNER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "devices/gpu_facts.h"
#include "devices/gpu_models.h"

namespace draplane::mig_planner {

struct GpuGroup {
  std::string node;  // node name ("node-<i>" when not given)
  const devices::GpuModel* model = nullptr;
  int count = 0;
};

struct DemandItem {
  std::string namespace_;  // "" = any
  std::string profile;     // e.g. "1g.10gb"
  int count = 0;
};

struct PlanInput {
  std::vector<GpuGroup> gpus;
  std::vector<DemandItem> demand;
};

// Parses the two YAML documents:
//   inventory:  gpus: [{model: H100, count: 8, node: gpu-node-1}, ...]
//   demand:     demand: [{profile: 1g.10gb, count: 12, namespace: ml}, ...]
// Errors name the file and the field path (`demand[2].count: ...`):
// unknown keys, models that are unknown or not MIG-capable, profiles no
// GPU of the inventory offers, counts that are not positive integers.
absl::StatusOr<PlanInput> ParsePlanInput(std::string_view inventory_yaml,
                                         std::string_view inventory_name,
                                         std::string_view demand_yaml,
                                         std::string_view demand_name);

struct PlannedInstance {
  std::string profile;
  uint32_t gi_profile_id = 0;
  uint32_t compute_slices = 0;
  devices::MigPlacement placement;
  int demand_item = -1;  // index into PlanInput::demand
};

struct PlannedGpu {
  std::string node;
  int index = 0;  // GPU index on its node
  const devices::GpuModel* model = nullptr;
  std::vector<PlannedInstance> instances;  // by placement start
};

struct Plan {
  std::string method;  // "draplane" or "first-fit"
  std::vector<PlannedGpu> gpus;
  std::vector<int> satisfied;  // per demand item
  int instances_satisfied = 0;
  int64_t slices_satisfied = 0;
  int gpus_used = 0;
};

struct PlanSummary {
  int instances_wanted = 0;
  int64_t slices_wanted = 0;
  // No plan can satisfy more slices than this (the demand, or the GPUs'
  // compute slices where fewer).
  int64_t slices_upper_bound = 0;
};

Plan PlanOptimized(const PlanInput& input);
Plan PlanFirstFit(const PlanInput& input);
PlanSummary Summarize(const PlanInput& input);

// The ResourceSlices NVIDIA's DRA driver (draplane's node driver with
// static MIG) would publish on each node once the layout is created: one
// mig device per planned instance, whole GPUs for GPUs without any.
std::vector<api::Json> PublishedSlices(const Plan& plan);

// Text report comparing both plans; JSON of both.
std::string PlanReport(const PlanInput& input, const Plan& best,
                       const Plan& baseline);
api::Json PlanJson(const PlanInput& input, const Plan& best,
                   const Plan& baseline);

}  // namespace draplane::mig_planner

#endif  // DRAPLANE_MIG_PLANNER_MIG_PLANNER_H_
