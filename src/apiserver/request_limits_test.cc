// What the API server checks before and while reading a request's body:
// MayReadBody (authentication and authorization from the header alone),
// a body withheld, and the YAML decode limits' answers.
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "apiserver/api_server_test_util.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/responder.h"
#include "gtest/gtest.h"
#include "store/store.h"

namespace draplane::apiserver::api_server_test {
namespace {

class RequestLimitsTest : public ::testing::Test {
 protected:
  RequestLimitsTest() : store_(store::NewMemoryStore()) {
    ApiServerOptions options;
    options.authorization_mode = ApiServerOptions::AuthorizationMode::kRbac;
    options.anonymous_auth = true;
    for (auto [token, name, groups] : std::vector<
             std::tuple<std::string, std::string, std::vector<std::string>>>{
             {"admin", "admin", {"system:masters"}}, {"bob", "bob", {}}}) {
      auth::StaticToken t;
      t.token = token;
      t.user.name = name;
      t.user.groups = groups;
      options.tokens.push_back(t);
    }
    server_ = std::make_unique<ApiServer>(store_.get(), options);
  }

  // A POST of a DeviceClass (its body not yet read) by `token`.
  static http::HttpRequest Post(const std::string& token) {
    http::HttpRequest req;
    req.method = "POST";
    req.path = kClasses;
    req.headers["content-type"] = "application/json";
    if (!token.empty()) req.headers["authorization"] = "Bearer " + token;
    return req;
  }

  std::unique_ptr<store::Store> store_;
  std::unique_ptr<ApiServer> server_;
};

TEST_F(RequestLimitsTest, ABodyIsWorthReadingOnlyForAnAllowedRequest) {
  EXPECT_TRUE(server_->MayReadBody(Post("admin")));
  // Authenticated, but RBAC gives bob nothing.
  EXPECT_FALSE(server_->MayReadBody(Post("bob")));
  // Anonymous: authenticated as system:anonymous, who may not create.
  EXPECT_FALSE(server_->MayReadBody(Post("")));
  // Bad credentials.
  EXPECT_FALSE(server_->MayReadBody(Post("nobody")));
  // Impersonation is part of the check: admin may act as bob, who may
  // not.
  http::HttpRequest as_bob = Post("admin");
  as_bob.headers["impersonate-user"] = "bob";
  EXPECT_FALSE(server_->MayReadBody(as_bob));
}

TEST_F(RequestLimitsTest, ARequestWhoseBodyWasWithheldIsRefused) {
  // Refused from its header: the answer a handler gives without the body.
  http::HttpRequest bob = Post("bob");
  bob.body_withheld = true;
  RecordingWriter w;
  server_->Handle(bob, w);
  EXPECT_EQ(w.code, 403) << w.body;
  // Allowed by now (credentials that changed meanwhile): still refused,
  // never served without its body.
  http::HttpRequest admin = Post("admin");
  admin.body_withheld = true;
  RecordingWriter w2;
  server_->Handle(admin, w2);
  EXPECT_EQ(w2.code, 401) << w2.body;
  EXPECT_EQ(DoWithToken(*server_, "admin", "GET", kClasses).JsonBody()["items"],
            Json::array());
}

// A YAML POST of `yaml` by the admin.
Response PostYaml(ApiServer& server, const std::string& yaml) {
  http::HttpRequest req;
  req.method = "POST";
  req.path = kClasses;
  req.headers["content-type"] = "application/yaml";
  req.headers["accept"] = "application/json";
  req.headers["authorization"] = "Bearer admin";
  req.body = yaml;
  RecordingWriter w;
  server.Handle(req, w);
  return Response{w.code, w.headers, w.body};
}

TEST_F(RequestLimitsTest, AliasBombsGet400AsUpstreamAnswersThem) {
  std::string yaml =
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
      "metadata:\n  name: bomb\nspec:\n  x:\n    a: &a [l, l, l, l, l, l]\n";
  for (char level = 'b'; level <= 'j'; ++level) {
    yaml += std::string("    ") + level + ": &" + level + " [";
    for (int i = 0; i < 10; ++i) {
      yaml += std::string(i == 0 ? "*" : ", *") + static_cast<char>(level - 1);
    }
    yaml += "]\n";
  }
  const Response r = PostYaml(*server_, yaml);
  EXPECT_EQ(r.code, 400) << r.body;
  EXPECT_NE(r.body.find("document contains excessive aliasing"),
            std::string::npos)
      << r.body;
}

TEST_F(RequestLimitsTest, YamlOverTheNodesOfOneRequestGets413) {
  // 200,000 plain nodes, each list five times more through aliases:
  // within go-yaml's ratio, past the 500,000 nodes of one request (and
  // never 429: alone, a request fits the shared budget).
  std::string yaml =
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
      "metadata:\n  name: large\nspec:\n  x:\n    a: &a [";
  for (int i = 0; i < 200'000; ++i) yaml += i == 0 ? "1" : ",1";
  yaml += "]\n    b: [*a, *a, *a, *a, *a]\n";
  const Response r = PostYaml(*server_, yaml);
  EXPECT_EQ(r.code, 413) << r.body.substr(0, 300);
  EXPECT_EQ(r.JsonBody()["reason"], "RequestEntityTooLarge");
}

TEST(RetryAfterTest, AStatusWithARetryDelayCarriesRetryAfter) {
  RecordingWriter w;
  internal::NewHttpResponder(w)->SendError(
      internal::TooManyRequests("slow down", 3), {});
  EXPECT_EQ(w.code, 429);
  const Response r{w.code, w.headers, w.body};
  EXPECT_EQ(r.Header("Retry-After"), "3");
  EXPECT_EQ(r.JsonBody()["reason"], "TooManyRequests");
  EXPECT_EQ(r.JsonBody()["details"]["retryAfterSeconds"], 3);
  RecordingWriter plain;
  internal::NewHttpResponder(plain)->SendError(internal::BadRequest("no"), {});
  EXPECT_EQ(
      Response({plain.code, plain.headers, plain.body}).Header("Retry-After"),
      "");
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test
