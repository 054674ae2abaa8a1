// How to reach a Kubernetes API server: address, TLS trust, credentials and
// client-side rate limits, from a kubeconfig file or built in code.
#ifndef DRAPLANE_CLIENT_REST_CONFIG_H_
#define DRAPLANE_CLIENT_REST_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace draplane::client {

// A kubeconfig user's `exec` credential plugin (client-go's
// clientcmdapi.ExecConfig): a program that prints an ExecCredential
// (client.authentication.k8s.io/v1 or v1beta1) with a token and/or a client
// certificate. See credentials.h for when it runs.
struct ExecPluginConfig {
  // As written, resolved against the kubeconfig's folder when it holds a
  // '/' (client-go's ResolvePaths); else looked up in $PATH.
  std::string command;
  std::vector<std::string> args;
  // Added to the process's environment (after it: these win).
  std::vector<std::pair<std::string, std::string>> env;
  std::string api_version;  // "client.authentication.k8s.io/v1" or v1beta1
  // "Never", "IfAvailable" (interactive when standard input is a terminal)
  // or "Always" (fails without a terminal).
  std::string interactive_mode;
  std::string install_hint;
  // Whether KUBERNETES_EXEC_INFO carries spec.cluster (the server, CA,
  // TLS server name, proxy and the cluster's
  // "client.authentication.k8s.io/exec" extension).
  bool provide_cluster_info = false;
  // That extension as JSON text; "" when the cluster has none.
  std::string cluster_extension_json;
};

struct RestConfig {
  // "https://host:port" or "http://host:port" (a path prefix is allowed).
  std::string server;
  // PEM CA bundle that signs the server certificate. Empty with https:
  // the system trust store.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;
  // TLS server name to verify instead of the host of `server`.
  std::string tls_server_name;
  // An HTTP proxy for every request ("http://[user:password@]host:port",
  // the kubeconfig cluster's proxy-url). Empty: client-go's
  // ProxyFromEnvironment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; never for
  // localhost or a loopback address).
  std::string proxy_url;
  // Credentials: a bearer token and/or a client certificate (PEM).
  std::string bearer_token;
  // A file holding the bearer token, re-read when the token in hand is
  // older than 50 s (client-go's cached file token source: a kubelet
  // rotates projected ServiceAccount tokens well before they expire); when
  // a re-read fails the token in hand stays in use. `bearer_token` is the
  // file's content when it was loaded.
  std::string bearer_token_file;
  std::string client_cert_pem;
  std::string client_key_pem;
  // An exec credential plugin, used when no bearer token is set.
  std::optional<ExecPluginConfig> exec;
  // The namespace of the kubeconfig context, or the in-cluster namespace
  // ($POD_NAMESPACE, else the ServiceAccount's namespace file, else
  // "default").
  std::string namespace_name = "default";
  // Client-side rate limit (token bucket), like client-go's QPS/Burst.
  // qps <= 0 means unlimited (the in-process clients of `draplane
  // server`); the commands that connect to a remote server default to the
  // upstream component's limits (cmd/component_support.h). When a limit
  // delays a request by more than a second the client logs it, as
  // client-go does.
  double qps = 0;
  int burst = 0;
  std::string user_agent = "draplane";
  // Per-request timeout of non-watch calls.
  absl::Duration timeout = absl::Seconds(30);
};

// Loads a kubeconfig (clusters, users, contexts; *-data fields in base64 or
// file paths relative to the kubeconfig's folder; token, tokenFile, exec
// plugins with client-go's validation and messages; proxy-url).
// `context` empty = current-context. auth-provider plugins and basic
// authentication are refused with an error naming the user entry.
absl::StatusOr<RestConfig> LoadKubeconfig(const std::string& path,
                                          std::string_view context = "");

// Where a pod's ServiceAccount credentials are mounted.
inline constexpr char kServiceAccountDir[] =
    "/var/run/secrets/kubernetes.io/serviceaccount";

// client-go's rest.InClusterConfig: https://$KUBERNETES_SERVICE_HOST:
// $KUBERNETES_SERVICE_PORT, the token of kServiceAccountDir/token (re-read
// as `bearer_token_file`), the CA bundle kServiceAccountDir/ca.crt (when it
// does not load, the error is logged and the system trust store is used,
// as client-go does) and the namespace (see RestConfig::namespace_name).
// FailedPrecondition with client-go's text ("unable to load in-cluster
// configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must
// be defined") outside a cluster; NotFound when the token cannot be read.
absl::StatusOr<RestConfig> InClusterConfig();

// How a command finds its API server, as kubectl's loading rules with the
// in-cluster fallback: `explicit_kubeconfig` if set, else the first file
// of $KUBECONFIG, else ~/.kube/config when it exists, else the in-cluster
// configuration when KUBERNETES_SERVICE_HOST and _PORT are set; else
// FailedPrecondition saying all three were tried.
absl::StatusOr<RestConfig> LoadClientConfig(
    std::string_view explicit_kubeconfig, std::string_view context = "");

// Where kubectl looks: `explicit_path` if set, else the first file of
// $KUBECONFIG, else ~/.kube/config.
std::string DefaultKubeconfigPath(std::string_view explicit_path = "");

}  // namespace draplane::client

#endif  // DRAPLANE_CLIENT_REST_CONFIG_H_
