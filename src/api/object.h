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
#include "api/rbac_types.h"
#include "api/resource_types.h"

namespace draplane::api {

// An object of a kind draplane does not model (e.g. a Service in a
// manifest): kept as JSON.
// Json's move constructor is noexcept; bugprone-exception-escape follows
// its debug-only invariant assertion.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct UnstructuredObject {
  Json json;
};

using TypedObject =
    std::variant<DeviceClass, ResourceClaim, ResourceClaimTemplate,
                 ResourceSlice, DeviceTaintRule, Namespace, Node, Pod, Event,
                 ResourceQuota, ServiceAccount, Lease, Deployment, Job, Role,
                 ClusterRole, RoleBinding, ClusterRoleBinding,
                 UnstructuredObject>;

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

// Size contract: caches hold objects as std::make_shared<const Object>, one
// allocation of sizeof(Object) plus a 16-byte control block. Keeping that
// within 1 KiB keeps every cached Node, ResourceSlice, Pod ... in
// jemalloc's 1,024-byte size class instead of the 1,280-byte one (the
// scheduler's memory per published device depends on it). Rarely used
// large members of a kind are boxed (compact.h) to stay within it.
static_assert(sizeof(Object) + 16 <= 1024,
              "api::Object outgrew the 1 KiB allocation class; box a rarely "
              "used member of the largest kind");

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
