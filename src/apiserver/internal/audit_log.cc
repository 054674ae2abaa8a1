#include "apiserver/internal/audit_log.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <map>
#include <string_view>
#include <utility>

#include "common/str_cat.h"
#include "common/uuid.h"
#include "logging/log.h"

namespace draplane::apiserver::internal {
namespace {

using api::Json;

// upstream's maxUserAgentLength and its suffix (pkg/audit/request.go).
constexpr size_t kMaxUserAgentLength = 1024;
constexpr char kUserAgentTruncateSuffix[] = "...TRUNCATED";
constexpr char kTruncatedAnnotation[] = "audit.k8s.io/truncated";

// metav1.MicroTime's JSON form: RFC 3339 with microseconds, UTC.
std::string MicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

// The first value of a header (repeated ones are joined by '\n').
std::string FirstValue(const std::string& value) {
  return value.substr(0, value.find('\n'));
}

// Go's net.IP String() of `text`, or "" when it is no IP address
// (IPv4-mapped IPv6 addresses print as IPv4, as Go's do).
std::string CanonicalIp(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  const std::string s(text);
  std::array<char, INET6_ADDRSTRLEN> out{};
  in_addr v4{};
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    return inet_ntop(AF_INET, &v4, out.data(), out.size()) ? out.data() : "";
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, s.c_str(), &v6) != 1) return "";
  if (IN6_IS_ADDR_V4MAPPED(&v6)) {
    std::memcpy(&v4, &v6.s6_addr[12], sizeof v4);
    return inet_ntop(AF_INET, &v4, out.data(), out.size()) ? out.data() : "";
  }
  return inet_ntop(AF_INET6, &v6, out.data(), out.size()) ? out.data() : "";
}

// upstream's utilnet.SourceIPs: X-Forwarded-For's addresses, X-Real-Ip
// when not among them, then the connection's address unless it is the
// last one already.
std::vector<std::string> SourceIps(const http::HttpRequest& req) {
  std::vector<std::string> ips;
  const std::string forwarded = FirstValue(req.Header("x-forwarded-for"));
  std::string_view rest = forwarded;
  while (!forwarded.empty()) {
    const size_t comma = rest.find(',');
    if (std::string ip = CanonicalIp(rest.substr(0, comma)); !ip.empty()) {
      ips.push_back(std::move(ip));
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (std::string real = CanonicalIp(FirstValue(req.Header("x-real-ip")));
      !real.empty() && std::find(ips.begin(), ips.end(), real) == ips.end()) {
    ips.push_back(std::move(real));
  }
  if (std::string remote = CanonicalIp(req.remote_address);
      !remote.empty() && (ips.empty() || ips.back() != remote)) {
    ips.push_back(std::move(remote));
  }
  return ips;
}

// req.URL.RequestURI(): the target as sent; for in-process requests
// (no target) the path and the decoded query.
std::string RequestUri(const http::HttpRequest& req) {
  if (!req.target.empty()) return req.target;
  std::string uri = req.path;
  char sep = '?';
  for (const auto& [key, value] : req.query) {
    StrAppend(&uri, std::string(1, sep), key, "=", value);
    sep = '&';
  }
  return uri;
}

// authnv1.UserInfo's JSON (every member omitempty).
Json UserJson(const auth::UserInfo& user) {
  Json out = Json::object();
  if (!user.name.empty()) out["username"] = user.name;
  if (!user.uid.empty()) out["uid"] = user.uid;
  if (!user.groups.empty()) out["groups"] = user.groups;
  if (!user.extra.empty()) {
    Json extra = Json::object();
    for (const auto& [key, values] : user.extra) extra[key] = values;
    out["extra"] = std::move(extra);
  }
  return out;
}

// `object` without metadata.managedFields, for itself, a list's items and
// a Table's rows (upstream's copyWithoutManagedFields).
void DropManagedFields(Json& object) {
  if (!object.is_object()) return;
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) {
    m->erase("managedFields");
  }
  for (const char* list : {"items", "rows"}) {
    auto it = object.find(list);
    if (it == object.end() || !it->is_array()) continue;
    for (Json& item : *it) {
      if (!item.is_object()) continue;
      if (auto row = item.find("object"); row != item.end()) {
        DropManagedFields(*row);
      } else {
        DropManagedFields(item);
      }
    }
  }
}

bool HasBody(std::string_view verb) {
  return verb == "create" || verb == "update" || verb == "patch" ||
         verb == "delete" || verb == "deletecollection";
}

}  // namespace

