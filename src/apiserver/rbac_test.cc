// RBAC as `draplane server` runs it: the stored roles and bindings, the
// bootstrap policy reconciled at start, ClusterRole aggregation,
// validation of RBAC objects and escalation prevention, each with
// upstream's answers.
#include <map>
#include <string>
#include <vector>

#include "apiserver/api_server_test_util.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

constexpr char kRbac[] = "/apis/rbac.authorization.k8s.io/v1";

class RbacTest : public ::testing::Test {
 protected:
  RbacTest() { Start(); }

  void Start() {
    ApiServerOptions options;
    options.authorization_mode = ApiServerOptions::AuthorizationMode::kRbac;
    for (auto [token, name, groups] : std::vector<
             std::tuple<std::string, std::string, std::vector<std::string>>>{
             {"admin", "admin", {"system:masters"}},
             {"alice", "alice", {"team-a"}},
             {"bob", "bob", {}}}) {
      auth::StaticToken t;
      t.token = token;
      t.user.name = name;
      t.user.groups = groups;
      options.tokens.push_back(t);
    }
    server_.reset();
    server_ = std::make_unique<ApiServer>(store_.get(), options);
  }

  Response Do(const std::string& who, std::string method,
              const std::string& path, const std::string& body = "",
              const std::map<std::string, std::string>& headers = {}) {
    return DoWithToken(*server_, who, std::move(method), path, body, headers);
  }

  // The rules of stored ClusterRole `name`.
  Json ClusterRoleRules(const std::string& name) {
    Response r = Do("admin", "GET", StrCat(kRbac, "/clusterroles/", name));
    EXPECT_EQ(r.code, 200) << r.body;
    return r.code == 200 ? r.JsonBody()["rules"] : Json();
  }

  static bool HasRule(const Json& rules, const std::string& group,
                      const std::string& resource, const std::string& verb) {
    for (const Json& rule : rules) {
      auto has = [&rule](const char* key, const std::string& v) {
        if (!rule.contains(key)) return false;
        for (const Json& e : rule[key]) {
          if (e == v || e == "*") return true;
        }
        return false;
      };
      if (has("apiGroups", group) && has("resources", resource) &&
          has("verbs", verb)) {
        return true;
      }
    }
    return false;
  }

  std::unique_ptr<store::Store> store_ = store::NewMemoryStore();
  std::unique_ptr<ApiServer> server_;
};

constexpr char kTeamA[] =
    R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}})";

std::string RoleBinding(const std::string& name, const std::string& role_kind,
                        const std::string& role, const std::string& user) {
  return StrCat(
      R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",)",
      R"("metadata":{"name":")", name, R"("},"roleRef":{"kind":")", role_kind,
      R"(","name":")", role, R"("},"subjects":[{"kind":"User","name":")", user,
      R"("}]})");
}

std::string Role(const std::string& name, const std::string& rules) {
  return StrCat(
      R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",)",
      R"("metadata":{"name":")", name, R"("},"rules":)", rules, "}");
}

TEST_F(RbacTest, TheBootstrapPolicyIsStoredWithTheDraRulesOf137) {
  // admin, edit and view aggregate the resource.k8s.io rules of 1.37.
  Json edit = ClusterRoleRules("edit");
  EXPECT_TRUE(HasRule(edit, "resource.k8s.io", "resourceclaims", "create"));
  EXPECT_TRUE(
      HasRule(edit, "resource.k8s.io", "resourceclaimtemplates", "delete"));
  EXPECT_FALSE(HasRule(edit, "resource.k8s.io", "deviceclasses", "create"));
  Json view = ClusterRoleRules("view");
  EXPECT_TRUE(HasRule(view, "resource.k8s.io", "resourceclaims", "list"));
  EXPECT_FALSE(HasRule(view, "resource.k8s.io", "resourceclaims", "create"));
  Json admin = ClusterRoleRules("admin");
  EXPECT_TRUE(HasRule(admin, "resource.k8s.io", "resourceclaims", "create"));
  EXPECT_TRUE(
      HasRule(admin, "rbac.authorization.k8s.io", "rolebindings", "create"));
  Json scheduler = ClusterRoleRules("system:kube-scheduler");
  EXPECT_TRUE(HasRule(scheduler, "resource.k8s.io", "resourceslices", "list"));
  EXPECT_TRUE(
      HasRule(scheduler, "resource.k8s.io", "resourceclaims/status", "update"));
  EXPECT_EQ(Do("admin", "GET",
               StrCat(kRbac, "/clusterrolebindings/system:kube-scheduler"))
                .code,
            200);
  EXPECT_EQ(Do("admin", "GET",
               StrCat(kRbac,
                      "/namespaces/kube-system/roles/"
                      "system::leader-locking-kube-scheduler"))
                .code,
            200);
  Response crb = Do("admin", "GET", StrCat(kRbac, "/clusterrolebindings"));
  ASSERT_EQ(crb.code, 200);
  EXPECT_GE(crb.JsonBody()["items"].size(), 50u);
}

