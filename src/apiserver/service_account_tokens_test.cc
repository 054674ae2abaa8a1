// ServiceAccounts and their tokens as kube-apiserver serves them: the
// TokenRequest subresource (`kubectl create token`), bound tokens that
// stop working when what they are bound to goes, audiences, expiry,
// TokenReview, the issuer discovery documents, NodeRestriction's rules for
// a node's token requests, and a rotated signing key that still verifies
// what it signed.
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "apiserver/api_server_test_util.h"
#include "apiserver/service_account_keys.h"
#include "auth/service_account_token.h"
#include "clock/simulated_clock.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

constexpr char kAccounts[] = "/api/v1/namespaces/team/serviceaccounts";
constexpr char kRobotToken[] =
    "/api/v1/namespaces/team/serviceaccounts/robot/token";
constexpr char kWhoAmI[] = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
constexpr char kTokenReviews[] = "/apis/authentication.k8s.io/v1/tokenreviews";

const std::string& SigningKey() {
  static const std::string* key =
      new std::string(*auth::NewServiceAccountSigningKey());
  return *key;
}

class ServiceAccountTokensTest : public ::testing::Test {
 protected:
  ServiceAccountTokensTest() { Start(SigningKey(), {}); }

  void Start(const std::string& key, std::vector<std::string> retired) {
    ApiServerOptions options;
    options.authorization_mode =
        ApiServerOptions::AuthorizationMode::kNodeAndRbac;
    options.clock = &clock_;
    for (auto [token, name, groups] : std::vector<
             std::tuple<std::string, std::string, std::vector<std::string>>>{
             {"admin", "admin", {"system:masters"}},
             {"node1", "system:node:node1", {"system:nodes"}},
             {"alice", "alice", {}}}) {
      options.tokens.push_back(
          auth::StaticToken{token, {name, "", groups, {}}});
    }
    options.service_account_tokens.signing_key_pem = key;
    options.service_account_tokens.extra_verification_key_pems =
        std::move(retired);
    options.service_account_tokens.max_expiration = absl::Hours(48);
    options.service_account_tokens.on_issued = [this](absl::Time t) {
      issued_.push_back(t);
    };
    server_.reset();
    server_ = std::make_unique<ApiServer>(store_.get(), options);
  }

