#include "auth/bootstrap_policy.h"

#include <utility>

namespace draplane::auth {
namespace {

PolicyRule NonResource(std::vector<std::string> verbs,
                       std::vector<std::string> urls) {
  PolicyRule r;
  r.verbs = std::move(verbs);
  r.non_resource_urls = std::move(urls);
  return r;
}

PolicyRule Resource(std::vector<std::string> verbs,
                    std::vector<std::string> groups,
                    std::vector<std::string> resources) {
  PolicyRule r;
  r.verbs = std::move(verbs);
  r.api_groups = std::move(groups);
  r.resources = std::move(resources);
  return r;
}

Binding ToGroups(std::string name, std::vector<std::string> groups) {
  Binding b;
  b.name = name;
  b.role_ref = RoleRef{"ClusterRole", std::move(name)};
  for (std::string& g : groups)
    b.subjects.push_back({"Group", std::move(g), ""});
  return b;
}

}  // namespace

Policy BootstrapPolicy() {
  Policy p;
  p.cluster_roles.push_back(
      {"cluster-admin",
       {Resource({"*"}, {"*"}, {"*"}), NonResource({"*"}, {"*"})}});
  p.cluster_roles.push_back(
      {"system:discovery",
       {NonResource({"get"}, {"/api", "/api/*", "/apis", "/apis/*", "/healthz",
                              "/livez", "/openapi", "/openapi/*", "/readyz",
                              "/version", "/version/"})}});
  p.cluster_roles.push_back(
      {"system:basic-user",
       {Resource({"create"}, {"authorization.k8s.io"},
                 {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
        Resource({"create"}, {"authentication.k8s.io"},
                 {"selfsubjectreviews"})}});
  p.cluster_roles.push_back(
      {"system:public-info-viewer",
       {NonResource({"get"}, {"/healthz", "/livez", "/readyz", "/version",
                              "/version/"})}});
  p.cluster_roles.push_back(
      {"system:monitoring",
       {NonResource({"get"},
                    {"/metrics", "/metrics/slis", "/livez", "/readyz",
                     "/healthz", "/livez/*", "/readyz/*", "/healthz/*"})}});
  p.cluster_role_bindings.push_back(
      ToGroups("cluster-admin", {std::string(kSystemPrivilegedGroup)}));
  p.cluster_role_bindings.push_back(
      ToGroups("system:discovery", {std::string(kAllAuthenticated)}));
  p.cluster_role_bindings.push_back(
      ToGroups("system:basic-user", {std::string(kAllAuthenticated)}));
  p.cluster_role_bindings.push_back(ToGroups(
      "system:public-info-viewer",
      {std::string(kAllAuthenticated), std::string(kAllUnauthenticated)}));
  p.cluster_role_bindings.push_back(
      ToGroups("system:monitoring", {std::string(kMonitoringGroup)}));
  return p;
}

StaticPolicySource::StaticPolicySource(const Policy& policy) {
  for (const ClusterRole& r : policy.cluster_roles) {
    roles_[r.name] = std::make_shared<const std::vector<PolicyRule>>(r.rules);
  }
  for (const Binding& b : policy.cluster_role_bindings) {
    bindings_.push_back(std::make_shared<const Binding>(b));
  }
}

std::vector<std::shared_ptr<const Binding>>
StaticPolicySource::ClusterRoleBindings() const {
  return bindings_;
}

std::vector<std::shared_ptr<const Binding>> StaticPolicySource::RoleBindings(
    std::string_view) const {
  return {};
}

std::shared_ptr<const std::vector<PolicyRule>>
StaticPolicySource::ClusterRoleRules(std::string_view name) const {
  auto it = roles_.find(name);
  return it == roles_.end() ? nullptr : it->second;
}

std::shared_ptr<const std::vector<PolicyRule>> StaticPolicySource::RoleRules(
    std::string_view, std::string_view) const {
  return nullptr;
}

}  // namespace draplane::auth
