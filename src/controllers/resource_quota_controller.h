// kube-controller-manager's resourcequota controller for the resources
// ResourceClaims are counted in (api/helpers/quota_usage.h): keeps every
// ResourceQuota's status true: status.hard = spec.hard, and status.used of
// count/resourceclaims.resource.k8s.io and each
// <class>.deviceclass.resource.k8s.io/devices = what the namespace's
// claims use. Other resources' used values are left as they are
// (draplane computes no other quota). As upstream, a namespace is
// recounted when one of its quotas is added or its spec.hard changes, or a
// claim in it is deleted (so deleted claims give their share back), and every
// namespace every `resync`; new claims are not recounted on their own events
// (the admission charged them; a recount from an informer that has not seen
// them yet would undo that).
#ifndef DRAPLANE_CONTROLLERS_RESOURCE_QUOTA_CONTROLLER_H_
#define DRAPLANE_CONTROLLERS_RESOURCE_QUOTA_CONTROLLER_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"
#include "component_helpers/runnable.h"

namespace draplane::controllers {

struct ResourceQuotaControllerOptions {
  // Upstream --resource-quota-sync-period.
  absl::Duration resync = absl::Minutes(5);
  // What the resync period runs on (null: RealClock()); outlives the
  // controller.
  Clock* clock = nullptr;
};

class ResourceQuotaController : public component_helpers::Runnable {
 public:
  // `client` outlives the controller.
  ResourceQuotaController(client::Client* client,
                          ResourceQuotaControllerOptions options = {});
  ~ResourceQuotaController() override;  // Stop()s
  ResourceQuotaController(const ResourceQuotaController&) = delete;
  ResourceQuotaController& operator=(const ResourceQuotaController&) = delete;

  absl::Status Start(absl::Duration sync_timeout =
                         component_helpers::kDefaultSyncTimeout) override;
  void Stop() override;

  int64_t status_writes() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::controllers

#endif  // DRAPLANE_CONTROLLERS_RESOURCE_QUOTA_CONTROLLER_H_
