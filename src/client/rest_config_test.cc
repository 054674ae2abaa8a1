#include "client/rest_config.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "absl/strings/escaping.h"
#include "apiserver/tls_credentials.h"
#include "client/credentials.h"
#include "client/testing/test_server.h"
#include "clock/simulated_clock.h"
#include "gtest/gtest.h"
#include "logging/log.h"

namespace draplane::client {
namespace {

// A kubeconfig with one cluster (https://h), one context and the user "u",
// whose entry follows.
constexpr char kOneUserKubeconfig[] = R"(clusters:
- name: c
  cluster: {server: https://h}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
users:
- name: u
)";

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

  const std::string base = std::string(kOneUserKubeconfig) + "  user:\n";
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

TEST(KubeconfigTest, ExecPlugins) {
  const std::string dir = testing::TempDir("exec");
  const std::string base = R"(clusters:
- name: c
  cluster:
    server: https://h:6443
    certificate-authority-data: )" +
                           B64("CA") + R"(
    proxy-url: http://proxy:3128
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: draplane, retries: 3, verbose: true}
contexts:
- name: x
  context: {cluster: c, user: u, namespace: team-a}
current-context: x
users:
- name: u
  user:
)";
  Write(dir + "/eks", base + R"(    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
      args: [eks, get-token, --cluster-name, prod]
      env:
      - {name: AWS_PROFILE, value: prod}
      interactiveMode: Never
      provideClusterInfo: true
      installHint: install the AWS CLI
)");
  auto eks = LoadKubeconfig(dir + "/eks");
  ASSERT_TRUE(eks.ok()) << eks.status();
  ASSERT_TRUE(eks->exec.has_value());
  EXPECT_EQ(eks->exec->command, "aws");  // no '/': looked up in $PATH
  EXPECT_EQ(
      eks->exec->args,
      (std::vector<std::string>{"eks", "get-token", "--cluster-name", "prod"}));
  ASSERT_EQ(eks->exec->env.size(), 1u);
  EXPECT_EQ(eks->exec->env[0].first, "AWS_PROFILE");
  EXPECT_EQ(eks->exec->env[0].second, "prod");
  EXPECT_EQ(eks->exec->interactive_mode, "Never");
  EXPECT_TRUE(eks->exec->provide_cluster_info);
  EXPECT_EQ(eks->exec->install_hint, "install the AWS CLI");
  EXPECT_EQ(eks->exec->cluster_extension_json,
            R"({"audience":"draplane","retries":3,"verbose":true})");
  EXPECT_EQ(eks->proxy_url, "http://proxy:3128");
  EXPECT_EQ(eks->namespace_name, "team-a");
  EXPECT_TRUE(eks->bearer_token.empty());

  // A command with a '/' is relative to the kubeconfig's folder; v1beta1
  // defaults interactiveMode to IfAvailable.
  Write(dir + "/relative", base + R"(    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/get-token
)");
  auto relative = LoadKubeconfig(dir + "/relative");
  ASSERT_TRUE(relative.ok()) << relative.status();
  EXPECT_EQ(relative->exec->command, dir + "/./bin/get-token");
  EXPECT_EQ(relative->exec->interactive_mode, "IfAvailable");

  // clientcmd's validation messages.
  Write(dir + "/v1-no-mode", base + R"(    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
)");
  auto no_mode = LoadKubeconfig(dir + "/v1-no-mode");
  ASSERT_FALSE(no_mode.ok());
  EXPECT_EQ(no_mode.status().message(),
            "kubeconfig " + dir +
                "/v1-no-mode: invalid configuration: interactiveMode must be "
                "specified for u to use exec authentication plugin");
  Write(dir + "/empty", base + R"(    exec:
      env: [{value: x}]
)");
  auto empty = LoadKubeconfig(dir + "/empty");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(),
            "kubeconfig " + dir +
                "/empty: invalid configuration: [env variable name must be "
                "specified for u to use exec authentication plugin, command "
                "must be specified for u to use exec authentication plugin, "
                "apiVersion must be specified for u to use exec "
                "authentication plugin, interactiveMode must be specified "
                "for u to use exec authentication plugin]");
  Write(dir + "/bad-mode", base + R"(    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
      interactiveMode: Sometimes
)");
  EXPECT_EQ(LoadKubeconfig(dir + "/bad-mode").status().message(),
            "kubeconfig " + dir +
                "/bad-mode: invalid configuration: invalid interactiveMode "
                "for u: \"Sometimes\"");
  Write(dir + "/alpha", base + R"(    exec:
      apiVersion: client.authentication.k8s.io/v1alpha1
      command: aws
)");
  EXPECT_EQ(LoadKubeconfig(dir + "/alpha").status().message(),
            "kubeconfig " + dir +
                "/alpha: exec plugin: invalid apiVersion "
                "\"client.authentication.k8s.io/v1alpha1\"");
  Write(dir + "/both", base + R"(    auth-provider: {name: gcp}
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
      interactiveMode: Never
)");
  EXPECT_EQ(LoadKubeconfig(dir + "/both").status().message(),
            "kubeconfig " + dir +
                "/both: invalid configuration: authProvider cannot be "
                "provided in combination with an exec plugin for u");
}

