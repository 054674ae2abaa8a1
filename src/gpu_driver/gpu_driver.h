// draplane's NVIDIA GPU DRA driver (gpu.nvidia.com), the node side:
// discovers GPUs through a device backend, says what to publish, and
// prepares and unprepares claims for the kubelet (kubelet_plugin::DraDriver)
// as NVIDIA's gpu-kubelet-plugin does (nvidia-dra-driver.md §8):
//  - Prepare: a claim already PrepareCompleted returns its devices again
//    (idempotent); a device prepared for another claim is refused; a
//    claim left PrepareStarted by a crash is rolled back first; then
//    PrepareStarted is checkpointed, opaque configs are resolved (class,
//    then claim, later wins; nvidia_config), MIG devices of partitionable
//    placements are created, one CDI spec is written for the claim
//    (k8s.gpu.nvidia.com/claim, device "<claimUID>-<device>"), and
//    PrepareCompleted is checkpointed with what is needed to undo it.
//  - Unprepare: UnprepareStarted is checkpointed first, then MIG devices
//    created for the claim are destroyed (each only while the device at
//    its GPU and instance IDs still has the UUID it was created with: the
//    GPU reuses instance IDs), the CDI spec removed, the claim dropped from
//    the checkpoint; unknown claims are success. Every step may be
//    repeated: a retry after a crash at any point finishes the job.
//  - Start: a checkpoint from another boot is discarded (GPU state does
//    not survive a reboot); half-prepared claims are rolled back;
//    half-unprepared ones are finished; with dynamic MIG, MIG devices no
//    prepared claim owns (by UUID) are destroyed.
// Calls for different claims run concurrently; calls for one claim are
// serialised (per-claim lock), and checkpoint updates are serialised.
#ifndef DRAPLANE_GPU_DRIVER_GPU_DRIVER_H_
#define DRAPLANE_GPU_DRIVER_GPU_DRIVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "api/resource_types.h"
#include "client/client.h"
#include "devices/device_backend.h"
#include "devices/device_model.h"
#include "gpu_driver/checkpoint.h"
#include "kubelet_plugin/dra_driver.h"
#include "metrics/metrics.h"
#include "nvidia_config/gpu_config.h"
#include "prometheus/counter.h"

namespace draplane::gpu_driver {

// draplane's default gates for the GPU driver (NVIDIA's are all off):
// DynamicMIG (MIG as partitionable devices) and TimeSlicingSettings (the
// guide's DeviceClasses configure time-slicing).
nvidia_config::FeatureGates DefaultFeatureGates();

struct GpuDriverOptions {
  std::string driver_name = devices::kNvidiaGpuDriver;
  std::string node_name;
  // Holds checkpoint.json (the kubelet plugin directory).
  std::string plugin_data_dir;
  std::string cdi_root = "/var/run/cdi";
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
  nvidia_config::FeatureGates gates = DefaultFeatureGates();
  // XIDs tainted with effect None (added to NVIDIA's defaults).
  std::vector<uint32_t> additional_ignored_xids;
  // Where dra_plugin_errors_total{driver,node} goes (the guide's metric:
  // failed prepare and unprepare calls); null: nowhere. Must outlive the
  // driver.
  metrics::Registry* metrics = nullptr;
  // Called after each write of the checkpoint ("checkpoint") and each
  // write or removal of a CDI spec ("cdi"): the points where what the
  // driver did becomes durable. Tests stop the driver there to prove that a
  // crash at any of them is recovered; null: nothing.
  std::function<void(std::string_view what)> after_write;
};

class GpuDriver : public kubelet_plugin::DraDriver,
                  public kubelet_plugin::DeviceHealthSource {
 public:
  // Reads the checkpoint and discovers the GPUs; reconciles as described
  // above. `backend` must outlive the driver.
  static absl::StatusOr<std::unique_ptr<GpuDriver>> Start(
      const GpuDriverOptions& options, devices::DeviceBackend* backend);

  kubelet_plugin::PrepareResult PrepareResourceClaim(
      const api::ResourceClaim& claim) override;
  absl::Status UnprepareResourceClaim(
      const kubelet_plugin::ClaimRef& claim) override;

  // Every published device's health as of the last discovery (Start,
  // DesiredSlices), from the taints it is published with: a critical XID
  // (NoSchedule) or a lost GPU (NoExecute) is unhealthy, an ignored XID
  // (effect None) healthy with a message.
  std::vector<kubelet_plugin::DeviceHealth> DeviceHealthReport() override;

  // Discovers the GPUs again (health, MIG state) and returns the slices to
  // publish (devices::LayoutResourceSlices). Devices keep their names.
  absl::StatusOr<std::vector<api::ResourceSliceSpec>> DesiredSlices();

  // NVIDIA's stale-claim cleanup: claims left PrepareStarted whose
  // ResourceClaim is gone or was replaced are unprepared. Returns how many.
  absl::StatusOr<int> CleanupStaleClaims(client::Client& api);

  // UIDs of the claims in the checkpoint, by state.
  std::vector<std::string> Claims(ClaimState state) const;
  // The claims in the checkpoint (any state), as the kubelet names them.
  std::vector<kubelet_plugin::ClaimRef> CheckpointedClaims() const;

 private:
  GpuDriver(const GpuDriverOptions& options, devices::DeviceBackend* backend);

  absl::Status Reconcile();
  // `made` gets the MIG devices and `daemons` the MPS daemons created so
  // far, also when it fails (for the caller to undo).
  absl::StatusOr<std::vector<PreparedDeviceRecord>> PrepareDevices(
      const api::ResourceClaim& claim, std::vector<PreparedDeviceRecord>& made,
      std::vector<devices::MpsDaemonSpec>& daemons);
  // <plugin dir>/mps/<id>: one MPS daemon's pipe, shm and log directories.
  std::string MpsRoot(const std::string& id) const;
  // Destroys the MIG devices a half-prepared claim may have created.
  absl::Status RollBack(const std::string& uid, const ClaimRecord& record)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Undoes a prepared claim; safe to repeat (what is gone is skipped).
  absl::Status UndoPrepared(const ClaimRecord& record)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Destroys the MIG device `m` if the GPU still has it: the device at its
  // GPU and instance IDs with its UUID (another UUID there is another
  // device that reused the IDs, and is left alone).
  absl::Status DestroyCreatedMig(const CreatedMigDevice& m,
                                 const devices::NodeGpuFacts& facts);
  // Calls options_.after_write when set.
  void AfterWrite(std::string_view what) const;
  absl::Status Save() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The lock of one claim; held by a shared_ptr so that dropping it from
  // the map while a caller holds it is safe.
  std::shared_ptr<absl::Mutex> ClaimLock(const std::string& uid);

  const GpuDriverOptions options_;
  devices::DeviceBackend* const backend_;
  devices::DeviceModelOptions model_options_;
  const CheckpointFile checkpoint_file_;
  prometheus::Counter* errors_ = nullptr;  // dra_plugin_errors_total

  mutable absl::Mutex mu_;
  Checkpoint checkpoint_ ABSL_GUARDED_BY(mu_);
  devices::NodeDevices devices_ ABSL_GUARDED_BY(mu_);
  devices::NodeGpuFacts facts_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<absl::Mutex>> claim_locks_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace draplane::gpu_driver

#endif  // DRAPLANE_GPU_DRIVER_GPU_DRIVER_H_
