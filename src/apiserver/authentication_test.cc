// Authentication and authorization as `draplane server` configures them:
// the admin token and client certificates in system:masters, a token
// file's users, anonymous requests, RBAC with upstream's bootstrap policy,
// and upstream's 401 and 403 answers.
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "apiserver/api_server_test_util.h"
#include "apiserver/tls_credentials.h"
#include "auth/rbac.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

struct Answer {
  int code = 0;
  Json body;
};

class AuthenticationTest : public ::testing::Test {
 protected:
  void Start(bool anonymous_auth) {
    ApiServerOptions options;
    options.tokens.push_back(AdminToken("admin-secret"));
    auth::StaticToken alice;
    alice.token = "alice-secret";
    alice.user.name = "alice";
    alice.user.groups = {"team-a"};
    options.tokens.push_back(alice);
    auth::StaticToken prom;
    prom.token = "prom-secret";
    prom.user.name = "prom";
    prom.user.groups = {"system:monitoring"};
    options.tokens.push_back(prom);
    options.anonymous_auth = anonymous_auth;
    options.authorization_mode = ApiServerOptions::AuthorizationMode::kRbac;
    options.metrics = [] { return std::string("up 1\n"); };
    server_ = std::make_unique<ApiServer>(store_.get(), options);
  }

  Answer Request(std::string method, std::string path,
                 const std::string& authorization = "",
                 std::optional<http::ClientCertificate> cert = std::nullopt) {
    http::HttpRequest req;
    req.method = std::move(method);
    req.path = std::move(path);
    if (!authorization.empty()) req.headers["authorization"] = authorization;
    req.client_certificate = std::move(cert);
    if (req.method == "POST") {
      req.headers["content-type"] = "application/json";
      req.body = R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
                     "metadata":{"name":"gpu"}})";
    }
    RecordingWriter w;
    server_->Handle(req, w);
    Answer a{w.code, Json()};
    if (!w.body.empty() && w.body[0] == '{') a.body = Json::parse(w.body);
    return a;
  }

  static http::ClientCertificate Cert(std::string cn,
                                      std::vector<std::string> o,
                                      bool verified = true) {
    http::ClientCertificate c;
    c.verified = verified;
    if (!verified) c.error = "certificate has expired";
    c.common_name = std::move(cn);
    c.organizations = std::move(o);
    return c;
  }

  std::unique_ptr<store::Store> store_ = store::NewMemoryStore();
  std::unique_ptr<ApiServer> server_;
};

constexpr char kClasses[] = "/apis/resource.k8s.io/v1/deviceclasses";

TEST_F(AuthenticationTest, AnonymousRequestsSeePublicInfoOnly) {
  Start(/*anonymous_auth=*/true);
  for (const char* path : {"/version", "/healthz", "/livez", "/readyz"}) {
    EXPECT_EQ(Request("GET", path).code, 200) << path;
  }
  Answer list = Request("GET", kClasses);
  EXPECT_EQ(list.code, 403);
  EXPECT_EQ(list.body["reason"], "Forbidden");
  EXPECT_EQ(list.body["message"],
            "deviceclasses.resource.k8s.io is forbidden: User "
            "\"system:anonymous\" cannot list resource \"deviceclasses\" in "
            "API group \"resource.k8s.io\" at the cluster scope");
  EXPECT_EQ(list.body["details"],
            (Json{{"group", "resource.k8s.io"}, {"kind", "deviceclasses"}}));
  Answer discovery = Request("GET", "/apis");
  EXPECT_EQ(discovery.code, 403);
  EXPECT_EQ(discovery.body["message"],
            "forbidden: User \"system:anonymous\" cannot get path \"/apis\"");
  EXPECT_EQ(Request("GET", "/metrics").code, 403);
}

TEST_F(AuthenticationTest, WithoutAnonymousAuthEverythingNeedsCredentials) {
  Start(/*anonymous_auth=*/false);
  Answer version = Request("GET", "/version");
  EXPECT_EQ(version.code, 401);
  EXPECT_EQ(version.body["message"], "Unauthorized");
  EXPECT_EQ(Request("GET", "/version", "Bearer alice-secret").code, 200);
}