TEST(KubeconfigTest, ATokenFileIsRememberedToBeReadAgain) {
  const std::string dir = testing::TempDir("token_file");
  Write(dir + "/token", "abc\n");
  Write(dir + "/kubeconfig",
        std::string(kOneUserKubeconfig) + "  user: {tokenFile: token}\n");
  auto config = LoadKubeconfig(dir + "/kubeconfig");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->bearer_token, "abc");
  EXPECT_EQ(config->bearer_token_file, dir + "/token");
  EXPECT_EQ(config->namespace_name, "default");
}

// The child processes below are single-threaded: the environment and
// strerror are theirs alone.
// NOLINTBEGIN(concurrency-mt-unsafe)

// Runs `body` in a child process inside a new user and mount namespace
// with a tmpfs on /var/run, so that it can write the ServiceAccount files
// at their fixed path. The child writes its findings as lines to `out`.
// False (the test is skipped) where unprivileged user namespaces are off.
bool InMountNamespace(const std::function<void(FILE* out)>& body,
                      std::string* output) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    FILE* out = fdopen(fds[1], "w");
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
      fprintf(out, "SKIP unshare: %s\n", strerror(errno));
      fclose(out);
      _exit(0);
    }
    auto write_file = [](const char* path, const std::string& text) {
      std::ofstream f(path);
      f << text;
    };
    write_file("/proc/self/setgroups", "deny");
    write_file("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1");
    write_file("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1");
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", "/var/run", "tmpfs", 0, "mode=0755") != 0) {
      fprintf(out, "SKIP mount: %s\n", strerror(errno));
      fclose(out);
      _exit(0);
    }
    std::filesystem::create_directories(kServiceAccountDir);
    body(out);
    fclose(out);
    _exit(0);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) output->append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return output->rfind("SKIP", 0) != 0;
}

// What the child found, by line prefix.
std::string Field(const std::string& output, const std::string& key) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
  }
  return "<none>";
}

