// What a device backend discovers on one node: the raw NVML facts of each
// physical GPU (names, numbers and enum values as NVML reports them), before
// they are turned into published devices (device_model.h). Both backends
// produce this: `nvml` by asking the driver, `fake` from an inventory file,
// so everything above the backend is the same code for real and simulated
// GPUs.
#ifndef DRAPLANE_DEVICES_GPU_FACTS_H_
#define DRAPLANE_DEVICES_GPU_FACTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace draplane::devices {

// nvmlDeviceArchitecture_t values.
inline constexpr uint32_t kArchAmpere = 7;
inline constexpr uint32_t kArchAda = 8;
inline constexpr uint32_t kArchHopper = 9;
inline constexpr uint32_t kArchBlackwell = 10;
// nvmlBrandType_t value current data-center parts report ("Nvidia").
inline constexpr uint32_t kBrandNvidia = 14;

// A run of memory slices (nvmlGpuInstancePlacement_t).
struct MigPlacement {
  uint32_t start = 0;
  uint32_t size = 0;
  friend bool operator==(const MigPlacement&, const MigPlacement&) = default;
};

// One GPU-instance profile as nvmlDeviceGetGpuInstanceProfileInfo reports
// it (nvmlGpuInstanceProfileInfo_t), with its possible placements
// (nvmlDeviceGetGpuInstancePossiblePlacements_v2). Only profiles NVML
// answers for are listed.
struct MigProfileFacts {
  uint32_t index = 0;  // NVML_GPU_INSTANCE_PROFILE_* enum index (0x0..0x10)
  uint32_t id = 0;     // GI profile ID, as `nvidia-smi mig -lgip` prints it
  uint32_t slice_count = 0;     // compute slices
  uint32_t instance_count = 0;  // how many can exist at once
  uint32_t multiprocessor_count = 0;
  uint32_t copy_engine_count = 0;
  uint32_t decoder_count = 0;
  uint32_t encoder_count = 0;
  uint32_t jpeg_count = 0;
  uint32_t ofa_count = 0;
  uint64_t memory_size_mib = 0;  // NVML's memorySizeMB (MiB)
  std::vector<MigPlacement> placements;
  friend bool operator==(const MigProfileFacts&,
                         const MigProfileFacts&) = default;
};

// A MIG device that exists on the GPU (a GPU instance with one compute
// instance spanning it).
struct MigDeviceFacts {
  std::string uuid;  // "MIG-..."
  uint32_t gpu_instance_id = 0;
  uint32_t compute_instance_id = 0;
  uint32_t profile_id = 0;  // GI profile ID
  MigPlacement placement;
  friend bool operator==(const MigDeviceFacts&,
                         const MigDeviceFacts&) = default;
};

// One physical GPU.
struct GpuFacts {
  uint32_t index = 0;             // NVML enumeration index
  uint32_t minor = 0;             // /dev/nvidia<minor>
  std::string uuid;               // "GPU-..."
  std::string product_name;       // nvmlDeviceGetName
  uint32_t architecture = 0;      // nvmlDeviceArchitecture_t
  uint32_t brand = kBrandNvidia;  // nvmlBrandType_t
  int cuda_compute_major = 0;
  int cuda_compute_minor = 0;
  std::optional<uint64_t> memory_bytes;  // unset: NOT_SUPPORTED
  std::string pci_bus_id;      // NVML's busId text, e.g. "00000000:3B:00.0"
  uint32_t pci_device_id = 0;  // nvmlPciInfo_t.pciDeviceId (device<<16|vendor)
  std::string pcie_root;       // from sysfs, e.g. "pci0000:3a"; "" unknown
  std::optional<std::string> addressing_mode;  // "None", "HMM", "ATS"
  bool mig_capable = false;
  bool mig_enabled = false;
  bool vgpu_guest = false;
  std::vector<MigProfileFacts> mig_profiles;  // empty unless mig_capable
  std::vector<MigDeviceFacts> mig_devices;    // existing MIG devices
  // Critical XIDs seen on this GPU (health events), newest last.
  std::vector<uint32_t> xids;
  bool lost = false;  // NVML_ERROR_GPU_IS_LOST
  friend bool operator==(const GpuFacts&, const GpuFacts&) = default;
};

// Everything discovered on one node.
struct NodeGpuFacts {
  std::string driver_version;   // nvmlSystemGetDriverVersion, "580.95.05"
  int cuda_driver_version = 0;  // nvmlSystemGetCudaDriverVersion, 13000
  std::vector<GpuFacts> gpus;   // in NVML index order
  friend bool operator==(const NodeGpuFacts&, const NodeGpuFacts&) = default;
};

}  // namespace draplane::devices

#endif  // DRAPLANE_DEVICES_GPU_FACTS_H_
