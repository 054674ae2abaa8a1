// Resource-name classes of k8s.io/kubernetes pkg/apis/core/v1/helper and
// pkg/scheduler/util (IsExtendedResourceName, IsScalarResourceName, ...).
#ifndef DRAPLANE_SCHEDULER_NODE_FILTERS_INTERNAL_RESOURCE_NAMES_H_
#define DRAPLANE_SCHEDULER_NODE_FILTERS_INTERNAL_RESOURCE_NAMES_H_

#include <string_view>

namespace draplane::scheduler::node_filters::internal {

inline constexpr std::string_view kHugePagesPrefix = "hugepages-";
inline constexpr std::string_view kAttachableVolumesPrefix =
    "attachable-volumes-";

// Contains "kubernetes.io/".
bool IsPrefixedNativeResource(std::string_view name);
// No '/' or IsPrefixedNativeResource.
bool IsNativeResource(std::string_view name);
// Not native, not "requests."-prefixed, and "requests." + name is a
// qualified name (optional DNS-subdomain prefix, '/', name of at most 63
// characters).
bool IsExtendedResourceName(std::string_view name);
// Extended, hugepages-*, prefixed native or attachable-volumes-*.
bool IsScalarResourceName(std::string_view name);
// apimachinery validation.IsQualifiedName == no error.
bool IsQualifiedName(std::string_view value);

}  // namespace draplane::scheduler::node_filters::internal

#endif  // DRAPLANE_SCHEDULER_NODE_FILTERS_INTERNAL_RESOURCE_NAMES_H_
