#include "client/credentials.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "api/manifest.h"
#include "api/meta_types.h"
#include "apiserver/tls_credentials.h"
#include "client/internal/exec_credential_plugin.h"
#include "client/testing/test_server.h"
#include "client/transport.h"
#include "clock/simulated_clock.h"
#include "gtest/gtest.h"
#include "logging/log.h"

namespace draplane::client {
namespace {

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Token(CredentialSource& source) {
  auto cred = source.Current();
  EXPECT_TRUE(cred.ok()) << cred.status();
  return cred.ok() ? (*cred)->bearer_token : "";
}

TEST(CredentialSourceTest, AStaticTokenAndCertificateNeverChange) {
  RestConfig config;
  config.bearer_token = "static";
  config.client_cert_pem = "CERT";
  config.client_key_pem = "KEY";
  SimulatedClock clock;
  CredentialSource source(config, clock);
  auto first = source.Current();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)->bearer_token, "static");
  EXPECT_EQ((*first)->client_cert_pem, "CERT");
  clock.Advance(absl::Hours(5));
  source.Unauthorized(*first);
  auto later = source.Current();
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(*later, *first);
}

TEST(CredentialSourceTest, ATokenFileIsReadAgainAfterFiftySeconds) {
  const std::string dir = testing::TempDir("token_file");
  const std::string file = dir + "/token";
  Write(file, "first\n");
  RestConfig config;
  config.bearer_token = "first";
  config.bearer_token_file = file;
  SimulatedClock clock;
  CredentialSource source(config, clock);
  EXPECT_EQ(Token(source), "first");
  Write(file, "second\n");
  clock.Advance(absl::Seconds(49));
  EXPECT_EQ(Token(source), "first");  // client-go keeps it for 50 s
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(Token(source), "second");
  Write(file, "third");
  clock.Advance(absl::Seconds(20));
  EXPECT_EQ(Token(source), "second");  // read 20 s ago
  // A file that went away or became empty: the token in hand stays, and
  // the failure is logged as client-go logs it.
  logging::ScopedCapture log;
  unlink(file.c_str());
  clock.Advance(absl::Seconds(60));
  EXPECT_EQ(Token(source), "second");
  Write(file, "  \n");
  clock.Advance(absl::Seconds(60));
  EXPECT_EQ(Token(source), "second");
  const std::vector<std::string> lines = log.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("\"Unable to rotate token\""), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[1].find("read empty token from file"), std::string::npos)
      << lines[1];
  Write(file, "fourth");
  clock.Advance(absl::Seconds(60));
  EXPECT_EQ(Token(source), "fourth");
}

// A shell script as an exec plugin: counts its runs in $DIR/runs, keeps
// the KUBERNETES_EXEC_INFO it got in $DIR/info, and prints `body` (a
// printf format; %s is the run number).
std::string Plugin(const std::string& dir, const std::string& body) {
  std::string path = dir + "/plugin.sh";
  Write(path,
        "#!/bin/sh\n"
        "n=$(( $(cat \"$DIR/runs\" 2>/dev/null || echo 0) + 1 ))\n"
        "echo $n > \"$DIR/runs\"\n"
        "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$DIR/info\"\n"
        "printf '" +
            body + "' $n\n");
  chmod(path.c_str(), 0755);
  return path;
}

ExecPluginConfig PluginConfig(const std::string& dir,
                              const std::string& command) {
  ExecPluginConfig exec;
  exec.command = command;
  exec.api_version = "client.authentication.k8s.io/v1";
  exec.interactive_mode = "Never";
  exec.env = {{"DIR", dir}};
  return exec;
}

TEST(CredentialSourceTest, AnExecPluginRunsOnceUntilItsCredentialExpires) {
  const std::string dir = testing::TempDir("exec_expiry");
  SimulatedClock clock;  // 2026-01-01T00:00:00Z
  RestConfig config;
  config.server = "https://api.example:6443";
  config.exec = PluginConfig(
      dir, Plugin(dir, R"({"apiVersion":"client.authentication.k8s.io/v1",)"
                       R"("kind":"ExecCredential","status":{"token":"tok-%s",)"
                       R"("expirationTimestamp":"2026-01-01T00:10:00Z"}})"));
  CredentialSource source(config, clock);
  EXPECT_EQ(Token(source), "tok-1");
  EXPECT_EQ(Token(source), "tok-1");
  EXPECT_EQ(Read(dir + "/runs"), "1\n");
  EXPECT_EQ(
      Read(dir + "/info"),
      R"({"kind":"ExecCredential","apiVersion":)"
      R"("client.authentication.k8s.io/v1","spec":{"interactive":false}})");
  clock.Advance(absl::Minutes(10));
  EXPECT_EQ(Token(source), "tok-1");  // expired only after the timestamp
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(Token(source), "tok-2");
  EXPECT_EQ(Read(dir + "/runs"), "2\n");
}

