#include "apiserver/internal/rbac_policy.h"

#include <string>
#include <utility>

#include "api/object_codec.h"
#include "apiserver/internal/resources.h"
#include "logging/log.h"

namespace draplane::apiserver::internal {
namespace {

constexpr const char* kRbacResources[] = {
    "clusterroles", "roles", "clusterrolebindings", "rolebindings"};

auth::Binding BindingOf(const api::ObjectMeta& meta,
                        const std::vector<api::Subject>& subjects,
                        const api::RoleRef& ref) {
  auth::Binding b;
  b.name = meta.name;
  b.namespace_ = meta.namespace_;
  b.role_ref = {ref.kind, ref.name};
  b.subjects.reserve(subjects.size());
  for (const api::Subject& s : subjects) {
    b.subjects.push_back({s.kind, s.name, s.namespace_});
  }
  return b;
}

}  // namespace

std::vector<auth::PolicyRule> AuthRules(
    const std::vector<api::PolicyRule>& in) {
  std::vector<auth::PolicyRule> out;
  out.reserve(in.size());
  for (const api::PolicyRule& r : in) {
    out.push_back({r.verbs, r.api_groups, r.resources, r.resource_names,
                   r.non_resource_urls});
  }
  return out;
}

bool AddToPolicy(const api::Json& object, auth::Policy& policy) {
  auto decoded = api::DecodeObject(object);
  if (!decoded.ok()) return false;
  const api::TypedObject& v = decoded->object.value;
  if (const auto* r = std::get_if<api::ClusterRole>(&v)) {
    policy.cluster_roles.push_back({r->metadata.name, AuthRules(r->rules)});
  } else if (const auto* r = std::get_if<api::Role>(&v)) {
    policy.roles.push_back(
        {r->metadata.namespace_, r->metadata.name, AuthRules(r->rules)});
  } else if (const auto* b = std::get_if<api::ClusterRoleBinding>(&v)) {
    policy.cluster_role_bindings.push_back(
        BindingOf(b->metadata, b->subjects, b->role_ref));
  } else if (const auto* b = std::get_if<api::RoleBinding>(&v)) {
    policy.role_bindings.push_back(
        BindingOf(b->metadata, b->subjects, b->role_ref));
  } else {
    return false;
  }
  return true;
}

absl::StatusOr<std::unique_ptr<StoredPolicy>> StoredPolicy::Start(
    Registry* registry) {
  std::unique_ptr<StoredPolicy> policy(new StoredPolicy(registry));
  const int64_t revision = registry->store().Revision();
  for (const char* resource : kRbacResources) {
    const ResourceInfo* r = FindResource("rbac.authorization.k8s.io", resource);
    StoredPolicy* self = policy.get();
    auto watch = registry->Watch(*r, "", revision, [self](const store::Event&) {
      self->stale_ = true;
      ++self->changes_;
    });
    if (!watch.ok()) return watch.status();
    policy->watches_.push_back(*std::move(watch));
  }
  return policy;
}

std::shared_ptr<const auth::PolicySnapshot> StoredPolicy::Current() const {
  if (!stale_.load()) {
    absl::ReaderMutexLock lock(&mu_);
    return current_;
  }
  absl::MutexLock lock(&mu_);
  if (stale_.exchange(false)) current_ = Build();
  return current_;
}

std::shared_ptr<const auth::PolicySnapshot> StoredPolicy::Build() const {
  auth::Policy policy;
  for (const char* resource : kRbacResources) {
    const ResourceInfo* r = FindResource("rbac.authorization.k8s.io", resource);
    auto list = registry_->List(*r, ListQuery{});
    if (!list.ok()) {
      // Denies what the missing objects would have allowed; the next
      // write retries.
      logging::Error("Unable to read the RBAC policy",
                     {{"resource", resource}, {"err", list.status()}});
      stale_ = true;
      continue;
    }
    for (const api::Json& object : list->items) {
      if (!AddToPolicy(object, policy)) {
        logging::Error("Skipping an RBAC object that does not decode",
                       {{"resource", resource}});
      }
    }
  }
  return std::make_shared<const auth::PolicySnapshot>(std::move(policy));
}

}  // namespace draplane::apiserver::internal
