// `draplane kubeconfig`: a kubeconfig for a new identity of a standalone
// control plane, with a client certificate signed by its CA.
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "apiserver/tls_credentials.h"
#include "client/rest_config.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"
#include "common/private_files.h"
#include "common/str_cat.h"

namespace draplane::cmd {
namespace {

struct KubeconfigFlags {
  std::string data_dir;
  std::string user;
  std::vector<std::string> groups;
  std::string duration = "24h";
  std::string server;
  std::string output;
};

int Run(const KubeconfigFlags& flags, Streams streams) {
  if (flags.user.empty()) {
    streams.err << "error: --user must not be empty\n";
    return 2;
  }
  absl::Duration validity;
  if (!absl::ParseDuration(flags.duration, &validity) ||
      validity <= absl::ZeroDuration()) {
    streams.err << "error: --duration: \"" << flags.duration
                << "\" is not a positive duration (e.g. 8h, 30m)\n";
    return 2;
  }
  const std::string data_dir =
      flags.data_dir.empty() ? DefaultDataDir() : flags.data_dir;
  const std::string pki = data_dir + "/pki";
  std::string ca_pem;
  {
    std::ifstream ca(pki + "/ca.crt");
    if (!ca) {
      streams.err << "error: no cluster CA at " << pki
                  << "/ca.crt: run `draplane server --data-dir " << data_dir
                  << "` first\n";
      return 1;
    }
    ca_pem.assign(std::istreambuf_iterator<char>(ca), {});
  }
  std::string server = flags.server;
  if (server.empty()) {
    // Where the server's own admin kubeconfig points.
    auto admin = client::LoadKubeconfig(data_dir + "/kubeconfig");
    if (!admin.ok()) {
      streams.err << "error: --server not given and the admin kubeconfig "
                     "cannot be read: "
                  << admin.status().message() << "\n";
      return 1;
    }
    server = admin->server;
  }
  auto creds = apiserver::IssueClientCredentials(pki, flags.user, flags.groups,
                                                 validity);
  if (!creds.ok()) {
    streams.err << "error: " << creds.status().message() << "\n";
    return 1;
  }
  apiserver::KubeconfigUser user;
  user.name = flags.user;
  user.cert_pem = creds->cert_pem;
  user.key_pem = creds->key_pem;
  const std::string text = apiserver::Kubeconfig(server, ca_pem, user);
  if (flags.output.empty() || flags.output == "-") {
    streams.out << text;
    return 0;
  }
  // It holds a private key: its owner's only, as the admin kubeconfig.
  if (absl::Status s = WritePrivateFile(flags.output, text); !s.ok()) {
    streams.err << "error: " << s.message() << "\n";
    return 1;
  }
  streams.err << "kubeconfig for " << flags.user << " written to "
              << flags.output << " (valid " << absl::FormatDuration(validity)
              << ")\n";
  return 0;
}

}  // namespace

void RegisterKubeconfig(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<KubeconfigFlags>();
  CLI::App* cmd = AddCommand(
      app, "kubeconfig",
      "Write a kubeconfig for a new user of a standalone control plane",
      "Write a kubeconfig that authenticates to `draplane server` as --user "
      "in the --group groups, with a new client certificate signed by the "
      "cluster CA in the data directory (read on this machine: run it where "
      "the server's data directory is).\n\n"
      "Certificates cannot be revoked (as with Kubernetes' own): keep "
      "--duration short, and grant access with RBAC bindings to the user "
      "or group, which can be removed (docs/security.md). A user in no "
      "binding can only discover the API.\n\n"
      "Example:\n"
      "  draplane kubeconfig --user alice --group team-a --duration 8h "
      "-o alice.kubeconfig\n"
      "  kubectl create rolebinding team-a-edit --clusterrole=edit "
      "--group=team-a -n team-a");
  cmd->add_option("--user", flags->user, "User name (the certificate's CN)")
      ->required();
  cmd->add_option("--group", flags->groups,
                  "A group of the user (the certificate's O); repeatable");
  cmd->add_option("--duration", flags->duration,
                  "How long the certificate is valid (e.g. 8h, 30m)")
      ->capture_default_str();
  cmd->add_option("--data-dir", flags->data_dir,
                  "The server's data directory (default "
                  "$XDG_STATE_HOME/draplane or ~/.local/state/draplane)");
  cmd->add_option("--server", flags->server,
                  "Server URL (default: the admin kubeconfig's)");
  cmd->add_option("-o,--output", flags->output,
                  "Write the kubeconfig here (default: standard output)");
  cmd->callback(
      [flags, streams, exit_code] { *exit_code = Run(*flags, streams); });
}

}  // namespace draplane::cmd
