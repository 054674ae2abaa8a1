// The REST handlers of the API server, one method per verb, along
// upstream's handler seams (k8s.io/apiserver pkg/endpoints/handlers):
// handlers.cc routes a request (authentication, then a non-resource path
// or a resource verb) and holds what the verbs share; the verbs are in
// read_handlers.cc (get, list), create_handlers.cc (create, binding),
// update_handlers.cc (update, patch, scale), delete_handlers.cc (delete,
// deletecollection), watch_handler.cc, and discovery_handlers.cc (version,
// health, metrics, discovery, OpenAPI). Every answer goes through a
// Responder, so the handlers never know whether the caller is HTTP or in
// process.
#ifndef DRAPLANE_APISERVER_INTERNAL_HANDLERS_H_
#define DRAPLANE_APISERVER_INTERNAL_HANDLERS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/core_types.h"
#include "api/meta_types.h"
#include "apiserver/api_server.h"
#include "apiserver/internal/audit_log.h"
#include "apiserver/internal/authenticator.h"
#include "apiserver/internal/max_in_flight.h"
#include "apiserver/internal/negotiation.h"
#include "apiserver/internal/node_restriction.h"
#include "apiserver/internal/object_filter.h"
#include "apiserver/internal/rbac_escalation_admission.h"
#include "apiserver/internal/rbac_policy.h"
#include "apiserver/internal/registry.h"
#include "apiserver/internal/request_scope.h"
#include "apiserver/internal/resource_quota_admission.h"
#include "apiserver/internal/responder.h"
#include "apiserver/internal/service_account_tokens.h"
#include "apiserver/internal/watch_cache.h"
#include "apiserver/internal/watch_dispatcher.h"
#include "http/http_server.h"
#include "store/store.h"

namespace draplane::apiserver::internal {

class Handlers {
 public:
  // `store` outlives the handlers. Creates the default namespaces.
  Handlers(store::Store* store, ApiServerOptions options);
  // Ends the watches the dispatcher serves.
  ~Handlers();
  Handlers(const Handlers&) = delete;
  Handlers& operator=(const Handlers&) = delete;

  // Answers one request; blocks for watches (see ApiServer::Handle).
  void Handle(const http::HttpRequest& req, Responder& answer);
  // See ApiServer::MayReadBody.
  bool MayReadBody(const http::HttpRequest& req);

  // See ApiServer::RunControllersOnce.
  void RunControllersOnce();

 private:
  friend class WatchSession;

  // handlers.cc: routing and what the verbs share.
  void Dispatch(const http::HttpRequest& req, const Target& t, Responder& w);
  void EnsureDefaultNamespaces();
  // kRbac: watches the stored policy, reconciles the bootstrap policy and
  // aggregates ClusterRoles, then authorizes with RBAC.
  void StartRbac();
  WriteOptions WriteOptionsOf(const http::HttpRequest& req, const Target& t,
                              bool dry_run, bool record_manager = true) const;
  absl::StatusOr<ObjectFilter> Filter(const http::HttpRequest& req,
                                      const Target& t);
  // Sends one object (converted, or as a one-row Table).
  absl::Status SendObject(const http::HttpRequest& req, const Target& t,
                          std::shared_ptr<const Json> object, int code,
                          const std::vector<std::string>& warnings,
                          Responder& w);
  // Sends a create's or update's result: as SendObject, or, to a caller
  // that takes typed replies, the written value's typed form (shared with
  // the watchers; managedFields left out as asked).
  absl::Status SendWritten(const http::HttpRequest& req, const Target& t,
                           const WriteResult& result, int code,
                           const std::vector<std::string>& warnings,
                           Responder& w);
  // `objects` (stored form) as a meta.k8s.io Table in the negotiated
  // version, with the request's includeObject.
  absl::StatusOr<Json> Table(const http::HttpRequest& req, const Target& t,
                             const std::vector<Json>& objects,
                             const std::string& resource_version,
                             const std::string& continue_token,
                             const Negotiated& n);

  // Held while a backup is taken and streamed.
  std::atomic<bool> backup_running_{false};

  // discovery_handlers.cc: false when `segments` is no non-resource path.
  Json VersionInfo() const;
  bool HandleNonResource(const http::HttpRequest& req,
                         const std::vector<std::string_view>& segments,
                         Responder& w);
  void ServeOpenApiV3(const http::HttpRequest& req,
                      const std::vector<std::string_view>& segments,
                      Responder& w);
  // GET /draplane/store/backup: a consistent copy of the store, streamed
  // (one at a time; 429 while one is being taken).
  void ServeStoreBackup(Responder& w);