TEST_F(RbacTest, ARoleBindingGrantsInItsNamespaceOnly) {
  ASSERT_EQ(Do("admin", "POST", "/api/v1/namespaces", kTeamA).code, 201);
  const std::string claims =
      "/apis/resource.k8s.io/v1/namespaces/team-a/"
      "resourceclaims";
  EXPECT_EQ(Do("alice", "GET", claims).code, 403);
  ASSERT_EQ(
      Do("admin", "POST", StrCat(kRbac, "/namespaces/team-a/rolebindings"),
         RoleBinding("alice-edit", "ClusterRole", "edit", "alice"))
          .code,
      201);
  EXPECT_EQ(Do("alice", "GET", claims).code, 200);
  EXPECT_EQ(Do("alice", "GET",
               "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims")
                .code,
            403);
  Response denied =
      Do("alice", "POST", "/apis/resource.k8s.io/v1/deviceclasses",
         R"({"apiVersion":"resource.k8s.io/v1",
                           "kind":"DeviceClass","metadata":{"name":"gpu"}})");
  EXPECT_EQ(denied.code, 403);
  EXPECT_EQ(denied.JsonBody()["message"],
            "deviceclasses.resource.k8s.io is forbidden: User \"alice\" "
            "cannot create resource \"deviceclasses\" in API group "
            "\"resource.k8s.io\" at the cluster scope");
  // Deleting the binding takes the access away at once.
  ASSERT_EQ(Do("admin", "DELETE",
               StrCat(kRbac, "/namespaces/team-a/rolebindings/alice-edit"))
                .code,
            200);
  EXPECT_EQ(Do("alice", "GET", claims).code, 403);
}

