// What a DRA driver implements for the kubelet plugin server
// (plugin_server.h): preparing and unpreparing the devices allocated to a
// ResourceClaim on this node. The server does the protocol (gRPC,
// registration, fetching claims and checking them); the driver only the
// device work. Mirrors upstream's kubeletplugin.DRAPlugin interface.
#ifndef DRAPLANE_KUBELET_PLUGIN_DRA_DRIVER_H_
#define DRAPLANE_KUBELET_PLUGIN_DRA_DRIVER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "api/resource_types.h"

namespace draplane::kubelet_plugin {

// A claim as the kubelet names it.
struct ClaimRef {
  std::string namespace_;
  std::string name;
  std::string uid;
};

// One prepared device, as returned to the kubelet.
struct PreparedDevice {
  // Requests of the claim this device was allocated for (sub-request
  // suffixes "req/sub" are stripped by the server); empty means all.
  std::vector<std::string> requests;
  std::string pool;
  std::string device;
  // Fully qualified CDI device names ("vendor/class=name").
  std::vector<std::string> cdi_device_ids;
  std::optional<std::string> share_id;
};

struct PrepareResult {
  absl::Status status;  // not OK: preparing the claim failed
  std::vector<PreparedDevice> devices;
};

// Calls may come concurrently from several gRPC threads, also for the
// same claim (a kubelet retrying); implementations serialise as needed.
class DraDriver {
 public:
  virtual ~DraDriver() = default;

  // Prepares the claim's devices of this driver. `claim` was just read
  // from the API server: its UID is the one the kubelet asked for and it
  // is allocated. Must be idempotent.
  virtual PrepareResult PrepareResourceClaim(
      const api::ResourceClaim& claim) = 0;

  // Undoes PrepareResourceClaim. The claim may no longer exist in the API
  // server. A claim that is not prepared is success. Must be idempotent.
  virtual absl::Status UnprepareResourceClaim(const ClaimRef& claim) = 0;
};

// The health of one published device, as the kubelet's DRAResourceHealth
// service reports it (KEP-4680): the kubelet shows it in the status of the
// pods using the device (containerStatuses[].allocatedResourcesStatus).
enum class DeviceHealthStatus { kUnknown, kHealthy, kUnhealthy };

struct DeviceHealth {
  std::string pool;
  std::string device;
  DeviceHealthStatus health = DeviceHealthStatus::kUnknown;
  std::string message;  // why, for the user; see HealthMessage()

  friend bool operator==(const DeviceHealth&, const DeviceHealth&) = default;
};

// A health message as the kubelet keeps it: at most 1,024 bytes, a longer
// one cut to 1,021 and "..." appended, never inside a UTF-8 sequence
// (proto3 strings must be valid UTF-8; the kubelet's decoder refuses the
// whole report otherwise).
inline std::string HealthMessage(const std::string& message) {
  constexpr size_t kMax = 1024;
  if (message.size() <= kMax) return message;
  size_t cut = kMax - 3;
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return message.substr(0, cut) + "...";
}

// Implemented by a driver that reports its devices' health to the kubelet.
// Called from gRPC threads; must be thread-safe and cheap (the plugin
// server asks every second while the kubelet watches).
class DeviceHealthSource {
 public:
  virtual ~DeviceHealthSource() = default;

  // Every device the driver publishes, with its current health.
  virtual std::vector<DeviceHealth> DeviceHealthReport() = 0;
};

}  // namespace draplane::kubelet_plugin

#endif  // DRAPLANE_KUBELET_PLUGIN_DRA_DRIVER_H_
