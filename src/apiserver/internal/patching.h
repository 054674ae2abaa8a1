// PATCH request bodies: the patch type from the Content-Type and its
// application to the current object (in the version the client uses).
#ifndef DRAPLANE_APISERVER_INTERNAL_PATCHING_H_
#define DRAPLANE_APISERVER_INTERNAL_PATCHING_H_

#include <string>

#include "absl/status/statusor.h"
#include "api/meta_types.h"
#include "apiserver/internal/resources.h"
#include "apiserver/internal/server_side_apply.h"

namespace draplane::apiserver::internal {

enum class PatchType { kJson, kMerge, kStrategic, kApply };

// 415 UnsupportedMediaType for other types, and for strategic merge patch
// on kinds without Go struct tags upstream (resource.k8s.io).
absl::StatusOr<PatchType> ParsePatchType(const std::string& content_type,
                                         const ResourceInfo& r);

// The patched object. `current` is null when the object does not exist
// (only apply patches get there: the result is the applied object).
//
// Apply patches go through server_side_apply.h with `apply` (manager,
// force, version); the other types ignore it.
absl::StatusOr<api::Json> ApplyPatch(PatchType type, const ResourceInfo& r,
                                     const api::Json& current,
                                     const std::string& body,
                                     const ApplyRequest& apply);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_PATCHING_H_