TEST(InClusterConfigTest, ServiceAccountFilesAtTheirFixedPath) {
  const std::string ca = testing::TestServer(true).credentials().ca_cert_pem;
  const std::string home = testing::TempDir("home");  // no ~/.kube/config
  std::string output;
  const bool ran = InMountNamespace(
      [&](FILE* out) {
        const std::string sa = kServiceAccountDir;
        std::ofstream(sa + "/token") << "token-1";
        std::ofstream(sa + "/namespace") << "draplane-system\n";
        unsetenv("KUBERNETES_SERVICE_HOST");
        unsetenv("KUBERNETES_SERVICE_PORT");
        unsetenv("KUBECONFIG");
        unsetenv("POD_NAMESPACE");
        setenv("HOME", home.c_str(), 1);
        fprintf(out, "outside=%s\n",
                std::string(InClusterConfig().status().message()).c_str());
        fprintf(out, "load_outside=%s\n",
                std::string(LoadClientConfig("").status().message()).c_str());
        setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
        setenv("KUBERNETES_SERVICE_PORT", "443", 1);
        // No ca.crt yet: logged, and the system trust store is used.
        logging::ScopedCapture log;
        auto no_ca = InClusterConfig();
        fprintf(out, "no_ca_ok=%d\nno_ca_pem=%zu\nno_ca_log=%zu\n",
                no_ca.ok() ? 1 : 0, no_ca.ok() ? no_ca->ca_pem.size() : 99,
                log.Lines().size());
        std::ofstream(sa + "/ca.crt") << ca;
        auto config = LoadClientConfig("");
        if (!config.ok()) {
          fprintf(out, "error=%s\n",
                  std::string(config.status().message()).c_str());
          return;
        }
        fprintf(out, "server=%s\ntoken=%s\ntoken_file=%s\nns=%s\nca=%d\n",
                config->server.c_str(), config->bearer_token.c_str(),
                config->bearer_token_file.c_str(),
                config->namespace_name.c_str(), config->ca_pem == ca ? 1 : 0);
        // The kubelet rotates the projected token: read again after 50 s.
        SimulatedClock clock;
        CredentialSource source(*config, clock);
        std::ofstream(sa + "/token") << "token-2";
        clock.Advance(absl::Seconds(51));
        auto rotated = source.Current();
        fprintf(out, "rotated=%s\n",
                rotated.ok() ? (*rotated)->bearer_token.c_str() : "error");
        setenv("POD_NAMESPACE", "from-env", 1);
        setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
        auto v6 = InClusterConfig();
        fprintf(out, "v6=%s\nns_env=%s\n", v6.ok() ? v6->server.c_str() : "",
                v6.ok() ? v6->namespace_name.c_str() : "");
        unlink((sa + "/token").c_str());
        fprintf(out, "no_token=%d\n",
                static_cast<int>(InClusterConfig().status().code()));
      },
      &output);
  if (!ran) GTEST_SKIP() << output;
  EXPECT_EQ(Field(output, "outside"),
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST "
            "and KUBERNETES_SERVICE_PORT must be defined");
  EXPECT_EQ(Field(output, "load_outside"),
            "no kubeconfig (--kubeconfig, $KUBECONFIG or " + home +
                "/.kube/config) and not in a cluster: unable to load "
                "in-cluster configuration, KUBERNETES_SERVICE_HOST and "
                "KUBERNETES_SERVICE_PORT must be defined");
  EXPECT_EQ(Field(output, "no_ca_ok"), "1");
  EXPECT_EQ(Field(output, "no_ca_pem"), "0");
  EXPECT_EQ(Field(output, "no_ca_log"), "1");
  EXPECT_EQ(Field(output, "error"), "<none>");
  EXPECT_EQ(Field(output, "server"), "https://10.96.0.1:443");
  EXPECT_EQ(Field(output, "token"), "token-1");
  EXPECT_EQ(Field(output, "token_file"),
            "/var/run/secrets/kubernetes.io/serviceaccount/token");
  EXPECT_EQ(Field(output, "ns"), "draplane-system");
  EXPECT_EQ(Field(output, "ca"), "1");
  EXPECT_EQ(Field(output, "rotated"), "token-2");
  EXPECT_EQ(Field(output, "v6"), "https://[fd00::1]:443");
  EXPECT_EQ(Field(output, "ns_env"), "from-env");
  EXPECT_EQ(Field(output, "no_token"),
            std::to_string(static_cast<int>(absl::StatusCode::kNotFound)));
}

// NOLINTEND(concurrency-mt-unsafe)

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
