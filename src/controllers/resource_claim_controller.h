// kube-controller-manager's resourceclaim controller
// (pkg/controller/resourceclaim), with its work split the same way into
// pod keys and claim keys:
// - Pods: for each spec.resourceClaims entry with a template it creates
//   the pod's ResourceClaim (generateName "<pod>-<entry>-" truncated as
//   upstream, the template's labels and annotations plus
//   resource.kubernetes.io/pod-claim-name, the pod as controlling owner,
//   the template's spec), reusing a claim the pod already owns for that
//   entry and remembering created claims until the informer shows them, so
//   none is created twice; records it in pod.status.resourceClaimStatuses
//   (server-side apply, field manager ResourceClaimController); and
//   reserves allocated claims for pods bound without the scheduler (preset
//   nodeName). A failure is a Warning FailedResourceClaimCreation event on
//   the pod and a retry with backoff.
// - Claims: drops reservedFor entries of pods that are gone, replaced (uid)
//   or done (Succeeded/Failed, or deleted before being scheduled); when the
//   last one goes it deallocates (clears status.allocation) and removes the
//   resource.kubernetes.io/delete-protection finalizer; it also clears the
//   allocation and finalizer of an unreserved claim being deleted, and
//   deletes a generated claim whose pod is done or replaced.
//
// Beyond upstream: a periodic leak check (ResourceClaimControllerOptions::
// leak_check_period) for allocations whose consumers are gone but that
// events did not release (missed events, a stuck sync, no garbage
// collector).
//
// Difference from upstream, on purpose: the status apply lists the pod's
// existing resourceClaimStatuses entries too, so a second sync that adds
// an entry does not drop the ones this field manager applied before.
#ifndef DRAPLANE_CONTROLLERS_RESOURCE_CLAIM_CONTROLLER_H_
#define DRAPLANE_CONTROLLERS_RESOURCE_CLAIM_CONTROLLER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"
#include "component_helpers/runnable.h"
#include "metrics/metrics.h"

namespace draplane::controllers {

// Upstream generatePodClaimName: "<pod>-<entry>-", or both parts truncated
// proportionally (without the trailing hyphen) when that is longer than 57
// characters.
std::string GeneratePodClaimName(std::string_view pod_name,
                                 std::string_view pod_claim_name);

struct ResourceClaimControllerOptions {
  int workers = 8;
  // Retry backoff of a key whose sync failed (doubling, capped).
  absl::Duration initial_backoff = absl::Milliseconds(5);
  absl::Duration max_backoff = absl::Seconds(30);
  // Write events (FailedResourceClaimCreation).
  bool record_events = true;
  // Where upstream's metrics go (null: none); outlives the controller:
  // dynamic_resource_allocation_resourceclaim_creates_total{status,
  // admin_access} and dynamic_resource_allocation_resource_claims{
  // allocated,admin_access,source} (counted from the informer when
  // scraped), and draplane's dra_leaked_devices_total.
  metrics::Registry* metrics = nullptr;
  // The leak check (draplane's; 0 = off): every period, allocated claims
  // whose consumers are all gone (reservedFor pods deleted, replaced or
  // finished) or, unreserved, whose generating pod is gone or finished.
  // One still in that state at the next check (normal processing takes
  // milliseconds) is a leak: counted (its devices, in
  // dra_leaked_devices_total) and freed: reserved claims are synced again
  // (reservations dropped, deallocated), unreserved generated claims
  // deleted (the finalizer path deallocates them).
  absl::Duration leak_check_period = absl::Minutes(1);
  // What the leak check and the retry backoffs wait on (null:
  // RealClock()); outlives the controller.
  Clock* clock = nullptr;
};

// What the controller has seen and done (its metrics, for tests).
struct ResourceClaimControllerStats {
  int64_t resource_claims = 0;            // claims in the informer
  int64_t allocated_resource_claims = 0;  // of which allocated
  int64_t create_attempts = 0;
  int64_t create_failures = 0;
  int64_t leaked_devices = 0;  // found by the leak check
};

class ResourceClaimController : public component_helpers::Runnable {
 public:
  // `client` outlives the controller.
  ResourceClaimController(client::Client* client,
                          ResourceClaimControllerOptions options = {});
  ~ResourceClaimController() override;  // Stop()s
  ResourceClaimController(const ResourceClaimController&) = delete;
  ResourceClaimController& operator=(const ResourceClaimController&) = delete;

  // Starts the informers and workers; fails if they do not sync in time.
  absl::Status Start(absl::Duration sync_timeout =
                         component_helpers::kDefaultSyncTimeout) override;
  void Stop() override;

  // Claims this controller created (successful creates).
  int64_t claims_created() const;
  ResourceClaimControllerStats stats() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::controllers

#endif  // DRAPLANE_CONTROLLERS_RESOURCE_CLAIM_CONTROLLER_H_
