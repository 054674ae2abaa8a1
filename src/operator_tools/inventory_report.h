// `draplane inventory`: the guide's migration phase 1 as one report.
// What uses GPUs as extended resources (pods by namespace, nodes with
// their capacity), what DRA publishes (devices by driver and model), what
// each DeviceClass selects, and the claims by state.
//
// GPU extended resources are nvidia.com/gpu, nvidia.com/mig-*, and any
// other resource whose name contains "gpu" (other vendors, sharing
// plugins), summed over a pod's containers by limits (requests where a
// container sets no limit). Terminated pods (Succeeded, Failed) are listed
// but not counted in the namespace totals.
#ifndef DRAPLANE_OPERATOR_TOOLS_INVENTORY_REPORT_H_
#define DRAPLANE_OPERATOR_TOOLS_INVENTORY_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "api/meta_types.h"
#include "operator_tools/cluster_snapshot.h"

namespace draplane::operator_tools {

struct InventoryReport {
  struct ExtendedResourcePod {
    std::string namespace_;
    std::string name;
    std::string node;
    std::string phase;
    std::string resources;  // "nvidia.com/gpu=2", comma separated
    int64_t gpus = 0;       // sum of the counts
  };
  struct NamespaceUsage {
    std::string namespace_;
    int pods = 0;  // active pods with GPU extended resources
    int64_t gpus = 0;
  };
  struct GpuNode {
    std::string name;
    bool ready = false;
    std::string capacity;     // GPU extended resources, "nvidia.com/gpu=8"
    std::string allocatable;  // same
    int dra_devices = 0;      // in slices published for the node
    std::string drivers;      // comma separated
  };
  struct DeviceModel {
    std::string driver;
    std::string model;  // productName (plus " MIG <profile>"), or "-"
    int devices = 0;
    int allocated = 0;
    int nodes = 0;
  };
  struct ClassUsage {
    std::string name;
    int64_t selected = 0;
    int64_t allocated = 0;
    int64_t available = 0;
    std::string error;  // selectors that do not compile
  };
  struct ClaimStates {
    std::string namespace_;
    int total = 0;
    int pending = 0;    // no allocation
    int allocated = 0;  // allocated, not reserved
    int in_use = 0;     // allocated and reserved for a consumer
    int deleting = 0;
  };

  bool dra_served = true;
  std::vector<ExtendedResourcePod> extended_pods;
  std::vector<NamespaceUsage> namespaces;
  std::vector<GpuNode> nodes;
  std::vector<DeviceModel> devices;
  std::vector<ClassUsage> classes;
  std::vector<ClaimStates> claims;
};

InventoryReport BuildInventory(const ClusterSnapshot& snapshot);

// The default output: one table per section with a heading line.
std::string InventoryTable(const InventoryReport& report);
// {"draServed", "extendedResourcePods", "namespaces", "nodes", "devices",
//  "deviceClasses", "claims"}.
api::Json InventoryJson(const InventoryReport& report);

// Whether an extended resource name counts as a GPU (see above).
bool IsGpuExtendedResource(const std::string& name);

}  // namespace draplane::operator_tools

#endif  // DRAPLANE_OPERATOR_TOOLS_INVENTORY_REPORT_H_
