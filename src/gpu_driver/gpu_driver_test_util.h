// Claims for the GPU driver's tests.
#ifndef DRAPLANE_GPU_DRIVER_GPU_DRIVER_TEST_UTIL_H_
#define DRAPLANE_GPU_DRIVER_GPU_DRIVER_TEST_UTIL_H_

#include <string>
#include <vector>

#include "api/resource_types.h"

namespace draplane::gpu_driver {

// A claim in namespace "ml" allocated `devices` (all of request "gpu",
// driver gpu.nvidia.com) on node1.
inline api::ResourceClaim TestClaim(const std::string& name,
                                    const std::string& uid,
                                    const std::vector<std::string>& devices) {
  api::ResourceClaim c;
  c.metadata.name = name;
  c.metadata.namespace_ = "ml";
  c.metadata.uid = uid;
  api::AllocationResult a;
  for (const std::string& d : devices) {
    api::DeviceRequestAllocationResult r;
    r.request = "gpu";
    r.driver = "gpu.nvidia.com";
    r.pool = "node1";
    r.device = d;
    a.devices.results.push_back(r);
  }
  c.status.allocation = a;
  return c;
}

}  // namespace draplane::gpu_driver

#endif  // DRAPLANE_GPU_DRIVER_GPU_DRIVER_TEST_UTIL_H_