  void SetUpObjects() {
    Admin(
        "POST", "/api/v1/namespaces",
        R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})");
    ASSERT_EQ(Admin("POST", kAccounts, Account("robot")).code, 201);
    ASSERT_EQ(
        Admin(
            "POST", "/api/v1/nodes",
            R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"node1"}})")
            .code,
        201);
  }

  Response Admin(std::string method, const std::string& path,
                 const std::string& body = "") {
    return DoWithToken(*server_, "admin", std::move(method), path, body);
  }

  static std::string Account(const std::string& name) {
    return api::DumpJson(Json{{"apiVersion", "v1"},
                              {"kind", "ServiceAccount"},
                              {"metadata", {{"name", name}}}});
  }

  std::string CreatePod(const std::string& name, const std::string& node) {
    Json pod{{"apiVersion", "v1"},
             {"kind", "Pod"},
             {"metadata", {{"name", name}}},
             {"spec",
              {{"serviceAccountName", "robot"},
               {"containers",
                Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
    if (!node.empty()) pod["spec"]["nodeName"] = node;
    Response r =
        Admin("POST", "/api/v1/namespaces/team/pods", api::DumpJson(pod));
    EXPECT_EQ(r.code, 201) << r.body;
    return r.JsonBody()["metadata"]["uid"].get<std::string>();
  }

  // The token of a TokenRequest `spec` for robot (fails the test if none).
  std::string Token(const Json& spec = Json::object(),
                    const std::string& who = "admin") {
    Response r = DoWithToken(*server_, who, "POST", kRobotToken,
                             api::DumpJson(Json{{"spec", spec}}));
    EXPECT_EQ(r.code, 201) << r.body;
    if (r.code != 201) return "";
    return r.JsonBody()["status"]["token"].get<std::string>();
  }

  Response WhoAmI(const std::string& token) {
    return DoWithToken(*server_, token, "POST", kWhoAmI, "{}");
  }

  // The token's claims, as its payload says.
  static Json Payload(const std::string& token) {
    std::vector<std::string> parts = absl::StrSplit(token, '.');
    std::string json;
    EXPECT_EQ(parts.size(), 3u);
    EXPECT_TRUE(absl::WebSafeBase64Unescape(parts[1], &json));
    return Json::parse(json);
  }

  SimulatedClock clock_{absl::Now()};
  std::unique_ptr<store::Store> store_ = store::NewMemoryStore();
  std::unique_ptr<ApiServer> server_;
  std::vector<absl::Time> issued_;
};

TEST_F(ServiceAccountTokensTest, TokenRequestAuthenticatesAsTheAccount) {
  SetUpObjects();
  Response made = DoWithToken(*server_, "admin", "POST", kRobotToken,
                              R"({"apiVersion":"authentication.k8s.io/v1",
                                  "kind":"TokenRequest","spec":{}})");
  ASSERT_EQ(made.code, 201) << made.body;
  const Json request = made.JsonBody();
  EXPECT_EQ(request["kind"], "TokenRequest");
  EXPECT_EQ(request["spec"]["expirationSeconds"], 3600);
  EXPECT_EQ(request["spec"]["audiences"],
            Json::array({"https://kubernetes.default.svc.cluster.local"}));
  const std::string token = request["status"]["token"].get<std::string>();
  ASSERT_EQ(issued_.size(), 1u);
  EXPECT_EQ(
      request["status"]["expirationTimestamp"],
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", issued_[0], absl::UTCTimeZone()));

  Response who = WhoAmI(token);
  ASSERT_EQ(who.code, 201) << who.body;
  const Json info = who.JsonBody()["status"]["userInfo"];
  EXPECT_EQ(info["username"], "system:serviceaccount:team:robot");
  EXPECT_EQ(info["groups"], Json::array({"system:serviceaccounts",
                                         "system:serviceaccounts:team",
                                         "system:authenticated"}));
  const Json payload = Payload(token);
  EXPECT_EQ(info["uid"], payload["kubernetes.io"]["serviceaccount"]["uid"]);
  EXPECT_EQ(info["extra"]["authentication.kubernetes.io/credential-id"],
            Json::array({"JTI=" + payload["jti"].get<std::string>()}));
  EXPECT_EQ(payload["sub"], "system:serviceaccount:team:robot");
  EXPECT_EQ(payload["iss"], "https://kubernetes.default.svc.cluster.local");

  // RBAC sees the account: nothing granted yet.
  Response list =
      DoWithToken(*server_, token, "GET", "/api/v1/namespaces/team/pods");
  EXPECT_EQ(list.code, 403);
  EXPECT_EQ(list.JsonBody()["message"],
            "pods is forbidden: User \"system:serviceaccount:team:robot\" "
            "cannot list resource \"pods\" in API group \"\" in the "
            "namespace \"team\"");
}

TEST_F(ServiceAccountTokensTest, RequestsAreValidatedAsUpstream) {
  SetUpObjects();
  Response short_lived = DoWithToken(*server_, "admin", "POST", kRobotToken,
                                     R"({"spec":{"expirationSeconds":60}})");
  EXPECT_EQ(short_lived.code, 422);
  EXPECT_EQ(short_lived.JsonBody()["message"],
            "TokenRequest.authentication.k8s.io \"\" is invalid: "
            "spec.expirationSeconds: Invalid value: 60: may not specify a "
            "duration less than 10 minutes");
  Response missing =
      DoWithToken(*server_, "admin", "POST",
                  "/api/v1/namespaces/team/serviceaccounts/nobody/token", "{}");
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(missing.JsonBody()["message"],
            "serviceaccounts \"nobody\" not found");
  Response other_name = DoWithToken(*server_, "admin", "POST", kRobotToken,
                                    R"({"metadata":{"name":"x"}})");
  EXPECT_EQ(other_name.code, 422);
  EXPECT_EQ(other_name.JsonBody()["message"],
            "TokenRequest.authentication.k8s.io \"robot\" is invalid: "
            "metadata.name: Invalid value: \"x\": must match the service "
            "account name if specified");
  Response other_kind = DoWithToken(
      *server_, "admin", "POST", kRobotToken,
      R"({"spec":{"boundObjectRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}}})");
  EXPECT_EQ(other_kind.code, 400);
  EXPECT_EQ(other_kind.JsonBody()["message"],
            "cannot bind token to object of type apps/v1, Kind=Deployment");
  // Longer than --service-account-max-token-expiration: shortened.
  Response long_lived = DoWithToken(*server_, "admin", "POST", kRobotToken,
                                    R"({"spec":{"expirationSeconds":604800}})");
  ASSERT_EQ(long_lived.code, 201);
  EXPECT_EQ(long_lived.JsonBody()["spec"]["expirationSeconds"], 172800);
  EXPECT_EQ(long_lived.Header("Warning"),
            "299 - \"requested expiration of 604800 seconds shortened to "
            "172800 seconds\"");
  // Only who may create serviceaccounts/token gets one.
  Response alice = DoWithToken(*server_, "alice", "POST", kRobotToken, "{}");
  EXPECT_EQ(alice.code, 403);
}

