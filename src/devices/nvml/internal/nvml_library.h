// libnvidia-ml.so.1 loaded with dlopen: the function table the backend calls
// through, and NVML return codes as absl::Status.
#ifndef DRAPLANE_DEVICES_NVML_INTERNAL_NVML_LIBRARY_H_
#define DRAPLANE_DEVICES_NVML_INTERNAL_NVML_LIBRARY_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "devices/nvml/internal/nvml_api.h"

namespace draplane::devices::nvml_internal {

// Every NVML function the backend calls, by its exported (versioned) name.
// Required ones must exist; a missing optional one behaves as if it returned
// NVML_ERROR_NOT_SUPPORTED, as NVIDIA's Go bindings treat missing symbols
// (older drivers lack nvmlDeviceGetAddressingMode, pre-Ampere drivers the
// MIG calls).
#define DRAPLANE_NVML_FUNCTIONS(REQUIRED, OPTIONAL)       \
  REQUIRED(nvmlInit_v2)                                   \
  REQUIRED(nvmlShutdown)                                  \
  REQUIRED(nvmlSystemGetDriverVersion)                    \
  REQUIRED(nvmlSystemGetCudaDriverVersion)                \
  REQUIRED(nvmlDeviceGetCount_v2)                         \
  REQUIRED(nvmlDeviceGetHandleByIndex_v2)                 \
  REQUIRED(nvmlDeviceGetMinorNumber)                      \
  REQUIRED(nvmlDeviceGetUUID)                             \
  REQUIRED(nvmlDeviceGetName)                             \
  REQUIRED(nvmlDeviceGetArchitecture)                     \
  REQUIRED(nvmlDeviceGetBrand)                            \
  REQUIRED(nvmlDeviceGetCudaComputeCapability)            \
  REQUIRED(nvmlDeviceGetMemoryInfo)                       \
  REQUIRED(nvmlDeviceGetPciInfo_v3)                       \
  OPTIONAL(nvmlDeviceGetAddressingMode)                   \
  OPTIONAL(nvmlDeviceGetVirtualizationMode)               \
  OPTIONAL(nvmlDeviceGetMigMode)                          \
  OPTIONAL(nvmlDeviceSetMigMode)                          \
  OPTIONAL(nvmlDeviceGetGpuInstanceProfileInfo)           \
  OPTIONAL(nvmlDeviceGetGpuInstancePossiblePlacements_v2) \
  OPTIONAL(nvmlDeviceCreateGpuInstanceWithPlacement)      \
  OPTIONAL(nvmlDeviceGetGpuInstanceById)                  \
  OPTIONAL(nvmlGpuInstanceGetInfo)                        \
  OPTIONAL(nvmlGpuInstanceDestroy)                        \
  OPTIONAL(nvmlGpuInstanceGetComputeInstanceProfileInfo)  \
  OPTIONAL(nvmlGpuInstanceCreateComputeInstance)          \
  OPTIONAL(nvmlGpuInstanceGetComputeInstanceById)         \
  OPTIONAL(nvmlComputeInstanceGetInfo_v2)                 \
  OPTIONAL(nvmlComputeInstanceDestroy)                    \
  OPTIONAL(nvmlDeviceGetMaxMigDeviceCount)                \
  OPTIONAL(nvmlDeviceGetMigDeviceHandleByIndex)           \
  OPTIONAL(nvmlDeviceGetDeviceHandleFromMigDeviceHandle)  \
  OPTIONAL(nvmlDeviceGetGpuInstanceId)                    \
  OPTIONAL(nvmlDeviceGetComputeInstanceId)                \
  OPTIONAL(nvmlEventSetCreate)                            \
  OPTIONAL(nvmlDeviceGetSupportedEventTypes)              \
  OPTIONAL(nvmlDeviceRegisterEvents)                      \
  OPTIONAL(nvmlEventSetWait_v2)                           \
  OPTIONAL(nvmlEventSetFree)

// The loaded library. Every function pointer is non-null after Load. Calls
// go straight to NVML: serialising them is the caller's business.
class NvmlLibrary {
 public:
  // Loads `library_path` when it is not empty. Otherwise searches
  // libnvidia-ml.so.1 under `driver_root` in the distributions' library
  // directories (/usr/lib64, /usr/lib/x86_64-linux-gnu,
  // /usr/lib/aarch64-linux-gnu, /lib64, /lib/x86_64-linux-gnu,
  // /lib/aarch64-linux-gnu) and, when `driver_root` is "/", falls back to the
  // dynamic linker's search (a library outside a non-default driver root
  // would not belong to that driver). Unavailable when nothing loads;
  // FailedPrecondition naming the symbol when a required one is missing.
  static absl::StatusOr<std::unique_ptr<NvmlLibrary>> Load(
      const std::string& library_path, const std::string& driver_root);

  ~NvmlLibrary();  // dlclose
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The file that was loaded (as passed to dlopen).
  const std::string& path() const { return path_; }

// NOLINTNEXTLINE(bugprone-macro-parentheses): `name` is a declarator.
#define DRAPLANE_NVML_MEMBER(name) decltype(&::name) name = nullptr;
  DRAPLANE_NVML_FUNCTIONS(DRAPLANE_NVML_MEMBER, DRAPLANE_NVML_MEMBER)
#undef DRAPLANE_NVML_MEMBER

 private:
  NvmlLibrary(void* handle, std::string path)
      : handle_(handle), path_(std::move(path)) {}

  void* handle_;
  std::string path_;
};

// "NVML_ERROR_NOT_FOUND" for 6; "NVML_ERROR_<n>" for codes it does not know.
std::string NvmlReturnName(nvmlReturn_t ret);

// The Status of a failed NVML call: canonical code by `ret` (NOT_FOUND ->
// NotFound, NO_PERMISSION -> PermissionDenied, NOT_SUPPORTED / IN_USE /
// RESET_REQUIRED / UNINITIALIZED -> FailedPrecondition, INSUFFICIENT_RESOURCES
// / MEMORY -> ResourceExhausted, TIMEOUT -> DeadlineExceeded, GPU_IS_LOST /
// DRIVER_NOT_LOADED / LIB_RM_VERSION_MISMATCH -> Unavailable, ...), message
// "<context>: <function>: NVML_ERROR_X (nvml error N)", and the code as a
// payload for NvmlReturnOf. REQUIRES: ret != NVML_SUCCESS.
absl::Status NvmlError(std::string_view function, nvmlReturn_t ret,
                       std::string_view context = "");

// The NVML return code a Status from NvmlError carries.
std::optional<nvmlReturn_t> NvmlReturnOf(const absl::Status& status);

}  // namespace draplane::devices::nvml_internal

#endif  // DRAPLANE_DEVICES_NVML_INTERNAL_NVML_LIBRARY_H_