TEST_F(RbacTest, RbacObjectsAreValidatedAsUpstream) {
  Response r = Do("admin", "POST", StrCat(kRbac, "/namespaces/default/roles"),
                  Role("bad", R"([{"apiGroups":[""],"resources":["pods"]},
                                  {"verbs":["get"],"nonResourceURLs":["/x"]}])"));
  ASSERT_EQ(r.code, 422) << r.body;
  EXPECT_EQ(r.JsonBody()["message"],
            "Role.rbac.authorization.k8s.io \"bad\" is invalid: "
            "[rules[0].verbs: Required value: verbs must contain at least one "
            "value, rules[1].nonResourceURLs: Invalid value: "
            "[]string{\"/x\"}: namespaced rules cannot apply to non-resource "
            "URLs]");
  r = Do("admin", "POST", StrCat(kRbac, "/clusterrolebindings"),
         R"({"apiVersion":"rbac.authorization.k8s.io/v1",
             "kind":"ClusterRoleBinding","metadata":{"name":"b"},
             "roleRef":{"kind":"Role","name":"r"},
             "subjects":[{"kind":"ServiceAccount","name":"sa"},
                         {"kind":"Robot","name":"x"}]})");
  ASSERT_EQ(r.code, 422) << r.body;
  EXPECT_EQ(r.JsonBody()["message"],
            "ClusterRoleBinding.rbac.authorization.k8s.io \"b\" is invalid: "
            "[roleRef.kind: Unsupported value: \"Role\": supported values: "
            "\"ClusterRole\", subjects[0].namespace: Required value, "
            "subjects[1].kind: Unsupported value: \"Robot\": supported "
            "values: \"ServiceAccount\", \"User\", \"Group\"]");
  // roleRef.apiGroup and a User subject's apiGroup are defaulted; roleRef
  // cannot change.
  ASSERT_EQ(
      Do("admin", "POST", StrCat(kRbac, "/namespaces/default/rolebindings"),
         RoleBinding("b", "ClusterRole", "view", "alice"))
          .code,
      201);
  Response stored =
      Do("admin", "GET", StrCat(kRbac, "/namespaces/default/rolebindings/b"));
  Json binding = stored.JsonBody();
  EXPECT_EQ(binding["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
  EXPECT_EQ(binding["subjects"][0]["apiGroup"], "rbac.authorization.k8s.io");
  binding["roleRef"]["name"] = "edit";
  r = Do("admin", "PUT", StrCat(kRbac, "/namespaces/default/rolebindings/b"),
         binding.dump());
  ASSERT_EQ(r.code, 422) << r.body;
  EXPECT_NE(r.JsonBody()["message"].get<std::string>().find(
                "roleRef: Invalid value: "),
            std::string::npos);
  EXPECT_NE(
      r.JsonBody()["message"].get<std::string>().find("field is immutable"),
      std::string::npos);
}

TEST_F(RbacTest, NobodyGrantsWhatTheyDoNotHold) {
  ASSERT_EQ(Do("admin", "POST", "/api/v1/namespaces", kTeamA).code, 201);
  ASSERT_EQ(
      Do("admin", "POST", StrCat(kRbac, "/namespaces/team-a/rolebindings"),
         RoleBinding("alice-admin", "ClusterRole", "admin", "alice"))
          .code,
      201);
  const std::string roles = StrCat(kRbac, "/namespaces/team-a/roles");
  // Rules alice holds in team-a: allowed.
  EXPECT_EQ(Do("alice", "POST", roles,
               Role("claims", R"([{"apiGroups":["resource.k8s.io"],
                                   "resources":["resourceclaims"],
                                   "verbs":["get","create"]}])"))
                .code,
            201);
  // Rules she does not hold: upstream's 403, naming what is missing.
  Response r = Do("alice", "POST", roles,
                  Role("nodes", R"([{"apiGroups":[""],"resources":["nodes"],
                                     "verbs":["get","delete"]}])"));
  ASSERT_EQ(r.code, 403) << r.body;
  EXPECT_EQ(r.JsonBody()["message"],
            "roles.rbac.authorization.k8s.io \"nodes\" is forbidden: user "
            "\"alice\" (groups=[\"team-a\" \"system:authenticated\"]) is "
            "attempting to grant RBAC permissions not currently held:\n"
            "{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\" "
            "\"delete\"]}");
  // Binding a role she holds the rules of: allowed; cluster-admin: no.
  const std::string bindings = StrCat(kRbac, "/namespaces/team-a/rolebindings");
  EXPECT_EQ(Do("alice", "POST", bindings,
               RoleBinding("bob-claims", "Role", "claims", "bob"))
                .code,
            201);
  r = Do("alice", "POST", bindings,
         RoleBinding("bob-root", "ClusterRole", "cluster-admin", "bob"));
  EXPECT_EQ(r.code, 403) << r.body;
  EXPECT_NE(r.body.find("is attempting to grant RBAC permissions not "
                        "currently held"),
            std::string::npos);
  // With `bind` on cluster-admin (granted by the admin), she can.
  ASSERT_EQ(Do("admin", "POST", roles,
               Role("binder", R"([{"apiGroups":["rbac.authorization.k8s.io"],
                                   "resources":["clusterroles"],
                                   "verbs":["bind"],
                                   "resourceNames":["cluster-admin"]}])"))
                .code,
            201);
  ASSERT_EQ(Do("admin", "POST", bindings,
               RoleBinding("alice-binder", "Role", "binder", "alice"))
                .code,
            201);
  EXPECT_EQ(Do("alice", "POST", bindings,
               RoleBinding("bob-root", "ClusterRole", "cluster-admin", "bob"))
                .code,
            201);
  // An aggregationRule needs every permission.
  r = Do("alice", "POST", StrCat(kRbac, "/clusterroles"),
         R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
             "metadata":{"name":"agg"},
             "aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"b"}}]}})");
  EXPECT_EQ(r.code, 403) << r.body;
}

