// From discovered GPU facts to the devices a node publishes, as NVIDIA's
// DRA driver (gpu.nvidia.com) publishes them: names, attributes and
// capacities of ../shared/design/reference/nvidia-dra-driver.md §7, MIG as
// partitionable devices (§9: one counter set per physical GPU, one device
// per possible MIG placement consuming its memory slices and engines, the
// whole GPU consuming everything), health as device taints (§11.2), and
// the ResourceSlice layout of a pool (§9.4, "split": counter sets first,
// then one devices slice per GPU).
#ifndef DRAPLANE_DEVICES_DEVICE_MODEL_H_
#define DRAPLANE_DEVICES_DEVICE_MODEL_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/resource_types.h"
#include "devices/gpu_facts.h"

namespace draplane::devices {

inline constexpr char kNvidiaGpuDriver[] = "gpu.nvidia.com";

struct DeviceModelOptions {
  std::string driver = kNvidiaGpuDriver;
  // NVIDIA's DynamicMIG: MIG placements are published as partitionable
  // devices and created when a claim is prepared. Off: a MIG-enabled GPU
  // publishes the MIG devices that exist (static MIG), others whole GPUs.
  bool dynamic_mig = true;
  // XIDs that taint with effect None instead of NoSchedule (NVIDIA's
  // application XIDs plus --additional-xids-to-ignore).
  std::vector<uint32_t> ignored_xids = {13, 31, 43, 45, 68, 109};
};

enum class DeviceType { kGpu, kMig };

// What the driver needs to prepare a published device.
struct AllocatableDevice {
  std::string name;
  DeviceType type = DeviceType::kGpu;
  uint32_t gpu_index = 0;
  uint32_t gpu_minor = 0;
  std::string gpu_uuid;
  std::string pci_bus_id;  // normalised: "0000:3b:00.0"
  // MIG devices only.
  std::string profile;  // "3g.40gb"
  uint32_t gi_profile_id = 0;
  MigPlacement placement;
  // Set for a MIG device that exists (static MIG); a dynamic one is
  // created when a claim using it is prepared.
  std::optional<MigDeviceFacts> existing_mig;
};

struct NodeDevices {
  // One per GPU published with partitionable MIG devices.
  std::vector<api::CounterSet> counter_sets;
  // Published devices of each GPU (NVML index order), sorted by name.
  std::vector<std::vector<api::Device>> devices_per_gpu;
  std::map<std::string, AllocatableDevice> allocatable;
};

NodeDevices BuildNodeDevices(const NodeGpuFacts& facts,
                             const DeviceModelOptions& options);

// The slices of the node's pool (spec only: driver, nodeName, pool name =
// node name, resourceSliceCount; generation left 0 for the publisher):
// counter sets first (at most 8 per slice), then one slice per GPU with
// its devices; without counter sets, one slice with every device. Slices
// are split further at the per-slice device limits (128, or 64 when a
// device uses taints or counters).
std::vector<api::ResourceSliceSpec> LayoutResourceSlices(
    const NodeDevices& devices, const std::string& node_name,
    const std::string& driver);

// The DeviceClasses NVIDIA's Helm chart installs with the driver:
// gpu.nvidia.com (type == 'gpu') and mig.nvidia.com (type == 'mig'), as
// resource.k8s.io/v1 JSON. Without the chart's extendedResourceName
// (draplane's scheduler does not serve extended resources from DRA
// devices) and without vfio.gpu.nvidia.com (no passthrough support).
std::vector<api::Json> NvidiaDeviceClasses();

// Helpers shared with the nvml backend's tests and tools.
// "00000000:3B:00.0" -> "0000:3b:00.0".
std::string NormalizePciBusId(std::string_view nvml_bus_id);
// "580.95.05" -> "580.95.5", "9.0" -> "9.0.0" (semver without leading
// zeros; missing parts are 0).
std::string NormalizeVersion(std::string_view version);
// nvmlDeviceArchitecture_t / nvmlBrandType_t names.
std::string ArchitectureName(uint32_t architecture);
std::string BrandName(uint32_t brand);

}  // namespace draplane::devices

#endif  // DRAPLANE_DEVICES_DEVICE_MODEL_H_
