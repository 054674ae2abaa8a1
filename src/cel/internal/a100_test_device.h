// Test fixture shared by the CEL tests: an A100 as NVIDIA's driver
// publishes it, with one attribute in a foreign domain. Expected results
// in the tests were produced by `draref cel eval --device-json` (cel-go
// v0.29.2, k8s.io/dynamic-resource-allocation v0.37.2).
#ifndef DRAPLANE_CEL_INTERNAL_A100_TEST_DEVICE_H_
#define DRAPLANE_CEL_INTERNAL_A100_TEST_DEVICE_H_

#include "api/resource_types.h"
#include "common/quantity.h"

namespace draplane::cel::internal {

inline api::Device A100TestDevice() {
  api::Device d;
  d.name = "gpu-0";
  d.attributes["productName"] =
      api::DeviceAttribute::String("NVIDIA A100 80GB PCIe");
  d.attributes["index"] = api::DeviceAttribute::Int(0);
  d.attributes["cudaComputeCapability"] =
      api::DeviceAttribute::Version("8.0.0");
  d.attributes["gpu.nvidia.com/type"] = api::DeviceAttribute::String("gpu");
  d.attributes["other.com/x"] = api::DeviceAttribute::Bool(true);
  d.capacity["memory"].value = *Quantity::Parse("80Gi");
  return d;
}

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_A100_TEST_DEVICE_H_
