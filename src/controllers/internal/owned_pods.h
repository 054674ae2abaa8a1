// What the standalone workload controllers (Deployment, Job) share: the
// pods an object controls and pods made from its template.
#ifndef DRAPLANE_CONTROLLERS_INTERNAL_OWNED_PODS_H_
#define DRAPLANE_CONTROLLERS_INTERNAL_OWNED_PODS_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/core_types.h"
#include "api/meta_types.h"
#include "client/informer.h"

namespace draplane::controllers::internal {

// Pods in `ns` whose controller reference has `owner_uid`.
std::vector<client::ObjectPtr> OwnedPods(const client::Informer& pods,
                                         const std::string& ns,
                                         const std::string& owner_uid);

// The controlling owner's "<ns>/<name>" if `pod` has a controller
// reference of `kind` (e.g. "Deployment"), else "".
std::string ControllerKey(const api::Pod& pod, std::string_view kind);

// Informer handlers that call `add` on every add, update and delete with
// the object's "<ns>/<name>" (QueueKeys) or, for a pod, with its
// controlling owner's of `kind` if it has one (QueueOwnerKeys).
client::EventHandler QueueKeys(std::function<void(const std::string&)> add);
client::EventHandler QueueOwnerKeys(
    std::string_view kind, std::function<void(const std::string&)> add);

// Neither finished (Succeeded/Failed) nor being deleted.
bool IsActivePod(const api::Pod& pod);

// A new pod from `tmpl`: generateName `generate_name`, the template's
// labels plus `extra_labels` and its annotations, `owner` as controller
// (blockOwnerDeletion), the template's spec.
api::Object PodFromTemplate(
    const api::PodTemplateSpec& tmpl, const std::string& ns,
    const std::string& generate_name,
    const std::map<std::string, std::string>& extra_labels,
    api::OwnerReference owner);

}  // namespace draplane::controllers::internal

#endif  // DRAPLANE_CONTROLLERS_INTERNAL_OWNED_PODS_H_
