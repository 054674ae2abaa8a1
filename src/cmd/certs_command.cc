// `draplane certs rotate`: retires the standalone control plane's admin
// token and ServiceAccount signing key.
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "apiserver/service_account_keys.h"
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
  if (absl::Status s =
          apiserver::RotateServiceAccountKey(data_dir + "/pki", absl::Now());
      !s.ok()) {
    streams.err << "error: " << s.message() << "\n";
    return 1;
  }
  streams.out << "draplane certs rotate: new admin token in " << data_dir
              << "/pki/admin.token and new ServiceAccount signing key in "
              << data_dir
              << "/pki/sa.key; restart draplane server: the old admin token "
                 "is refused (401) from then on, ServiceAccount tokens signed "
                 "with the old key verify until they expire, and the serving "
                 "and admin certificates are issued anew at every start\n";
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
      *certs, "rotate", "Retire the admin token and ServiceAccount key",
      "Replace the admin bearer token in DATA_DIR/pki/admin.token with a new "
      "random one, and the ServiceAccount token signing key DATA_DIR/pki/"
      "sa.key with a new one. A server started afterwards refuses the old "
      "admin token (401), signs ServiceAccount tokens with the new key, and "
      "still accepts tokens the old key signed until the last of them "
      "expires (the retired public key stays in DATA_DIR/pki/"
      "sa-retired.json until then, and in /openid/v1/jwks). "
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
