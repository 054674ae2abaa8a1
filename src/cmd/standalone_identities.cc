#include "cmd/standalone_identities.h"

#include <utility>

#include "apiserver/tls_credentials.h"
#include "auth/user_info.h"
#include "common/str_cat.h"

namespace draplane::cmd {
namespace {

constexpr char kControllerNamespace[] = "kube-system";
constexpr char kClaimController[] = "resource-claim-controller";
constexpr char kNodeController[] = "node-controller";
constexpr char kQuotaController[] = "resourcequota-controller";
constexpr char kDeploymentController[] = "deployment-controller";
constexpr char kJobController[] = "job-controller";
constexpr char kDraMonitor[] = "draplane-dra-monitor";
constexpr char kServiceAccountController[] = "service-account-controller";

absl::StatusOr<auth::StaticToken> NewToken(auth::UserInfo user) {
  auto token = apiserver::NewRandomToken();
  if (!token.ok()) return token.status();
  return auth::StaticToken{*std::move(token), std::move(user)};
}

// A service account's user as upstream's authenticator makes it.
auth::UserInfo ServiceAccountUser(const std::string& name) {
  auth::UserInfo user;
  user.name = StrCat("system:serviceaccount:", kControllerNamespace, ":", name);
  user.groups = {"system:serviceaccounts",
                 StrCat("system:serviceaccounts:", kControllerNamespace)};
  return user;
}

api::Json Meta(const std::string& name) {
  return {{"name", name},
          {"labels", {{"app.kubernetes.io/managed-by", "draplane"}}},
          {"annotations",
           {{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

api::Json Rule(std::vector<std::string> groups,
               std::vector<std::string> resources,
               std::vector<std::string> verbs) {
  return {{"apiGroups", std::move(groups)},
          {"resources", std::move(resources)},
          {"verbs", std::move(verbs)}};
}

api::Json ServiceAccountSubject(const std::string& name) {
  return {{"kind", "ServiceAccount"},
          {"name", name},
          {"namespace", kControllerNamespace}};
}

api::Json ClusterRole(const std::string& name, api::Json rules) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRole"},
          {"metadata", Meta(name)},
          {"rules", std::move(rules)}};
}

api::Json ClusterRoleBinding(const std::string& name, const std::string& role,
                             api::Json subjects) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRoleBinding"},
          {"metadata", Meta(name)},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"},
            {"kind", "ClusterRole"},
            {"name", role}}},
          {"subjects", std::move(subjects)}};
}

}  // namespace

std::vector<auth::StaticToken> StandaloneIdentities::Tokens() const {
  std::vector<auth::StaticToken> out = {
      loopback,       scheduler,        claim_controller,
      node_lifecycle, quota_controller, deployment_controller,
      job_controller, dra_monitor,      service_account_controller};
  for (const auto& entry : nodes) out.push_back(entry.second);
  return out;
}

absl::StatusOr<StandaloneIdentities> NewStandaloneIdentities(
    const std::vector<std::string>& node_names) {
  StandaloneIdentities ids;
  struct Slot {
    auth::StaticToken* token;
    auth::UserInfo user;
  };
  std::vector<Slot> slots = {
      {&ids.loopback, auth::ApiServerUser()},
      {&ids.scheduler, auth::UserInfo{"system:kube-scheduler", "", {}, {}}},
      {&ids.claim_controller, ServiceAccountUser(kClaimController)},
      {&ids.node_lifecycle, ServiceAccountUser(kNodeController)},
      {&ids.quota_controller, ServiceAccountUser(kQuotaController)},
      {&ids.deployment_controller, ServiceAccountUser(kDeploymentController)},
      {&ids.job_controller, ServiceAccountUser(kJobController)},
      {&ids.dra_monitor, ServiceAccountUser(kDraMonitor)},
      {&ids.service_account_controller,
       ServiceAccountUser(kServiceAccountController)},
  };
  for (Slot& slot : slots) {
    auto token = NewToken(std::move(slot.user));
    if (!token.ok()) return token.status();
    *slot.token = *std::move(token);
  }
  for (const std::string& node : node_names) {
    auto token = NewToken(auth::UserInfo{StrCat("system:node:", node),
                                         "",
                                         {std::string(auth::kNodesGroup)},
                                         {}});
    if (!token.ok()) return token.status();
    ids.nodes[node] = *std::move(token);
  }
  return ids;
}

std::vector<api::Json> StandalonePolicyObjects() {
  const std::vector<std::string> kRead = {"get", "list", "watch"};
  const std::vector<std::string> kEventVerbs = {"create", "patch", "update"};
  api::Json informer_rules =
      api::Json::array({Rule({""},
                             {"pods", "nodes", "namespaces", "resourcequotas",
                              "events", "serviceaccounts"},
                             kRead),
                        Rule({"resource.k8s.io"},
                             {"deviceclasses", "resourceclaims",
                              "resourceclaimtemplates", "resourceslices"},
                             kRead),
                        Rule({"apps"}, {"deployments", "replicasets"}, kRead),
                        Rule({"batch"}, {"jobs"}, kRead),
                        Rule({"coordination.k8s.io"}, {"leases"}, kRead)});
  api::Json controllers = api::Json::array();
  for (const char* sa : {kClaimController, kNodeController, kQuotaController,
                         kDeploymentController, kJobController, kDraMonitor,
                         kServiceAccountController}) {
    controllers.push_back(ServiceAccountSubject(sa));
  }
  return {
      ClusterRole("draplane:controller-informers", std::move(informer_rules)),
      ClusterRoleBinding("draplane:controller-informers",
                         "draplane:controller-informers", controllers),
      ClusterRoleBinding(
          "draplane:deployment-controller-pods",
          "system:controller:replicaset-controller",
          api::Json::array({ServiceAccountSubject(kDeploymentController)})),
      ClusterRole("draplane:dra-monitor",
                  api::Json::array(
                      {Rule({"", "events.k8s.io"}, {"events"}, kEventVerbs)})),
      ClusterRoleBinding(
          "draplane:dra-monitor", "draplane:dra-monitor",
          api::Json::array({ServiceAccountSubject(kDraMonitor)})),
  };
}

}  // namespace draplane::cmd
