// The kubelet's side of the DRA plugin protocol: discovers a plugin
// through its registration socket (or connects to a DRA socket directly),
// picks the first service in the plugin's preference order that it
// supports (v1.DRAPlugin, v1beta1.DRAPlugin), and calls
// NodePrepareResources / NodeUnprepareResources. Used by draplane's
// simulated kubelet and by tests that play the kubelet.
#ifndef DRAPLANE_KUBELET_PLUGIN_PLUGIN_CLIENT_H_
#define DRAPLANE_KUBELET_PLUGIN_PLUGIN_CLIENT_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kubelet_plugin/dra_driver.h"

namespace draplane::kubelet_plugin {

struct PluginInfo {
  std::string type;
  std::string name;
  std::string endpoint;
  std::vector<std::string> supported_versions;
};

// Ends a PluginClient::WatchHealth call from another thread: the watch
// returns OK soon after Cancel(), also when Cancel() came first.
class WatchCanceller {
 public:
  void Cancel();

 private:
  friend class WatchCancellerAccess;  // plugin_client.cc
  absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> cancel_ ABSL_GUARDED_BY(mu_);
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
  // The DRAResourceHealth service the kubelet would watch: the first of
  // "v1.DRAResourceHealth" and "v1alpha1.DRAResourceHealth" (the kubelet's
  // order) that the plugin advertised; "" when none (or after Connect).
  const std::string& health_service() const;

  // Per-claim results keyed by claim UID; a gRPC failure is the Status.
  // `timeout` is the kubelet's per-call timeout (45 s upstream).
  absl::StatusOr<std::map<std::string, PrepareResult>> Prepare(
      const std::vector<ClaimRef>& claims,
      absl::Duration timeout = absl::Seconds(45));
  // Watches the plugin's device health (NodeWatchResources): each report
  // goes to `on_report` until it returns false (then OK), the stream ends,
  // or `timeout` passes (DEADLINE_EXCEEDED). FailedPrecondition when the
  // plugin advertised no health service. `canceller` (may be null) ends it
  // from another thread.
  absl::Status WatchHealth(
      const std::function<bool(const std::vector<DeviceHealth>&)>& on_report,
      absl::Duration timeout, WatchCanceller* canceller = nullptr);

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
