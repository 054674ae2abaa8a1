// Running a kubeconfig `exec` credential plugin once, as client-go's
// exec authenticator does (k8s.io/client-go/plugin/pkg/client/auth/exec,
// refreshCredsLocked): the ExecCredential request in KUBERNETES_EXEC_INFO,
// the plugin's standard output decoded and checked with client-go's
// messages.
#ifndef DRAPLANE_CLIENT_INTERNAL_EXEC_CREDENTIAL_PLUGIN_H_
#define DRAPLANE_CLIENT_INTERNAL_EXEC_CREDENTIAL_PLUGIN_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/rest_config.h"

namespace draplane::client::internal {

// What a plugin returned: a token and/or a client certificate with its key
// (PEM, checked to parse and to match).
struct ExecCredential {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<absl::Time> expiration;  // nullopt: valid until a 401
};

// Beyond upstream: a plugin's standard output is read up to this size (a
// credential is a few KiB); a plugin that writes more fails.
inline constexpr size_t kMaxExecPluginOutput = size_t{1} << 20;

// The KUBERNETES_EXEC_INFO value: an ExecCredential of `plugin`'s
// apiVersion whose spec says `interactive` and, with provideClusterInfo,
// carries `cluster`'s server, TLS settings, CA (base64), proxy and the
// cluster's exec extension.
std::string ExecInfo(const ExecPluginConfig& plugin, const RestConfig& cluster,
                     bool interactive);

// Decodes and checks a plugin's standard output (client-go's texts:
// "decoding stdout: ...", "exec plugin is configured to use API version
// ..., plugin returned version ...", "exec plugin didn't return a status
// field", "exec plugin didn't return a token or cert/key pair", "exec
// plugin returned only certificate or key, not both", "failed parsing
// client key/certificate: ...").
absl::StatusOr<ExecCredential> DecodeExecCredential(
    const ExecPluginConfig& plugin, std::string_view stdout_text);

// Runs the plugin and decodes its output. Its standard error is the
// process's; its standard input the process's when interactive (the mode
// says so and standard input is a terminal), else /dev/null; its
// environment the process's plus the plugin's `env` and
// KUBERNETES_EXEC_INFO; signals at their defaults; no other descriptor is
// inherited. Errors as client-go's: "exec plugin cannot support
// interactive mode: standard input is not a terminal", "exec: executable X
// not found" (with the install hint), "exec: executable X failed with exit
// code N" (-1 when a signal ended it).
absl::StatusOr<ExecCredential> RunExecPlugin(const ExecPluginConfig& plugin,
                                             const RestConfig& cluster);

}  // namespace draplane::client::internal

#endif  // DRAPLANE_CLIENT_INTERNAL_EXEC_CREDENTIAL_PLUGIN_H_