TEST(CredentialSourceTest, A401RunsThePluginAgainUnlessItWasRunSince) {
  const std::string dir = testing::TempDir("exec_401");
  SimulatedClock clock;
  RestConfig config;
  config.exec = PluginConfig(
      dir,
      Plugin(dir, R"({"apiVersion":"client.authentication.k8s.io/v1",)"
                  R"("kind":"ExecCredential","status":{"token":"tok-%s"}})"));
  CredentialSource source(config, clock);
  auto first = source.Current();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)->bearer_token, "tok-1");
  clock.Advance(absl::Hours(24));  // no expirationTimestamp: no expiry
  EXPECT_EQ(Token(source), "tok-1");
  source.Unauthorized(*first);
  auto second = source.Current();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)->bearer_token, "tok-2");
  // Another request that was made with the first credential comes back
  // 401 too: the plugin is not run again for it.
  source.Unauthorized(*first);
  EXPECT_EQ(Token(source), "tok-2");
  EXPECT_EQ(Read(dir + "/runs"), "2\n");
}

TEST(CredentialSourceTest, AStaticTokenWinsOverAnExecPlugin) {
  const std::string dir = testing::TempDir("exec_static");
  RestConfig config;
  config.bearer_token = "static";
  config.exec = PluginConfig(dir, Plugin(dir, "{}"));
  SimulatedClock clock;
  CredentialSource source(config, clock);
  EXPECT_EQ(Token(source), "static");
  EXPECT_FALSE(std::ifstream(dir + "/runs").good());
}

TEST(CredentialSourceTest, ClusterInfoForThePlugin) {
  const std::string dir = testing::TempDir("exec_cluster");
  RestConfig config;
  config.server = "https://api.example:6443";
  config.ca_pem = "CA";
  config.tls_server_name = "kubernetes";
  config.exec = PluginConfig(
      dir, Plugin(dir, R"({"apiVersion":"client.authentication.k8s.io/v1",)"
                       R"("kind":"ExecCredential","status":{"token":"t"}})"));
  config.exec->provide_cluster_info = true;
  config.exec->cluster_extension_json = R"({"audience":"draplane"})";
  SimulatedClock clock;
  CredentialSource source(config, clock);
  EXPECT_EQ(Token(source), "t");
  EXPECT_EQ(Read(dir + "/info"),
            R"({"kind":"ExecCredential","apiVersion":)"
            R"("client.authentication.k8s.io/v1","spec":{"interactive":false,)"
            R"("cluster":{"server":"https://api.example:6443",)"
            R"("tls-server-name":"kubernetes",)"
            R"("certificate-authority-data":"Q0E=",)"
            R"("config":{"audience":"draplane"}}}})");
}

// What the plugin printed, and client-go's error for it.
struct BadOutput {
  std::string stdout_text;
  std::string error;
};

TEST(ExecCredentialTest, OutputsClientGoRefusesAreRefusedWithItsMessages) {
  ExecPluginConfig exec;
  exec.api_version = "client.authentication.k8s.io/v1";
  const std::string v1 = R"("apiVersion":"client.authentication.k8s.io/v1",)"
                         R"("kind":"ExecCredential")";
  const BadOutput cases[] = {
      {"{" + v1 + "}", "exec plugin didn't return a status field"},
      {"{" + v1 + R"(,"status":{}})",
       "exec plugin didn't return a token or cert/key pair"},
      {"{" + v1 + R"(,"status":{"clientCertificateData":"x"}})",
       "exec plugin returned only certificate or key, not both"},
      {"{" + v1 + R"(,"status":{"clientKeyData":"x","token":"t"}})",
       "exec plugin returned only certificate or key, not both"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1beta1",)"
       R"("kind":"ExecCredential","status":{"token":"t"}})",
       "exec plugin is configured to use API version "
       "client.authentication.k8s.io/v1, plugin returned version "
       "client.authentication.k8s.io/v1beta1"},
      {R"({"kind":"ExecCredential"})",
       R"(decoding stdout: Object 'apiVersion' is missing in '{"kind":"ExecCredential"}')"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1"})",
       "decoding stdout: Object 'Kind' is missing in "
       R"('{"apiVersion":"client.authentication.k8s.io/v1"}')"},
      {R"({"apiVersion":"v1","kind":"Pod"})",
       R"(decoding stdout: no kind "Pod" is registered for version "v1")"},
  };
  for (const BadOutput& c : cases) {
    auto got = internal::DecodeExecCredential(exec, c.stdout_text);
    ASSERT_FALSE(got.ok()) << c.stdout_text;
    EXPECT_EQ(got.status().message(), c.error) << c.stdout_text;
  }
  auto not_json = internal::DecodeExecCredential(exec, "token please");
  ASSERT_FALSE(not_json.ok());
  EXPECT_EQ(not_json.status().message().rfind("decoding stdout: ", 0), 0u)
      << not_json.status();
  auto bad_pair = internal::DecodeExecCredential(
      exec,
      "{" + v1 +
          R"(,"status":{"clientCertificateData":"x","clientKeyData":"y"}})");
  ASSERT_FALSE(bad_pair.ok());
  EXPECT_EQ(bad_pair.status().message().rfind(
                "failed parsing client key/certificate", 0),
            0u)
      << bad_pair.status();
  auto bad_time = internal::DecodeExecCredential(
      exec,
      "{" + v1 + R"(,"status":{"token":"t","expirationTimestamp":"soon"}})");
  EXPECT_FALSE(bad_time.ok());
  auto v1beta1 = exec;
  v1beta1.api_version = "client.authentication.k8s.io/v1beta1";
  auto good = internal::DecodeExecCredential(
      v1beta1, R"({"apiVersion":"client.authentication.k8s.io/v1beta1",)"
               R"("kind":"ExecCredential","status":{"token":"t",)"
               R"("expirationTimestamp":"2026-01-01T00:10:00Z"}})");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->token, "t");
  EXPECT_EQ(good->expiration, absl::FromUnixSeconds(1767225600 + 600));
}

