// Discovery documents: aggregated discovery (apidiscovery.k8s.io/v2) and
// the legacy APIVersions / APIGroupList / APIGroup / APIResourceList, built
// from the resource table.
#ifndef DRAPLANE_APISERVER_INTERNAL_DISCOVERY_H_
#define DRAPLANE_APISERVER_INTERNAL_DISCOVERY_H_

#include <optional>
#include <string_view>

#include "api/meta_types.h"

namespace draplane::apiserver::internal {

// The Content-Type of aggregated discovery answers.
inline constexpr std::string_view kAggregatedDiscoveryContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

// True when an Accept header asks for aggregated discovery v2.
bool AcceptsAggregatedDiscovery(std::string_view accept);

// `core` true: the list with the core group only (for /api); false: every
// named group (for /apis).
api::Json AggregatedDiscovery(bool core);
api::Json LegacyApiVersions();   // /api
api::Json LegacyApiGroupList();  // /apis
// /apis/<group>; nullopt when the group is not served.
std::optional<api::Json> LegacyApiGroup(std::string_view group);
// /api/v1 or /apis/<group>/<version>; nullopt when not served.
std::optional<api::Json> LegacyResourceList(std::string_view group,
                                            std::string_view version);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_DISCOVERY_H_
