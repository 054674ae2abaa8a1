#include "client/rest_config.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/escaping.h"
#include "apiserver/tls_credentials.h"
#include "client/testing/test_server.h"
#include "gtest/gtest.h"

namespace draplane::client {
namespace {

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string B64(const std::string& s) {
  std::string out;
  absl::Base64Escape(s, &out);
  return out;
}

TEST(KubeconfigTest, LoadsTheServersAdminKubeconfig) {
  const std::string dir = testing::TempDir("admin");
  const std::string ca =
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  apiserver::KubeconfigUser user;
  user.name = "admin";
  user.token = "tok123";
  Write(dir + "/admin.kubeconfig",
        apiserver::Kubeconfig("https://127.0.0.1:6443", ca, user));
  auto config = LoadKubeconfig(dir + "/admin.kubeconfig");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://127.0.0.1:6443");
  EXPECT_EQ(config->ca_pem, ca);
  EXPECT_EQ(config->bearer_token, "tok123");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->qps, 0);
  EXPECT_EQ(config->user_agent, "draplane");
}

TEST(KubeconfigTest, TheAdminKubeconfigReachesARealServer) {
  testing::TestServer server(true);
  const std::string dir = testing::TempDir("real");
  // The admin's client certificate (what `draplane server` writes) and
  // the admin token both act as the admin.
  apiserver::KubeconfigUser cert;
  cert.name = "admin";
  cert.cert_pem = server.credentials().admin_cert_pem;
  cert.key_pem = server.credentials().admin_key_pem;
  apiserver::KubeconfigUser token;
  token.name = "admin";
  token.token = server.credentials().admin_token;
  for (const apiserver::KubeconfigUser& user : {cert, token}) {
    Write(dir + "/kubeconfig",
          apiserver::Kubeconfig(server.Config().server,
                                server.credentials().ca_cert_pem, user));
    auto config = LoadKubeconfig(dir + "/kubeconfig");
    ASSERT_TRUE(config.ok()) << config.status();
    auto client = Client::Connect(*config);
    ASSERT_TRUE(client.ok()) << client.status();
    EXPECT_TRUE(
        client::IsNotFound((*client)->Get(Kind("Node"), "", "x").status()));
  }
}

TEST(KubeconfigTest, FilesRelativeToTheKubeconfigAndContexts) {
  const std::string dir = testing::TempDir("files");
  std::filesystem::create_directories(dir + "/certs");
  Write(dir + "/certs/ca.crt", "CA PEM");
  Write(dir + "/certs/client.crt", "CERT PEM");
  Write(dir + "/certs/client.key", "KEY PEM");
  Write(dir + "/token", "secret-token\n");
  Write(dir + "/config", R"(apiVersion: v1
kind: Config
current-context: one
clusters:
- name: c1
  cluster:
    server: https://one.example:6443
    certificate-authority: certs/ca.crt
    tls-server-name: api.example
- name: c2
  cluster:
    server: https://two.example
    insecure-skip-tls-verify: true
users:
- name: u1
  user:
    client-certificate: certs/client.crt
    client-key: )" + dir + R"(/certs/client.key
- name: u2
  user:
    tokenFile: token
contexts:
- name: one
  context: {cluster: c1, user: u1}
- name: two
  context: {cluster: c2, user: u2, namespace: x}
)");
  auto one = LoadKubeconfig(dir + "/config");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->server, "https://one.example:6443");
  EXPECT_EQ(one->ca_pem, "CA PEM");
  EXPECT_EQ(one->tls_server_name, "api.example");
  EXPECT_EQ(one->client_cert_pem, "CERT PEM");
  EXPECT_EQ(one->client_key_pem, "KEY PEM");
  EXPECT_EQ(one->bearer_token, "");

  auto two = LoadKubeconfig(dir + "/config", "two");
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->server, "https://two.example");
  EXPECT_TRUE(two->insecure_skip_tls_verify);
  EXPECT_EQ(two->ca_pem, "");
  EXPECT_EQ(two->bearer_token, "secret-token");

  auto missing = LoadKubeconfig(dir + "/config", "three");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("context \"three\" not found"),
            absl::string_view::npos)
      << missing.status();
}

