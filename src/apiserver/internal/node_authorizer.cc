#include "apiserver/internal/node_authorizer.h"

#include <string>
#include <utility>
#include <vector>

#include "api/object_codec.h"
#include "apiserver/internal/bootstrap_policy_objects.h"
#include "apiserver/internal/rbac_policy.h"
#include "apiserver/internal/resources.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

using auth::Authorization;
using auth::Decision;
using auth::RequestAttributes;

// The string at `path` of `json`, "" when missing or not a string.
std::string StringAt(const api::Json& json,
                     std::initializer_list<const char*> path) {
  const api::Json* at = &json;
  for (const char* key : path) {
    if (!at->is_object()) return "";
    auto it = at->find(key);
    if (it == at->end()) return "";
    at = &*it;
  }
  return at->is_string() ? at->get<std::string>() : "";
}

// The member `key` of `json`, or null; never a temporary (callers loop
// over what it returns).
const api::Json& MemberAt(const api::Json& json, const char* key) {
  static const api::Json* const kNull = new api::Json();
  if (!json.is_object()) return *kNull;
  auto it = json.find(key);
  return it == json.end() ? *kNull : *it;
}

// The array at `key` of `json`, or an empty one.
const api::Json& ArrayAt(const api::Json& json, const char* key) {
  static const api::Json* const kEmpty = new api::Json(api::Json::array());
  if (!json.is_object()) return *kEmpty;
  auto it = json.find(key);
  return it != json.end() && it->is_array() ? *it : *kEmpty;
}

// The rules of the bootstrap system:node ClusterRole (upstream's
// bootstrappolicy.NodeRules() with default feature gates).
std::vector<auth::PolicyRule> NodeRules() {
  std::vector<auth::PolicyRule> rules;
  std::string_view objects = BootstrapPolicyObjects();
  api::Json array =
      api::Json::parse(objects, nullptr, /*allow_exceptions=*/false);
  if (!array.is_array()) return rules;
  for (const api::Json& object : array) {
    if (StringAt(object, {"kind"}) != "ClusterRole" ||
        StringAt(object, {"metadata", "name"}) != "system:node") {
      continue;
    }
    auth::Policy policy;
    if (AddToPolicy(object, policy) && !policy.cluster_roles.empty()) {
      rules = std::move(policy.cluster_roles.front().rules);
    }
  }
  return rules;
}

Authorization NoOpinion(std::string reason) {
  return {Decision::kNoOpinion, std::move(reason)};
}
Authorization Allow() { return {Decision::kAllow, ""}; }

bool SelectsNode(const RequestAttributes& a, std::string_view node) {
  for (const selectors::FieldRequirement& r : a.field_selector) {
    if (r.field == "spec.nodeName" &&
        r.op == selectors::FieldOperator::kEquals && r.value == node) {
      return true;
    }
  }
  return false;
}

class NodeAuthorizer final : public auth::Authorizer {
 public:
  explicit NodeAuthorizer(const Registry* registry)
      : registry_(registry), node_rules_(NodeRules()) {}

  Authorization Authorize(const RequestAttributes& a) const override {
    const auth::NodeIdentity node = auth::NodeIdentityOf(a.user);
    if (!node.is_node) return NoOpinion("");
    if (node.name.empty()) {
      return NoOpinion(StrCat("unknown node for user \"", a.user.name, "\""));
    }
    if (a.resource_request) {
      if (auto decided = ByResource(node.name, a)) return *decided;
    }
    for (const auth::PolicyRule& rule : node_rules_) {
      if (auth::RuleAllows(a, rule)) return Allow();
    }
    return NoOpinion("");
  }

 private:
  enum class Related { kPod, kClaim, kSlice, kServiceAccount, kNone };

