// kube-controller-manager's resourceclaim controller, template part: for
// each pod entry with resourceClaimTemplateName it creates the pod's
// ResourceClaim from the template (generateName "<pod>-<entry>-" truncated
// as upstream, the template's labels and annotations plus
// resource.kubernetes.io/pod-claim-name, the pod as controlling owner, the
// template's spec) and records it in pod.status.resourceClaimStatuses
// (server-side apply, field manager ResourceClaimController). A claim the
// pod already owns for that entry is reused, and claims this controller
// created are remembered until the informers show them, so none is created
// twice.
//
// (Reservation cleanup and deallocation come with the claim lifecycle
// controllers.)
#ifndef DRAPLANE_CONTROLLERS_RESOURCE_CLAIM_CONTROLLER_H_
#define DRAPLANE_CONTROLLERS_RESOURCE_CLAIM_CONTROLLER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"

namespace draplane::controllers {

// The annotation naming the pod entry a generated claim is for.
inline constexpr std::string_view kPodClaimNameAnnotation =
    "resource.kubernetes.io/pod-claim-name";

// Upstream generatePodClaimName: "<pod>-<entry>-", or both parts truncated
// proportionally (without the trailing hyphen) when that is longer than 57
// characters.
std::string GeneratePodClaimName(std::string_view pod_name,
                                 std::string_view pod_claim_name);

struct ResourceClaimControllerOptions {
  int workers = 8;
  // Retry backoff of a pod whose sync failed (doubling, capped).
  absl::Duration initial_backoff = absl::Milliseconds(5);
  absl::Duration max_backoff = absl::Seconds(30);
};

class ResourceClaimController {
 public:
  // `client` outlives the controller.
  ResourceClaimController(client::Client* client,
                          ResourceClaimControllerOptions options = {});
  ~ResourceClaimController();  // Stop()s
  ResourceClaimController(const ResourceClaimController&) = delete;
  ResourceClaimController& operator=(const ResourceClaimController&) = delete;

  // Starts the informers and workers; fails if they do not sync in time.
  absl::Status Start(absl::Duration sync_timeout = absl::Seconds(60));
  void Stop();

  int64_t claims_created() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::controllers

#endif  // DRAPLANE_CONTROLLERS_RESOURCE_CLAIM_CONTROLLER_H_