  // review_handlers.cc: the review kinds, created, answered and not
  // stored. False when `segments` names none.
  bool HandleReview(const http::HttpRequest& req,
                    const std::vector<std::string_view>& segments,
                    const auth::UserInfo& user, Responder& w);
  // SelfSubjectReview (`kubectl auth whoami`): who the caller is.
  void SelfSubjectReview(const http::HttpRequest& req,
                         const auth::UserInfo& user, Responder& w);
  // TokenReview: who a bearer token authenticates as.
  void TokenReview(const http::HttpRequest& req, Responder& w);
  // SelfSubjectAccessReview, SubjectAccessReview and
  // LocalSubjectAccessReview (`url_namespace` set): what the authorizer
  // decides for the attributes in the spec.
  void AccessReview(const http::HttpRequest& req, const auth::UserInfo& user,
                    std::string_view kind, const std::string& url_namespace,
                    Responder& w);
  // SelfSubjectRulesReview: the caller's rules in spec.namespace.
  void RulesReview(const http::HttpRequest& req, const auth::UserInfo& user,
                   Responder& w);

  // read_handlers.cc
  absl::Status Get(const http::HttpRequest& req, const Target& t, Responder& w);
  absl::Status List(const http::HttpRequest& req, const Target& t,
                    Responder& w);

  // create_handlers.cc
  absl::Status Create(const http::HttpRequest& req, const Target& t,
                      Responder& w);
  absl::Status Bind(const http::HttpRequest& req, const Target& t,
                    Responder& w);
  void SetPodScheduled(api::PodStatus& status) const;

  // token_request_handler.cc: TokenRequest (serviceaccounts/token).
  absl::Status RequestToken(const http::HttpRequest& req, const Target& t,
                            Responder& w);
  // Puts the object `ref` names (a Pod, with its node, or a Node) into
  // `claims`; upstream's errors for what cannot be bound.
  absl::Status BindToken(const Target& t, const Json& ref,
                         auth::ServiceAccountClaims& claims);

  // update_handlers.cc
  absl::Status Update(const http::HttpRequest& req, const Target& t,
                      Responder& w);
  absl::Status Patch(const http::HttpRequest& req, const Target& t,
                     Responder& w);
  static Json ScaleOf(const Json& deployment);
  absl::Status WriteScale(
      const http::HttpRequest& req, const Target& t, Responder& w,
      const std::function<absl::StatusOr<Json>(const Json&)>& scale);

  // delete_handlers.cc
  absl::StatusOr<DeleteOptions> DeleteOptionsOf(const http::HttpRequest& req,
                                                const Target& t);
  absl::Status Delete(const http::HttpRequest& req, const Target& t,
                      Responder& w);
  absl::Status DeleteCollection(const http::HttpRequest& req, const Target& t,
                                Responder& w);

  // watch_handler.cc
  void Watch(const http::HttpRequest& req, const Target& t, Responder& w);

  // Created by the admission chain (before registry_ is), attached to it
  // after.
  std::shared_ptr<ResourceQuotaAdmission> quota_;
  std::shared_ptr<RbacEscalationAdmission> escalation_;
  std::shared_ptr<NodeRestrictionAdmission> node_restriction_;  // or null
  Registry registry_;
  WatchCache watch_cache_;
  // Null without a ServiceAccount signing key.
  const std::unique_ptr<const ServiceAccountTokens> service_account_tokens_;
  const Authenticator authenticator_;
  MaxInFlight max_in_flight_;
  // The stored RBAC policy (kRbac only) and the authorizer (never null).
  std::unique_ptr<StoredPolicy> policy_;
  const auth::StaticPolicySource empty_policy_{auth::Policy{}};
  // policy_->Changes() when ClusterRoles were last aggregated.
  std::atomic<int64_t> aggregated_at_{-1};
  std::unique_ptr<auth::Authorizer> authorizer_;
  const ApiServerOptions options_;
  // Null unless options_ name an audit policy and log.
  std::unique_ptr<AuditLog> audit_log_;
  // Serves the watches whose HTTP streams are detached (shared with
  // them, so that a store's sink may still wake one while it ends).
  const std::shared_ptr<WatchDispatcher> watch_dispatcher_;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_HANDLERS_H_
