#include "client/internal/exec_credential_plugin.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/escaping.h"
#include "api/manifest.h"
#include "api/meta_types.h"
#include "common/str_cat.h"

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace draplane::client::internal {
namespace {

constexpr char kGroup[] = "client.authentication.k8s.io";

// client-go's installHintVerboseHelp.
constexpr char kInstallHintHelp[] =
    "\n\nIt looks like you are trying to use a client-go credential plugin "
    "that is not installed.\n\nTo learn more about this feature, consult the "
    "documentation available at:\n      "
    "https://kubernetes.io/docs/reference/access-authn-authz/"
    "authentication/#client-go-credential-plugins";

std::string OpenSslError() {
  const unsigned long err = ERR_get_error();
  if (err == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(err, buf, sizeof(buf));
  ERR_clear_error();
  return buf;
}

// tls.X509KeyPair's checks: a certificate and a private key that parse
// and belong together.
absl::Status CheckKeyPair(const std::string& cert_pem,
                          const std::string& key_pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(
      BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())),
      BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr), X509_free);
  if (cert == nullptr) {
    return absl::InvalidArgumentError(
        StrCat("failed parsing client key/certificate: tls: failed to find "
               "any PEM data in certificate input (",
               OpenSslError(), ")"));
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
      BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())),
      BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr),
      EVP_PKEY_free);
  if (key == nullptr) {
    return absl::InvalidArgumentError(
        StrCat("failed parsing client key/certificate: tls: failed to find "
               "any PEM data in key input (",
               OpenSslError(), ")"));
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        "failed parsing client key/certificate: tls: private key does not "
        "match public key");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> StringField(const api::Json& status,
                                        const char* name) {
  auto it = status.find(name);
  if (it == status.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(
        StrCat("decoding stdout: json: cannot unmarshal ", it->type_name(),
               " into Go struct field ExecCredentialStatus.status.", name,
               " of type string"));
  }
  return it->get<std::string>();
}

// Reads `fd` to its end, up to kMaxExecPluginOutput bytes.
absl::StatusOr<std::string> ReadAll(int fd, const std::string& command) {
  std::string out;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n == 0) return out;
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(
          StrCat("exec: reading the output of ", command, ": ",
                 std::strerror(errno)));  // NOLINT(concurrency-mt-unsafe)
    }
    if (out.size() + static_cast<size_t>(n) > kMaxExecPluginOutput) {
      return absl::ResourceExhaustedError(
          StrCat("exec: executable ", command, " wrote more than ",
                 kMaxExecPluginOutput, " bytes to standard output"));
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

std::string ExecInfo(const ExecPluginConfig& plugin, const RestConfig& cluster,
                     bool interactive) {
  api::Json spec = api::Json::object();
  spec["interactive"] = interactive;
  if (plugin.provide_cluster_info) {
    api::Json c = api::Json::object();
    c["server"] = cluster.server;
    if (!cluster.tls_server_name.empty()) {
      c["tls-server-name"] = cluster.tls_server_name;
    }
    if (cluster.insecure_skip_tls_verify) c["insecure-skip-tls-verify"] = true;
    if (!cluster.ca_pem.empty()) {
      std::string b64;
      absl::Base64Escape(cluster.ca_pem, &b64);
      c["certificate-authority-data"] = b64;
    }
    if (!cluster.proxy_url.empty()) c["proxy-url"] = cluster.proxy_url;
    if (!plugin.cluster_extension_json.empty()) {
      auto ext = api::ParseJsonText(plugin.cluster_extension_json);
      if (ext.ok()) c["config"] = *std::move(ext);
    }
    spec["cluster"] = std::move(c);
  }
  api::Json cred = api::Json::object();
  cred["kind"] = "ExecCredential";
  cred["apiVersion"] = plugin.api_version;
  cred["spec"] = std::move(spec);
  return api::DumpJson(cred);
}

absl::StatusOr<ExecCredential> DecodeExecCredential(
    const ExecPluginConfig& plugin, std::string_view stdout_text) {
  auto parsed = api::ParseJsonText(stdout_text, "stdout");
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        StrCat("decoding stdout: couldn't get version/kind; json parse "
               "error: ",
               parsed.status().message()));
  }
  const api::Json& cred = *parsed;
  if (!cred.is_object()) {
    return absl::InvalidArgumentError(
        StrCat("decoding stdout: couldn't get version/kind; json parse "
               "error: json: cannot unmarshal ",
               cred.type_name(), " into Go value of type struct"));
  }
  auto text = [&](const char* name) -> std::string {
    auto it = cred.find(name);
    return it != cred.end() && it->is_string() ? it->get<std::string>() : "";
  };
  const std::string kind = text("kind");
  const std::string api_version = text("apiVersion");
  if (kind.empty()) {
    return absl::InvalidArgumentError(StrCat(
        "decoding stdout: Object 'Kind' is missing in '", stdout_text, "'"));
  }
  if (api_version.empty()) {
    return absl::InvalidArgumentError(
        StrCat("decoding stdout: Object 'apiVersion' is missing in '",
               stdout_text, "'"));
  }
  const bool known_version = api_version == StrCat(kGroup, "/v1") ||
                             api_version == StrCat(kGroup, "/v1beta1");
  if (!known_version || kind != "ExecCredential") {
    return absl::InvalidArgumentError(
        StrCat("decoding stdout: no kind \"", kind,
               "\" is registered for version \"", api_version, "\""));
  }
  if (api_version != plugin.api_version) {
    return absl::InvalidArgumentError(
        StrCat("exec plugin is configured to use API version ",
               plugin.api_version, ", plugin returned version ", api_version));
  }
  auto status_it = cred.find("status");
  if (status_it == cred.end() || status_it->is_null()) {
    return absl::InvalidArgumentError(
        "exec plugin didn't return a status field");
  }
  if (!status_it->is_object()) {
    return absl::InvalidArgumentError(StrCat(
        "decoding stdout: json: cannot unmarshal ", status_it->type_name(),
        " into Go struct field ExecCredential.status of type "
        "ExecCredentialStatus"));
  }
  ExecCredential out;
  auto token = StringField(*status_it, "token");
  if (!token.ok()) return token.status();
  auto cert = StringField(*status_it, "clientCertificateData");
  if (!cert.ok()) return cert.status();
  auto key = StringField(*status_it, "clientKeyData");
  if (!key.ok()) return key.status();
  auto expiry = StringField(*status_it, "expirationTimestamp");
  if (!expiry.ok()) return expiry.status();
  if (token->empty() && cert->empty() && key->empty()) {
    return absl::InvalidArgumentError(
        "exec plugin didn't return a token or cert/key pair");
  }
  if (cert->empty() != key->empty()) {
    return absl::InvalidArgumentError(
        "exec plugin returned only certificate or key, not both");
  }
  if (!expiry->empty()) {
    absl::Time t;
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, *expiry, &t, &err)) {
      return absl::InvalidArgumentError(
          StrCat("decoding stdout: parsing time \"", *expiry, "\": ", err));
    }
    out.expiration = t;
  }
  if (!cert->empty()) {
    if (absl::Status st = CheckKeyPair(*cert, *key); !st.ok()) return st;
  }
  out.token = *std::move(token);
  out.client_cert_pem = *std::move(cert);
  out.client_key_pem = *std::move(key);
  return out;
}

