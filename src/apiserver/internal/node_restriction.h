// kube-apiserver's NodeRestriction admission plugin
// (plugin/pkg/admission/noderestriction) for the kinds draplane serves:
// what a node (`system:node:<name>` in system:nodes) writes must be its
// own. It creates and updates only its own Node (no taint, ownerReference
// or restricted-label changes), only its Lease in kube-node-lease, only
// ResourceSlices whose spec.nodeName is its name (and deletes only those),
// deletes only pods bound to it, updates only the status of pods bound to
// it (not their labels or ResourceClaim statuses), and creates only
// mirror pods of its own. Refusals are 403s with upstream's texts. Other
// users pass untouched.
#ifndef DRAPLANE_APISERVER_INTERNAL_NODE_RESTRICTION_H_
#define DRAPLANE_APISERVER_INTERNAL_NODE_RESTRICTION_H_

#include <string>
#include <string_view>

#include "apiserver/admission.h"
#include "apiserver/internal/registry.h"
#include "apiserver/internal/resources.h"

namespace draplane::apiserver::internal {

class NodeRestrictionAdmission final : public AdmissionPlugin {
 public:
  // Where a mirror pod's owner Node is looked up; until attached, a
  // node's pod creates are refused. `registry` outlives the plugin.
  void Attach(const Registry* registry) { registry_ = registry; }

  std::string_view Name() const override { return "NodeRestriction"; }
  absl::Status Admit(const AdmissionRequest& request,
                     api::Json& object) override;
  bool MayMutate(const AdmissionRequest&) const override { return false; }

 private:
  absl::Status AdmitMirrorPod(const std::string& me, const ResourceInfo& r,
                              const std::string& name,
                              const api::Json& pod) const;

  const Registry* registry_ = nullptr;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_NODE_RESTRICTION_H_
