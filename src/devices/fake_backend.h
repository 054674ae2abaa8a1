// The simulated device backend: GPUs described by an inventory file
// instead of discovered through NVML. An inventory names nodes and their
// GPUs by model (gpu_models.h); the facts it yields are exactly what the
// nvml backend reports for that hardware, so the same device model,
// ResourceSlices and driver run on simulated and real nodes.
//
// Inventory (YAML):
//   driverVersion: 580.95.05     # optional, this default
//   cudaDriverVersion: 13000     # optional, this default
//   nodes:
//   - name: node1
//     labels: {zone: a}          # optional, added to the Node
//     cpu: "64"                  # optional Node capacity (default 64)
//     memory: 512Gi              # optional (default 512Gi)
//     gpus:
//     - model: A100-80GB-PCIE    # gpu_models.h name or product name
//       count: 4                 # optional, default 1
//       migEnabled: true         # optional: MIG mode on
//       migDevices:              # optional: MIG devices that exist
//       - {profile: 3g.40gb, placement: 0}
//       pcieRoot: pci0000:1a     # optional (default one per 2 GPUs)
//       xids: [79]               # optional: critical XIDs seen
//       lost: false              # optional: GPU fell off the bus
#ifndef DRAPLANE_DEVICES_FAKE_BACKEND_H_
#define DRAPLANE_DEVICES_FAKE_BACKEND_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "devices/device_backend.h"
#include "devices/gpu_facts.h"

namespace draplane::devices {

struct InventoryNode {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string cpu = "64";
  std::string memory = "512Gi";
  NodeGpuFacts gpus;
};

struct Inventory {
  std::vector<InventoryNode> nodes;
};

// Parses an inventory. Errors name the file, the field path and, for a
// YAML syntax error, the line: "inv.yaml: nodes[0].gpus[1].model: Unsupported
// value: \"B9000\": supported values: ...". GPU UUIDs and PCI bus IDs are
// derived from the node name and GPU index, so they are stable across runs.
absl::StatusOr<Inventory> ParseInventory(std::string_view text,
                                         std::string_view file_name);
absl::StatusOr<Inventory> ReadInventoryFile(const std::string& path);

// A DeviceBackend over facts held in memory. MIG devices are created and
// destroyed with NVML's rules (placements from the profile, no overlap,
// instance limits, MIG mode switched on demand on Hopper and later only).
// Thread-safe.
class FakeDeviceBackend : public DeviceBackend {
 public:
  explicit FakeDeviceBackend(NodeGpuFacts facts);

  absl::StatusOr<NodeGpuFacts> Discover() override;
  absl::StatusOr<MigDeviceFacts> CreateMigDevice(
      std::string_view parent_uuid, uint32_t gi_profile_id,
      uint32_t placement_start) override;
  absl::Status DestroyMigDevice(std::string_view parent_uuid,
                                uint32_t gpu_instance_id,
                                uint32_t compute_instance_id) override;
  absl::Status SetTimeSlice(std::string_view gpu_uuid,
                            TimeSliceInterval interval) override;
  absl::Status StartMpsDaemon(const MpsDaemonSpec& spec) override;
  absl::Status StopMpsDaemon(const MpsDaemonSpec& spec) override;
  // The MPS daemons running, by pipe directory.
  std::map<std::string, MpsDaemonSpec> mps_daemons() const;
  // The time-slice last set on a GPU (kDefault when never set).
  TimeSliceInterval time_slice(std::string_view gpu_uuid) const;

  // Test and simulation hooks: a health event on GPU `index`, a GPU lost,
  // or Discover() failing (e.g. the driver unloaded).
  void InjectXid(uint32_t gpu_index, uint32_t xid);
  void SetLost(uint32_t gpu_index, bool lost);
  void SetDiscoverError(absl::Status error);
  // How many MIG devices were created and destroyed so far.
  int mig_creations() const;
  int mig_destructions() const;

 private:
  GpuFacts* FindGpu(std::string_view uuid);  // REQUIRES: mu_ held

  mutable absl::Mutex mu_;
  NodeGpuFacts facts_;
  absl::Status discover_error_;
  int next_uuid_ = 0;
  std::map<std::string, TimeSliceInterval, std::less<>> time_slices_;
  std::map<std::string, MpsDaemonSpec> mps_daemons_;
  int creations_ = 0;
  int destructions_ = 0;
};

}  // namespace draplane::devices

#endif  // DRAPLANE_DEVICES_FAKE_BACKEND_H_
