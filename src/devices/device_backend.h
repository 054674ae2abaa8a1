// The seam between the node driver and the GPUs: discovery and the few
// operations the driver performs on hardware (creating and destroying MIG
// devices at prepare/unprepare time). Implementations: `nvml`
// (nvml_backend.h, libnvidia-ml.so.1 loaded at run time) and `fake`
// (fake_backend.h, GPUs from an inventory file).
#ifndef DRAPLANE_DEVICES_DEVICE_BACKEND_H_
#define DRAPLANE_DEVICES_DEVICE_BACKEND_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "devices/gpu_facts.h"

namespace draplane::devices {

// NVIDIA's time-slice intervals (nvidia-smi compute-policy --set-timeslice).
enum class TimeSliceInterval {
  kDefault = 0,
  kShort = 1,
  kMedium = 2,
  kLong = 3
};

// One MPS control daemon serving a group of devices (NVIDIA's MPS
// sharing strategy).
struct MpsDaemonSpec {
  std::string pipe_dir;  // CUDA_MPS_PIPE_DIRECTORY; identifies the daemon
  std::string log_dir;   // CUDA_MPS_LOG_DIRECTORY
  // CUDA_VISIBLE_DEVICES: GPU or MIG UUIDs, sorted.
  std::vector<std::string> device_uuids;
  // Whole GPUs among them (set to compute mode EXCLUSIVE_PROCESS).
  std::vector<std::string> whole_gpu_uuids;
  std::optional<int> active_thread_percentage;
  // "<MiB>M" texts, as nvidia-cuda-mps-control takes them.
  std::optional<std::string> default_pinned_memory_limit;
  std::map<std::string, std::string> pinned_memory_limits;  // by UUID
  friend bool operator==(const MpsDaemonSpec&, const MpsDaemonSpec&) = default;
};

// All methods are thread-safe.
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;

  // The node's GPUs as they are now, including health (XIDs seen since
  // start, lost GPUs) and the MIG devices that currently exist.
  virtual absl::StatusOr<NodeGpuFacts> Discover() = 0;

  // Creates a MIG device on the GPU `parent_uuid`: a GPU instance of GI
  // profile `gi_profile_id` at memory slice `placement_start`, and one
  // compute instance spanning it. Enables MIG mode first when it is off
  // (Hopper and later only). FailedPrecondition when the placement is
  // occupied (NVML's INSUFFICIENT_RESOURCES) or MIG cannot be enabled;
  // NotFound for an unknown GPU or profile.
  virtual absl::StatusOr<MigDeviceFacts> CreateMigDevice(
      std::string_view parent_uuid, uint32_t gi_profile_id,
      uint32_t placement_start) = 0;

  // Destroys the MIG device (compute instance, then GPU instance) and
  // disables MIG mode again when none is left on a Hopper or later GPU.
  // A device that no longer exists is success.
  virtual absl::Status DestroyMigDevice(std::string_view parent_uuid,
                                        uint32_t gpu_instance_id,
                                        uint32_t compute_instance_id) = 0;

  // NVIDIA's TimeSlicing sharing on a whole GPU: compute mode DEFAULT,
  // then the time-slice of the GPU's compute policy. NotFound for an
  // unknown GPU.
  virtual absl::Status SetTimeSlice(std::string_view gpu_uuid,
                                    TimeSliceInterval interval) = 0;

  // Starts an MPS control daemon for `spec` (directories exist) and
  // applies its defaults; one already running on that pipe directory is
  // left as it is. StopMpsDaemon quits it (and puts whole GPUs back in
  // compute mode DEFAULT); one not running is success.
  virtual absl::Status StartMpsDaemon(const MpsDaemonSpec& spec) = 0;
  virtual absl::Status StopMpsDaemon(const MpsDaemonSpec& spec) = 0;
};

}  // namespace draplane::devices

#endif  // DRAPLANE_DEVICES_DEVICE_BACKEND_H_
