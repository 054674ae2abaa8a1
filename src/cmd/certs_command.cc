// `draplane certs rotate`: retires the standalone control plane's admin
// token.
#include <memory>
#include <string>

#include "apiserver/tls_credentials.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"

namespace draplane::cmd {
namespace {

int Rotate(const std::string& data_dir_flag, Streams streams) {
  const std::string data_dir =
      data_dir_flag.empty() ? DefaultDataDir() : data_dir_flag;
  auto token = apiserver::RotateAdminToken(data_dir + "/pki");
  if (!token.ok()) {
    streams.err << "error: " << token.status().message()
                << ": run `draplane server --data-dir " << data_dir
                << "` first\n";
    return 1;
  }
  streams.out << "draplane certs rotate: new admin token in " << data_dir
              << "/pki/admin.token; restart draplane server: the old token "
                 "is refused (401) from then on, and the serving and admin "
                 "certificates are issued anew at every start\n";
  return 0;
}

}  // namespace

void RegisterCerts(CLI::App& app, Streams streams, int* exit_code) {
  CLI::App* certs = AddCommand(
      app, "certs", "Manage the standalone control plane's credentials",
      "Manage the credentials in `draplane server`'s data directory.");
  certs->require_subcommand(1);
  auto data_dir = std::make_shared<std::string>();
  CLI::App* rotate = AddCommand(
      *certs, "rotate", "Retire the admin token",
      "Replace the admin bearer token in DATA_DIR/pki/admin.token with a new "
      "random one. A server started afterwards refuses the old token (401). "
      "The serving certificate and the admin's client certificate are "
      "issued anew by the cluster CA at every start of the server, so a "
      "restart renews them too; client certificates handed out with "
      "`draplane kubeconfig` stay valid until they expire.\n\n"
      "Example:\n"
      "  draplane certs rotate --data-dir /tmp/dp && restart the server");
  rotate->add_option("--data-dir", *data_dir,
                     "The server's data directory (default "
                     "$XDG_STATE_HOME/draplane or ~/.local/state/draplane)");
  rotate->callback([data_dir, streams, exit_code] {
    *exit_code = Rotate(*data_dir, streams);
  });
}

}  // namespace draplane::cmd