TEST_F(RbacTest, AggregatedRolesGainTheRulesOfTheRolesTheySelect) {
  ASSERT_EQ(
      Do("admin", "POST", StrCat(kRbac, "/clusterroles"),
         R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
             "metadata":{"name":"gpu-viewer","labels":{
               "rbac.authorization.k8s.io/aggregate-to-view":"true"}},
             "rules":[{"apiGroups":["example.com"],"resources":["gpus"],
                       "verbs":["get"]}]})")
          .code,
      201);
  server_->RunControllersOnce();
  EXPECT_TRUE(HasRule(ClusterRoleRules("view"), "example.com", "gpus", "get"));
}

TEST_F(RbacTest, ReconciliationAddsWhatIsMissingUnlessTold) {
  // A trimmed `view` regains its rules at the next start...
  Response r =
      Do("admin", "GET", StrCat(kRbac, "/clusterroles/system:basic-user"));
  Json role = r.JsonBody();
  role["rules"] = Json::array();
  role["metadata"]["labels"]["team"] = "ops";
  ASSERT_EQ(Do("admin", "PUT", StrCat(kRbac, "/clusterroles/system:basic-user"),
               role.dump())
                .code,
            200);
  Start();
  Json rules = ClusterRoleRules("system:basic-user");
  EXPECT_TRUE(HasRule(rules, "authorization.k8s.io", "selfsubjectaccessreviews",
                      "create"));
  Json again =
      Do("admin", "GET", StrCat(kRbac, "/clusterroles/system:basic-user"))
          .JsonBody();
  EXPECT_EQ(again["metadata"]["labels"]["team"], "ops");
  // ... unless annotated autoupdate: "false".
  again["rules"] = Json::array();
  again["metadata"]["annotations"]
       ["rbac.authorization.kubernetes.io/autoupdate"] = "false";
  ASSERT_EQ(Do("admin", "PUT", StrCat(kRbac, "/clusterroles/system:basic-user"),
               again.dump())
                .code,
            200);
  Start();
  EXPECT_TRUE(ClusterRoleRules("system:basic-user").empty());
}

