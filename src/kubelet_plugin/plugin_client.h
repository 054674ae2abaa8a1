// The kubelet's side of the DRA plugin protocol: discovers a plugin
// through its registration socket (or connects to a DRA socket directly),
// picks the first service in the plugin's preference order that it
// supports (v1.DRAPlugin, v1beta1.DRAPlugin), and calls
// NodePrepareResources / NodeUnprepareResources. Used by draplane's
// simulated kubelet and by tests that play the kubelet.
#ifndef DRAPLANE_KUBELET_PLUGIN_PLUGIN_CLIENT_H_
#define DRAPLANE_KUBELET_PLUGIN_PLUGIN_CLIENT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kubelet_plugin/dra_driver.h"

namespace draplane::kubelet_plugin {

struct PluginInfo {
  std::string type;
  std::string name;
  std::string endpoint;
  std::vector<std::string> supported_versions;
};

class PluginClient {
 public:
  // Calls GetInfo on `registration_socket`, checks it is a DRAPlugin that
  // offers a supported service, connects to its endpoint and reports the
  // outcome with NotifyRegistrationStatus (as the kubelet's plugin
  // watcher does). FailedPrecondition for an unusable plugin.
  static absl::StatusOr<std::unique_ptr<PluginClient>> Register(
      const std::string& registration_socket);
  // Connects to a DRA socket without registration; `service` is
  // "v1.DRAPlugin" or "v1beta1.DRAPlugin".
  static absl::StatusOr<std::unique_ptr<PluginClient>> Connect(
      const std::string& dra_socket, const std::string& service);
  ~PluginClient();

  const PluginInfo& info() const;
  const std::string& service() const;  // the service in use

  // Per-claim results keyed by claim UID; a gRPC failure is the Status.
  // `timeout` is the kubelet's per-call timeout (45 s upstream).
  absl::StatusOr<std::map<std::string, PrepareResult>> Prepare(
      const std::vector<ClaimRef>& claims,
      absl::Duration timeout = absl::Seconds(45));
  absl::StatusOr<std::map<std::string, absl::Status>> Unprepare(
      const std::vector<ClaimRef>& claims,
      absl::Duration timeout = absl::Seconds(45));

  class Impl;

 private:
  explicit PluginClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::kubelet_plugin

#endif  // DRAPLANE_KUBELET_PLUGIN_PLUGIN_CLIENT_H_
