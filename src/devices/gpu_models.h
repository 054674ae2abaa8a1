// The NVIDIA GPU models draplane can simulate, with the facts NVML reports
// for them (product name, architecture, memory, PCI device ID, MIG
// GPU-instance profiles and placements). Sources: `nvidia-smi mig -lgip`
// outputs and NVIDIA's MIG user guide as collected in
// ../shared/design/reference/nvidia-dra-driver.md §18; the H200 entry is
// the one checked against a real GPU (tests/data/nvml-h200*).
#ifndef DRAPLANE_DEVICES_GPU_MODELS_H_
#define DRAPLANE_DEVICES_GPU_MODELS_H_

#include <string>
#include <string_view>
#include <vector>

#include "devices/gpu_facts.h"

namespace draplane::devices {

struct GpuModel {
  // Short names accepted in inventories, e.g. "A100-80GB-PCIE", "H100",
  // "H200"; the first is canonical.
  std::vector<std::string_view> names;
  std::string_view product_name;  // nvmlDeviceGetName
  uint32_t architecture = 0;
  int cuda_compute_major = 0;
  int cuda_compute_minor = 0;
  uint64_t memory_bytes = 0;   // nvmlMemory_t.total
  uint32_t pci_device_id = 0;  // device<<16 | 0x10de
  bool mig_capable = false;
  std::vector<MigProfileFacts> mig_profiles;  // in NVML profile-index order
};

// Every model, in a stable order.
const std::vector<GpuModel>& GpuModels();

// The model whose short name or product name is `name` (case-insensitive);
// nullptr when none is.
const GpuModel* FindGpuModel(std::string_view name);

// Facts of one GPU of `model`: index/minor `index`, the given UUID and PCI
// bus ID (NVML text form), MIG disabled and no MIG devices.
GpuFacts MakeGpuFacts(const GpuModel& model, uint32_t index, std::string uuid,
                      std::string pci_bus_id);

}  // namespace draplane::devices

#endif  // DRAPLANE_DEVICES_GPU_MODELS_H_