  // The decision for the resources upstream subdivides; nullopt for the
  // rest (the node rules decide).
  std::optional<Authorization> ByResource(const std::string& node,
                                          const RequestAttributes& a) const {
    const std::string& g = a.api_group;
    const std::string& r = a.resource;
    if (g.empty() && (r == "secrets" || r == "configmaps")) {
      return ReadNamespaced(node, a);
    }
    if (g.empty() && r == "persistentvolumeclaims") {
      if (a.subresource == "status") return StatusUpdate(node, a);
      return Get(node, Related::kNone, a);
    }
    if ((g.empty() && r == "persistentvolumes") ||
        (g == "storage.k8s.io" && r == "volumeattachments")) {
      return Get(node, Related::kNone, a);
    }
    if (g == "resource.k8s.io" && r == "resourceclaims") {
      return Get(node, Related::kClaim, a);
    }
    if (g.empty() && r == "serviceaccounts") {
      if (a.verb == "get" && a.subresource.empty()) {
        return ReadNamespaced(node, a, Related::kServiceAccount);
      }
      return CreateToken(node, a);
    }
    if (g == "coordination.k8s.io" && r == "leases") return Lease(node, a);
    if (g == "storage.k8s.io" && r == "csinodes") return CsiNode(node, a);
    if (g == "resource.k8s.io" && r == "resourceslices") {
      return ResourceSlice(node, a);
    }
    if (g.empty() && r == "nodes") return NodeObject(node, a);
    if (g.empty() && r == "pods") return Pod(node, a);
    if (g == "certificates.k8s.io" && r == "podcertificaterequests") {
      return PodCertificateRequest(node, a);
    }
    return std::nullopt;
  }

  Authorization StatusUpdate(const std::string& node,
                             const RequestAttributes& a) const {
    if (a.verb != "update" && a.verb != "patch") {
      return NoOpinion("can only get/update/patch this type");
    }
    if (a.subresource != "status") {
      return NoOpinion("can only update status subresource");
    }
    return Relation(node, Related::kNone, a);
  }

  Authorization Get(const std::string& node, Related type,
                    const RequestAttributes& a) const {
    if (a.verb != "get") {
      return NoOpinion("can only get individual resources of this type");
    }
    if (!a.subresource.empty()) return NoOpinion("cannot get subresource");
    return Relation(node, type, a);
  }

  Authorization ReadNamespaced(const std::string& node,
                               const RequestAttributes& a,
                               Related type = Related::kNone) const {
    if (a.verb != "get" && a.verb != "list" && a.verb != "watch") {
      return NoOpinion("can only read resources of this type");
    }
    if (!a.subresource.empty()) return NoOpinion("cannot read subresource");
    if (a.namespace_.empty()) {
      return NoOpinion("can only read namespaced object of this type");
    }
    return Relation(node, type, a);
  }

  Authorization CreateToken(const std::string& node,
                            const RequestAttributes& a) const {
    if (a.verb != "create" || a.name.empty()) {
      return NoOpinion(
          "can only create tokens for individual service accounts");
    }
    if (a.subresource != "token") {
      return NoOpinion("can only create token subresource of serviceaccount");
    }
    return Relation(node, Related::kServiceAccount, a);
  }

  Authorization Lease(const std::string& node,
                      const RequestAttributes& a) const {
    const std::string& v = a.verb;
    if (v != "get" && v != "create" && v != "update" && v != "patch" &&
        v != "delete") {
      return NoOpinion(
          "can only get, create, update, patch, or delete a node lease");
    }
    if (a.namespace_ != "kube-node-lease") {
      return NoOpinion(
          "can only access leases in the \"kube-node-lease\" system namespace");
    }
    if (v != "create" && a.name != node) {
      return NoOpinion(
          "can only access node lease with the same name as the requesting "
          "node");
    }
    return Allow();
  }

  Authorization CsiNode(const std::string& node,
                        const RequestAttributes& a) const {
    const std::string& v = a.verb;
    if (a.subresource.empty()) {
      if (v != "get" && v != "create" && v != "update" && v != "patch" &&
          v != "delete") {
        return NoOpinion(
            "can only get, create, update, patch, or delete a CSINode");
      }
    } else if (a.subresource == "status") {
      return NoOpinion(
          "CSINode status access requires CSIVolumeHealth feature");
    } else {
      return NoOpinion("cannot authorize CSINode subresources");
    }
    if (v != "create" && a.name != node) {
      return NoOpinion(
          "can only access CSINode with the same name as the requesting node");
    }
    return Allow();
  }