TEST(KubeconfigTest, Base64Data) {
  const std::string dir = testing::TempDir("data");
  Write(dir + "/config", R"(clusters:
- name: c
  cluster:
    server: https://h
    certificate-authority-data: )" +
                             B64("CA") + R"(
users:
- name: u
  user:
    client-certificate-data: )" +
                             B64("CERT") + R"(
    client-key-data: )" + B64("KEY") +
                             R"(
    token: t
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
)");
  auto config = LoadKubeconfig(dir + "/config");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->ca_pem, "CA");
  EXPECT_EQ(config->client_cert_pem, "CERT");
  EXPECT_EQ(config->client_key_pem, "KEY");
  EXPECT_EQ(config->bearer_token, "t");
}

TEST(KubeconfigTest, Errors) {
  const std::string dir = testing::TempDir("errors");
  EXPECT_EQ(LoadKubeconfig(dir + "/absent").status().code(),
            absl::StatusCode::kNotFound);

  Write(dir + "/bad-yaml", "clusters: [\n");
  auto bad = LoadKubeconfig(dir + "/bad-yaml");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("invalid YAML"),
            absl::string_view::npos);

  const std::string base = R"(clusters:
- name: c
  cluster: {server: https://h}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
users:
- name: u
  user:
)";
  Write(dir + "/exec", base + R"(    exec:
      command: aws
)");
  auto exec = LoadKubeconfig(dir + "/exec");
  EXPECT_EQ(exec.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(exec.status().message(),
            "kubeconfig " + dir +
                "/exec: user \"u\" uses exec, which draplane's client does "
                "not support");

  Write(dir + "/provider", base + "    auth-provider: {name: gcp}\n");
  EXPECT_EQ(LoadKubeconfig(dir + "/provider").status().code(),
            absl::StatusCode::kUnimplemented);

  Write(dir + "/b64", base +
                          "    client-certificate-data: '!!!'\n"
                          "    client-key-data: '!!!'\n");
  auto b64 = LoadKubeconfig(dir + "/b64");
  EXPECT_EQ(b64.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(b64.status().message().find("not valid base64"),
            absl::string_view::npos);

  Write(dir + "/nofile", base +
                             "    client-certificate: nope.crt\n"
                             "    client-key: nope.key\n");
  auto nofile = LoadKubeconfig(dir + "/nofile");
  EXPECT_EQ(nofile.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(nofile.status().message().find(dir + "/nope.crt"),
            absl::string_view::npos)
      << nofile.status();

  Write(dir + "/half",
        base + "    client-certificate-data: " + B64("C") + "\n");
  EXPECT_EQ(LoadKubeconfig(dir + "/half").status().code(),
            absl::StatusCode::kInvalidArgument);

  Write(dir + "/nocluster", R"(contexts:
- name: x
  context: {cluster: missing}
current-context: x
)");
  auto nocluster = LoadKubeconfig(dir + "/nocluster");
  EXPECT_EQ(nocluster.status().code(), absl::StatusCode::kNotFound)
      << nocluster.status();

  Write(dir + "/nocurrent", "clusters: []\n");
  EXPECT_EQ(LoadKubeconfig(dir + "/nocurrent").status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The environment is changed while no other thread of the test runs.
TEST(KubeconfigTest, DefaultPath) {
  EXPECT_EQ(DefaultKubeconfigPath("/explicit"), "/explicit");
  setenv("KUBECONFIG", ":/first:/second", 1);  // NOLINT(concurrency-mt-unsafe)
  EXPECT_EQ(DefaultKubeconfigPath(), "/first");
  unsetenv("KUBECONFIG");                  // NOLINT(concurrency-mt-unsafe)
  const char* home = std::getenv("HOME");  // NOLINT(concurrency-mt-unsafe)
  const std::string saved = home != nullptr ? home : "";
  setenv("HOME", "/home/someone", 1);  // NOLINT(concurrency-mt-unsafe)
  EXPECT_EQ(DefaultKubeconfigPath(), "/home/someone/.kube/config");
  setenv("HOME", saved.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
}

}  // namespace
}  // namespace draplane::client
