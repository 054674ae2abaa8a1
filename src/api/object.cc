#include "api/object.h"

#include "common/str_cat.h"

namespace draplane::api {

const ObjectMeta* Object::metadata() const {
  return std::visit(
      [](const auto& v) -> const ObjectMeta* {
        if constexpr (requires { v.metadata; }) {
          return &v.metadata;
        } else {
          return nullptr;
        }
      },
      value);
}

ObjectMeta* Object::mutable_metadata() {
  return const_cast<ObjectMeta*>(std::as_const(*this).metadata());
}

std::string Object::DisplayName() const {
  std::string name;
  std::string ns;
  if (const ObjectMeta* meta = metadata()) {
    name = meta->name.empty() ? meta->generate_name : meta->name;
    ns = meta->namespace_;
  } else if (const auto* u = std::get_if<UnstructuredObject>(&value)) {
    if (u->json.contains("metadata") && u->json["metadata"].is_object()) {
      const Json& m = u->json["metadata"];
      if (m.contains("name") && m["name"].is_string()) name = m["name"];
      if (m.contains("namespace") && m["namespace"].is_string()) {
        ns = m["namespace"];
      }
    }
  }
  if (name.empty()) name = "<unnamed>";
  return ns.empty() ? StrCat(type.kind, "/", name)
                    : StrCat(type.kind, "/", ns, "/", name);
}

const std::vector<KindInfo>& ServedKinds() {
  static const auto* kinds = new std::vector<KindInfo>{
      {"resource.k8s.io",
       "DeviceClass",
       "deviceclasses",
       false,
       {"v1", "v1beta2", "v1beta1"}},
      {"resource.k8s.io",
       "ResourceClaim",
       "resourceclaims",
       true,
       {"v1", "v1beta2", "v1beta1"}},
      {"resource.k8s.io",
       "ResourceClaimTemplate",
       "resourceclaimtemplates",
       true,
       {"v1", "v1beta2", "v1beta1"}},
      {"resource.k8s.io",
       "ResourceSlice",
       "resourceslices",
       false,
       {"v1", "v1beta2", "v1beta1"}},
      {"resource.k8s.io",
       "DeviceTaintRule",
       "devicetaintrules",
       false,
       {"v1", "v1beta2"}},
      {"", "Namespace", "namespaces", false, {"v1"}},
      {"", "Node", "nodes", false, {"v1"}},
      {"", "Pod", "pods", true, {"v1"}},
      {"", "Event", "events", true, {"v1"}},
      {"", "ResourceQuota", "resourcequotas", true, {"v1"}},
      {"", "ServiceAccount", "serviceaccounts", true, {"v1"}},
      {"coordination.k8s.io", "Lease", "leases", true, {"v1"}},
      {"apps", "Deployment", "deployments", true, {"v1"}},
      {"batch", "Job", "jobs", true, {"v1"}},
      {"rbac.authorization.k8s.io", "Role", "roles", true, {"v1"}},
      {"rbac.authorization.k8s.io",
       "ClusterRole",
       "clusterroles",
       false,
       {"v1"}},
      {"rbac.authorization.k8s.io",
       "RoleBinding",
       "rolebindings",
       true,
       {"v1"}},
      {"rbac.authorization.k8s.io",
       "ClusterRoleBinding",
       "clusterrolebindings",
       false,
       {"v1"}},
  };
  return *kinds;
}

const KindInfo* FindKind(std::string_view group, std::string_view kind) {
  for (const KindInfo& info : ServedKinds()) {
    if (info.group == group && info.kind == kind) return &info;
  }
  return nullptr;
}

std::pair<std::string_view, std::string_view> SplitApiVersion(
    std::string_view api_version) {
  size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) return {"", api_version};
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

}  // namespace draplane::api
