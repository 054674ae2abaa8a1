// Server-side apply (PATCH with application/apply-patch+yaml) with field
// managers: the fields each applier set are recorded in
// metadata.managedFields (fieldsV1 format, operation "Apply"); a field
// another applier owns with a different value is a conflict (409) unless
// force=true, which takes it over; fields an applier set before and no
// longer applies are removed unless another applier owns them. Values are
// merged like a strategic merge patch with the kind's patch schema
// (associative lists by merge key, sets of scalars, atomic lists).
//
// Other writes (POST, PUT, non-apply PATCH) record their manager with
// operation "Update" owning the fields they changed (RecordUpdateManager),
// so an applier setting such a field differently conflicts with them.
// Simplified against upstream's structured-merge-diff (documented in
// docs/apiserver.md): list semantics come from the patch schema rather than
// OpenAPI list types, and there is no special migration of client-side
// apply ownership.
#ifndef DRAPLANE_APISERVER_INTERNAL_SERVER_SIDE_APPLY_H_
#define DRAPLANE_APISERVER_INTERNAL_SERVER_SIDE_APPLY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/meta_types.h"
#include "apiserver/internal/resources.h"

namespace draplane::apiserver::internal {

struct ApplyRequest {
  std::string manager;      // fieldManager (required by the caller)
  bool force = false;       // force=true
  std::string api_version;  // the version applied in, e.g. "resource.k8s.io/v1"
  std::string subresource;  // "" or "status": managers are per subresource
  absl::Time now;           // the managedFields entry's time
};

// The object after applying `applied` (the client's configuration, in the
// served version) to `current` (same version; null when absent).
absl::StatusOr<api::Json> ServerSideApply(const ResourceInfo& r,
                                          const api::Json& current,
                                          const api::Json& applied,
                                          const ApplyRequest& request);

// Records in `next`'s metadata.managedFields that `manager` (operation
// "Update", in `api_version`, for `subresource`) owns the fields whose
// values differ from `current` (null: every field), taking them from other
// managers; entries left owning nothing are dropped.
// `now` is the entry's time.
void RecordUpdateManager(const ResourceInfo& r, const api::Json& current,
                         api::Json& next, const std::string& manager,
                         const std::string& api_version,
                         const std::string& subresource, absl::Time now);

// The fieldsV1 set of the fields `object` sets (identity fields excluded),
// with the kind's list semantics. Exposed for tests.
api::Json FieldSetOf(const ResourceInfo& r, const api::Json& object);

// A path in a fieldsV1 set: "f:<field>", "k:<merge key JSON>" (an element
// of an associative list) and "v:<value JSON>" (an element of a set).
using FieldSetPath = std::vector<std::string>;
// The leaf paths of a fieldsV1 set: empty sets, and "." markers of
// elements. Exposed for tests.
std::vector<FieldSetPath> LeavesOf(const api::Json& set);
// The value at `path` in `object` (nullptr when absent). Exposed for
// tests.
const api::Json* ValueAt(const api::Json& object, const FieldSetPath& path);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_SERVER_SIDE_APPLY_H_