AuditLog::AuditLog(std::shared_ptr<const AuditPolicy> policy,
                   RotatingFileOptions file, Clock* clock)
    : policy_(std::move(policy)), clock_(*clock), file_(std::move(file)) {}

void AuditLog::Write(const Json& event) {
  // Upstream writes the encoder's output, which ends in a newline.
  std::string line = api::DumpJson(event);
  line.push_back('\n');
  if (absl::Status s = file_.Write(line); !s.ok()) {
    logging::Error("Unable to write the audit log",
                   {{"err", s}, {"auditID", event.value("auditID", "")}});
  }
}

// The event under construction, and the responder that watches the
// answer.
class AuditedRequest::Recorder : public Responder, public http::ResponseWriter {
 public:
  Recorder(AuditLog& log, const http::HttpRequest& req, Responder& inner)
      : log_(log),
        req_(req),
        inner_(inner),
        received_(log.clock().Now()),
        audit_id_(FirstValue(req.Header("audit-id"))) {
    if (audit_id_.empty()) audit_id_ = NewRandomUuid();
  }

  void Evaluate(const auth::RequestAttributes& request, bool authenticated) {
    config_ = EvaluateAuditPolicy(log_.policy(), request, authenticated);
    if (!Active()) return;
    failed_authentication_ = !authenticated;
    verb_ = request.verb;
    if (authenticated) user_ = request.user;
    if (request.resource_request) {
      Json ref = Json::object();
      auto set = [&ref](const char* key, const std::string& value) {
        if (!value.empty()) ref[key] = value;
      };
      set("resource", request.resource);
      set("namespace", request.namespace_);
      set("name", request.name);
      set("apiGroup", request.api_group);
      set("apiVersion", request.api_version);
      set("subresource", request.subresource);
      object_ref_ = std::move(ref);
    }
  }

  bool Active() const { return config_.level != AuditLevel::kNone; }

  void Impersonated(const auth::UserInfo& user) {
    if (Active()) impersonated_user_ = user;
  }

  void Authorized(const auth::Authorization& decision) {
    if (!Active()) return;
    const bool allowed = decision.decision == auth::Decision::kAllow;
    annotations_["authorization.k8s.io/decision"] =
        allowed ? "allow" : "forbid";
    annotations_["authorization.k8s.io/reason"] = decision.reason;
    if (allowed) RecordRequestObject();
  }

  // Writes the event at `stage` unless the policy omits it.
  void WriteStage(AuditStage stage) {
    if (!Active() || config_.Omits(stage)) return;
    const absl::Time at =
        stage == AuditStage::kRequestReceived ? received_ : log_.clock().Now();
    Json event = Json::object();
    event["kind"] = "Event";
    event["apiVersion"] = "audit.k8s.io/v1";
    event["level"] = AuditLevelName(config_.level);
    event["auditID"] = audit_id_;
    event["stage"] = AuditStageName(stage);
    event["requestURI"] = RequestUri(req_);
    event["verb"] = verb_;
    event["user"] = user_ ? UserJson(*user_) : Json::object();
    if (impersonated_user_) {
      event["impersonatedUser"] = UserJson(*impersonated_user_);
    }
    if (std::vector<std::string> ips = SourceIps(req_); !ips.empty()) {
      event["sourceIPs"] = std::move(ips);
    }
    if (std::string agent = FirstValue(req_.Header("user-agent"));
        !agent.empty()) {
      if (agent.size() > kMaxUserAgentLength) {
        agent.resize(kMaxUserAgentLength);
        agent += kUserAgentTruncateSuffix;
      }
      event["userAgent"] = std::move(agent);
    }
    if (object_ref_) {
      // Upstream's member order (ObjectReference).
      Json ref = Json::object();
      for (const char* key :
           {"resource", "namespace", "name", "uid", "apiGroup", "apiVersion",
            "resourceVersion", "subresource"}) {
        if (auto it = object_ref_->find(key); it != object_ref_->end()) {
          ref[key] = *it;
        }
      }
      event["objectRef"] = std::move(ref);
    }
    if (response_status_) event["responseStatus"] = *response_status_;
    std::map<std::string, std::string> annotations = annotations_;
    if (request_object_) event["requestObject"] = *request_object_;
    if (response_object_) {
      if (api::DumpJson(*response_object_).size() > kMaxAuditedBodyBytes) {
        annotations[kTruncatedAnnotation] = "true";
      } else if (config_.omit_managed_fields) {
        Json copy = *response_object_;
        DropManagedFields(copy);
        event["responseObject"] = std::move(copy);
      } else {
        event["responseObject"] = *response_object_;
      }
    }
    event["requestReceivedTimestamp"] = MicroTime(received_);
    event["stageTimestamp"] = MicroTime(at);
    if (!annotations.empty()) {
      Json a = Json::object();
      for (const auto& [key, value] : annotations) a[key] = value;
      event["annotations"] = std::move(a);
    }
    log_.Write(event);
  }