TEST(ExecCredentialTest, PluginsThatFailSayHowAsClientGo) {
  const std::string dir = testing::TempDir("exec_fail");
  RestConfig cluster;
  ExecPluginConfig exec = PluginConfig(dir, dir + "/absent-plugin");
  exec.install_hint = "Install it with: apt install absent-plugin";
  auto absent = internal::RunExecPlugin(exec, cluster);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().message(),
            "exec: executable " + dir +
                "/absent-plugin not found\n\nIt looks like you are trying to "
                "use a client-go credential plugin that is not installed.\n\n"
                "To learn more about this feature, consult the documentation "
                "available at:\n      https://kubernetes.io/docs/reference/"
                "access-authn-authz/authentication/"
                "#client-go-credential-plugins\n\nInstall it with: apt "
                "install absent-plugin");
  exec.command = "draplane-no-such-plugin-in-path";
  auto not_in_path = internal::RunExecPlugin(exec, cluster);
  ASSERT_FALSE(not_in_path.ok());
  EXPECT_EQ(
      not_in_path.status().message().rfind(
          "exec: executable draplane-no-such-plugin-in-path not found", 0),
      0u);

  exec.command = "sh";
  exec.args = {"-c", "exit 3"};
  auto failed = internal::RunExecPlugin(exec, cluster);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(),
            "exec: executable sh failed with exit code 3");
  exec.args = {"-c", "kill -9 $$"};
  failed = internal::RunExecPlugin(exec, cluster);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(),
            "exec: executable sh failed with exit code -1");

  // Beyond upstream: output is bounded.
  exec.args = {"-c", "head -c 2000000 /dev/zero"};
  auto flood = internal::RunExecPlugin(exec, cluster);
  ASSERT_FALSE(flood.ok());
  EXPECT_EQ(flood.status().code(), absl::StatusCode::kResourceExhausted);

  // Standard input is not passed to a plugin that is not interactive.
  exec.args = {"-c",
               "read x && exit 9; printf '{\"apiVersion\":"
               "\"client.authentication.k8s.io/v1\",\"kind\":"
               "\"ExecCredential\",\"status\":{\"token\":\"t\"}}'"};
  auto quiet = internal::RunExecPlugin(exec, cluster);
  ASSERT_TRUE(quiet.ok()) << quiet.status();
  EXPECT_EQ(quiet->token, "t");

  if (isatty(STDIN_FILENO) == 0) {
    exec.interactive_mode = "Always";
    auto interactive = internal::RunExecPlugin(exec, cluster);
    ASSERT_FALSE(interactive.ok());
    EXPECT_EQ(interactive.status().message(),
              "exec plugin cannot support interactive mode: standard input "
              "is not a terminal");
  }

  // Through the source: "getting credentials: ...", and the next request
  // tries again.
  RestConfig config;
  config.exec = PluginConfig(dir, "sh");
  config.exec->args = {"-c", "exit 4"};
  SimulatedClock clock;
  CredentialSource source(config, clock);
  auto got = source.Current();
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(got.status().message(),
            "getting credentials: exec: executable sh failed with exit code 4");
}