  Authorization ResourceSlice(const std::string& node,
                              const RequestAttributes& a) const {
    if (!a.subresource.empty()) {
      return NoOpinion("cannot authorize ResourceSlice subresources");
    }
    const std::string& v = a.verb;
    if (v == "create") return Allow();
    if (v == "get" || v == "update" || v == "patch" || v == "delete") {
      return Relation(node, Related::kSlice, a);
    }
    if (v == "watch" || v == "list" || v == "deletecollection") {
      if (SelectsNode(a, node)) return Allow();
      return NoOpinion(
          "can only list/watch/deletecollection resourceslices with nodeName "
          "field selector");
    }
    return NoOpinion(
        "only the following verbs are allowed for a ResourceSlice: get, "
        "watch, list, create, update, patch, delete, deletecollection");
  }

  static Authorization PodCertificateRequest(const std::string& node,
                                             const RequestAttributes& a) {
    if (!a.subresource.empty()) {
      return NoOpinion(
          "nodes may not access the status subresource of "
          "PodCertificateRequests");
    }
    if (a.verb == "create") return Allow();
    if (a.verb == "get") return NoRelation(node);
    if (a.verb == "list" || a.verb == "watch") {
      if (SelectsNode(a, node)) return Allow();
      return NoOpinion(
          "can only list/watch podcertificaterequests with nodeName field "
          "selector");
    }
    return NoOpinion(
        StrCat("nodes may not ", a.verb, " podcertificaterequests"));
  }

  static Authorization NodeObject(const std::string& node,
                                  const RequestAttributes& a) {
    const std::string& v = a.verb;
    if (a.subresource.empty()) {
      if (v == "create" || v == "update" || v == "patch") return Allow();
      if (v == "get" || v == "list" || v == "watch") {
        if (a.name == node) return Allow();
        if (a.name.empty()) {
          return NoOpinion(StrCat("node '", node,
                                  "' cannot read all nodes, only its own "
                                  "Node object"));
        }
        return NoOpinion(StrCat("node '", node, "' cannot read '", a.name,
                                "', only its own Node object"));
      }
    } else if (a.subresource == "status" && (v == "update" || v == "patch")) {
      return Allow();
    }
    return NoOpinion("");
  }

  Authorization Pod(const std::string& node, const RequestAttributes& a) const {
    const std::string& v = a.verb;
    if (a.subresource.empty()) {
      if (v == "get") return Get(node, Related::kPod, a);
      if (v == "list" || v == "watch") {
        if (SelectsNode(a, node)) return Allow();
        if (!a.name.empty()) return Relation(node, Related::kPod, a);
        return NoOpinion(
            "can only list/watch pods with spec.nodeName field selector");
      }
      if (v == "create" || v == "delete") return Allow();
    } else if (a.subresource == "status") {
      if (v == "update" || v == "patch") return Allow();
    } else if (a.subresource == "eviction" && v == "create") {
      return Allow();
    }
    return NoOpinion("");
  }

  static Authorization NoRelation(const std::string& node) {
    return NoOpinion(StrCat("no relationship found between node '", node,
                            "' and this object"));
  }

  Authorization Relation(const std::string& node, Related type,
                         const RequestAttributes& a) const {
    if (a.name.empty()) return NoOpinion("No Object name found");
    if (HasRelation(node, type, a.namespace_, a.name)) return Allow();
    return NoRelation(node);
  }

