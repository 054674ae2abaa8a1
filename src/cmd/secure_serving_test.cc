#include "cmd/secure_serving.h"

#include <string>

#include "apiserver/tls_credentials.h"
#include "client/testing/test_server.h"
#include "clock/simulated_clock.h"
#include "cmd/response_recorder_test_util.h"
#include "gtest/gtest.h"

namespace draplane::cmd {
namespace {

using client::testing::Obj;

using Recorder = ResponseRecorder;

struct Answer {
  bool admitted = false;
  int status = 0;  // of a refusal
  std::string body;
};

Answer Ask(DelegatedAuth& auth, const std::string& path,
           const std::string& token = "",
           std::optional<http::ClientCertificate> cert = std::nullopt) {
  http::HttpRequest req;
  req.method = "GET";
  req.path = path;
  if (!token.empty()) req.headers["authorization"] = "Bearer " + token;
  req.client_certificate = std::move(cert);
  Recorder w;
  Answer a;
  a.admitted = auth.Admit(req, w);
  a.status = w.status;
  a.body = w.body;
  return a;
}

http::ClientCertificate Cert(const std::string& cn, bool verified = true) {
  http::ClientCertificate c;
  c.verified = verified;
  c.common_name = cn;
  if (!verified) c.error = "x509: certificate signed by unknown authority";
  return c;
}

class DelegatedAuthTest : public ::testing::Test {
 protected:
  DelegatedAuthTest() : server_(true), client_(server_.NewClient()) {
    DelegatedAuth::Options options;
    options.client_ca_pem = server_.credentials().ca_cert_pem;
    options.always_allow_paths = {"/healthz", "/readyz", "/livez",
                                  "/debug/open/*"};
    auth_ = std::make_unique<DelegatedAuth>(client_.get(), options, clock_);
  }
  client::testing::TestServer server_;
  std::unique_ptr<client::Client> client_;
  SimulatedClock clock_;
  std::unique_ptr<DelegatedAuth> auth_;
};

TEST_F(DelegatedAuthTest, ProbesAreAlwaysAllowedAndMetricsAreNot) {
  for (const char* path : {"/healthz", "/readyz", "/livez", "/debug/open/x"}) {
    EXPECT_TRUE(Ask(*auth_, path).admitted) << path;
  }
  // Exact paths: a check of /livez is not always allowed.
  Answer check = Ask(*auth_, "/livez/ping");
  EXPECT_FALSE(check.admitted);
  EXPECT_EQ(check.status, 403);
  Answer anonymous = Ask(*auth_, "/metrics");
  EXPECT_FALSE(anonymous.admitted);
  EXPECT_EQ(anonymous.status, 403);
  EXPECT_NE(anonymous.body.find(
                R"("message":"forbidden: User \"system:anonymous\" cannot get )"
                R"(path \"/metrics\"")"),
            std::string::npos)
      << anonymous.body;
  EXPECT_NE(anonymous.body.find(R"("reason":"Forbidden")"), std::string::npos);
}

TEST_F(DelegatedAuthTest, TokensAreReviewedByTheApiServer) {
  // The admin token: system:masters, allowed without a review of access.
  EXPECT_TRUE(
      Ask(*auth_, "/metrics", server_.credentials().admin_token).admitted);
  // A token the API server does not know, or a malformed header: 401, even
  // on an always-allowed path (a bad credential is not anonymous).
  for (const char* path : {"/metrics", "/healthz"}) {
    Answer bad = Ask(*auth_, path, "no-such-token");
    EXPECT_FALSE(bad.admitted);
    EXPECT_EQ(bad.status, 401);
    EXPECT_NE(bad.body.find(R"("reason":"Unauthorized")"), std::string::npos);
  }
  http::HttpRequest basic;
  basic.method = "GET";
  basic.path = "/metrics";
  basic.headers["authorization"] = "Basic YTpi";
  Recorder w;
  EXPECT_FALSE(auth_->Admit(basic, w));
  EXPECT_EQ(w.status, 401);
}

TEST_F(DelegatedAuthTest, CertificateUsersAndCachedDecisions) {
  Answer unverified = Ask(*auth_, "/metrics", "", Cert("prom", false));
  EXPECT_EQ(unverified.status, 401);
  Answer denied = Ask(*auth_, "/metrics", "", Cert("prom"));
  EXPECT_EQ(denied.status, 403);
  EXPECT_NE(denied.body.find(R"(User \"prom\" cannot get path \"/metrics\")"),
            std::string::npos)
      << denied.body;
  ASSERT_TRUE(client_
                  ->Create(Obj(R"({"apiVersion":"rbac.authorization.k8s.io/v1",
      "kind":"ClusterRole","metadata":{"name":"metrics-reader"},
      "rules":[{"nonResourceURLs":["/metrics"],"verbs":["get"]}]})"))
                  .ok());
  ASSERT_TRUE(client_
                  ->Create(Obj(R"({"apiVersion":"rbac.authorization.k8s.io/v1",
      "kind":"ClusterRoleBinding","metadata":{"name":"prom"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",
        "name":"metrics-reader"},
      "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User",
        "name":"prom"}]})"))
                  .ok());
  // The denial is kept 10 s, as the delegating authorizer's cache.
  clock_.Advance(absl::Seconds(9));
  EXPECT_EQ(Ask(*auth_, "/metrics", "", Cert("prom")).status, 403);
  clock_.Advance(absl::Seconds(2));
  EXPECT_TRUE(Ask(*auth_, "/metrics", "", Cert("prom")).admitted);
  // Only what the role grants.
  http::HttpRequest post;
  post.method = "POST";
  post.path = "/metrics";
  post.client_certificate = Cert("prom");
  Recorder w;
  EXPECT_FALSE(auth_->Admit(post, w));
  EXPECT_NE(w.body.find(R"(cannot post path \"/metrics\")"), std::string::npos)
      << w.body;
}

TEST(SecureServingTest, ServesHttpsWithASelfSignedCertificate) {
  client::testing::TestServer server(true);
  auto client = server.NewClient();
  SecureServingFlags flags;
  flags.secure_port = 0;
  EXPECT_EQ(
      *ServeSecurely(flags, "draplane-test", client.get(), nullptr, nullptr),
      nullptr);
  flags.secure_port = 70000;
  EXPECT_FALSE(
      ServeSecurely(flags, "draplane-test", client.get(), nullptr, nullptr)
          .ok());
  flags.secure_port = 1;  // privileged or taken: cannot bind
  flags.bind_address = "127.0.0.1";
  flags.tls_cert_file = "/nonexistent/cert.pem";
  flags.tls_private_key_file = "/nonexistent/key.pem";
  auto missing =
      ServeSecurely(flags, "draplane-test", client.get(), nullptr, nullptr);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--tls-cert-file"),
            std::string::npos);
  auto self_signed =
      apiserver::SelfSignedServingCertificate("draplane-test", {"127.0.0.1"});
  ASSERT_TRUE(self_signed.ok()) << self_signed.status();
  EXPECT_NE(self_signed->cert_pem.find("-----END CERTIFICATE-----\n-----BEGIN"),
            std::string::npos)
      << "the certificate, then its CA";
}

}  // namespace
}  // namespace draplane::cmd
