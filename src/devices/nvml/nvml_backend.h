// The `nvml` device backend: the node's NVIDIA GPUs as libnvidia-ml.so.1
// reports them, loaded at run time with dlopen so draplane builds and runs
// without the driver. What it collects and how MIG devices are created and
// destroyed follows NVIDIA's DRA driver (go-nvlib), see
// ../shared/design/reference/nvidia-dra-driver.md §6, §9.5 and §11.2.
#ifndef DRAPLANE_DEVICES_NVML_NVML_BACKEND_H_
#define DRAPLANE_DEVICES_NVML_NVML_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "devices/device_backend.h"

namespace draplane::devices {

struct NvmlBackendOptions {
  // The library to load. Empty: libnvidia-ml.so.1 searched under
  // `driver_root` (see nvml_internal::NvmlLibrary::Load).
  std::string library_path;
  // Where the driver's files are (e.g. "/run/nvidia/driver" with the GPU
  // Operator's containerised driver).
  std::string driver_root = "/";
  // sysfs, for each GPU's PCIe root complex (pcieRoot).
  std::string sysfs_root = "/sys";
};

// Loads NVML, calls nvmlInit_v2 and, when the driver has the event API,
// starts a health thread that watches XID, double- and single-bit ECC
// events of every GPU. The backend calls nvmlShutdown and stops the thread
// when destroyed (within about a second).
//
// Errors: Unavailable when the library cannot be loaded ("libnvidia-ml.so.1
// not found under <root> (is the NVIDIA driver installed?)") or NVML cannot
// initialise (driver not loaded); FailedPrecondition when a required
// function is missing.
//
// All calls into NVML are serialised by one mutex (MIG changes in NVML are
// not safe to interleave), except the health thread's nvmlEventSetWait_v2,
// which blocks up to a second and is documented thread-safe.
absl::StatusOr<std::unique_ptr<DeviceBackend>> OpenNvmlBackend(
    const NvmlBackendOptions& options);

}  // namespace draplane::devices

#endif  // DRAPLANE_DEVICES_NVML_NVML_BACKEND_H_