TEST_F(AuthenticationTest, BadCredentialsAre401EvenWhereAnonymousIsAllowed) {
  Start(/*anonymous_auth=*/true);
  for (const char* bad :
       {"Bearer wrong", "Bearer  alice-secret", "bearer alice-secretX"}) {
    Answer a = Request("GET", "/version", bad);
    EXPECT_EQ(a.code, 401) << bad;
    EXPECT_EQ(a.body["message"], "Unauthorized") << bad;
  }
  // Another scheme, or no token, is no credential at all: anonymous.
  EXPECT_EQ(Request("GET", "/version", "Basic YTpi").code, 200);
  EXPECT_EQ(Request("GET", "/version", "Bearer ").code, 200);
  // An unverifiable certificate is a 401, whatever else is presented.
  EXPECT_EQ(Request("GET", "/version", "Bearer admin-secret",
                    Cert("admin", {"system:masters"}, false))
                .code,
            401);
}

TEST_F(AuthenticationTest, AdminTokenAndMastersCertificatesMayDoAnything) {
  Start(/*anonymous_auth=*/true);
  EXPECT_EQ(Request("POST", kClasses, "BEARER admin-secret").code, 201);
  EXPECT_EQ(Request("GET", kClasses, "", Cert("root", {"system:masters"})).code,
            200);
  EXPECT_EQ(Request("GET", "/metrics", "Bearer admin-secret").code, 200);
}

TEST_F(AuthenticationTest, OtherUsersGetUpstreamsBootstrapRolesOnly) {
  Start(/*anonymous_auth=*/true);
  // system:authenticated may discover.
  EXPECT_EQ(Request("GET", "/apis", "Bearer alice-secret").code, 200);
  EXPECT_EQ(Request("GET", "/apis", "", Cert("bob", {"team-b"})).code, 200);
  Answer create = Request("POST", kClasses, "Bearer alice-secret");
  EXPECT_EQ(create.code, 403);
  EXPECT_EQ(create.body["message"],
            "deviceclasses.resource.k8s.io is forbidden: User \"alice\" "
            "cannot create resource \"deviceclasses\" in API group "
            "\"resource.k8s.io\" at the cluster scope");
  Answer pod = Request("GET", "/api/v1/namespaces/default/pods/p", "",
                       Cert("bob", {"team-b"}));
  EXPECT_EQ(pod.code, 403);
  EXPECT_EQ(pod.body["message"],
            "pods \"p\" is forbidden: User \"bob\" cannot get resource "
            "\"pods\" in API group \"\" in the namespace \"default\"");
  EXPECT_EQ(pod.body["details"], (Json{{"name", "p"}, {"kind", "pods"}}));
  // A certificate without a CN authenticates no one: anonymous.
  EXPECT_EQ(Request("GET", "/apis", "", Cert("", {"system:masters"})).code,
            403);
  // system:monitoring may scrape.
  EXPECT_EQ(Request("GET", "/metrics", "Bearer prom-secret").code, 200);
  EXPECT_EQ(Request("GET", "/metrics", "Bearer alice-secret").code, 403);
}