  // The end of the request: upstream's deferred ResponseComplete (a
  // failed authentication has had its one event).
  void Complete() {
    if (!Active() || failed_authentication_) return;
    if (!response_status_) {
      // upstream's fakedSuccessStatus: nothing was sent.
      response_status_ = Json{{"metadata", Json::object()},
                              {"status", "Success"},
                              {"message", "Connection closed early"},
                              {"code", 200}};
    }
    WriteStage(AuditStage::kResponseComplete);
  }

  // Responder.
  http::ResponseWriter& writer() override { return *this; }
  api::Json* ParsedBody() override { return inner_.ParsedBody(); }
  bool ParsedBodyIsEncodedObject() const override {
    return inner_.ParsedBodyIsEncodedObject();
  }
  void SendJsonBody(int status, const http::HttpHeaders& headers,
                    std::shared_ptr<const Json> body) override {
    RecordResponse(status, body);
    inner_.SendJsonBody(status, WithAuditId(headers), std::move(body));
  }
  bool TakesTypedReply() const override {
    // The response object is recorded from JSON.
    return config_.level < AuditLevel::kRequestResponse &&
           inner_.TakesTypedReply();
  }
  void SendTyped(int status, const http::HttpHeaders& headers,
                 std::shared_ptr<const api::Object> object) override {
    RecordCode(status);
    inner_.SendTyped(status, WithAuditId(headers), std::move(object));
  }
  bool TakesTypedEvents() const override { return inner_.TakesTypedEvents(); }
  bool DropsManagedFields() const override {
    return inner_.DropsManagedFields();
  }
  bool WriteEvent(std::string_view type,
                  std::shared_ptr<const api::Object> object) override {
    return inner_.WriteEvent(type, std::move(object));
  }

  // http::ResponseWriter.
  void Send(int status, const http::HttpHeaders& headers,
            std::string body) override {
    RecordCode(status);
    inner_.writer().Send(status, WithAuditId(headers), std::move(body));
  }
  bool StartStream(int status, const http::HttpHeaders& headers) override {
    // A stream is upstream's long-running request: ResponseStarted first.
    RecordCode(status, /*long_running=*/true);
    return inner_.writer().StartStream(status, WithAuditId(headers));
  }
  bool WriteChunk(std::string_view data) override {
    return inner_.writer().WriteChunk(data);
  }
  bool Stopping() const override { return inner_.writer().Stopping(); }
  bool ClientGone() const override { return inner_.writer().ClientGone(); }
  void Abort() override { inner_.writer().Abort(); }
  // A stream the policy records stays on the handler's thread, so that
  // ResponseComplete is written when it ends.
  std::shared_ptr<http::DetachedStream> Detach() override {
    return Active() ? nullptr : inner_.writer().Detach();
  }

 private:
  http::HttpHeaders WithAuditId(const http::HttpHeaders& headers) const {
    http::HttpHeaders out = headers;
    out.emplace_back("Audit-Id", audit_id_);
    return out;
  }

  // upstream's auditResponseWriter.processCode: the first code is the
  // response's; ResponseStarted for long-running requests and for a
  // failed authentication.
  void RecordCode(int code, bool long_running = false) {
    if (code_recorded_) return;
    code_recorded_ = true;
    if (!Active()) return;
    if (!response_status_)
      response_status_ = Json{{"metadata", Json::object()}};
    (*response_status_)["code"] = code;
    if (long_running || failed_authentication_) {
      WriteStage(AuditStage::kResponseStarted);
    }
  }