// An exec plugin that prints $DIR/cred<N>.json on its Nth run (else
// $DIR/cred.json).
std::string FilePlugin(const std::string& dir) {
  std::string path = dir + "/file-plugin.sh";
  Write(path,
        "#!/bin/sh\n"
        "n=$(( $(cat \"$DIR/runs\" 2>/dev/null || echo 0) + 1 ))\n"
        "echo $n > \"$DIR/runs\"\n"
        "if [ -f \"$DIR/cred$n.json\" ]; then cat \"$DIR/cred$n.json\"; "
        "else cat \"$DIR/cred.json\"; fi\n");
  chmod(path.c_str(), 0755);
  return path;
}

std::string ExecCredentialJson(const std::string& token,
                               const std::string& cert = "",
                               const std::string& key = "") {
  api::Json status = api::Json::object();
  if (!token.empty()) status["token"] = token;
  if (!cert.empty()) {
    status["clientCertificateData"] = cert;
    status["clientKeyData"] = key;
  }
  return api::DumpJson(
      api::Json{{"apiVersion", "client.authentication.k8s.io/v1"},
                {"kind", "ExecCredential"},
                {"status", status}});
}

int StatusOf(Transport& transport, const std::string& path) {
  HttpCall call;
  call.method = "GET";
  call.path = path;
  auto reply = transport.RoundTrip(call);
  EXPECT_TRUE(reply.ok()) << reply.status();
  return reply.ok() ? reply->status : 0;
}

// A transport to `server` that authenticates only with FilePlugin(dir).
std::unique_ptr<Transport> PluginTransport(const testing::TestServer& server,
                                           const std::string& dir) {
  RestConfig config = server.Config();
  config.bearer_token.clear();
  config.exec = PluginConfig(dir, FilePlugin(dir));
  auto transport = NewHttpTransport(config);
  EXPECT_TRUE(transport.ok()) << transport.status();
  return transport.ok() ? *std::move(transport) : nullptr;
}

TEST(ExecPluginTransportTest, AClientCertificateFromThePluginAuthenticates) {
  testing::TestServer server(true);
  const std::string dir = testing::TempDir("exec_cert");
  Write(dir + "/cred.json",
        ExecCredentialJson("", server.credentials().admin_cert_pem,
                           server.credentials().admin_key_pem));
  auto transport = PluginTransport(server, dir);
  ASSERT_NE(transport, nullptr);
  EXPECT_EQ(StatusOf(*transport, "/api/v1/nodes"), 200);
  EXPECT_EQ(StatusOf(*transport, "/api/v1/namespaces"), 200);
  EXPECT_EQ(Read(dir + "/runs"), "1\n");
}

TEST(ExecPluginTransportTest, A401MakesTheNextRequestRunThePluginAgain) {
  testing::TestServer server(true);
  const std::string dir = testing::TempDir("exec_rotate");
  Write(dir + "/cred1.json", ExecCredentialJson("revoked-token"));
  Write(dir + "/cred.json",
        ExecCredentialJson(server.credentials().admin_token));
  auto transport = PluginTransport(server, dir);
  ASSERT_NE(transport, nullptr);
  // As client-go: the request that got 401 is not retried; the next one
  // runs the plugin again.
  EXPECT_EQ(StatusOf(*transport, "/api/v1/nodes"), 401);
  EXPECT_EQ(StatusOf(*transport, "/api/v1/nodes"), 200);
  EXPECT_EQ(StatusOf(*transport, "/api/v1/nodes"), 200);
  EXPECT_EQ(Read(dir + "/runs"), "2\n");
}

TEST(ExecPluginTransportTest, ANewCertificateClosesTheOldConnections) {
  testing::TestServer server(true);
  const std::string dir = testing::TempDir("exec_cert_rotation");
  // First a user who may not list nodes, with a credential that has
  // expired already (used once, then the plugin runs again); then the
  // admin: the admin's requests must not ride on the first connection.
  auto nobody = apiserver::IssueClientCredentials(server.credentials_dir(),
                                                  "nobody", {}, absl::Hours(1));
  ASSERT_TRUE(nobody.ok()) << nobody.status();
  api::Json first = api::ParseJsonText(ExecCredentialJson("", nobody->cert_pem,
                                                          nobody->key_pem))
                        .value();
  first["status"]["expirationTimestamp"] = "2000-01-01T00:00:00Z";
  Write(dir + "/cred1.json", api::DumpJson(first));
  Write(dir + "/cred.json",
        ExecCredentialJson("", server.credentials().admin_cert_pem,
                           server.credentials().admin_key_pem));
  auto transport = PluginTransport(server, dir);
  ASSERT_NE(transport, nullptr);
  EXPECT_EQ(StatusOf(*transport, "/api/v1/nodes"), 403);
  EXPECT_EQ(StatusOf(*transport, "/api/v1/nodes"), 200);
  EXPECT_EQ(StatusOf(*transport, "/api/v1/nodes"), 200);
  EXPECT_EQ(Read(dir + "/runs"), "2\n");
}

}  // namespace
}  // namespace draplane::client