// kubectl auth whoami: who the caller is, for every authenticated user.
TEST_F(AuthenticationTest, SelfSubjectReviewSaysWhoTheCallerIs) {
  Start(/*anonymous_auth=*/true);
  const std::string path = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
  auto review = [&](const std::string& authorization,
                    std::optional<http::ClientCertificate> cert,
                    const std::string& body) {
    http::HttpRequest req;
    req.method = "POST";
    req.path = path;
    if (!authorization.empty()) req.headers["authorization"] = authorization;
    req.client_certificate = std::move(cert);
    req.headers["content-type"] = "application/json";
    req.body = body;
    RecordingWriter w;
    server_->Handle(req, w);
    return Answer{w.code, Json::parse(w.body)};
  };
  const std::string kubectls =
      R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1",
          "metadata":{"creationTimestamp":null},"status":{"userInfo":{}}})";
  Answer alice = review("Bearer alice-secret", std::nullopt, kubectls);
  ASSERT_EQ(alice.code, 201) << alice.body;
  EXPECT_EQ(alice.body["kind"], "SelfSubjectReview");
  EXPECT_EQ(alice.body["apiVersion"], "authentication.k8s.io/v1");
  EXPECT_TRUE(alice.body["metadata"]["creationTimestamp"].is_string());
  EXPECT_EQ(alice.body["status"]["userInfo"],
            (Json{{"username", "alice"},
                  {"groups", {"team-a", "system:authenticated"}}}));
  Answer bob = review("", Cert("bob", {"team-b"}), "");
  ASSERT_EQ(bob.code, 201);
  EXPECT_EQ(bob.body["status"]["userInfo"]["username"], "bob");
  // Anonymous users are not allowed to ask (system:basic-user is bound to
  // system:authenticated only); a body of another kind is a 400.
  EXPECT_EQ(review("", std::nullopt, kubectls).code, 403);
  EXPECT_EQ(review("Bearer alice-secret", std::nullopt,
                   R"({"kind":5,"apiVersion":"authentication.k8s.io/v1"})")
                .code,
            400);
  EXPECT_EQ(review("Bearer alice-secret", std::nullopt, "[1]").code, 400);
  // kubectl sends protobuf.
  http::HttpRequest req;
  req.method = "POST";
  req.path = path;
  req.headers["authorization"] = "Bearer alice-secret";
  req.headers["content-type"] = "application/vnd.kubernetes.protobuf";
  // runtime.Unknown{TypeMeta{apiVersion, kind}, raw SelfSubjectReview{
  // metadata{}, status{}}, contentEncoding "", contentType ""}.
  req.body = std::string("k8s\0\n\x2d\n\x18", 8) + "authentication.k8s.io/v1" +
             std::string("\x12\x11", 2) + "SelfSubjectReview" +
             std::string("\x12\x04\n\x00\x12\x00\x1a\x00\x22\x00", 10);
  RecordingWriter w;
  server_->Handle(req, w);
  EXPECT_EQ(w.code, 201) << w.body;
  req.body = "junk";
  RecordingWriter junk;
  server_->Handle(req, junk);
  EXPECT_EQ(junk.code, 400) << junk.body;
  req.headers["content-type"] = "text/plain";
  RecordingWriter text;
  server_->Handle(req, text);
  EXPECT_EQ(text.code, 415) << text.body;
}

// `draplane certs rotate`: the data directory's admin token is replaced;
// a server started afterwards answers the retired one with 401.
TEST(AdminTokenRotationTest, TheRetiredTokenGets401) {
  const std::string dir =
      (std::filesystem::temp_directory_path() /
       StrCat("draplane-rotate-",
              ::testing::UnitTest::GetInstance()->random_seed(), "-", getpid()))
          .string();
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(RotateAdminToken(dir).ok());  // no CA yet
  auto before = LoadOrCreateCredentials(dir, {"127.0.0.1"});
  ASSERT_TRUE(before.ok()) << before.status();
  auto rotated = RotateAdminToken(dir);
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_NE(*rotated, before->admin_token);
  auto after = LoadOrCreateCredentials(dir, {"127.0.0.1"});
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->admin_token, *rotated);
  EXPECT_EQ(after->ca_cert_pem, before->ca_cert_pem);  // the CA stays

  auto store = store::NewMemoryStore();
  ApiServerOptions options;
  options.tokens.push_back(AdminToken(after->admin_token));
  options.authorization_mode = ApiServerOptions::AuthorizationMode::kRbac;
  ApiServer server(store.get(), options);
  auto get = [&server](const std::string& token) {
    http::HttpRequest req;
    req.method = "GET";
    req.path = "/api/v1/namespaces";
    req.headers["authorization"] = "Bearer " + token;
    RecordingWriter w;
    server.Handle(req, w);
    return w.code;
  };
  EXPECT_EQ(get(before->admin_token), 401);
  EXPECT_EQ(get(*rotated), 200);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test
