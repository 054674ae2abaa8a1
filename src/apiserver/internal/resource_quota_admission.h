// kube-apiserver's ResourceQuota admission for ResourceClaims (the quota
// evaluator in api/helpers/quota_usage.h): a claim create is refused with 403
// Forbidden when it would take a ResourceQuota of its namespace past
// spec.hard for count/resourceclaims.resource.k8s.io or a
// <class>.deviceclass.resource.k8s.io/devices resource, with upstream's
// text:
//   resourceclaims.resource.k8s.io "<name>" is forbidden: exceeded quota:
//   <quota>, requested: <r>=<n>, used: <r>=<n>, limited: <r>=<n>
// A quota whose status.hard does not list the resource yet (the quota
// controller has not seen it) refuses with "status unknown for quota:
// <quota>, resources: <r>". An admitted create adds its usage to every
// matching quota's status.used (not in dry runs) with a write conditioned
// on the quota's version, re-checked against spec.hard on every retry, as
// upstream's quota evaluator does: concurrent creates never together pass
// the limit. When a later quota refuses, the earlier charges are taken
// back. The quota controller recomputes used from the claims that exist.
// Updates cost nothing (a claim's spec is immutable).
#ifndef DRAPLANE_APISERVER_INTERNAL_RESOURCE_QUOTA_ADMISSION_H_
#define DRAPLANE_APISERVER_INTERNAL_RESOURCE_QUOTA_ADMISSION_H_

#include <memory>

#include "apiserver/admission.h"

namespace draplane::apiserver::internal {

class Registry;

class ResourceQuotaAdmission : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "ResourceQuota"; }
  absl::Status Admit(const AdmissionRequest& request,
                     api::Json& object) override;
  // Quota only charges and denies.
  bool MayMutate(const AdmissionRequest&) const override { return false; }
  // The registry the quotas are read from and written to; set once,
  // before the first request.
  void Attach(Registry* registry) { registry_ = registry; }

 private:
  Registry* registry_ = nullptr;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_RESOURCE_QUOTA_ADMISSION_H_
