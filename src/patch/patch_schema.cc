// PatchSchema and the schemas of the kinds draplane serves.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "patch/patch.h"

namespace draplane::patch {

PatchSchema::PatchSchema() : types_(1) {}

PatchSchema::TypeId PatchSchema::AddType() {
  types_.emplace_back();
  return static_cast<TypeId>(types_.size() - 1);
}

// Walks `path` below `type`, declaring missing intermediate fields with new
// types; returns the type holding the last segment, stored in *last.
PatchSchema::TypeId PatchSchema::Walk(TypeId type, std::string_view path,
                                      std::string* last) {
  size_t dot;
  while ((dot = path.find('.')) != std::string_view::npos) {
    std::string segment(path.substr(0, dot));
    path.remove_prefix(dot + 1);
    auto it = types_[type].find(segment);
    if (it == types_[type].end()) {
      it = types_[type].emplace(segment, Field{}).first;
    }
    if (!it->second.value_type.has_value()) {
      TypeId created = AddType();  // invalidates `it`
      types_[type][segment].value_type = created;
    }
    type = *types_[type][segment].value_type;
  }
  *last = std::string(path);
  return type;
}

void PatchSchema::SetField(TypeId type, std::string_view path,
                           FieldPatchStrategy strategy,
                           std::optional<TypeId> element_type) {
  std::string name;
  TypeId holder = Walk(type, path, &name);
  Field& field = types_[holder][name];
  field.strategy = std::move(strategy);
  if (element_type.has_value()) field.value_type = element_type;
}

void PatchSchema::SetFieldType(TypeId type, std::string_view path,
                               TypeId value_type) {
  std::string name;
  TypeId holder = Walk(type, path, &name);
  types_[holder][name].value_type = value_type;
}

const PatchSchema::Field* PatchSchema::FindField(TypeId type,
                                                 std::string_view name) const {
  if (type < 0 || static_cast<size_t>(type) >= types_.size()) return nullptr;
  auto it = types_[type].find(name);
  return it == types_[type].end() ? nullptr : &it->second;
}

const PatchSchema::Field* PatchSchema::FindPath(std::string_view path) const {
  TypeId type = kRootType;
  const Field* field = nullptr;
  while (true) {
    size_t dot = path.find('.');
    field = FindField(type, path.substr(0, dot));
    if (field == nullptr || dot == std::string_view::npos) return field;
    if (!field->value_type.has_value()) return nullptr;
    type = *field->value_type;
    path.remove_prefix(dot + 1);
  }
}

namespace {

using TypeId = PatchSchema::TypeId;

FieldPatchStrategy MergeByKey(std::string key) {
  return {.merge = true, .retain_keys = false, .merge_key = std::move(key)};
}

FieldPatchStrategy MergeByKeyRetainKeys(std::string key) {
  return {.merge = true, .retain_keys = true, .merge_key = std::move(key)};
}

FieldPatchStrategy MergeAsSet() {
  return {.merge = true, .retain_keys = false, .merge_key = ""};
}

// The tags below are those of k8s.io/api v0.37.2 and k8s.io/apimachinery
// v0.37.2 (meta/v1 ObjectMeta), field by field.

// metav1.ObjectMeta.
TypeId AddObjectMeta(PatchSchema& schema) {
  TypeId meta = schema.AddType();
  schema.SetField(meta, "ownerReferences", MergeByKey("uid"));
  schema.SetField(meta, "finalizers", MergeAsSet());
  return meta;
}

// core/v1 Container and EphemeralContainerCommon (same tags).
TypeId AddContainer(PatchSchema& schema) {
  TypeId container = schema.AddType();
  schema.SetField(container, "ports", MergeByKey("containerPort"));
  schema.SetField(container, "env", MergeByKey("name"));
  schema.SetField(container, "volumeMounts", MergeByKey("mountPath"));
  schema.SetField(container, "volumeDevices", MergeByKey("devicePath"));
  return container;
}

// core/v1 PodSpec.
TypeId AddPodSpec(PatchSchema& schema) {
  TypeId container = AddContainer(schema);
  TypeId spec = schema.AddType();
  schema.SetField(spec, "volumes", MergeByKeyRetainKeys("name"));
  schema.SetField(spec, "initContainers", MergeByKey("name"), container);
  schema.SetField(spec, "containers", MergeByKey("name"), container);
  schema.SetField(spec, "ephemeralContainers", MergeByKey("name"), container);
  schema.SetField(spec, "imagePullSecrets", MergeByKey("name"));
  schema.SetField(spec, "hostAliases", MergeByKey("ip"));
  schema.SetField(spec, "topologySpreadConstraints", MergeByKey("topologyKey"));
  schema.SetField(spec, "schedulingGates", MergeByKey("name"));
  schema.SetField(spec, "resourceClaims", MergeByKeyRetainKeys("name"));
  schema.SetField(spec, "evictionResponders", MergeByKey("name"));
  return spec;
}

// core/v1 PodStatus. Its containerStatuses lists are atomic, so the merge
// lists of ContainerStatus are unreachable and not declared.
TypeId AddPodStatus(PatchSchema& schema) {
  TypeId status = schema.AddType();
  schema.SetField(status, "conditions", MergeByKey("type"));
  schema.SetField(status, "hostIPs", MergeByKey("ip"));
  schema.SetField(status, "podIPs", MergeByKey("ip"));
  schema.SetField(status, "resourceClaimStatuses",
                  MergeByKeyRetainKeys("name"));
  TypeId allocatable = schema.AddType();  // NodeAllocatableResourceClaimStatus
  schema.SetField(allocatable, "mapping", MergeByKey("name"));
  schema.SetField(allocatable, "overhead", MergeByKey("name"));
  schema.SetField(status, "nodeAllocatableResourceClaimStatuses",
                  MergeByKey("resourceClaimName"), allocatable);
  return status;
}

// core/v1 PodTemplateSpec.
TypeId AddPodTemplateSpec(PatchSchema& schema, TypeId meta) {
  TypeId pod_spec = AddPodSpec(schema);
  TypeId templ = schema.AddType();
  schema.SetFieldType(templ, "metadata", meta);
  schema.SetFieldType(templ, "spec", pod_spec);
  return templ;
}

// A schema whose root has metadata (ObjectMeta); *meta is its type.
PatchSchema WithObjectMeta(TypeId* meta) {
  PatchSchema schema;
  *meta = AddObjectMeta(schema);
  schema.SetFieldType(PatchSchema::kRootType, "metadata", *meta);
  return schema;
}

std::map<std::pair<std::string, std::string>, std::unique_ptr<PatchSchema>>
BuildSchemas() {
  constexpr TypeId kRoot = PatchSchema::kRootType;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<PatchSchema>>
      schemas;
  auto add = [&](std::string group, std::string kind, PatchSchema schema) {
    schemas[{std::move(group), std::move(kind)}] =
        std::make_unique<PatchSchema>(std::move(schema));
  };
  TypeId meta;

  // Kinds whose only merge lists are in metadata.
  for (auto [group, kind] : {
           std::pair<std::string, std::string>{"resource.k8s.io",
                                               "DeviceClass"},
           {"resource.k8s.io", "ResourceSlice"},
           {"", "Event"},
           {"", "ResourceQuota"},
           {"coordination.k8s.io", "Lease"},
           {"rbac.authorization.k8s.io", "Role"},
           {"rbac.authorization.k8s.io", "ClusterRole"},
           {"rbac.authorization.k8s.io", "RoleBinding"},
           {"rbac.authorization.k8s.io", "ClusterRoleBinding"},
       }) {
    add(group, kind, WithObjectMeta(&meta));
  }

  {  // core/v1 Pod.
    PatchSchema schema = WithObjectMeta(&meta);
    schema.SetFieldType(kRoot, "spec", AddPodSpec(schema));
    schema.SetFieldType(kRoot, "status", AddPodStatus(schema));
    add("", "Pod", std::move(schema));
  }
  {  // core/v1 Node. spec.taints has no patch strategy: it is replaced.
    PatchSchema schema = WithObjectMeta(&meta);
    schema.SetField(kRoot, "spec.podCIDRs", MergeAsSet());
    schema.SetField(kRoot, "status.conditions", MergeByKey("type"));
    schema.SetField(kRoot, "status.addresses", MergeByKey("type"));
    add("", "Node", std::move(schema));
  }
  {  // core/v1 ServiceAccount: secrets merge by name.
    PatchSchema schema = WithObjectMeta(&meta);
    schema.SetField(kRoot, "secrets", MergeByKey("name"));
    add("", "ServiceAccount", std::move(schema));
  }
  {  // core/v1 Namespace. spec.finalizers has no patch strategy.
    PatchSchema schema = WithObjectMeta(&meta);
    schema.SetField(kRoot, "status.conditions", MergeByKey("type"));
    add("", "Namespace", std::move(schema));
  }
  {  // apps/v1 Deployment.
    PatchSchema schema = WithObjectMeta(&meta);
    schema.SetFieldType(kRoot, "spec.template",
                        AddPodTemplateSpec(schema, meta));
    schema.SetField(kRoot, "spec.strategy",
                    {.merge = false, .retain_keys = true, .merge_key = ""});
    schema.SetField(kRoot, "status.conditions", MergeByKey("type"));
    add("apps", "Deployment", std::move(schema));
  }
  {  // batch/v1 Job.
    PatchSchema schema = WithObjectMeta(&meta);
    schema.SetFieldType(kRoot, "spec.template",
                        AddPodTemplateSpec(schema, meta));
    schema.SetField(kRoot, "spec.scheduling.resourceClaims",
                    MergeByKey("name"));
    schema.SetField(kRoot, "status.conditions", MergeByKey("type"));
    add("batch", "Job", std::move(schema));
  }
  {  // resource.k8s.io ResourceClaim (v1beta1, v1beta2, v1 alike).
    PatchSchema schema = WithObjectMeta(&meta);
    schema.SetField(kRoot, "status.reservedFor", MergeByKey("uid"));
    add("resource.k8s.io", "ResourceClaim", std::move(schema));
  }
  {  // resource.k8s.io ResourceClaimTemplate: spec.metadata is ObjectMeta.
    PatchSchema schema = WithObjectMeta(&meta);
    schema.SetFieldType(kRoot, "spec.metadata", meta);
    add("resource.k8s.io", "ResourceClaimTemplate", std::move(schema));
  }
  {  // resource.k8s.io DeviceTaintRule (v1beta2, v1).
    PatchSchema schema = WithObjectMeta(&meta);
    schema.SetField(kRoot, "status.conditions", MergeByKey("type"));
    add("resource.k8s.io", "DeviceTaintRule", std::move(schema));
  }
  return schemas;
}

}  // namespace

const PatchSchema* PatchSchemaFor(std::string_view group,
                                  std::string_view kind) {
  static const auto* schemas =
      new std::map<std::pair<std::string, std::string>,
                   std::unique_ptr<PatchSchema>>(BuildSchemas());
  auto it = schemas->find({std::string(group), std::string(kind)});
  return it == schemas->end() ? nullptr : it->second.get();
}

}  // namespace draplane::patch