TEST_F(RbacTest, AccessReviewsAnswerWhatTheAuthorizerWouldDecide) {
  ASSERT_EQ(Do("admin", "POST", "/api/v1/namespaces", kTeamA).code, 201);
  ASSERT_EQ(
      Do("admin", "POST", StrCat(kRbac, "/namespaces/team-a/rolebindings"),
         RoleBinding("alice-edit", "ClusterRole", "edit", "alice"))
          .code,
      201);
  const std::string ssar =
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  auto ask = [&](const std::string& who, const std::string& attributes) {
    Response r = Do(who, "POST", ssar,
                    StrCat(R"({"apiVersion":"authorization.k8s.io/v1",)"
                           R"("kind":"SelfSubjectAccessReview","spec":{)",
                           attributes, "}}"));
    EXPECT_EQ(r.code, 201) << r.body;
    return r.code == 201 ? r.JsonBody()["status"] : Json();
  };
  Json yes = ask("alice", R"("resourceAttributes":{"namespace":"team-a",
      "verb":"create","group":"resource.k8s.io","resource":"resourceclaims"})");
  EXPECT_EQ(yes["allowed"], true);
  EXPECT_EQ(yes["reason"],
            "RBAC: allowed by RoleBinding \"alice-edit/team-a\" of ClusterRole "
            "\"edit\" to User \"alice\"");
  Json no = ask("alice", R"("resourceAttributes":{"namespace":"team-b",
      "verb":"create","group":"resource.k8s.io","resource":"resourceclaims"})");
  EXPECT_EQ(no["allowed"], false);
  EXPECT_FALSE(no.contains("denied"));
  EXPECT_EQ(ask("bob", R"("nonResourceAttributes":{"path":"/version",
                                                    "verb":"get"})")["allowed"],
            true);
  EXPECT_EQ(ask("admin", R"("resourceAttributes":{"verb":"delete",
                                                  "resource":"nodes"})")
                ["allowed"],
            true);
  // Neither kind of attributes: upstream's 422.
  Response invalid = Do("alice", "POST", ssar,
                        R"({"kind":"SelfSubjectAccessReview","spec":{}})");
  ASSERT_EQ(invalid.code, 422) << invalid.body;
  EXPECT_EQ(invalid.JsonBody()["message"],
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
            "spec.resourceAttributes: Invalid value: null: exactly one of "
            "nonResourceAttributes or resourceAttributes must be specified");

  // SubjectAccessReview asks for someone else: only who may create them.
  const std::string sar = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
  const std::string about_alice =
      R"({"kind":"SubjectAccessReview","spec":{"user":"alice",
          "groups":["team-a"],"resourceAttributes":{"namespace":"team-a",
          "verb":"get","group":"resource.k8s.io","resource":"resourceclaims"}}})";
  EXPECT_EQ(Do("alice", "POST", sar, about_alice).code, 403);
  Response sar_answer = Do("admin", "POST", sar, about_alice);
  ASSERT_EQ(sar_answer.code, 201) << sar_answer.body;
  EXPECT_EQ(sar_answer.JsonBody()["status"]["allowed"], true);
  // LocalSubjectAccessReview: the spec's namespace must be the URL's.
  Response local =
      Do("admin", "POST",
         "/apis/authorization.k8s.io/v1/namespaces/team-b/"
         "localsubjectaccessreviews",
         R"({"kind":"LocalSubjectAccessReview","spec":{"user":"alice",
          "resourceAttributes":{"namespace":"team-a","verb":"get",
          "resource":"pods"}}})");
  EXPECT_EQ(local.code, 400);
  EXPECT_EQ(local.JsonBody()["message"],
            "spec.resourceAttributes.namespace must match namespace: team-b");
}

TEST_F(RbacTest, RulesReviewListsTheCallersRules) {
  ASSERT_EQ(Do("admin", "POST", "/api/v1/namespaces", kTeamA).code, 201);
  ASSERT_EQ(
      Do("admin", "POST", StrCat(kRbac, "/namespaces/team-a/rolebindings"),
         RoleBinding("alice-view", "ClusterRole", "view", "alice"))
          .code,
      201);
  auto rules = [&](const std::string& ns) {
    Response r = Do("alice", "POST",
                    "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                    StrCat(R"({"kind":"SelfSubjectRulesReview",)"
                           R"("spec":{"namespace":")",
                           ns, R"("}})"));
    EXPECT_EQ(r.code, 201) << r.body;
    return r.JsonBody()["status"];
  };
  Json in_a = rules("team-a");
  EXPECT_EQ(in_a["incomplete"], false);
  EXPECT_TRUE(HasRule(in_a["resourceRules"], "resource.k8s.io",
                      "resourceclaims", "list"));
  EXPECT_FALSE(HasRule(in_a["resourceRules"], "resource.k8s.io",
                       "resourceclaims", "create"));
  // Self reviews, from system:basic-user, everywhere.
  Json in_b = rules("team-b");
  EXPECT_TRUE(HasRule(in_b["resourceRules"], "authorization.k8s.io",
                      "selfsubjectaccessreviews", "create"));
  EXPECT_FALSE(HasRule(in_b["resourceRules"], "resource.k8s.io",
                       "resourceclaims", "list"));
  EXPECT_FALSE(in_b["nonResourceRules"].empty());
}

