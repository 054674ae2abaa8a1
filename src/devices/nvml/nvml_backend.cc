#include "devices/nvml/nvml_backend.h"

#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "common/str_cat.h"
#include "devices/nvml/internal/nvidia_smi.h"
#include "devices/nvml/internal/nvml_api.h"
#include "devices/nvml/internal/nvml_library.h"

namespace draplane::devices {
namespace {

using nvml_internal::NvmlError;
using nvml_internal::NvmlLibrary;
using nvml_internal::NvmlReturnOf;

// Calls lib_->fn(...) and returns NvmlError(fn, ret, context) from the
// enclosing function when it fails.
#define DRAPLANE_NVML_TRY(context, fn, ...)                   \
  do {                                                        \
    if (const nvmlReturn_t nvml_ret_ = lib_->fn(__VA_ARGS__); \
        nvml_ret_ != NVML_SUCCESS) {                          \
      return NvmlError(#fn, nvml_ret_, context);              \
    }                                                         \
  } while (0)

// Per wait, so that the destructor returns within about a second.
constexpr unsigned kEventWaitMs = 1000;
// The events NVIDIA's driver watches (reference §11.2).
constexpr unsigned long long kHealthEvents = nvmlEventTypeXidCriticalError |
                                             nvmlEventTypeDoubleBitEccError |
                                             nvmlEventTypeSingleBitEccError;

bool Skippable(nvmlReturn_t r) {
  return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_INVALID_ARGUMENT;
}

std::string FromBuffer(const char* buf, size_t size) {
  return std::string(buf, strnlen(buf, size));
}

// NVML's busId ("00000000:3B:00.0": 8-digit domain, upper case) as sysfs
// names the device ("0000:3b:00.0").
std::string SysfsBdf(std::string_view bus_id) {
  std::string bdf(bus_id);
  absl::AsciiStrToLower(&bdf);
  if (bdf.find(':') == 8) bdf.erase(0, 4);
  return bdf;
}

// The PCIe root complex of the device: the first path component after
// "devices/" in the target of <sysfs>/bus/pci/devices/<bdf>
// ("../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0" -> "pci0000:3a");
// "" when the link cannot be read.
std::string PcieRoot(const std::string& sysfs_root, std::string_view bus_id) {
  const std::string link =
      StrCat(sysfs_root, "/bus/pci/devices/", SysfsBdf(bus_id));
  char target[PATH_MAX];
  const ssize_t n = readlink(link.c_str(), target, sizeof(target));
  if (n <= 0 || static_cast<size_t>(n) >= sizeof(target)) return "";
  std::string_view t(target, static_cast<size_t>(n));
  constexpr std::string_view kDevices = "devices/";
  const size_t pos = t.find(kDevices);
  if (pos == std::string_view::npos) return "";
  t.remove_prefix(pos + kDevices.size());
  return std::string(t.substr(0, t.find('/')));
}

std::optional<std::string> AddressingModeName(unsigned int value) {
  switch (value) {
    case NVML_DEVICE_ADDRESSING_MODE_NONE:
      return "None";
    case NVML_DEVICE_ADDRESSING_MODE_HMM:
      return "HMM";
    case NVML_DEVICE_ADDRESSING_MODE_ATS:
      return "ATS";
    default:
      return std::nullopt;
  }
}

std::string GpuContext(std::string_view uuid) {
  return StrCat("nvml: GPU ", uuid);
}

class NvmlBackend final : public DeviceBackend {
 public:
  NvmlBackend(std::unique_ptr<NvmlLibrary> lib, std::string sysfs_root,
              std::string driver_root)
      : lib_(std::move(lib)),
        sysfs_root_(std::move(sysfs_root)),
        driver_root_(std::move(driver_root)) {}
  ~NvmlBackend() override;

  // nvmlInit_v2, the GPUs' handles, the health thread. Called once, before
  // any other method.
  absl::Status Start();

  absl::StatusOr<NodeGpuFacts> Discover() override;
  absl::StatusOr<MigDeviceFacts> CreateMigDevice(
      std::string_view parent_uuid, uint32_t gi_profile_id,
      uint32_t placement_start) override;
  absl::Status DestroyMigDevice(std::string_view parent_uuid,
                                uint32_t gpu_instance_id,
                                uint32_t compute_instance_id) override;
  // As NVIDIA's driver: `nvidia-smi -i <uuid> -c DEFAULT`, then
  // `nvidia-smi compute-policy -i <uuid> --set-timeslice=<n>` (NVML has no
  // call for it), with this backend's libnvidia-ml.so.1 preloaded.
  absl::Status SetTimeSlice(std::string_view gpu_uuid,
                            TimeSliceInterval interval) override;
  // NVIDIA runs the daemon in a Deployment; draplane runs
  // `nvidia-cuda-mps-control -d` on the host (CUDA_MPS_PIPE_DIRECTORY,
  // CUDA_MPS_LOG_DIRECTORY, CUDA_VISIBLE_DEVICES set) and sends it
  // `set_default_active_thread_percentage` and
  // `set_default_device_pinned_mem_limit`; stop sends `quit`. Whole GPUs
  // are put in compute mode EXCLUSIVE_PROCESS with nvidia-smi first.
  absl::Status StartMpsDaemon(const MpsDaemonSpec& spec) override;
  absl::Status StopMpsDaemon(const MpsDaemonSpec& spec) override;

 private:
  struct Gpu {
    nvmlDevice_t handle = nullptr;
    std::string uuid;
    uint32_t architecture = 0;
  };

  absl::Status DiscoverGpu(const Gpu& gpu, GpuFacts& g)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status DiscoverMigProfiles(const Gpu& gpu, GpuFacts& g)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status DiscoverMigDevices(const Gpu& gpu, GpuFacts& g)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<MigDeviceFacts> CreateOnEnabledGpu(const Gpu& gpu,
                                                    uint32_t gi_profile_id,
                                                    uint32_t placement_start)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Disables MIG mode on a Hopper or later GPU without MIG devices. Failures
  // are ignored: MIG mode left on is harmless there, and the next destroy
  // tries again.
  void MaybeDisableMig(const Gpu& gpu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const Gpu* FindGpu(std::string_view uuid) const;
  std::optional<size_t> GpuIndexOf(nvmlDevice_t device) const;

  void WatchHealth();
  void RecordXid(const nvmlEventData_t& event);

  // Constant after construction.
  const std::unique_ptr<NvmlLibrary> lib_;
  const std::string sysfs_root_;
  const std::string driver_root_;
  // Constant after Start().
  std::vector<Gpu> gpus_;  // in NVML index order
  nvmlEventSet_t event_set_ = nullptr;

  absl::Mutex mu_;  // held for every NVML call but the event wait
  bool initialized_ ABSL_GUARDED_BY(mu_) = false;

  absl::Mutex health_mu_;  // taken after mu_ when both are held
  std::vector<std::vector<uint32_t>> xids_ ABSL_GUARDED_BY(health_mu_);
  bool lost_ ABSL_GUARDED_BY(health_mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(health_mu_) = false;
  std::thread health_thread_;
};

NvmlBackend::~NvmlBackend() {
  {
    absl::MutexLock h(&health_mu_);
    stopping_ = true;
  }
  if (health_thread_.joinable()) health_thread_.join();
  absl::MutexLock l(&mu_);
  if (event_set_ != nullptr) lib_->nvmlEventSetFree(event_set_);
  if (initialized_) lib_->nvmlShutdown();
}

absl::Status NvmlBackend::Start() {
  absl::MutexLock l(&mu_);
  const std::string context = StrCat("nvml: ", lib_->path());
  DRAPLANE_NVML_TRY(context, nvmlInit_v2);
  initialized_ = true;

  unsigned int count = 0;
  DRAPLANE_NVML_TRY(context, nvmlDeviceGetCount_v2, &count);
  for (unsigned int i = 0; i < count; ++i) {
    Gpu gpu;
    DRAPLANE_NVML_TRY(StrCat(context, ": GPU index ", i),
                      nvmlDeviceGetHandleByIndex_v2, i, &gpu.handle);
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    DRAPLANE_NVML_TRY(StrCat(context, ": GPU index ", i), nvmlDeviceGetUUID,
                      gpu.handle, uuid, sizeof(uuid));
    gpu.uuid = FromBuffer(uuid, sizeof(uuid));
    DRAPLANE_NVML_TRY(GpuContext(gpu.uuid), nvmlDeviceGetArchitecture,
                      gpu.handle, &gpu.architecture);
    gpus_.push_back(std::move(gpu));
  }
  {
    absl::MutexLock h(&health_mu_);
    xids_.resize(gpus_.size());
  }

  // Health: a GPU whose events cannot be registered is simply not watched
  // (NVIDIA's driver taints it "unmonitored"; the facts have no such flag).
  if (lib_->nvmlEventSetCreate(&event_set_) != NVML_SUCCESS) {
    event_set_ = nullptr;
    return absl::OkStatus();
  }
  bool watching = false;
  for (const Gpu& gpu : gpus_) {
    unsigned long long supported = 0;
    if (lib_->nvmlDeviceGetSupportedEventTypes(gpu.handle, &supported) !=
        NVML_SUCCESS) {
      continue;
    }
    const unsigned long long mask = kHealthEvents & supported;
    if (mask != 0 && lib_->nvmlDeviceRegisterEvents(
                         gpu.handle, mask, event_set_) == NVML_SUCCESS) {
      watching = true;
    }
  }
  if (!watching) {
    lib_->nvmlEventSetFree(event_set_);
    event_set_ = nullptr;
    return absl::OkStatus();
  }
  health_thread_ = std::thread([this] { WatchHealth(); });
  return absl::OkStatus();
}

absl::StatusOr<NodeGpuFacts> NvmlBackend::Discover() {
  absl::MutexLock l(&mu_);
  NodeGpuFacts facts;
  char version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  DRAPLANE_NVML_TRY("nvml", nvmlSystemGetDriverVersion, version,
                    sizeof(version));
  facts.driver_version = FromBuffer(version, sizeof(version));
  DRAPLANE_NVML_TRY("nvml", nvmlSystemGetCudaDriverVersion,
                    &facts.cuda_driver_version);
  for (size_t i = 0; i < gpus_.size(); ++i) {
    GpuFacts& g = facts.gpus.emplace_back();
    g.index = static_cast<uint32_t>(i);
    g.uuid = gpus_[i].uuid;
    g.architecture = gpus_[i].architecture;
    if (absl::Status s = DiscoverGpu(gpus_[i], g); !s.ok()) {
      // A GPU that fell off the bus is reported, with what was learnt.
      if (NvmlReturnOf(s) != NVML_ERROR_GPU_IS_LOST) return s;
      g.lost = true;
    }
  }
  absl::MutexLock h(&health_mu_);
  for (size_t i = 0; i < facts.gpus.size(); ++i) {
    facts.gpus[i].xids = xids_[i];
    if (lost_) facts.gpus[i].lost = true;
  }
  return facts;
}

absl::Status NvmlBackend::DiscoverGpu(const Gpu& gpu, GpuFacts& g) {
  const std::string context = GpuContext(gpu.uuid);
  nvmlDevice_t h = gpu.handle;
  DRAPLANE_NVML_TRY(context, nvmlDeviceGetMinorNumber, h, &g.minor);
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  DRAPLANE_NVML_TRY(context, nvmlDeviceGetName, h, name, sizeof(name));
  g.product_name = FromBuffer(name, sizeof(name));
  nvmlBrandType_t brand{};
  DRAPLANE_NVML_TRY(context, nvmlDeviceGetBrand, h, &brand);
  g.brand = static_cast<uint32_t>(brand);
  DRAPLANE_NVML_TRY(context, nvmlDeviceGetCudaComputeCapability, h,
                    &g.cuda_compute_major, &g.cuda_compute_minor);

  nvmlMemory_t memory{};
  if (const nvmlReturn_t r = lib_->nvmlDeviceGetMemoryInfo(h, &memory);
      r == NVML_SUCCESS) {
    g.memory_bytes = memory.total;
  } else if (r != NVML_ERROR_NOT_SUPPORTED) {
    return NvmlError("nvmlDeviceGetMemoryInfo", r, context);
  }

  nvmlPciInfo_t pci{};
  DRAPLANE_NVML_TRY(context, nvmlDeviceGetPciInfo_v3, h, &pci);
  g.pci_bus_id = FromBuffer(pci.busId, sizeof(pci.busId));
  g.pci_device_id = pci.pciDeviceId;
  g.pcie_root = PcieRoot(sysfs_root_, g.pci_bus_id);

  // Optional facts: absent when NVML does not answer (older drivers return
  // ARGUMENT_VERSION_MISMATCH for a struct version they do not know).
  nvmlDeviceAddressingMode_t mode{};
  mode.version = nvmlDeviceAddressingMode_v1;
  if (const nvmlReturn_t r = lib_->nvmlDeviceGetAddressingMode(h, &mode);
      r == NVML_SUCCESS) {
    g.addressing_mode = AddressingModeName(mode.value);
  } else if (r != NVML_ERROR_NOT_SUPPORTED &&
             r != NVML_ERROR_FUNCTION_NOT_FOUND &&
             r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
    return NvmlError("nvmlDeviceGetAddressingMode", r, context);
  }

  nvmlGpuVirtualizationMode_t virt = NVML_GPU_VIRTUALIZATION_MODE_NONE;
  if (const nvmlReturn_t r = lib_->nvmlDeviceGetVirtualizationMode(h, &virt);
      r == NVML_SUCCESS) {
    g.vgpu_guest = virt == NVML_GPU_VIRTUALIZATION_MODE_VGPU;
  } else if (r != NVML_ERROR_NOT_SUPPORTED) {
    return NvmlError("nvmlDeviceGetVirtualizationMode", r, context);
  }

  unsigned int current = 0, pending = 0;
  if (const nvmlReturn_t r = lib_->nvmlDeviceGetMigMode(h, &current, &pending);
      r == NVML_SUCCESS) {
    g.mig_capable = true;
    g.mig_enabled = current == NVML_DEVICE_MIG_ENABLE;  // pending ignored
  } else if (r != NVML_ERROR_NOT_SUPPORTED) {
    return NvmlError("nvmlDeviceGetMigMode", r, context);
  }
  if (g.mig_capable) {
    if (absl::Status s = DiscoverMigProfiles(gpu, g); !s.ok()) return s;
  }
  if (g.mig_enabled) {
    if (absl::Status s = DiscoverMigDevices(gpu, g); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Reference §6.1 (go-nvlib's VisitMigProfiles): every GI profile index NVML
// answers for, with its possible placements.
absl::Status NvmlBackend::DiscoverMigProfiles(const Gpu& gpu, GpuFacts& g) {
  const std::string context = GpuContext(gpu.uuid);
  for (unsigned int index = 0; index < NVML_GPU_INSTANCE_PROFILE_COUNT;
       ++index) {
    nvmlGpuInstanceProfileInfo_t info{};
    nvmlReturn_t r =
        lib_->nvmlDeviceGetGpuInstanceProfileInfo(gpu.handle, index, &info);
    if (Skippable(r)) continue;
    if (r != NVML_SUCCESS) {
      return NvmlError("nvmlDeviceGetGpuInstanceProfileInfo", r, context);
    }
    unsigned int count = 0;
    r = lib_->nvmlDeviceGetGpuInstancePossiblePlacements_v2(gpu.handle, info.id,
                                                            nullptr, &count);
    std::vector<nvmlGpuInstancePlacement_t> placements(count);
    if (r == NVML_SUCCESS && count > 0) {
      r = lib_->nvmlDeviceGetGpuInstancePossiblePlacements_v2(
          gpu.handle, info.id, placements.data(), &count);
      placements.resize(count);
    }
    if (Skippable(r)) continue;
    if (r != NVML_SUCCESS) {
      return NvmlError("nvmlDeviceGetGpuInstancePossiblePlacements_v2", r,
                       context);
    }
    MigProfileFacts& p = g.mig_profiles.emplace_back();
    p.index = index;
    p.id = info.id;
    p.slice_count = info.sliceCount;
    p.instance_count = info.instanceCount;
    p.multiprocessor_count = info.multiprocessorCount;
    p.copy_engine_count = info.copyEngineCount;
    p.decoder_count = info.decoderCount;
    p.encoder_count = info.encoderCount;
    p.jpeg_count = info.jpegCount;
    p.ofa_count = info.ofaCount;
    p.memory_size_mib = info.memorySizeMB;
    for (const nvmlGpuInstancePlacement_t& pl : placements) {
      p.placements.push_back({pl.start, pl.size});
    }
  }
  return absl::OkStatus();
}

// Reference §6.2: the MIG devices that exist, in NVML's MIG index order.
absl::Status NvmlBackend::DiscoverMigDevices(const Gpu& gpu, GpuFacts& g) {
  const std::string context = GpuContext(gpu.uuid);
  unsigned int max = 0;
  DRAPLANE_NVML_TRY(context, nvmlDeviceGetMaxMigDeviceCount, gpu.handle, &max);
  for (unsigned int i = 0; i < max; ++i) {
    nvmlDevice_t mig = nullptr;
    const nvmlReturn_t r =
        lib_->nvmlDeviceGetMigDeviceHandleByIndex(gpu.handle, i, &mig);
    if (r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_INVALID_ARGUMENT) continue;
    if (r != NVML_SUCCESS) {
      return NvmlError("nvmlDeviceGetMigDeviceHandleByIndex", r, context);
    }
    MigDeviceFacts d;
    DRAPLANE_NVML_TRY(context, nvmlDeviceGetGpuInstanceId, mig,
                      &d.gpu_instance_id);
    DRAPLANE_NVML_TRY(context, nvmlDeviceGetComputeInstanceId, mig,
                      &d.compute_instance_id);
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    DRAPLANE_NVML_TRY(context, nvmlDeviceGetUUID, mig, uuid, sizeof(uuid));
    d.uuid = FromBuffer(uuid, sizeof(uuid));
    nvmlGpuInstance_t gi = nullptr;
    DRAPLANE_NVML_TRY(context, nvmlDeviceGetGpuInstanceById, gpu.handle,
                      d.gpu_instance_id, &gi);
    nvmlGpuInstanceInfo_t info{};
    DRAPLANE_NVML_TRY(context, nvmlGpuInstanceGetInfo, gi, &info);
    d.profile_id = info.profileId;
    d.placement = {info.placement.start, info.placement.size};
    g.mig_devices.push_back(std::move(d));
  }
  return absl::OkStatus();
}

// Reference §9.5.
absl::StatusOr<MigDeviceFacts> NvmlBackend::CreateMigDevice(
    std::string_view parent_uuid, uint32_t gi_profile_id,
    uint32_t placement_start) {
  absl::MutexLock l(&mu_);
  const Gpu* gpu = FindGpu(parent_uuid);
  if (gpu == nullptr) {
    return absl::NotFoundError(StrCat("nvml: no GPU with UUID ", parent_uuid));
  }
  const std::string context = GpuContext(gpu->uuid);
  unsigned int current = 0, pending = 0;
  if (const nvmlReturn_t r =
          lib_->nvmlDeviceGetMigMode(gpu->handle, &current, &pending);
      r == NVML_ERROR_NOT_SUPPORTED) {
    return absl::FailedPreconditionError(
        StrCat(context, " is not MIG capable"));
  } else if (r != NVML_SUCCESS) {
    return NvmlError("nvmlDeviceGetMigMode", r, context);
  }
  bool enabled_here = false;
  if (current != NVML_DEVICE_MIG_ENABLE) {
    // Ampere applies a MIG mode change only at the next GPU reset.
    if (gpu->architecture < kArchHopper) {
      return absl::FailedPreconditionError(StrCat(
          context,
          ": MIG mode is disabled and this GPU needs a reset to enable it "
          "(nvidia-smi -i <gpu> -mig 1, then reset the GPU)"));
    }
    nvmlReturn_t activation = NVML_SUCCESS;
    DRAPLANE_NVML_TRY(context, nvmlDeviceSetMigMode, gpu->handle,
                      NVML_DEVICE_MIG_ENABLE, &activation);
    if (activation != NVML_SUCCESS) {
      return NvmlError("nvmlDeviceSetMigMode (activation)", activation,
                       StrCat(context, ": enabling MIG mode"));
    }
    DRAPLANE_NVML_TRY(context, nvmlDeviceGetMigMode, gpu->handle, &current,
                      &pending);
    if (current != NVML_DEVICE_MIG_ENABLE) {
      return absl::FailedPreconditionError(
          StrCat(context, ": MIG mode is still disabled after enabling it"));
    }
    enabled_here = true;
  }
  absl::StatusOr<MigDeviceFacts> created =
      CreateOnEnabledGpu(*gpu, gi_profile_id, placement_start);
  if (!created.ok() && enabled_here) MaybeDisableMig(*gpu);
  return created;
}

absl::StatusOr<MigDeviceFacts> NvmlBackend::CreateOnEnabledGpu(
    const Gpu& gpu, uint32_t gi_profile_id, uint32_t placement_start) {
  const std::string context = GpuContext(gpu.uuid);
  // The GI profile index whose ID is gi_profile_id.
  nvmlGpuInstanceProfileInfo_t info{};
  bool found = false;
  for (unsigned int index = 0;
       !found && index < NVML_GPU_INSTANCE_PROFILE_COUNT; ++index) {
    const nvmlReturn_t r =
        lib_->nvmlDeviceGetGpuInstanceProfileInfo(gpu.handle, index, &info);
    if (Skippable(r)) continue;
    if (r != NVML_SUCCESS) {
      return NvmlError("nvmlDeviceGetGpuInstanceProfileInfo", r, context);
    }
    found = info.id == gi_profile_id;
  }
  if (!found) {
    return absl::NotFoundError(StrCat(
        context, " has no GPU-instance profile with ID ", gi_profile_id));
  }

  unsigned int count = 0;
  DRAPLANE_NVML_TRY(context, nvmlDeviceGetGpuInstancePossiblePlacements_v2,
                    gpu.handle, info.id, nullptr, &count);
  std::vector<nvmlGpuInstancePlacement_t> placements(count);
  if (count > 0) {
    DRAPLANE_NVML_TRY(context, nvmlDeviceGetGpuInstancePossiblePlacements_v2,
                      gpu.handle, info.id, placements.data(), &count);
    placements.resize(count);
  }
  const nvmlGpuInstancePlacement_t* placement = nullptr;
  for (const nvmlGpuInstancePlacement_t& p : placements) {
    if (p.start == placement_start) placement = &p;
  }
  if (placement == nullptr) {
    return absl::InvalidArgumentError(
        StrCat(context, ": GPU-instance profile ", gi_profile_id,
               " has no placement at memory slice ", placement_start));
  }

  nvmlGpuInstance_t gi = nullptr;
  if (const nvmlReturn_t r = lib_->nvmlDeviceCreateGpuInstanceWithPlacement(
          gpu.handle, info.id, placement, &gi);
      r == NVML_ERROR_INSUFFICIENT_RESOURCES) {
    // What NVML answers for an occupied placement (not ALREADY_EXISTS).
    return absl::FailedPreconditionError(
        StrCat(context, ": placement ", placement->start, ":", placement->size,
               " of GPU-instance profile ", gi_profile_id,
               " is occupied: nvmlDeviceCreateGpuInstanceWithPlacement: "
               "NVML_ERROR_INSUFFICIENT_RESOURCES (nvml error 23)"));
  } else if (r != NVML_SUCCESS) {
    return NvmlError("nvmlDeviceCreateGpuInstanceWithPlacement", r, context);
  }
  // From here on a failure destroys what was created.
  nvmlComputeInstance_t ci = nullptr;
  auto rollback = [&](absl::Status status) {
    if (ci != nullptr) lib_->nvmlComputeInstanceDestroy(ci);
    lib_->nvmlGpuInstanceDestroy(gi);
    return status;
  };

  nvmlGpuInstanceInfo_t gi_info{};
  if (const nvmlReturn_t r = lib_->nvmlGpuInstanceGetInfo(gi, &gi_info);
      r != NVML_SUCCESS) {
    return rollback(NvmlError("nvmlGpuInstanceGetInfo", r, context));
  }
  // The compute-instance profile spanning the whole GPU instance (the DRA
  // driver's C == G), never 1_SLICE_REV1.
  nvmlComputeInstanceProfileInfo_t ci_profile{};
  found = false;
  for (unsigned int index = 0;
       !found && index < NVML_COMPUTE_INSTANCE_PROFILE_COUNT; ++index) {
    if (index == NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE_REV1) continue;
    const nvmlReturn_t r = lib_->nvmlGpuInstanceGetComputeInstanceProfileInfo(
        gi, index, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &ci_profile);
    if (Skippable(r)) continue;
    if (r != NVML_SUCCESS) {
      return rollback(NvmlError("nvmlGpuInstanceGetComputeInstanceProfileInfo",
                                r, context));
    }
    found = ci_profile.sliceCount == info.sliceCount;
  }
  if (!found) {
    return rollback(absl::InternalError(StrCat(
        context, ": no compute-instance profile spans the ", info.sliceCount,
        " slices of GPU-instance profile ", gi_profile_id)));
  }
  if (const nvmlReturn_t r =
          lib_->nvmlGpuInstanceCreateComputeInstance(gi, ci_profile.id, &ci);
      r != NVML_SUCCESS) {
    ci = nullptr;
    return rollback(
        NvmlError("nvmlGpuInstanceCreateComputeInstance", r, context));
  }
  nvmlComputeInstanceInfo_t ci_info{};
  if (const nvmlReturn_t r = lib_->nvmlComputeInstanceGetInfo_v2(ci, &ci_info);
      r != NVML_SUCCESS) {
    return rollback(NvmlError("nvmlComputeInstanceGetInfo_v2", r, context));
  }
  // The CI's device is the MIG device: no walk over all MIG handles.
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
  if (const nvmlReturn_t r =
          lib_->nvmlDeviceGetUUID(ci_info.device, uuid, sizeof(uuid));
      r != NVML_SUCCESS) {
    return rollback(NvmlError("nvmlDeviceGetUUID", r, context));
  }
  MigDeviceFacts d;
  d.uuid = FromBuffer(uuid, sizeof(uuid));
  d.gpu_instance_id = gi_info.id;
  d.compute_instance_id = ci_info.id;
  d.profile_id = gi_info.profileId;
  d.placement = {gi_info.placement.start, gi_info.placement.size};
  return d;
}

absl::Status NvmlBackend::DestroyMigDevice(std::string_view parent_uuid,
                                           uint32_t gpu_instance_id,
                                           uint32_t compute_instance_id) {
  absl::MutexLock l(&mu_);
  const Gpu* gpu = FindGpu(parent_uuid);
  if (gpu == nullptr) {
    return absl::NotFoundError(StrCat("nvml: no GPU with UUID ", parent_uuid));
  }
  const std::string context = GpuContext(gpu->uuid);
  nvmlGpuInstance_t gi = nullptr;
  const nvmlReturn_t r =
      lib_->nvmlDeviceGetGpuInstanceById(gpu->handle, gpu_instance_id, &gi);
  if (r == NVML_ERROR_NOT_SUPPORTED) return absl::OkStatus();  // MIG is off
  if (r == NVML_SUCCESS) {
    nvmlComputeInstance_t ci = nullptr;
    const nvmlReturn_t cr = lib_->nvmlGpuInstanceGetComputeInstanceById(
        gi, compute_instance_id, &ci);
    if (cr == NVML_SUCCESS) {
      DRAPLANE_NVML_TRY(context, nvmlComputeInstanceDestroy, ci);
    } else if (cr != NVML_ERROR_NOT_FOUND) {
      return NvmlError("nvmlGpuInstanceGetComputeInstanceById", cr, context);
    }
    DRAPLANE_NVML_TRY(context, nvmlGpuInstanceDestroy, gi);
  } else if (r != NVML_ERROR_NOT_FOUND) {
    return NvmlError("nvmlDeviceGetGpuInstanceById", r, context);
  }
  MaybeDisableMig(*gpu);
  return absl::OkStatus();
}

void NvmlBackend::MaybeDisableMig(const Gpu& gpu) {
  if (gpu.architecture < kArchHopper) return;
  unsigned int current = 0, pending = 0;
  if (lib_->nvmlDeviceGetMigMode(gpu.handle, &current, &pending) !=
          NVML_SUCCESS ||
      current != NVML_DEVICE_MIG_ENABLE) {
    return;
  }
  unsigned int max = 0;
  if (lib_->nvmlDeviceGetMaxMigDeviceCount(gpu.handle, &max) != NVML_SUCCESS) {
    return;
  }
  for (unsigned int i = 0; i < max; ++i) {
    nvmlDevice_t mig = nullptr;
    if (lib_->nvmlDeviceGetMigDeviceHandleByIndex(gpu.handle, i, &mig) ==
        NVML_SUCCESS) {
      return;
    }
  }
  nvmlReturn_t activation = NVML_SUCCESS;
  lib_->nvmlDeviceSetMigMode(gpu.handle, NVML_DEVICE_MIG_DISABLE, &activation);
}

const NvmlBackend::Gpu* NvmlBackend::FindGpu(std::string_view uuid) const {
  for (const Gpu& gpu : gpus_) {
    if (gpu.uuid == uuid) return &gpu;
  }
  return nullptr;
}

std::optional<size_t> NvmlBackend::GpuIndexOf(nvmlDevice_t device) const {
  for (size_t i = 0; i < gpus_.size(); ++i) {
    if (gpus_[i].handle == device) return i;
  }
  return std::nullopt;
}

void NvmlBackend::WatchHealth() {
  while (true) {
    {
      absl::MutexLock h(&health_mu_);
      if (stopping_) return;
    }
    nvmlEventData_t event{};
    const nvmlReturn_t r =
        lib_->nvmlEventSetWait_v2(event_set_, &event, kEventWaitMs);
    if (r == NVML_SUCCESS) {
      if ((event.eventType & nvmlEventTypeXidCriticalError) != 0) {
        RecordXid(event);
      }
      continue;
    }
    if (r == NVML_ERROR_TIMEOUT) continue;
    absl::MutexLock h(&health_mu_);
    if (r == NVML_ERROR_GPU_IS_LOST) lost_ = true;
    // Other errors are ignored, as NVIDIA's driver does; pause so that a
    // wait failing at once does not spin.
    health_mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Seconds(1));
  }
}

void NvmlBackend::RecordXid(const nvmlEventData_t& event) {
  std::optional<size_t> index = GpuIndexOf(event.device);
  if (!index.has_value()) {
    // An event of a MIG device: attribute it to its parent GPU.
    absl::MutexLock l(&mu_);
    nvmlDevice_t parent = nullptr;
    if (lib_->nvmlDeviceGetDeviceHandleFromMigDeviceHandle(
            event.device, &parent) == NVML_SUCCESS) {
      index = GpuIndexOf(parent);
    }
  }
  if (!index.has_value()) return;
  absl::MutexLock h(&health_mu_);
  xids_[*index].push_back(static_cast<uint32_t>(event.eventData));
}

absl::Status NvmlBackend::SetTimeSlice(std::string_view gpu_uuid,
                                       TimeSliceInterval interval) {
  if (FindGpu(gpu_uuid) == nullptr) {
    return absl::NotFoundError(StrCat("no GPU with UUID ", gpu_uuid));
  }
  auto smi = internal::FindDriverBinary(driver_root_, "nvidia-smi");
  if (!smi.ok()) return smi.status();
  const std::string uuid(gpu_uuid);
  if (auto mode = internal::RunCommand(*smi, {"-i", uuid, "-c", "DEFAULT"},
                                       lib_->path());
      !mode.ok()) {
    return mode.status();
  }
  auto policy = internal::RunCommand(
      *smi,
      {"compute-policy", "-i", uuid,
       StrCat("--set-timeslice=", static_cast<int>(interval))},
      lib_->path());
  return policy.status();
}

std::vector<std::string> MpsEnv(const MpsDaemonSpec& spec) {
  return {
      StrCat("CUDA_MPS_PIPE_DIRECTORY=", spec.pipe_dir),
      StrCat("CUDA_MPS_LOG_DIRECTORY=", spec.log_dir),
      StrCat("CUDA_VISIBLE_DEVICES=", absl::StrJoin(spec.device_uuids, ","))};
}

absl::Status NvmlBackend::StartMpsDaemon(const MpsDaemonSpec& spec) {
  auto control =
      internal::FindDriverBinary(driver_root_, "nvidia-cuda-mps-control");
  if (!control.ok()) return control.status();
  if (!spec.whole_gpu_uuids.empty()) {
    auto smi = internal::FindDriverBinary(driver_root_, "nvidia-smi");
    if (!smi.ok()) return smi.status();
    for (const std::string& uuid : spec.whole_gpu_uuids) {
      auto mode = internal::RunCommand(
          *smi, {"-i", uuid, "-c", "EXCLUSIVE_PROCESS"}, lib_->path());
      if (!mode.ok()) return mode.status();
    }
  }
  std::error_code ec;
  if (!std::filesystem::exists(spec.pipe_dir + "/control", ec)) {
    auto started =
        internal::RunCommand(*control, {"-d"}, lib_->path(), MpsEnv(spec));
    if (!started.ok()) return started.status();
  }
  std::string script;
  if (spec.active_thread_percentage) {
    script += StrCat("set_default_active_thread_percentage ",
                     *spec.active_thread_percentage, "\n");
  }
  for (const std::string& uuid : spec.device_uuids) {
    auto limit = spec.pinned_memory_limits.find(uuid);
    if (limit != spec.pinned_memory_limits.end()) {
      script += StrCat("set_default_device_pinned_mem_limit ", uuid, " ",
                       limit->second, "\n");
    } else if (spec.default_pinned_memory_limit) {
      script += StrCat("set_default_device_pinned_mem_limit ", uuid, " ",
                       *spec.default_pinned_memory_limit, "\n");
    }
  }
  if (script.empty()) return absl::OkStatus();
  return internal::RunCommand(*control, {}, lib_->path(), MpsEnv(spec), script)
      .status();
}

absl::Status NvmlBackend::StopMpsDaemon(const MpsDaemonSpec& spec) {
  auto control =
      internal::FindDriverBinary(driver_root_, "nvidia-cuda-mps-control");
  if (!control.ok()) return control.status();
  std::error_code ec;
  if (std::filesystem::exists(spec.pipe_dir + "/control", ec)) {
    auto quit = internal::RunCommand(*control, {}, lib_->path(), MpsEnv(spec),
                                     "quit\n");
    if (!quit.ok()) return quit.status();
  }
  if (!spec.whole_gpu_uuids.empty()) {
    auto smi = internal::FindDriverBinary(driver_root_, "nvidia-smi");
    if (!smi.ok()) return smi.status();
    for (const std::string& uuid : spec.whole_gpu_uuids) {
      auto mode = internal::RunCommand(*smi, {"-i", uuid, "-c", "DEFAULT"},
                                       lib_->path());
      if (!mode.ok()) return mode.status();
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceBackend>> OpenNvmlBackend(
    const NvmlBackendOptions& options) {
  absl::StatusOr<std::unique_ptr<NvmlLibrary>> lib =
      NvmlLibrary::Load(options.library_path, options.driver_root);
  if (!lib.ok()) return lib.status();
  auto backend = std::make_unique<NvmlBackend>(
      std::move(*lib), options.sysfs_root, options.driver_root);
  if (absl::Status s = backend->Start(); !s.ok()) return s;
  return backend;
}

}  // namespace draplane::devices
