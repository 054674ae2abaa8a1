#include "apiserver/internal/admin_access.h"

#include <optional>
#include <vector>

#include "api/resource_types.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

std::optional<FieldPath> FirstAdminRequest(
    const std::vector<api::DeviceRequest>& requests) {
  for (size_t i = 0; i < requests.size(); ++i) {
    // Only `exactly` can carry adminAccess (not subrequests).
    const auto& exactly = requests[i].exactly;
    if (exactly.has_value() && exactly->admin_access.value_or(false)) {
      return FieldPath("spec")
          .Child("devices", "requests")
          .Index(static_cast<int64_t>(i))
          .Child("adminAccess");
    }
  }
  return std::nullopt;
}

std::optional<FieldPath> FirstAdminResult(const api::ResourceClaim& claim) {
  if (!claim.status.allocation.has_value()) return std::nullopt;
  const auto& results = claim.status.allocation->devices.results;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].admin_access.value_or(false)) {
      return FieldPath("status")
          .Child("allocation", "devices")
          .Child("results")
          .Index(static_cast<int64_t>(i))
          .Child("adminAccess");
    }
  }
  return std::nullopt;
}

FieldErrorList CheckNamespace(const std::string& ns, const FieldPath& path,
                              const AdminNamespaceLookup& lookup) {
  absl::StatusOr<bool> labelled = lookup(ns);
  if (absl::IsNotFound(labelled.status())) return {};
  if (!labelled.ok()) {
    return {InternalError(
        path, StrCat("could not retrieve namespace to verify admin access: ",
                     labelled.status().message()))};
  }
  if (*labelled) return {};
  return {Forbidden(path, StrCat("admin access to devices requires the `",
                                 api::kLabelAdminAccess,
                                 ": true` label on the containing namespace"))};
}

}  // namespace

FieldErrorList AdminAccessErrors(const api::Object& object,
                                 const api::Object* old,
                                 std::string_view subresource,
                                 const AdminNamespaceLookup& lookup) {
  if (const auto* claim = std::get_if<api::ResourceClaim>(&object.value)) {
    std::optional<FieldPath> path;
    if (old == nullptr) {
      path = FirstAdminRequest(claim->spec.devices.requests);
    } else if (subresource == "status") {
      const auto* old_claim = std::get_if<api::ResourceClaim>(&old->value);
      // A granted allocation is immutable: no need to look again.
      if (old_claim != nullptr && FirstAdminResult(*old_claim).has_value()) {
        return {};
      }
      path = FirstAdminResult(*claim);
    }
    if (!path.has_value()) return {};
    return CheckNamespace(claim->metadata.namespace_, *path, lookup);
  }
  if (const auto* tmpl =
          std::get_if<api::ResourceClaimTemplate>(&object.value)) {
    if (old != nullptr) return {};  // the spec is immutable
    std::optional<FieldPath> path =
        FirstAdminRequest(tmpl->spec->spec.devices.requests);
    if (!path.has_value()) return {};
    return CheckNamespace(tmpl->metadata.namespace_, *path, lookup);
  }
  return {};
}

}  // namespace draplane::apiserver::internal