  // Whether the stored object links to `node` as upstream's graph would.
  bool HasRelation(const std::string& node, Related type, const std::string& ns,
                   const std::string& name) const {
    switch (type) {
      case Related::kPod: {
        auto pod = registry_->Get(*FindResource("", "pods"), ns, name);
        return pod.ok() && StringAt(*pod, {"spec", "nodeName"}) == node;
      }
      case Related::kSlice: {
        // Slices are cluster-scoped: upstream's graph has no vertex for a
        // slice in a namespace (a review that names one finds none).
        if (!ns.empty()) return false;
        auto slice = registry_->Get(
            *FindResource("resource.k8s.io", "resourceslices"), "", name);
        return slice.ok() && StringAt(*slice, {"spec", "nodeName"}) == node;
      }
      case Related::kClaim:
        return ClaimUsedOnNode(node, ns, name);
      case Related::kServiceAccount: {
        // Upstream's graph: pod -> serviceaccount for each pod of the
        // node that names one.
        ListQuery query;
        query.namespace_ = ns;
        query.filter = [&](const api::Json& pod) {
          return StringAt(pod, {"spec", "nodeName"}) == node &&
                 StringAt(pod, {"spec", "serviceAccountName"}) == name;
        };
        query.limit = 1;
        auto found = registry_->List(*FindResource("", "pods"), query);
        return found.ok() && !found->items.empty();
      }
      case Related::kNone:
        return false;
    }
    return false;
  }

  // Some pod of `ns` bound to `node` uses the claim. The pods the claim
  // is reserved for or owned by are asked first; only if none of them
  // does are all the namespace's pods scanned.
  bool ClaimUsedOnNode(const std::string& node, const std::string& ns,
                       const std::string& claim) const {
    const ResourceInfo& pods = *FindResource("", "pods");
    auto on_node_using_claim = [&](const api::Json& pod) {
      return StringAt(pod, {"spec", "nodeName"}) == node &&
             PodUsesClaim(pod, claim);
    };
    auto stored = registry_->Get(
        *FindResource("resource.k8s.io", "resourceclaims"), ns, claim);
    if (stored.ok()) {
      std::vector<std::string> candidates;
      for (const api::Json& ref :
           ArrayAt(MemberAt(*stored, "status"), "reservedFor")) {
        if (StringAt(ref, {"resource"}) == "pods") {
          candidates.push_back(StringAt(ref, {"name"}));
        }
      }
      for (const api::Json& ref :
           ArrayAt(MemberAt(*stored, "metadata"), "ownerReferences")) {
        if (StringAt(ref, {"kind"}) == "Pod") {
          candidates.push_back(StringAt(ref, {"name"}));
        }
      }
      for (const std::string& name : candidates) {
        auto pod = registry_->Get(pods, ns, name);
        if (pod.ok() && on_node_using_claim(*pod)) return true;
      }
    }
    ListQuery query;
    query.namespace_ = ns;
    query.filter = on_node_using_claim;
    query.limit = 1;
    auto found = registry_->List(pods, query);
    return found.ok() && !found->items.empty();
  }

  const Registry* const registry_;
  const std::vector<auth::PolicyRule> node_rules_;
};

}  // namespace

bool PodUsesClaim(const api::Json& pod, std::string_view claim) {
  if (!pod.is_object()) return false;
  const api::Json& spec = MemberAt(pod, "spec");
  const api::Json& status = MemberAt(pod, "status");
  for (const api::Json& pc : ArrayAt(spec, "resourceClaims")) {
    const std::string direct = StringAt(pc, {"resourceClaimName"});
    if (!direct.empty()) {
      if (direct == claim) return true;
      continue;
    }
    if (StringAt(pc, {"resourceClaimTemplateName"}).empty()) continue;
    const std::string entry = StringAt(pc, {"name"});
    for (const api::Json& s : ArrayAt(status, "resourceClaimStatuses")) {
      if (StringAt(s, {"name"}) == entry &&
          StringAt(s, {"resourceClaimName"}) == claim) {
        return true;
      }
    }
  }
  const std::string extended =
      StringAt(status, {"extendedResourceClaimStatus", "resourceClaimName"});
  return !extended.empty() && extended == claim;
}

std::unique_ptr<auth::Authorizer> NewNodeAuthorizer(const Registry* registry) {
  return std::make_unique<NodeAuthorizer>(registry);
}

}  // namespace draplane::apiserver::internal
