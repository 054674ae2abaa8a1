
#include "apiserver/internal/handlers.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/default_toleration_seconds.h"
#include "apiserver/internal/garbage_collector.h"
#include "apiserver/internal/impersonation.h"
#include "apiserver/internal/negotiation.h"
#include "apiserver/internal/node_authorizer.h"
#include "apiserver/internal/rbac_reconciliation.h"
#include "apiserver/internal/request_scope.h"
#include "auth/request_attributes.h"
#include "common/str_cat.h"
#include "logging/log.h"
#include "printers/table_printer.h"

namespace draplane::apiserver::internal {

// The built-in admission plugins that are on, then the caller's; `quota`
// gets the ResourceQuota plugin (to attach to the registry).
namespace {

// Threads serving the watches whose streams are detached: an event's
// conversion and line are shared by the watchers of a version, so a few
// keep up with many watchers.
constexpr int kWatchDispatcherThreads = 4;
// How often a detached watch checks its deadline and bookmarks, as one on
// its handler's thread does (events wake it at once; the end of its
// stream too).
constexpr absl::Duration kWatchDispatcherTick = absl::Milliseconds(500);

// The options' ServiceAccount token machinery, or null (the log says why
// when the options name a key that does not work).
std::unique_ptr<const ServiceAccountTokens> NewServiceAccountTokens(
    const ApiServerOptions& options, const Registry* registry) {
  auto tokens =
      ServiceAccountTokens::Create(options.service_account_tokens, registry);
  if (!tokens.ok()) {
    logging::Error("ServiceAccount tokens are off: the signing key is unusable",
                   {{"err", tokens.status()}});
    return nullptr;
  }
  return *std::move(tokens);
}

std::vector<std::shared_ptr<AdmissionPlugin>> AdmissionChain(
    const ApiServerOptions& options,
    std::shared_ptr<internal::ResourceQuotaAdmission>* quota,
    std::shared_ptr<internal::RbacEscalationAdmission>* escalation,
    std::shared_ptr<internal::NodeRestrictionAdmission>* node_restriction) {
  std::vector<std::shared_ptr<AdmissionPlugin>> chain;
  if (options.authorization_mode ==
      ApiServerOptions::AuthorizationMode::kNodeAndRbac) {
    *node_restriction = std::make_shared<internal::NodeRestrictionAdmission>();
    chain.push_back(*node_restriction);
  }
  *escalation = std::make_shared<internal::RbacEscalationAdmission>();
  chain.push_back(*escalation);
  if (options.default_toleration_seconds) {
    chain.push_back(internal::NewDefaultTolerationSeconds(
        options.default_not_ready_toleration_seconds,
        options.default_unreachable_toleration_seconds));
  }
  chain.insert(chain.end(), options.admission.begin(), options.admission.end());
  // Last, as upstream's ResourceQuota (it charges what the others admit).
  *quota = std::make_shared<internal::ResourceQuotaAdmission>();
  chain.push_back(*quota);
  return chain;
}

}  // namespace

Handlers::~Handlers() { watch_dispatcher_->Stop(); }

Handlers::Handlers(store::Store* store, ApiServerOptions options)
    : registry_(
          store,
          AdmissionChain(options, &quota_, &escalation_, &node_restriction_),
          options.clock),
      service_account_tokens_(NewServiceAccountTokens(options, &registry_)),
      authenticator_(options.tokens, options.anonymous_auth,
                     service_account_tokens_.get()),
      max_in_flight_(options.max_requests_inflight,
                     options.max_mutating_requests_inflight),
      options_(std::move(options)),
      watch_dispatcher_(std::make_shared<WatchDispatcher>(
          kWatchDispatcherThreads, kWatchDispatcherTick)) {
  quota_->Attach(&registry_);
  if (node_restriction_ != nullptr) node_restriction_->Attach(&registry_);
  EnsureDefaultNamespaces();
  if (options_.authorization_mode !=
      ApiServerOptions::AuthorizationMode::kAlwaysAllow) {
    StartRbac();
  } else {
    authorizer_ = auth::NewAlwaysAllowAuthorizer();
  }
  escalation_->Attach(authorizer_.get(), policy_.get());
  if (options_.audit_policy != nullptr && !options_.audit_log_path.empty()) {
    audit_log_ = std::make_unique<AuditLog>(
        options_.audit_policy,
        RotatingFileOptions{
            options_.audit_log_path,
            int64_t{options_.audit_log_max_size_mb} * 1024 * 1024,
            options_.audit_log_max_backups, &registry_.clock()},
        &registry_.clock());
  }
}

void Handlers::StartRbac() {
  // Without a policy, or with part of it, RBAC denies what is missing: the
  // server fails closed, and says why.
  auto policy = StoredPolicy::Start(&registry_);
  if (!policy.ok()) {
    logging::Error("Unable to watch the RBAC policy",
                   {{"err", policy.status()}});
    authorizer_ = auth::NewRbacAuthorizer(&empty_policy_);
    return;
  }
  policy_ = *std::move(policy);
  if (options_.authorization_mode ==
      ApiServerOptions::AuthorizationMode::kNodeAndRbac) {
    std::vector<std::unique_ptr<auth::Authorizer>> chain;
    chain.push_back(NewNodeAuthorizer(&registry_));
    chain.push_back(auth::NewRbacAuthorizer(policy_.get()));
    authorizer_ = auth::NewAuthorizerChain(std::move(chain));
  } else {
    authorizer_ = auth::NewRbacAuthorizer(policy_.get());
  }
  if (auto s = ReconcileBootstrapPolicy(registry_,
                                        options_.bootstrap_policy_additions);
      !s.ok()) {
    logging::Error("Unable to reconcile the RBAC bootstrap policy",
                   {{"err", s}});
  }
  if (auto s = AggregateClusterRoles(registry_); !s.ok()) {
    logging::Error("Unable to aggregate ClusterRoles", {{"err", s}});
  }
}

void Handlers::Handle(const http::HttpRequest& req, Responder& answer) {
  AuditedRequest audit(audit_log_.get(), req, answer);
  Responder& w = audit.responder();
  absl::StatusOr<auth::UserInfo> user = authenticator_.Authenticate(req);
  if (!user.ok()) {
    audit.AuthenticationFailed(
        auth::ResolveRequest(req.method, req.path, req.query));
    // Upstream's record of a failed authentication; the answer says only
    // "Unauthorized".
    logging::Error(
        "Unable to authenticate the request",
        {{"err", user.status()}, {"verb", req.method}, {"path", req.path}});
    w.SendError(internal::Unauthorized(), {});
    return;
  }
  auth::RequestAttributes attributes =
      auth::ResolveRequest(req.method, req.path, req.query);
  attributes.user = *std::move(user);
  audit.Authenticated(attributes);
  absl::StatusOr<auth::UserInfo> acting =
      Impersonate(req, attributes, *authorizer_);
  if (!acting.ok()) {
    w.SendError(acting.status(), {});
    return;
  }
  if (!req.Header("impersonate-user").empty()) audit.Impersonated(*acting);
  attributes.user = *std::move(acting);
  MaxInFlight::Slot in_flight;
  if (!max_in_flight_.Admit(attributes, &in_flight)) {
    // Upstream's tooManyRequests: http.Error's plain text.
    w.writer().Send(429,
                    {{"Content-Type", "text/plain; charset=utf-8"},
                     {"X-Content-Type-Options", "nosniff"},
                     {"Retry-After", "1"}},
                    "Too many requests, please try again later.\n");
    return;
  }
  const auth::Authorization decision = authorizer_->Authorize(attributes);
  audit.Authorized(decision);
  if (decision.decision != auth::Decision::kAllow) {
    w.SendError(internal::RequestForbidden(attributes, decision.reason), {});
    return;
  }
  if (req.body_withheld) {
    // Refused by MayReadBody a moment ago (credentials that changed since
    // then): without its body the request cannot be served.
    w.SendError(internal::Unauthorized(), {});
    return;
  }
  const auto segments = SplitPath(req.path);
  if (req.method == "GET" && HandleNonResource(req, segments, w)) return;
  if (HandleReview(req, segments, attributes.user, w)) return;
  auto target = ParseResourcePath(segments);
  if (!target.ok()) {
    w.SendError(target.status(), {});
    return;
  }
  target->user = std::move(attributes.user);
  Dispatch(req, *target, w);
}

bool Handlers::MayReadBody(const http::HttpRequest& req) {
  absl::StatusOr<auth::UserInfo> user = authenticator_.Authenticate(req);
  if (!user.ok()) return false;
  auth::RequestAttributes attributes =
      auth::ResolveRequest(req.method, req.path, req.query);
  attributes.user = *std::move(user);
  absl::StatusOr<auth::UserInfo> acting =
      Impersonate(req, attributes, *authorizer_);
  if (!acting.ok()) return false;
  attributes.user = *std::move(acting);
  return authorizer_->Authorize(attributes).decision == auth::Decision::kAllow;
}

void Handlers::RunControllersOnce() {
  internal::FinalizeNamespaces(registry_);
  internal::CollectGarbage(registry_);
  if (options_.event_ttl > absl::ZeroDuration()) {
    internal::ExpireEvents(registry_, options_.event_ttl);
  }
  // Aggregation again only after RBAC objects changed (its own writes
  // count: the pass after them finds nothing to do).
  if (const int64_t changes = policy_ != nullptr ? policy_->Changes() : -1;
      changes >= 0 && changes != aggregated_at_.exchange(changes)) {
    if (auto s = AggregateClusterRoles(registry_); !s.ok()) {
      logging::Error("Unable to aggregate ClusterRoles", {{"err", s}});
    }
  }
}

internal::WriteOptions Handlers::WriteOptionsOf(const http::HttpRequest& req,
                                                const Target& t, bool dry_run,
                                                bool record_manager) const {
  internal::WriteOptions o;
  o.dry_run = dry_run;
  o.subresource = t.subresource == "status" ? "status" : "";
  if (record_manager) {
    o.manager = ManagerOf(req);
    o.manager_api_version = t.resource->ApiVersion(t.version);
  }
  o.user = t.user;
  return o;
}

void Handlers::EnsureDefaultNamespaces() {
  const ResourceInfo& nsr = *internal::FindResource("", "namespaces");
  for (const char* name :
       {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    Json ns{{"apiVersion", "v1"},
            {"kind", "Namespace"},
            {"metadata", Json{{"name", name}}}};
    (void)registry_.Create(nsr, "", std::move(ns), {});
  }
}

void Handlers::Dispatch(const http::HttpRequest& req, const Target& t,
                        Responder& w) {
  const ResourceInfo& r = *t.resource;
  const std::string& m = req.method;
  std::vector<std::string> warnings;
  absl::Status status;
  if (m == "GET" && t.name.empty()) {
    const std::string watch = req.Query("watch");
    if (watch == "true" || watch == "1") {
      Watch(req, t, w);
      return;
    }
    status = List(req, t, w);
  } else if (m == "GET") {
    status = Get(req, t, w);
  } else if (m == "POST" && t.name.empty()) {
    status = Create(req, t, w);
  } else if (m == "POST" && t.subresource == "binding") {
    status = Bind(req, t, w);
  } else if (m == "POST" && t.subresource == "token") {
    status = RequestToken(req, t, w);
  } else if (m == "PUT" && !t.name.empty()) {
    status = Update(req, t, w);
  } else if (m == "PATCH" && !t.name.empty()) {
    status = Patch(req, t, w);
  } else if (m == "DELETE" && !t.name.empty() && t.subresource.empty()) {
    status = Delete(req, t, w);
  } else if (m == "DELETE" && t.name.empty()) {
    status = DeleteCollection(req, t, w);
  } else {
    status = internal::MethodNotSupported(r, m);
  }
  if (!status.ok()) w.SendError(status, warnings);
}

// Sends one object (converted, or as a one-row Table).
absl::Status Handlers::SendObject(const http::HttpRequest& req, const Target& t,
                                  std::shared_ptr<const Json> object, int code,
                                  const std::vector<std::string>& warnings,
                                  Responder& w) {
  const Negotiated n = Negotiate(req.Header("accept"));
  if (n.table) {
    auto table =
        Table(req, t, {*object},
              object->at("metadata").value("resourceVersion", ""), "", n);
    if (!table.ok()) return table.status();
    w.SendJson(code, *table, warnings);
    return absl::OkStatus();
  }
  if (t.version == t.resource->StorageVersion()) {
    w.SendJson(code, std::move(object), warnings);
    return absl::OkStatus();
  }
  auto out = ToVersion(*t.resource, *object, t.version);
  if (!out.ok()) return out.status();
  w.SendJson(code, *out, warnings);
  return absl::OkStatus();
}

// Sends a create's or update's result: as SendObject, or, to an
// in-process caller that takes typed replies, the written value's typed
// form (shared with the watchers; managedFields left out as asked).
absl::Status Handlers::SendWritten(const http::HttpRequest& req,
                                   const Target& t,
                                   const internal::WriteResult& result,
                                   int code,
                                   const std::vector<std::string>& warnings,
                                   Responder& w) {
  if (w.TakesTypedReply() && result.value != nullptr &&
      t.version == t.resource->StorageVersion() &&
      !Negotiate(req.Header("accept")).table) {
    if (auto typed =
            result.typed != nullptr
                ? result.typed
                : registry_.TypedObject(result.value, result.revision)) {
      w.SendTyped(code, JsonHeaders(warnings, kJsonContentType),
                  std::move(typed));
      return absl::OkStatus();
    }
  }
  return SendObject(req, t, result.object, code, warnings, w);
}

absl::StatusOr<Json> Handlers::Table(const http::HttpRequest& req,
                                     const Target& t,
                                     const std::vector<Json>& objects,
                                     const std::string& resource_version,
                                     const std::string& continue_token,
                                     const Negotiated& n) {
  printers::TableOptions options;
  options.now = registry_.clock().Now();
  auto include = printers::ParseIncludeObject(req.Query("includeObject"));
  if (!include.ok()) {
    return internal::BadRequest(std::string(include.status().message()));
  }
  options.include_object = *include;
  options.resource_version = resource_version;
  options.continue_token = continue_token;
  std::vector<Json> converted;
  converted.reserve(objects.size());
  for (const Json& o : objects) {
    auto v = ToVersion(*t.resource, o, t.version);
    if (!v.ok()) return v.status();
    converted.push_back(*std::move(v));
  }
  auto table = printers::PrintTable(converted, t.resource->group(),
                                    t.resource->kind->kind, options);
  if (!table.ok()) {
    return internal::InternalServerError(std::string(table.status().message()));
  }
  (*table)["apiVersion"] = StrCat("meta.k8s.io/", n.table_version);
  return *std::move(table);
}

absl::StatusOr<internal::ObjectFilter> Handlers::Filter(
    const http::HttpRequest& req, const Target& t) {
  return internal::BuildObjectFilter(*t.resource, req.Query("labelSelector"),
                                     req.Query("fieldSelector"));
}

}  // namespace draplane::apiserver::internal