TEST_F(RbacTest, ImpersonationNeedsTheImpersonateVerb) {
  const std::string whoami =
      "/apis/authentication.k8s.io/v1/selfsubjectreviews";
  const std::string review = R"({"kind":"SelfSubjectReview"})";
  // system:masters may act as anyone; the request is then alice's.
  Response as_alice =
      Do("admin", "POST", whoami, review, {{"impersonate-user", "alice"}});
  ASSERT_EQ(as_alice.code, 201) << as_alice.body;
  EXPECT_EQ(as_alice.JsonBody()["status"]["userInfo"],
            Json::parse(R"({"username":"alice",
                            "groups":["system:authenticated"]})"));
  Response denied = Do("admin", "GET", "/apis/resource.k8s.io/v1/deviceclasses",
                       "", {{"impersonate-user", "alice"}});
  EXPECT_EQ(denied.code, 403);
  EXPECT_NE(denied.JsonBody()["message"].get<std::string>().find(
                "User \"alice\" cannot list"),
            std::string::npos);
  // alice may not: 1.37's first mode (user-info) refuses first.
  Response refused =
      Do("alice", "POST", whoami, review, {{"impersonate-user", "bob"}});
  ASSERT_EQ(refused.code, 403);
  EXPECT_EQ(refused.JsonBody()["message"],
            "selfsubjectreviews.authentication.k8s.io is forbidden: User "
            "\"alice\" cannot impersonate-on:user-info:create resource "
            "\"selfsubjectreviews\" in API group \"authentication.k8s.io\" "
            "at the cluster scope");
  // Granted the legacy verb on users/bob and groups/ops, she may.
  ASSERT_EQ(
      Do("admin", "POST", StrCat(kRbac, "/clusterroles"),
         R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
             "metadata":{"name":"as-bob"},
             "rules":[{"apiGroups":[""],"resources":["users"],
                       "verbs":["impersonate"],"resourceNames":["bob"]},
                      {"apiGroups":[""],"resources":["groups"],
                       "verbs":["impersonate"],"resourceNames":["ops"]}]})")
          .code,
      201);
  ASSERT_EQ(Do("admin", "POST", StrCat(kRbac, "/clusterrolebindings"),
               R"({"apiVersion":"rbac.authorization.k8s.io/v1",
                   "kind":"ClusterRoleBinding","metadata":{"name":"as-bob"},
                   "roleRef":{"kind":"ClusterRole","name":"as-bob"},
                   "subjects":[{"kind":"User","name":"alice"}]})")
                .code,
            201);
  Response as_bob =
      Do("alice", "POST", whoami, review,
         {{"impersonate-user", "bob"}, {"impersonate-group", "ops"}});
  ASSERT_EQ(as_bob.code, 201) << as_bob.body;
  EXPECT_EQ(as_bob.JsonBody()["status"]["userInfo"],
            Json::parse(R"({"username":"bob",
                            "groups":["ops","system:authenticated"]})"));
  // Another group, or another user: refused.
  EXPECT_EQ(Do("alice", "POST", whoami, review,
               {{"impersonate-user", "bob"},
                {"impersonate-group", "ops\nsystem:masters"}})
                .code,
            403);
  EXPECT_EQ(
      Do("alice", "POST", whoami, review, {{"impersonate-user", "carol"}}).code,
      403);
  // Beyond upstream: at most 100 groups and extra values per request.
  std::string many = "g0";
  for (int i = 1; i <= 100; ++i) many += "\ng" + std::to_string(i);
  Response too_many =
      Do("admin", "POST", whoami, review,
         {{"impersonate-user", "bob"}, {"impersonate-group", many}});
  EXPECT_EQ(too_many.code, 400) << too_many.body;
  // Groups without a user: 400.
  Response no_user =
      Do("admin", "POST", whoami, review, {{"impersonate-group", "ops"}});
  EXPECT_EQ(no_user.code, 400);
  EXPECT_NE(no_user.body.find("without impersonating a user name"),
            std::string::npos);
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test
