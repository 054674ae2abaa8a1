// The GPU driver's record of what it has prepared, on disk, so that a
// driver restarted at any moment (the guide's "driver upgrade breaks
// running workloads" case) knows which claims are prepared, which were
// half-prepared when it stopped, and which MIG devices it created.
// Two-phase per claim (NVIDIA's design, nvidia-dra-driver.md §8, §15):
// PrepareStarted is written before any device is touched,
// PrepareCompleted with everything needed to undo it afterwards, and
// UnprepareStarted before an unprepare undoes anything (draplane's own).
//
// File format (draplane's own; NVIDIA's checksum is Go-specific): JSON
// {"kind": "DraplaneGpuDriverCheckpoint", "version": 2, "checksum": "<FNV-1a
// 64 of the canonical dump of data, hex>", "data": {"bootID": ...,
// "claims": {<uid>: {...}}}}, written to a temporary file, fsynced and
// renamed over the old one (then the directory fsynced): a reader sees
// the old or the new checkpoint, never a mix.
#ifndef DRAPLANE_GPU_DRIVER_CHECKPOINT_H_
#define DRAPLANE_GPU_DRIVER_CHECKPOINT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/device_backend.h"

namespace draplane::gpu_driver {

// PrepareStarted: written before any device is touched for the claim;
// PrepareCompleted: everything prepared and recorded; UnprepareStarted:
// written before anything of a prepared claim is undone, so a driver that
// stops part-way finishes the unprepare when it starts again.
enum class ClaimState { kPrepareStarted, kPrepareCompleted, kUnprepareStarted };

// A MIG device the driver created for a claim (dynamic MIG).
struct CreatedMigDevice {
  std::string parent_uuid;
  uint32_t gpu_instance_id = 0;
  uint32_t compute_instance_id = 0;
  std::string uuid;
  uint32_t profile_id = 0;
  uint32_t placement_start = 0;
  friend bool operator==(const CreatedMigDevice&,
                         const CreatedMigDevice&) = default;
};

struct PreparedDeviceRecord {
  std::string request;
  std::string pool;
  std::string device;
  std::vector<std::string> cdi_device_ids;
  std::optional<CreatedMigDevice> created_mig;
  friend bool operator==(const PreparedDeviceRecord&,
                         const PreparedDeviceRecord&) = default;
};

struct ClaimRecord {
  std::string namespace_;
  std::string name;
  ClaimState state = ClaimState::kPrepareStarted;
  // This driver's devices in the claim's allocation (known from
  // PrepareStarted on, for overlap checks and rollback).
  std::vector<std::string> allocated_devices;
  // PrepareCompleted: what was prepared.
  std::vector<PreparedDeviceRecord> prepared;
  std::string cdi_spec_file;  // "" when none was written
  // MPS control daemons started for the claim's device groups.
  std::vector<devices::MpsDaemonSpec> mps_daemons;
  friend bool operator==(const ClaimRecord&, const ClaimRecord&) = default;
};

struct Checkpoint {
  std::string boot_id;
  std::map<std::string, ClaimRecord> claims;  // by claim UID
  friend bool operator==(const Checkpoint&, const Checkpoint&) = default;
};

// The checkpoint format this driver writes; it reads this one and format 1
// (the same without UnprepareStarted) and refuses newer ones
// (FailedPrecondition) rather than guess.
inline constexpr int64_t kCheckpointFormat = 2;

class CheckpointFile {
 public:
  explicit CheckpointFile(std::string path);

  // The stored checkpoint; an empty one when the file does not exist.
  // DataLoss when the file is not a checkpoint or its checksum does not
  // match (a torn or edited file): the caller decides what to trust.
  // FailedPrecondition when a newer driver wrote it (a newer format).
  absl::StatusOr<Checkpoint> Read() const;
  // Replaces the stored checkpoint atomically and durably.
  absl::Status Write(const Checkpoint& checkpoint) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The kernel's boot ID (/proc/sys/kernel/random/boot_id, or `path`),
// trimmed; "" when unreadable.
std::string ReadBootId(const std::string& path);

}  // namespace draplane::gpu_driver

#endif  // DRAPLANE_GPU_DRIVER_CHECKPOINT_H_
