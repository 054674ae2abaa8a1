// The admin-access gate (KEP-5018), as kube-apiserver's resource registry
// applies it (pkg/registry/resource: AuthorizedForAdmin on creating a
// ResourceClaim or ResourceClaimTemplate, AuthorizedForAdminStatus on
// updating a claim's status): a request or an allocation result with
// adminAccess is allowed only in a namespace labelled
// resource.kubernetes.io/admin-access: "true". Admin access reaches
// devices that other pods are using, so without the label any user who can
// create a claim could read another namespace's GPU.
#ifndef DRAPLANE_APISERVER_INTERNAL_ADMIN_ACCESS_H_
#define DRAPLANE_APISERVER_INTERNAL_ADMIN_ACCESS_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "common/field_errors.h"

namespace draplane::apiserver::internal {

// Whether namespace `ns` carries the admin-access label; NotFound when the
// namespace does not exist.
using AdminNamespaceLookup =
    std::function<absl::StatusOr<bool>(const std::string& ns)>;

// The gate's errors for `object` about to be stored: on a create (`old`
// null) of a ResourceClaim or ResourceClaimTemplate, the first request
// with adminAccess (Forbidden at spec.devices.requests[i].adminAccess, the
// path upstream reports); on a claim status update (`subresource`
// "status"), the first allocation result with adminAccess unless the old
// allocation already granted it (status.allocation.devices.results[i].
// adminAccess). A namespace that cannot be read is an InternalError there;
// one that does not exist is left to the namespace check, which upstream
// runs first. Empty for every other write.
FieldErrorList AdminAccessErrors(const api::Object& object,
                                 const api::Object* old,
                                 std::string_view subresource,
                                 const AdminNamespaceLookup& lookup);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_ADMIN_ACCESS_H_
