// ResourceSlices grouped into pools the way the allocator reads them
// (upstream GatherPools): per driver and pool name, only the newest
// generation counts, and a pool is complete when it has as many slices of
// that generation as resourceSliceCount says. Older generations are
// stale slices a driver should have deleted.
#ifndef DRAPLANE_OPERATOR_TOOLS_POOL_VIEW_H_
#define DRAPLANE_OPERATOR_TOOLS_POOL_VIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "api/resource_types.h"
#include "operator_tools/cluster_snapshot.h"

namespace draplane::operator_tools {

class PoolView {
 public:
  struct DeviceRef {
    const api::Device* device = nullptr;
    std::string node;  // the node it is local to ("" for network devices)
  };
  struct Pool {
    std::string driver;
    std::string name;
    int64_t generation = 0;
    int64_t expected_slices = 0;  // resourceSliceCount of that generation
    std::vector<const api::ResourceSlice*> slices;  // newest generation
    std::vector<const api::ResourceSlice*> stale;   // older generations
    std::vector<DeviceRef> devices;  // of the newest generation's slices
    bool complete() const {
      return static_cast<int64_t>(slices.size()) == expected_slices;
    }
  };

  // `snapshot` outlives the view.
  explicit PoolView(const ClusterSnapshot& snapshot);
  // Sorted by driver, then pool name.
  const std::vector<Pool>& pools() const { return pools_; }

 private:
  std::vector<Pool> pools_;
};

// What a device is, for people: its productName attribute (any domain),
// with " MIG <profile>" for a MIG device, or "-".
std::string DeviceModelName(const api::Device& device);

}  // namespace draplane::operator_tools

#endif  // DRAPLANE_OPERATOR_TOOLS_POOL_VIEW_H_