absl::StatusOr<ExecCredential> RunExecPlugin(const ExecPluginConfig& plugin,
                                             const RestConfig& cluster) {
  bool interactive = false;
  const bool terminal = ::isatty(STDIN_FILENO) == 1;
  if (plugin.interactive_mode == "IfAvailable") {
    interactive = terminal;
  } else if (plugin.interactive_mode == "Always") {
    if (!terminal) {
      return absl::FailedPreconditionError(
          "exec plugin cannot support interactive mode: standard input is "
          "not a terminal");
    }
    interactive = true;
  } else if (plugin.interactive_mode != "Never") {
    return absl::InvalidArgumentError(
        StrCat("exec plugin cannot support interactive mode: unknown "
               "interactiveMode: \"",
               plugin.interactive_mode, "\""));
  }

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  for (const auto& [name, value] : plugin.env) {
    env_strings.push_back(StrCat(name, "=", value));
  }
  env_strings.push_back(
      StrCat("KUBERNETES_EXEC_INFO=", ExecInfo(plugin, cluster, interactive)));
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = {plugin.command};
  args.insert(args.end(), plugin.args.begin(), plugin.args.end());
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(
        StrCat("exec: pipe: ",
               std::strerror(errno)));  // NOLINT(concurrency-mt-unsafe)
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  if (!interactive) {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                     O_RDONLY, 0);
  }
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;  // what the process may ignore or handle itself
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) {
    sigaddset(&defaults, sig);
  }
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const bool search = plugin.command.find('/') == std::string::npos;
  const int err = search ? posix_spawnp(&pid, plugin.command.c_str(), &actions,
                                        &attr, argv.data(), envp.data())
                         : posix_spawn(&pid, plugin.command.c_str(), &actions,
                                       &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(pipe_fds[1]);
  if (err != 0) {
    ::close(pipe_fds[0]);
    if (err == ENOENT || err == EACCES || err == ENOTDIR) {
      std::string message = StrCat("exec: executable ", plugin.command,
                                   " not found", kInstallHintHelp);
      if (!plugin.install_hint.empty()) {
        message = StrCat(message, "\n\n", plugin.install_hint);
      }
      return absl::NotFoundError(message);
    }
    return absl::InternalError(
        StrCat("exec: ", plugin.command, ": ",
               std::strerror(err)));  // NOLINT(concurrency-mt-unsafe)
  }
  absl::StatusOr<std::string> output = ReadAll(pipe_fds[0], plugin.command);
  ::close(pipe_fds[0]);
  if (!output.ok()) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!output.ok()) return output.status();
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return absl::UnavailableError(
        StrCat("exec: executable ", plugin.command, " failed with exit code ",
               WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1));
  }
  return DecodeExecCredential(plugin, *output);
}

}  // namespace draplane::client::internal