  // upstream's LogResponseObject: a Status answer's bounded fields, and
  // at RequestResponse the answer of a resource request.
  void RecordResponse(int code, const std::shared_ptr<const Json>& body) {
    if (Active() && !code_recorded_ && body != nullptr && body->is_object() &&
        body->value("kind", Json()) == "Status") {
      Json status{{"metadata", Json::object()}};
      for (const char* key : {"status", "message", "reason", "details"}) {
        if (auto it = body->find(key); it != body->end()) status[key] = *it;
      }
      response_status_ = std::move(status);
    }
    if (Active() && !code_recorded_ &&
        config_.level >= AuditLevel::kRequestResponse && object_ref_) {
      response_object_ = body;
    }
    RecordCode(code);
  }

  // upstream's LogRequestObject / LogRequestPatch from the handlers: the
  // body of a write (JSON only), which also names the object when the
  // path does not (create).
  void RecordRequestObject() {
    if (!object_ref_ || !HasBody(verb_)) return;
    Json body;
    if (const Json* parsed = inner_.ParsedBody(); parsed != nullptr) {
      if (api::DumpJson(*parsed).size() > kMaxAuditedBodyBytes) {
        Truncated();
        return;
      }
      body = *parsed;
    } else {
      if (req_.body.empty()) return;
      if (req_.body.size() > kMaxAuditedBodyBytes) {
        Truncated();
        return;
      }
      if (req_.Header("content-type").find("protobuf") != std::string::npos) {
        return;  // not recorded: draplane does not re-encode protobuf
      }
      body = Json::parse(req_.body, nullptr, /*allow_exceptions=*/false);
      if (body.is_discarded()) return;  // YAML apply patches, bad JSON
    }
    if ((verb_ == "create" || verb_ == "update") && body.is_object()) {
      if (auto m = body.find("metadata"); m != body.end() && m->is_object()) {
        for (const char* key :
             {"namespace", "name", "uid", "resourceVersion"}) {
          auto v = m->find(key);
          if (v != m->end() && v->is_string() && !object_ref_->contains(key)) {
            (*object_ref_)[key] = *v;
          }
        }
      }
    }
    if (config_.level < AuditLevel::kRequest) return;
    if (config_.omit_managed_fields) DropManagedFields(body);
    request_object_ = std::move(body);
  }

  void Truncated() {
    if (config_.level >= AuditLevel::kRequest) {
      annotations_[kTruncatedAnnotation] = "true";
    }
  }

  AuditLog& log_;
  const http::HttpRequest& req_;
  Responder& inner_;
  const absl::Time received_;
  std::string audit_id_;
  RequestAuditConfig config_;
  bool failed_authentication_ = false;
  bool code_recorded_ = false;
  std::string verb_;
  std::optional<auth::UserInfo> user_;
  std::optional<auth::UserInfo> impersonated_user_;
  std::optional<Json> object_ref_;
  std::optional<Json> response_status_;
  std::optional<Json> request_object_;
  std::shared_ptr<const Json> response_object_;
  std::map<std::string, std::string> annotations_;
};

AuditedRequest::AuditedRequest(AuditLog* log, const http::HttpRequest& req,
                               Responder& w)
    : recorder_(log != nullptr ? std::make_unique<Recorder>(*log, req, w)
                               : nullptr),
      inner_(w) {}

AuditedRequest::~AuditedRequest() {
  if (recorder_ == nullptr) return;
  // An audit event is never worth a crash (only allocation can fail).
  try {
    recorder_->Complete();
  } catch (const std::exception& e) {
    logging::Error("Unable to record the audit event",
                   {{"err", std::string(e.what())}});
  }
}

Responder& AuditedRequest::responder() {
  if (recorder_ != nullptr) return *recorder_;
  return inner_;
}

void AuditedRequest::AuthenticationFailed(
    const auth::RequestAttributes& request) {
  if (recorder_ != nullptr) recorder_->Evaluate(request, false);
}

void AuditedRequest::Authenticated(const auth::RequestAttributes& request) {
  if (recorder_ == nullptr) return;
  recorder_->Evaluate(request, true);
  recorder_->WriteStage(AuditStage::kRequestReceived);
}

void AuditedRequest::Impersonated(const auth::UserInfo& user) {
  if (recorder_ != nullptr) recorder_->Impersonated(user);
}

void AuditedRequest::Authorized(const auth::Authorization& decision) {
  if (recorder_ != nullptr) recorder_->Authorized(decision);
}

}  // namespace draplane::apiserver::internal