TEST_F(ServiceAccountTokensTest, TokensDieWithWhatTheyAreBoundTo) {
  SetUpObjects();
  const std::string pod_uid = CreatePod("worker", "node1");
  const std::string bound = Token({{"boundObjectRef",
                                    {{"apiVersion", "v1"},
                                     {"kind", "Pod"},
                                     {"name", "worker"},
                                     {"uid", pod_uid}}}});
  const std::string unbound = Token();
  Response who = WhoAmI(bound);
  ASSERT_EQ(who.code, 201) << who.body;
  const Json extra = who.JsonBody()["status"]["userInfo"]["extra"];
  EXPECT_EQ(extra["authentication.kubernetes.io/pod-name"],
            Json::array({"worker"}));
  EXPECT_EQ(extra["authentication.kubernetes.io/pod-uid"],
            Json::array({pod_uid}));
  EXPECT_EQ(extra["authentication.kubernetes.io/node-name"],
            Json::array({"node1"}));
  EXPECT_EQ(Payload(bound)["kubernetes.io"]["node"]["name"], "node1");

  // A pod of another ServiceAccount cannot be bound to.
  Admin("POST", kAccounts, Account("other"));
  Response mismatch = DoWithToken(
      *server_, "admin", "POST",
      "/api/v1/namespaces/team/serviceaccounts/other/token",
      R"({"spec":{"boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"worker"}}})");
  EXPECT_EQ(mismatch.code, 400);
  EXPECT_EQ(mismatch.JsonBody()["message"],
            "cannot bind token for serviceaccount \"other\" to pod running "
            "with different serviceaccount name.");

  ASSERT_EQ(Admin("DELETE", "/api/v1/namespaces/team/pods/worker").code, 200);
  EXPECT_EQ(WhoAmI(bound).code, 401) << "the bound pod is gone";
  EXPECT_EQ(WhoAmI(unbound).code, 201);

  ASSERT_EQ(Admin("DELETE", std::string(kAccounts) + "/robot").code, 200);
  EXPECT_EQ(WhoAmI(unbound).code, 401) << "the ServiceAccount is gone";
  ASSERT_EQ(Admin("POST", kAccounts, Account("robot")).code, 201);
  EXPECT_EQ(WhoAmI(unbound).code, 401)
      << "a new ServiceAccount of the same name is another one";
}

