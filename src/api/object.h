// A decoded Kubernetes object of any kind draplane serves, and the table of
// those kinds (group, versions, scope, resource name).
#ifndef DRAPLANE_API_OBJECT_H_
#define DRAPLANE_API_OBJECT_H_

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/core_types.h"
#include "api/meta_types.h"
#include "api/resource_types.h"

namespace draplane::api {

// An object of a kind draplane does not model (e.g. a Service in a
// manifest): kept as JSON.
struct UnstructuredObject {
  Json json;
};

using TypedObject =
    std::variant<DeviceClass, ResourceClaim, ResourceClaimTemplate,
                 ResourceSlice, DeviceTaintRule, Namespace, Node, Pod, Event,
                 ResourceQuota, Lease, Deployment, Job, UnstructuredObject>;

// One object with the apiVersion/kind it was read as. `value` is always in
// the internal (v1) form, whatever version it was read in.
struct Object {
  TypeMeta type;
  TypedObject value;

  const std::string& kind() const { return type.kind; }
  // Metadata of a typed object; nullptr for an UnstructuredObject.
  const ObjectMeta* metadata() const;
  ObjectMeta* mutable_metadata();
  // "kind/name" or "kind/namespace/name" for messages.
  std::string DisplayName() const;
};

// A kind draplane serves.
struct KindInfo {
  std::string_view group;     // "" for core
  std::string_view kind;      // "ResourceClaim"
  std::string_view resource;  // "resourceclaims"
  bool namespaced;
  // Versions it is served in, preferred (storage) version first.
  std::vector<std::string_view> versions;
};

// All kinds draplane serves, in a stable order.
const std::vector<KindInfo>& ServedKinds();
// nullptr when the group/kind is not served.
const KindInfo* FindKind(std::string_view group, std::string_view kind);

// Splits "resource.k8s.io/v1" into {"resource.k8s.io", "v1"} and "v1" into
// {"", "v1"}.
std::pair<std::string_view, std::string_view> SplitApiVersion(
    std::string_view api_version);

}  // namespace draplane::api

#endif  // DRAPLANE_API_OBJECT_H_
