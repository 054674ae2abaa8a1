// kube-apiserver's audit log backend (--audit-log-path with
// --audit-policy-file): one `audit.k8s.io/v1` Event per JSON line for
// each stage of each request the policy audits, as k8s.io/apiserver
// v0.37.2's audit filters record them (endpoints/filters/audit.go,
// authn_audit.go, authorization.go; pkg/audit/request.go, context.go;
// plugin/pkg/audit/log in its blocking mode, errors ignored).
//
// What an event holds, by level (docs/security.md, "What is audited"):
// Metadata: auditID, stage, requestURI, verb, user, impersonatedUser,
// sourceIPs, userAgent, objectRef, responseStatus, the timestamps and
// the authorization annotations; Request adds requestObject (the body of
// a create, update, patch, delete or deletecollection, JSON bodies only);
// RequestResponse adds responseObject (the JSON answer of a resource
// request). Stages: RequestReceived once the request is authenticated;
// ResponseStarted when a stream (watch) starts; ResponseComplete when the
// handler is done. A request that fails authentication gets one event,
// ResponseStarted with the 401 (as upstream's WithFailedAuthenticationAudit,
// which never completes it), with an empty user.
//
// Bounds (beyond upstream, which records bodies of any size): a request
// or response object whose JSON is larger than kMaxAuditedBodyBytes is
// left out and the event is annotated `audit.k8s.io/truncated: "true"`
// (the annotation of upstream's truncating backend), so an event always
// fits a 1 MB file; a User-Agent is cut at 1024 bytes as upstream does.
#ifndef DRAPLANE_APISERVER_INTERNAL_AUDIT_LOG_H_
#define DRAPLANE_APISERVER_INTERNAL_AUDIT_LOG_H_

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "api/meta_types.h"
#include "apiserver/audit_policy.h"
#include "apiserver/internal/responder.h"
#include "apiserver/internal/rotating_file.h"
#include "auth/rbac.h"
#include "auth/request_attributes.h"
#include "auth/user_info.h"
#include "clock/clock.h"
#include "http/http_server.h"

namespace draplane::apiserver::internal {

inline constexpr size_t kMaxAuditedBodyBytes = 256 * 1024;

// Where events go, and the policy that decides them. Thread-safe.
class AuditLog {
 public:
  // `clock` (not null) outlives the log.
  AuditLog(std::shared_ptr<const AuditPolicy> policy, RotatingFileOptions file,
           Clock* clock);

  const AuditPolicy& policy() const { return *policy_; }
  Clock& clock() const { return clock_; }

  // Writes `event` as one line. A failure is logged and the event lost;
  // the request goes on (upstream's ignoreErrorsBackend).
  void Write(const api::Json& event);

 private:
  const std::shared_ptr<const AuditPolicy> policy_;
  Clock& clock_;
  RotatingFile file_;
};

// The audit record of one request, filled in as Handlers::Handle decides.
// Each method is a no-op when the log is null or the policy's level for
// the request is None. Not thread-safe: one request's thread uses it.
class AuditedRequest {
 public:
  // `log` null: auditing is off; responder() is `w`. Reads the time the
  // request was received.
  AuditedRequest(AuditLog* log, const http::HttpRequest& req, Responder& w);
  // Writes the ResponseComplete event (unless omitted or failed
  // authentication).
  ~AuditedRequest();
  AuditedRequest(const AuditedRequest&) = delete;
  AuditedRequest& operator=(const AuditedRequest&) = delete;

  // What the handlers answer through: it records the code, the Status
  // and (RequestResponse) the body, adds the Audit-Id header, and writes
  // ResponseStarted when a stream starts.
  Responder& responder();

  // Authentication failed: evaluates the policy without a user; the 401
  // the caller sends next is the one event.
  void AuthenticationFailed(const auth::RequestAttributes& request);
  // Authenticated as `request.user`: evaluates the policy, fills the
  // metadata and writes RequestReceived.
  void Authenticated(const auth::RequestAttributes& request);
  // The request acts as `user` (only recorded when it asked to
  // impersonate).
  void Impersonated(const auth::UserInfo& user);
  // The authorizer's decision (annotations); when allowed, the request's
  // body is recorded as upstream's handlers record it.
  void Authorized(const auth::Authorization& decision);

 private:
  class Recorder;
  std::unique_ptr<Recorder> recorder_;  // null: not audited
  Responder& inner_;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_AUDIT_LOG_H_