TEST_F(ServiceAccountTokensTest, ExpiryAndAudiences) {
  SetUpObjects();
  const std::string token = Token({{"expirationSeconds", 600}});
  clock_.Advance(absl::Seconds(600 + 59));
  EXPECT_EQ(WhoAmI(token).code, 201) << "within go-jose's minute of leeway";
  clock_.Advance(absl::Seconds(2));
  EXPECT_EQ(WhoAmI(token).code, 401);

  const std::string vault = Token({{"audiences", Json::array({"vault"})}});
  EXPECT_EQ(WhoAmI(vault).code, 401) << "not for this API server";
  Response review = Admin(
      "POST", kTokenReviews,
      api::DumpJson(
          Json{{"spec",
                {{"token", vault}, {"audiences", Json::array({"vault"})}}}}));
  ASSERT_EQ(review.code, 201) << review.body;
  Json status = review.JsonBody()["status"];
  EXPECT_EQ(status["authenticated"], true);
  EXPECT_EQ(status["user"]["username"], "system:serviceaccount:team:robot");
  EXPECT_EQ(status["audiences"], Json::array({"vault"}));

  review = Admin("POST", kTokenReviews,
                 api::DumpJson(Json{{"spec", {{"token", vault}}}}));
  status = review.JsonBody()["status"];
  EXPECT_EQ(status["authenticated"], false);
  EXPECT_EQ(status["error"],
            "token audiences [\"vault\"] is invalid for the target audiences "
            "[\"https://kubernetes.default.svc.cluster.local\"]");

  review = Admin("POST", kTokenReviews, R"({"spec":{"token":"not-a-token"}})");
  ASSERT_EQ(review.code, 201);
  EXPECT_EQ(review.JsonBody()["status"],
            Json({{"authenticated", false}, {"user", Json::object()}}));
  review = Admin("POST", kTokenReviews, R"({"spec":{}})");
  EXPECT_EQ(review.code, 400);
  EXPECT_EQ(review.JsonBody()["message"],
            "token is required for TokenReview in authentication");
  // A static token reviews as its user.
  review = Admin("POST", kTokenReviews, R"({"spec":{"token":"alice"}})");
  EXPECT_EQ(review.JsonBody()["status"]["user"]["username"], "alice");
  EXPECT_EQ(DoWithToken(*server_, "alice", "POST", kTokenReviews,
                        R"({"spec":{"token":"alice"}})")
                .code,
            403)
      << "tokenreviews need create on tokenreviews";
}

TEST_F(ServiceAccountTokensTest, IssuerDiscovery) {
  SetUpObjects();
  const std::string token = Token();
  // Anonymous users may not read it; ServiceAccounts may
  // (system:service-account-issuer-discovery).
  http::HttpRequest req;
  req.method = "GET";
  req.path = "/.well-known/openid-configuration";
  req.headers["host"] = "127.0.0.1:6443";
  RecordingWriter anonymous;
  server_->Handle(req, anonymous);
  EXPECT_EQ(anonymous.code, 403);
  Response config =
      DoWithToken(*server_, token, "GET", "/.well-known/openid-configuration",
                  "", {{"host", "127.0.0.1:6443"}});
  ASSERT_EQ(config.code, 200) << config.body;
  EXPECT_EQ(config.Header("Content-Type"), "application/json");
  const Json c = config.JsonBody();
  EXPECT_EQ(c["issuer"], "https://kubernetes.default.svc.cluster.local");
  EXPECT_EQ(c["jwks_uri"], "https://127.0.0.1:6443/openid/v1/jwks");
  EXPECT_EQ(c["id_token_signing_alg_values_supported"], Json::array({"RS256"}));
  Response jwks = DoWithToken(*server_, token, "GET", "/openid/v1/jwks");
  ASSERT_EQ(jwks.code, 200);
  EXPECT_EQ(jwks.Header("Content-Type"), "application/jwk-set+json");
  const Json keys = jwks.JsonBody()["keys"];
  ASSERT_EQ(keys.size(), 1u);
  std::vector<std::string> parts = absl::StrSplit(token, '.');
  std::string header;
  ASSERT_TRUE(absl::WebSafeBase64Unescape(parts[0], &header));
  EXPECT_EQ(keys[0]["kid"], Json::parse(header)["kid"]);
}

