// How to reach a Kubernetes API server: address, TLS trust, credentials and
// client-side rate limits, from a kubeconfig file or built in code.
#ifndef DRAPLANE_CLIENT_REST_CONFIG_H_
#define DRAPLANE_CLIENT_REST_CONFIG_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace draplane::client {

struct RestConfig {
  // "https://host:port" or "http://host:port" (a path prefix is allowed).
  std::string server;
  // PEM CA bundle that signs the server certificate. Empty with https:
  // the system trust store.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;
  // TLS server name to verify instead of the host of `server`.
  std::string tls_server_name;
  // Credentials: a bearer token and/or a client certificate (PEM).
  std::string bearer_token;
  std::string client_cert_pem;
  std::string client_key_pem;
  // Client-side rate limit (token bucket), like client-go's QPS/Burst.
  // qps <= 0 means unlimited, draplane's default: client-go's silent
  // default of 5 (kube-scheduler: 50) QPS caps a fast scheduler. When a
  // limit delays a request by more than a second the client logs it, as
  // client-go does.
  double qps = 0;
  int burst = 0;
  std::string user_agent = "draplane";
  // Per-request timeout of non-watch calls.
  absl::Duration timeout = absl::Seconds(30);
};

// Loads a kubeconfig (clusters, users, contexts; *-data fields in base64 or
// file paths relative to the kubeconfig's folder; token and tokenFile).
// `context` empty = current-context. Exec and auth-provider plugins are
// refused with an error naming the user entry.
absl::StatusOr<RestConfig> LoadKubeconfig(const std::string& path,
                                          std::string_view context = "");

// Where kubectl looks: `explicit_path` if set, else the first file of
// $KUBECONFIG, else ~/.kube/config.
std::string DefaultKubeconfigPath(std::string_view explicit_path = "");

}  // namespace draplane::client

#endif  // DRAPLANE_CLIENT_REST_CONFIG_H_
