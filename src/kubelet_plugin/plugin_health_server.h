// The kubelet plugin's liveness over TCP, as NVIDIA's DRA kubelet plugin
// serves it on --healthcheck-port for the Pod's gRPC liveness probe:
// grpc.health.v1.Health, whose Check (service "" or "liveness") calls
// GetInfo on the plugin's registration socket and an empty
// NodePrepareResources on its DRA socket, and answers SERVING only when
// both answer (NOT_SERVING otherwise, the failure logged); another service
// name is NotFound "unknown service"; Watch is Unimplemented. The port
// takes no credentials (as NVIDIA's): at most 4 threads serve it and a
// request is at most 4 KiB.
#ifndef DRAPLANE_KUBELET_PLUGIN_PLUGIN_HEALTH_SERVER_H_
#define DRAPLANE_KUBELET_PLUGIN_PLUGIN_HEALTH_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace draplane::kubelet_plugin {

class PluginHealthServer {
 public:
  // Serves on `address` ("0.0.0.0"), `port` (0: any free port; see
  // port()). `registration_socket` may be "" (no registration: a simulated
  // kubelet); `dra_socket` is the plugin's dra.sock.
  static absl::StatusOr<std::unique_ptr<PluginHealthServer>> Start(
      const std::string& address, int port,
      const std::string& registration_socket, const std::string& dra_socket);
  ~PluginHealthServer();  // stops serving
  int port() const;

  class Impl;

 private:
  explicit PluginHealthServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The probe's side (what the kubelet's gRPC probe asks): Check(`service`)
// on `target` ("127.0.0.1:PORT"); the answer's status name ("SERVING",
// "NOT_SERVING", ...), or the gRPC error.
absl::StatusOr<std::string> ProbeGrpcHealth(const std::string& target,
                                            const std::string& service);

}  // namespace draplane::kubelet_plugin

#endif  // DRAPLANE_KUBELET_PLUGIN_PLUGIN_HEALTH_SERVER_H_
