// draplane's Kubernetes API server: the REST surface kubectl and client-go
// use (discovery, CRUD, status subresources, watch, Tables, patches,
// Status errors) over a store::Store. Transport-independent: Handle() takes
// one parsed HTTP request; http_server.h serves it over TCP/TLS.
//
// Beyond upstream (documented in docs/apiserver.md): field selectors
// `status.allocation` / `status.reservedFor` on ResourceClaims.
#ifndef DRAPLANE_APISERVER_API_SERVER_H_
#define DRAPLANE_APISERVER_API_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "apiserver/admission.h"
#include "apiserver/audit_policy.h"
#include "auth/rbac.h"
#include "auth/token_file.h"
#include "clock/clock.h"
#include "common/version.h"
#include "http/http_server.h"
#include "http/in_process_exchange.h"
#include "store/store.h"

namespace draplane::apiserver {

struct ApiServerOptions {
  // Authentication, as kube-apiserver's (docs/security.md). Bearer tokens
  // and the users they authenticate as (--token-auth-file's lines;
  // `draplane server` adds its admin token, in system:masters). Client
  // certificates are verified by the HTTP server
  // (HttpServerOptions::tls_client_ca_pem); a verified one authenticates
  // as CN in the groups O.
  std::vector<auth::StaticToken> tokens;
  // --anonymous-auth: a request without credentials acts as
  // system:anonymous in system:unauthenticated (false: 401).
  bool anonymous_auth = true;
  // ServiceAccount tokens, as kube-apiserver's --service-account-issuer,
  // --service-account-signing-key-file, --service-account-key-file,
  // --api-audiences, --service-account-max-token-expiration and
  // --service-account-jwks-uri (docs/security.md). With a signing key,
  // TokenRequest (serviceaccounts/token) issues RS256 JWTs, bearer tokens
  // of the issuer authenticate as their ServiceAccount while it and the
  // object the token is bound to exist, and the issuer discovery
  // documents are served. Without one, TokenRequest is refused and no
  // ServiceAccount token authenticates.
  struct ServiceAccountTokenOptions {
    std::string issuer = "https://kubernetes.default.svc.cluster.local";
    // PKCS#8 or PKCS#1 PEM of an RSA key; empty: no ServiceAccount tokens.
    std::string signing_key_pem;
    // Public keys (PEM) that verify tokens besides the signing key's own:
    // keys retired by a rotation, until their last token expires.
    std::vector<std::string> extra_verification_key_pems;
    // The audiences a token must have one of to authenticate a request,
    // and TokenRequest's default (empty: the issuer alone).
    std::vector<std::string> api_audiences;
    // Longer requests are shortened to this, with a warning (zero: no
    // limit).
    absl::Duration max_expiration = absl::ZeroDuration();
    // /.well-known/openid-configuration's jwks_uri (empty: derived from
    // the request's Host, as upstream derives it from its external
    // address).
    std::string jwks_uri;
    // Told the expiry of every token issued (the data directory keeps the
    // latest, so that a rotated key verifies until then).
    std::function<void(absl::Time)> on_issued;
  };
  ServiceAccountTokenOptions service_account_tokens;
  // Authorization (--authorization-mode). kAlwaysAllow allows every
  // request: only for servers that tests and tools embed in-process.
  // kRbac is kube-apiserver's RBAC over the stored Roles, ClusterRoles,
  // RoleBindings and ClusterRoleBindings, with upstream's bootstrap policy
  // reconciled at start. kNodeAndRbac is `--authorization-mode=Node,RBAC`
  // with the NodeRestriction admission plugin, as kubeadm runs
  // kube-apiserver: nodes (`system:node:<name>` in system:nodes) are
  // authorized by the Node authorizer first; `draplane server` uses it.
  // A refusal is a 403 with upstream's text. Escalation prevention on
  // RBAC writes holds in every mode (AlwaysAllow grants `escalate` and
  // `bind`).
  enum class AuthorizationMode { kAlwaysAllow, kRbac, kNodeAndRbac };
  AuthorizationMode authorization_mode = AuthorizationMode::kAlwaysAllow;
  // RBAC objects (rbac.authorization.k8s.io/v1 JSON) reconciled after
  // upstream's bootstrap policy, the same way: the roles of the embedding
  // program's own components (kRbac and kNodeAndRbac only).
  std::vector<api::Json> bootstrap_policy_additions;
  // kube-apiserver's --max-requests-inflight and
  // --max-mutating-requests-inflight (its defaults; 0: no limit): more
  // non-long-running read-only (get, list) or mutating requests at once
  // are answered 429 with Retry-After, except for system:masters
  // (internal/max_in_flight.h).
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  // /version: the Kubernetes release whose API is served, with draplane's
  // version as build metadata (common/version.h).
  std::string version_major = std::string(kKubernetesMajor);
  std::string version_minor = std::string(kKubernetesMinor);
  std::string git_version = KubernetesGitVersion();
  // Upper bound of a watch without timeoutSeconds.
  absl::Duration max_watch = absl::Minutes(30);
  // Events queued for one HTTP watcher that has not written them yet; a
  // watcher that falls further behind is closed (its client resumes from
  // the last revision it saw), as kube-apiserver's cacher closes a watcher
  // whose channel stays full. 0: no limit. Watchers in this process are
  // never limited.
  size_t watch_queue_limit = 4096;
  // Interval of BOOKMARK events for watches that allow them.
  absl::Duration bookmark_interval = absl::Minutes(1);
  // Admission plugins, run in order after the built-in admission
  // (admission.h).
  std::vector<std::shared_ptr<AdmissionPlugin>> admission;
  // kube-apiserver's DefaultTolerationSeconds admission (on by default
  // upstream): new pods tolerate not-ready/unreachable NoExecute taints
  // for 300 s unless they say otherwise. Runs before `admission`.
  bool default_toleration_seconds = true;
  // Its tolerationSeconds (kube-apiserver's
  // --default-not-ready-toleration-seconds and
  // --default-unreachable-toleration-seconds).
  int64_t default_not_ready_toleration_seconds = 300;
  int64_t default_unreachable_toleration_seconds = 300;
  // Set: GET /draplane/store/backup answers with a consistent copy of the
  // store (Store::Backup, a SQLite store file; its revision in the
  // X-Draplane-Store-Revision header), made in this folder and removed once
  // streamed. Authorized as a non-resource URL: cluster-admin only unless
  // a role grants `get` on it. draplane's own, for `draplane store backup`.
  std::string store_backup_dir;
  // Set: GET /metrics answers with what it returns, in the Prometheus text
  // format (authenticated like every API path, as kube-apiserver's).
  std::function<std::string()> metrics;
  // Audit logging, as kube-apiserver's --audit-policy-file,
  // --audit-log-path, --audit-log-maxsize and --audit-log-maxbackup
  // (docs/security.md, "What is audited"). Events are written only with
  // both a policy and a path ("-": standard output).
  std::shared_ptr<const AuditPolicy> audit_policy;
  std::string audit_log_path;
  // Megabytes (2^20 bytes) before the file is rotated (0: never), and
  // how many rotated files are kept (0: all).
  int audit_log_max_size_mb = 0;
  int audit_log_max_backups = 0;
  // kube-apiserver's --event-ttl: an Event not written for this long is
  // deleted (internal/garbage_collector.h); zero or less keeps Events.
  absl::Duration event_ttl = absl::Hours(1);
  // What timestamps written into objects (creation, deletion, managedFields,
  // conditions), table ages and watch timeouts and bookmarks read (null:
  // RealClock()); outlives the server.
  Clock* clock = nullptr;
};

class ApiServer {
 public:
  // `store` outlives the server.
  ApiServer(store::Store* store, ApiServerOptions options);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Answers one request of an HTTP caller; blocks for watches until they
  // end (client gone, timeout, or the writer reports Stopping()).
  void Handle(const http::HttpRequest& request, http::ResponseWriter& writer);
  // Whether the request, known by its header alone, is authenticated and
  // authorized, so that its body is worth reading (for
  // HttpServerOptions::may_read_body). Does not block; records nothing:
  // Handle() answers a refused request, with its audit record.
  bool MayReadBody(const http::HttpRequest& request);
  // The same for a caller in this process (the client's in-process
  // transport): the answer is handed over parsed and typed where the
  // exchange takes it (http/in_process_exchange.h).
  void HandleInProcess(const http::HttpRequest& request,
                       http::InProcessExchange& exchange);

  // One pass of the built-in controllers deletion depends on
  // (internal/garbage_collector.h): the namespace finalizer and the
  // ownerReference garbage collector. The standalone server runs it every
  // second; tests call it directly.
  void RunControllersOnce();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::apiserver

#endif  // DRAPLANE_APISERVER_API_SERVER_H_
