// Running nvidia-smi for the settings NVML does not expose (NVIDIA's driver
// does the same for time-slicing): the binary from the driver root, with
// the driver's libnvidia-ml.so.1 preloaded so both come from one driver.
#ifndef DRAPLANE_DEVICES_NVML_INTERNAL_NVIDIA_SMI_H_
#define DRAPLANE_DEVICES_NVML_INTERNAL_NVIDIA_SMI_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace draplane::devices::internal {

// A driver binary (nvidia-smi, nvidia-cuda-mps-control) under
// `driver_root` in /opt/bin, /usr/bin, /usr/sbin, /bin, /sbin (NVIDIA's
// search order); NotFound when there is none.
absl::StatusOr<std::string> FindDriverBinary(const std::string& driver_root,
                                             const std::string& name);

// Runs `binary args...` with LD_PRELOAD=`preload` (when not empty) and
// `env` ("K=V") added to this process's environment, `input` on its
// standard input, and returns its standard output and error. A non-zero
// exit is an Internal error quoting the command line and the output.
absl::StatusOr<std::string> RunCommand(const std::string& binary,
                                       const std::vector<std::string>& args,
                                       const std::string& preload,
                                       const std::vector<std::string>& env = {},
                                       const std::string& input = "");

}  // namespace draplane::devices::internal

#endif  // DRAPLANE_DEVICES_NVML_INTERNAL_NVIDIA_SMI_H_
