// List and watch filters from the labelSelector and fieldSelector query
// parameters, with upstream's parsing, supported-field checks and errors.
#ifndef DRAPLANE_APISERVER_INTERNAL_OBJECT_FILTER_H_
#define DRAPLANE_APISERVER_INTERNAL_OBJECT_FILTER_H_

#include <string>

#include "absl/status/statusor.h"
#include "apiserver/internal/registry.h"
#include "apiserver/internal/resources.h"

namespace draplane::apiserver::internal {

// A filter for objects of `r` (stored v1 JSON); null when both selectors
// are empty. 400 BadRequest for a selector that does not parse or names a
// field `r` does not support.
absl::StatusOr<ObjectFilter> BuildObjectFilter(const ResourceInfo& r,
                                               const std::string& labels,
                                               const std::string& fields);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_OBJECT_FILTER_H_
