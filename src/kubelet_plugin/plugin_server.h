// The node side of the kubelet's DRA plugin protocol: a gRPC server on
// two unix sockets, as upstream's kubeletplugin helper and NVIDIA's driver
// serve them (nvidia-dra-driver.md §2, §3):
//  - <registrar_dir>/<driver>-reg.sock: pluginregistration.Registration
//    (GetInfo: type DRAPlugin, the driver name, the DRA socket, services
//    "v1.DRAPlugin", "v1beta1.DRAPlugin"; NotifyRegistrationStatus);
//  - <plugin_data_dir>/dra.sock: k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin
//    and ...v1beta1.DRAPlugin, plus grpc.health.v1.Health, and with a
//    DeviceHealthSource the kubelet's DRAResourceHealth service (v1 and
//    v1alpha1, advertised in the registration as "v1.DRAResourceHealth"
//    and "v1alpha1.DRAResourceHealth"): NodeWatchResources streams a full
//    report of the devices' health at once, when it changes (looked at
//    every `health_poll`), and every `health_refresh` otherwise (the
//    kubelet takes a device unreported for 30 s as unknown); at most four
//    such streams at once, more are refused with RESOURCE_EXHAUSTED.
// NodePrepareResources reads each claim from the API server and fails the
// call (gRPC error, as upstream) if a claim is missing, not allocated or
// was replaced (another UID); otherwise every claim gets its own result.
#ifndef DRAPLANE_KUBELET_PLUGIN_PLUGIN_SERVER_H_
#define DRAPLANE_KUBELET_PLUGIN_PLUGIN_SERVER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"
#include "kubelet_plugin/dra_driver.h"

namespace draplane::kubelet_plugin {

struct PluginServerOptions {
  std::string driver_name;      // e.g. gpu.nvidia.com
  std::string plugin_data_dir;  // /var/lib/kubelet/plugins/<driver>
  // /var/lib/kubelet/plugins_registry; empty: no registration socket
  // (a simulated kubelet connects to dra.sock directly).
  std::string registrar_dir;
  // Devices' health for the kubelet; null: the service is not offered.
  // Must outlive the server.
  DeviceHealthSource* health = nullptr;
  absl::Duration health_poll = absl::Seconds(1);
  absl::Duration health_refresh = absl::Seconds(10);
  // What the health stream's waits and timestamps read (null: RealClock()).
  Clock* clock = nullptr;
};

struct RegistrationStatus {
  bool registered = false;
  std::string error;
};

class PluginServer {
 public:
  // Creates the directories, removes stale socket files, serves dra.sock
  // and then the registration socket (so the kubelet never finds a
  // registration for a service not yet serving). `api` and `driver` must
  // outlive the server. Socket paths must fit a sockaddr_un (107 bytes).
  static absl::StatusOr<std::unique_ptr<PluginServer>> Start(
      const PluginServerOptions& options, client::Client* api,
      DraDriver* driver);
  ~PluginServer();  // Stop()

  // Stops serving (in-flight calls finish) and removes the socket files.
  void Stop();

  const std::string& dra_socket() const;
  const std::string& registration_socket() const;  // "" without one
  // What the kubelet last reported through NotifyRegistrationStatus.
  std::optional<RegistrationStatus> registration_status() const;

  class Impl;

 private:
  explicit PluginServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::kubelet_plugin

#endif  // DRAPLANE_KUBELET_PLUGIN_PLUGIN_SERVER_H_
