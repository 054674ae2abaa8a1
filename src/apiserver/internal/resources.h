// The resources the API server serves: api::ServedKinds() plus what
// discovery and the REST strategies need (names, subresources, how status
// and generation behave), following upstream's registry strategies.
#ifndef DRAPLANE_APISERVER_INTERNAL_RESOURCES_H_
#define DRAPLANE_APISERVER_INTERNAL_RESOURCES_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object.h"

namespace draplane::apiserver::internal {

// What a create does to the status in the request (upstream's
// PrepareForCreate).
enum class StatusOnCreate {
  kNone,       // the kind has no status
  kClear,      // status reset to empty
  kKeep,       // status kept as sent (Node: the kubelet registers with one)
  kPod,        // {phase: Pending}
  kNamespace,  // {phase: Active}
};

struct ResourceInfo {
  const api::KindInfo* kind = nullptr;  // group, kind, plural, scope
  std::string singular;                 // lower-case kind
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  // Served subresources ("status", "binding", "scale").
  std::vector<std::string> subresources;
  StatusOnCreate status_on_create = StatusOnCreate::kNone;
  // metadata.generation starts at 1 and increments when spec changes.
  bool tracks_generation = false;
  // A PUT without metadata.resourceVersion is allowed.
  bool allow_unconditional_update = true;
  // A PUT of a missing object creates it.
  bool allow_create_on_update = false;
  // Written objects are remembered in their parsed forms for the next
  // read, update and watch event (DecodedValues). Not for events, which
  // nothing reads back as a rule (kube-apiserver's default watch cache
  // sizes leave them out likewise).
  bool remember_decoded = true;

  const std::string_view group() const { return kind->group; }
  const std::string_view resource() const { return kind->resource; }
  bool namespaced() const { return kind->namespaced; }
  bool HasSubresource(std::string_view name) const;
  // "resourceclaims.resource.k8s.io" / "pods": upstream's qualified
  // resource in error messages.
  std::string QualifiedResource() const;
  // The List kind, e.g. "ResourceClaimList".
  std::string ListKind() const { return std::string(kind->kind) + "List"; }
  // "resource.k8s.io/v1" for `version`.
  std::string ApiVersion(std::string_view version) const;
  bool ServesVersion(std::string_view version) const;
  // The storage version: the first of kind->versions.
  std::string_view StorageVersion() const { return kind->versions.front(); }
};

// Every served resource, in api::ServedKinds() order.
const std::vector<ResourceInfo>& Resources();
// The resource `plural` of `group`, or nullptr.
const ResourceInfo* FindResource(std::string_view group,
                                 std::string_view plural);
// The resource of a group/kind, or nullptr.
const ResourceInfo* FindResourceByKind(std::string_view group,
                                       std::string_view kind);

// API groups in discovery order (core "" first) and their versions in
// preference order.
struct GroupVersions {
  std::string group;
  std::vector<std::string> versions;
};
const std::vector<GroupVersions>& Groups();

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_RESOURCES_H_
