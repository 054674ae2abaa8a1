// A component's secure port, as kube-scheduler and kube-controller-manager
// serve theirs (k8s.io/apiserver's SecureServingOptions with delegated
// authentication and authorization): HTTPS with the given certificate or a
// self-signed one made at start; /healthz, /livez and /readyz (with their
// /<check> forms) and /metrics. Every request is authenticated and
// authorized by the API server the component talks to, except the paths
// of --authorization-always-allow-paths (by default exactly /healthz,
// /readyz and /livez: a kubelet's probes carry no credentials):
//   - a client certificate that chains to the client CA
//     (--client-ca-file, else the client-ca-file of the ConfigMap
//     kube-system/extension-apiserver-authentication, read at start; the
//     role extension-apiserver-authentication-reader may read it): its CN
//     and O;
//   - a bearer token: a TokenReview (answers kept 10 s);
//   - neither: system:anonymous in system:unauthenticated;
// then, unless the user is in system:masters, a SubjectAccessReview for
// the non-resource path and the method's verb (answers kept 10 s).
// Refusals are Kubernetes Status objects: 401 Unauthorized; 403
// `forbidden: User "system:anonymous" cannot get path "/metrics"`.
#ifndef DRAPLANE_CMD_SECURE_SERVING_H_
#define DRAPLANE_CMD_SECURE_SERVING_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "auth/user_info.h"
#include "client/client.h"
#include "clock/clock.h"
#include "cmd/health_checks.h"
#include "http/http_server.h"
#include "metrics/metrics.h"

namespace draplane::cmd {

// --secure-port, --bind-address, --tls-cert-file, --tls-private-key-file,
// --client-ca-file, --authorization-always-allow-paths.
struct SecureServingFlags {
  int secure_port = 0;  // 0: not served
  std::string bind_address = "0.0.0.0";
  std::string tls_cert_file;
  std::string tls_private_key_file;
  std::string client_ca_file;
  std::string always_allow_paths = "/healthz,/readyz,/livez";
};
// `default_port`: the upstream component's (kube-scheduler 10259,
// kube-controller-manager 10257), or 0 for off by default.
void AddSecureServingFlags(CLI::App* cmd, SecureServingFlags* flags,
                           int default_port);

// Delegated authentication and authorization of one request. Thread-safe.
class DelegatedAuth {
 public:
  struct Options {
    std::string client_ca_pem;  // "" : no client-certificate users
    // Exact paths, or prefixes ending in '*'.
    std::vector<std::string> always_allow_paths;
    absl::Duration cache_ttl = absl::Seconds(10);
    size_t max_cache_entries = 4096;  // per cache; the oldest go first
  };
  // `client` and `clock` outlive this.
  DelegatedAuth(client::Client* client, Options options,
                Clock& clock = RealClock());

  // True when the request may go on; else the refusal has been sent.
  bool Admit(const http::HttpRequest& req, http::ResponseWriter& w);

 private:
  struct Cached {
    absl::Time until;
    bool ok = false;
    auth::UserInfo user;  // token answers
  };
  // Who sent the request; Unauthenticated when its credentials fail.
  absl::StatusOr<auth::UserInfo> Authenticate(const http::HttpRequest& req);
  absl::StatusOr<auth::UserInfo> ReviewToken(const std::string& token);
  // Allowed, or PermissionDenied with the reviewer's reason ("" none).
  absl::Status Authorize(const auth::UserInfo& user, const std::string& verb,
                         const std::string& path);
  void Remember(std::map<std::string, Cached>& cache, std::string key,
                Cached value) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  client::Client* const client_;
  const Options options_;
  Clock& clock_;
  absl::Mutex mu_;
  // Keyed by the token's SHA-256, and by user, groups, verb and path.
  std::map<std::string, Cached> tokens_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Cached> decisions_ ABSL_GUARDED_BY(mu_);
};

// The client CA of the secure port: --client-ca-file's content, else the
// ConfigMap's client-ca-file; "" (logged as upstream logs it) when
// neither is there.
absl::StatusOr<std::string> SecureServingClientCa(
    const SecureServingFlags& flags, client::Client* client);

// A secure port being served: the server stops (in its destructor, or
// Stop()) before the authorizer it uses goes.
struct SecurePort {
  // The reviews' own client, as k8s.io/apiserver's delegating options make
  // one (200 QPS, burst 400): requests to the port never spend the
  // component's own client budget.
  std::unique_ptr<client::Client> review_client;
  std::unique_ptr<DelegatedAuth> auth;
  std::unique_ptr<http::HttpServer> server;
  ~SecurePort() {
    if (server != nullptr) server->Stop();
  }
};

// Serves the secure port of `component` ("draplane-scheduler": the
// self-signed certificate's name; the reviews' client reaches the API
// server as `client` does); null when --secure-port is 0.
// InvalidArgument naming the flag for an unreadable certificate, key or
// CA, or an address that cannot be bound.
absl::StatusOr<std::unique_ptr<SecurePort>> ServeSecurely(
    const SecureServingFlags& flags, const std::string& component,
    client::Client* client, metrics::Registry* registry,
    const HealthChecks* health);

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_SECURE_SERVING_H_
