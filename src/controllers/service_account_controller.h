// kube-controller-manager's serviceaccount controller: every active
// namespace has a ServiceAccount named `default`. A namespace is synced
// when it is added or changes and when one of its ServiceAccounts is
// deleted (a deleted `default` comes back); a namespace that is
// terminating is left alone, as upstream.
#ifndef DRAPLANE_CONTROLLERS_SERVICE_ACCOUNT_CONTROLLER_H_
#define DRAPLANE_CONTROLLERS_SERVICE_ACCOUNT_CONTROLLER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"
#include "component_helpers/runnable.h"

namespace draplane::controllers {

struct ServiceAccountControllerOptions {
  // The ServiceAccounts every namespace gets (upstream: only `default`).
  std::vector<std::string> service_accounts = {"default"};
  // What the backoff after a failed create runs on (null: RealClock());
  // outlives the controller.
  Clock* clock = nullptr;
};

class ServiceAccountController : public component_helpers::Runnable {
 public:
  // `client` outlives the controller.
  explicit ServiceAccountController(
      client::Client* client, ServiceAccountControllerOptions options = {});
  ~ServiceAccountController() override;  // Stop()s
  ServiceAccountController(const ServiceAccountController&) = delete;
  ServiceAccountController& operator=(const ServiceAccountController&) = delete;

  absl::Status Start(absl::Duration sync_timeout =
                         component_helpers::kDefaultSyncTimeout) override;
  void Stop() override;

  // ServiceAccounts this controller created.
  int64_t created() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::controllers

#endif  // DRAPLANE_CONTROLLERS_SERVICE_ACCOUNT_CONTROLLER_H_