TEST_F(ServiceAccountTokensTest, NodesGetTokensOnlyForTheirPods) {
  SetUpObjects();
  const std::string mine = CreatePod("mine", "node1");
  const std::string theirs = CreatePod("theirs", "node2");
  auto ref = [](const std::string& name, const std::string& uid) {
    return Json{{"boundObjectRef",
                 {{"apiVersion", "v1"},
                  {"kind", "Pod"},
                  {"name", name},
                  {"uid", uid}}}};
  };
  EXPECT_FALSE(Token(ref("mine", mine), "node1").empty());
  Response unbound = DoWithToken(*server_, "node1", "POST", kRobotToken, "{}");
  EXPECT_EQ(unbound.code, 403);
  EXPECT_EQ(unbound.JsonBody()["message"],
            "serviceaccounts \"robot\" is forbidden: node requested token "
            "not bound to a pod");
  Response other =
      DoWithToken(*server_, "node1", "POST", kRobotToken,
                  api::DumpJson(Json{{"spec", ref("theirs", theirs)}}));
  EXPECT_EQ(other.code, 403) << other.body;
}

TEST_F(ServiceAccountTokensTest, RotatedKeyVerifiesWhatItSigned) {
  const std::string dir = ::testing::TempDir() + "/sa-rotation";
  std::filesystem::remove_all(dir);
  const absl::Time now = clock_.Now();
  auto first = LoadOrCreateServiceAccountKeys(dir, now);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->retired_public_key_pems.empty());
  ServiceAccountExpiryLog(dir, first->key_id).Record(now + absl::Hours(2));

  Start(first->signing_key_pem, {});
  SetUpObjects();
  const std::string old_token = Token({{"expirationSeconds", 7200}});

  ASSERT_TRUE(RotateServiceAccountKey(dir, now).ok());
  auto second = LoadOrCreateServiceAccountKeys(dir, now);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(second->key_id, first->key_id);
  ASSERT_EQ(second->retired_public_key_pems.size(), 1u);
  Start(second->signing_key_pem, second->retired_public_key_pems);
  EXPECT_EQ(WhoAmI(old_token).code, 201) << "the old key still verifies";
  const std::string new_token = Token();
  EXPECT_EQ(WhoAmI(new_token).code, 201);
  Response jwks = Admin("GET", "/openid/v1/jwks");
  EXPECT_EQ(jwks.JsonBody()["keys"].size(), 2u);

  // Once the old key's last token expired, it is dropped.
  auto later = LoadOrCreateServiceAccountKeys(dir, now + absl::Hours(3));
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE(later->retired_public_key_pems.empty());
  Start(later->signing_key_pem, later->retired_public_key_pems);
  EXPECT_EQ(WhoAmI(old_token).code, 401);
  EXPECT_EQ(WhoAmI(new_token).code, 201);
}

TEST_F(ServiceAccountTokensTest, ServiceAccountsAreServed) {
  SetUpObjects();
  Response got = Admin("GET", std::string(kAccounts) + "/robot");
  ASSERT_EQ(got.code, 200);
  EXPECT_EQ(got.JsonBody()["kind"], "ServiceAccount");
  Response bad = Admin("POST", kAccounts, Account("Not_Valid"));
  EXPECT_EQ(bad.code, 422);
  EXPECT_EQ(
      bad.JsonBody()["message"],
      "ServiceAccount \"Not_Valid\" is invalid: metadata.name: Invalid "
      "value: \"Not_Valid\": a lowercase RFC 1123 subdomain must "
      "consist of lower case alphanumeric characters, '-' or '.', and "
      "must start and end with an alphanumeric character (e.g. "
      "'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test
