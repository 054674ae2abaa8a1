#include "apiserver/internal/rbac_escalation_admission.h"

#include <string>
#include <utility>
#include <vector>

#include "api/object_codec.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/rbac_policy.h"
#include "apiserver/internal/resources.h"
#include "auth/rule_resolver.h"

namespace draplane::apiserver::internal {
namespace {

constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";

// The object less what IsOnlyMutatingGCFields lets change and what the
// server sets itself.
api::Json WithoutGcFields(api::Json object) {
  if (auto it = object.find("metadata"); it != object.end()) {
    for (const char* key :
         {"ownerReferences", "finalizers", "managedFields", "resourceVersion",
          "generation", "uid", "creationTimestamp"}) {
      it->erase(key);
    }
  }
  return object;
}

bool Allowed(const auth::Authorizer& authorizer, const auth::UserInfo& user,
             std::string verb, std::string resource, std::string ns,
             std::string name) {
  auth::RequestAttributes a;
  a.user = user;
  a.verb = std::move(verb);
  a.resource_request = true;
  a.api_group = kRbacGroup;
  a.api_version = "*";
  a.resource = std::move(resource);
  a.namespace_ = std::move(ns);
  a.name = std::move(name);
  return authorizer.Authorize(a).decision == auth::Decision::kAllow;
}

}  // namespace

absl::Status RbacEscalationAdmission::Admit(const AdmissionRequest& request,
                                            api::Json& object) {
  if (request.group != kRbacGroup ||
      request.operation == AdmissionRequest::Operation::kDelete ||
      !request.subresource.empty()) {
    return absl::OkStatus();
  }
  const ResourceInfo* r = FindResource(kRbacGroup, request.resource);
  if (r == nullptr) return absl::OkStatus();
  // EscalationAllowed.
  if (request.user.InGroup(auth::kSystemPrivilegedGroup)) {
    return absl::OkStatus();
  }
  if (authorizer_ == nullptr) {
    return Forbidden(*r, request.name, "RBAC is not ready");
  }
  if (request.operation == AdmissionRequest::Operation::kUpdate &&
      request.old_object != nullptr &&
      WithoutGcFields(object) == WithoutGcFields(*request.old_object)) {
    return absl::OkStatus();
  }
  auto decoded = api::DecodeObject(object);
  if (!decoded.ok()) return absl::OkStatus();  // validation reports it
  const api::TypedObject& v = decoded->object.value;
  const auth::UserInfo& user = request.user;

  std::vector<auth::PolicyRule> rules;
  bool aggregation = false;
  if (const auto* role = std::get_if<api::Role>(&v)) {
    if (Allowed(*authorizer_, user, "escalate", "roles", request.namespace_,
                request.name)) {
      return absl::OkStatus();
    }
    rules = AuthRules(role->rules);
  } else if (const auto* role = std::get_if<api::ClusterRole>(&v)) {
    if (Allowed(*authorizer_, user, "escalate", "clusterroles", "",
                request.name)) {
      return absl::OkStatus();
    }
    rules = AuthRules(role->rules);
    aggregation = role->aggregation_rule.has_value();
    if (request.old_object != nullptr) {
      auto old = request.old_object->find("aggregationRule");
      aggregation |= old != request.old_object->end() && !old->is_null();
    }
  } else {
    const api::RoleRef* ref = nullptr;
    if (const auto* b = std::get_if<api::RoleBinding>(&v)) ref = &b->role_ref;
    if (const auto* b = std::get_if<api::ClusterRoleBinding>(&v)) {
      ref = &b->role_ref;
    }
    if (ref == nullptr) return absl::OkStatus();
    // BindingAuthorized.
    if (Allowed(*authorizer_, user, "bind",
                ref->kind == "ClusterRole" ? "clusterroles" : "roles",
                request.namespace_, ref->name)) {
      return absl::OkStatus();
    }
    if (policy_ == nullptr) return Forbidden(*r, request.name, "no policy");
    if (auto s = auth::RoleReferenceRules(*policy_->Current(),
                                          {ref->kind, ref->name},
                                          request.namespace_, &rules);
        !s.ok()) {
      return Forbidden(*r, request.name, std::string(s.message()));
    }
  }
  if (policy_ == nullptr) return Forbidden(*r, request.name, "no policy");
  const std::shared_ptr<const auth::PolicySnapshot> policy = policy_->Current();
  if (auto s =
          auth::ConfirmNoEscalation(*policy, user, request.namespace_, rules);
      !s.ok()) {
    return Forbidden(*r, request.name, std::string(s.message()));
  }
  if (aggregation) {
    const std::vector<auth::PolicyRule> full_authority = {
        {{"*"}, {"*"}, {"*"}, {}, {}}, {{"*"}, {}, {}, {}, {"*"}}};
    if (!auth::ConfirmNoEscalation(*policy, user, "", full_authority).ok()) {
      return Forbidden(*r, request.name,
                       "must have cluster-admin privileges to use the "
                       "aggregationRule");
    }
  }
  return absl::OkStatus();
}

}  // namespace draplane::apiserver::internal
