#include "client/client.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <thread>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "api/json_members.h"
#include "api/object_codec.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::client {
namespace {

using api::Json;

// The payload under which an error carries the server's Status object.
constexpr char kStatusPayload[] = "type.googleapis.com/k8s.io.meta.v1.Status";

absl::StatusCode CodeForHttp(int http, std::string_view reason) {
  switch (http) {
    case 400:
    case 413:
    case 415:
    case 422:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 405:
      return absl::StatusCode::kUnimplemented;
    case 409:
      return reason == "AlreadyExists" ? absl::StatusCode::kAlreadyExists
                                       : absl::StatusCode::kAborted;
    case 410:
      return absl::StatusCode::kOutOfRange;
    case 429:
      return absl::StatusCode::kUnavailable;
    default:
      if (http >= 500) return absl::StatusCode::kUnavailable;
      return absl::StatusCode::kUnknown;
  }
}

// client-go's reason for an answer without a Status body
// (errors.NewGenericServerResponse).
std::string ReasonForHttp(int http) {
  switch (http) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "";
  }
}

// An error from a Status object (code from its `code`, else `http`).
absl::Status StatusError(const Json& status, int http) {
  Json s = status;
  int code = http;
  std::string reason, message;
  try {
    if (s.contains("code") && s["code"].is_number_integer()) {
      code = s["code"].get<int>();
    }
    if (s.contains("reason") && s["reason"].is_string()) {
      reason = s["reason"].get<std::string>();
    }
    if (s.contains("message") && s["message"].is_string()) {
      message = s["message"].get<std::string>();
    }
  } catch (const std::exception&) {
  }
  if (code == 0) code = http;
  if (reason.empty()) {
    reason = ReasonForHttp(code);
    s["reason"] = reason;
  }
  if (!s.contains("code")) s["code"] = code;
  if (message.empty()) {
    message = StrCat("the server answered HTTP ", code,
                     reason.empty() ? "" : " ", reason);
  }
  absl::Status st(CodeForHttp(code, reason), message);
  st.SetPayload(kStatusPayload, absl::Cord(api::DumpJson(s)));
  return st;
}

// `object`'s string member `key`, or "" when it is absent or no string
// (a server's answer of the wrong shape is never thrown).
// The error of a non-2xx reply.
absl::Status ReplyError(const HttpReply& reply) {
  Json body = reply.json != nullptr ? *reply.json
                                    : Json::parse(reply.body, nullptr, false);
  if (api::StringMemberOrEmpty(body, "kind") == "Status") {
    return StatusError(body, reply.status);
  }
  std::string text = reply.body.substr(0, 512);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  Json s{{"kind", "Status"},
         {"apiVersion", "v1"},
         {"status", "Failure"},
         {"code", reply.status}};
  if (!text.empty()) s["message"] = text;
  return StatusError(s, reply.status);
}

std::string ApiVersionOf(const api::KindInfo& kind) {
  const std::string_view version = kind.versions.at(0);
  if (kind.group.empty()) return std::string(version);
  return StrCat(kind.group, "/", version);
}

// /api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]].
std::string ResourcePath(const api::KindInfo& kind, std::string_view ns,
                         std::string_view name = "",
                         std::string_view subresource = "") {
  std::string path = kind.group.empty() ? StrCat("/api/", kind.versions.at(0))
                                        : StrCat("/apis/", kind.group, "/",
                                                 kind.versions.at(0));
  if (kind.namespaced && !ns.empty()) StrAppend(&path, "/namespaces/", ns);
  StrAppend(&path, "/", kind.resource);
  if (!name.empty()) StrAppend(&path, "/", name);
  if (!subresource.empty()) StrAppend(&path, "/", subresource);
  return path;
}

absl::StatusOr<Json> ParseJson(const std::string& body) {
  Json json = Json::parse(body, nullptr, false);
  if (json.is_discarded()) {
    return absl::DataLossError(
        StrCat("invalid JSON from the server: ", body.substr(0, 200)));
  }
  return json;
}

// Erases metadata.managedFields from an object's JSON.
void DropManagedFields(Json& object) {
  auto meta = object.find("metadata");
  if (meta != object.end() && meta->is_object()) meta->erase("managedFields");
}

absl::StatusOr<api::Object> DecodeJson(const Json& json) {
  auto decoded = api::DecodeObject(json);
  if (!decoded.ok()) {
    return absl::DataLossError(StrCat("cannot decode the server's object: ",
                                      decoded.status().message()));
  }
  return std::move(decoded->object);
}

// The reply's JSON body (an in-process reply's is not serialised).
absl::StatusOr<Json> ReplyJson(const HttpReply& reply) {
  if (reply.json != nullptr) return *reply.json;
  return ParseJson(reply.body);
}

absl::StatusOr<api::Object> DecodeBody(const HttpReply& reply) {
  if (reply.json != nullptr) return DecodeJson(*reply.json);
  auto json = ParseJson(reply.body);
  if (!json.ok()) return json.status();
  return DecodeJson(*json);
}

void AddWriteOptions(HttpCall& call, const WriteOptions& options) {
  if (!options.field_manager.empty()) {
    call.query.emplace("fieldManager", options.field_manager);
  }
  if (options.dry_run) call.query.emplace("dryRun", "All");
}

const char* ContentType(PatchType type) {
  switch (type) {
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "application/json";
}

HttpCall MakeCall(std::string method, std::string path, std::string body = "") {
  HttpCall call;
  call.method = std::move(method);
  call.path = std::move(path);
  call.body = std::move(body);
  return call;
}

// A call with a JSON body (serialised only by a transport that sends
// bytes).
HttpCall MakeJsonCall(std::string method, std::string path, Json body) {
  HttpCall call = MakeCall(std::move(method), std::move(path));
  call.json_body = std::make_shared<Json>(std::move(body));
  return call;
}

std::string FormatSeconds(absl::Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3fs", absl::ToDoubleSeconds(d));
  return buf;
}

}  // namespace

// A token bucket: `burst` tokens, refilled at `qps` per second.
class Client::RateLimiter {
 public:
  RateLimiter(double qps, int burst)
      : qps_(qps),
        burst_(std::max(1, burst)),
        tokens_(std::max(1, burst)),
        last_(absl::Now()) {}

  // Blocks until a token is available; returns how long it waited.
  absl::Duration Wait() {
    if (qps_ <= 0) return absl::ZeroDuration();
    absl::Duration wait;
    {
      absl::MutexLock lock(&mu_);
      const absl::Time now = absl::Now();
      tokens_ = std::min<double>(
          burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * qps_);
      last_ = now;
      tokens_ -= 1;  // reserved; negative = owed
      if (tokens_ >= 0) return absl::ZeroDuration();
      wait = absl::Seconds(-tokens_ / qps_);
    }
    absl::SleepFor(wait);
    return wait;
  }

 private:
  const double qps_;
  const int burst_;
  absl::Mutex mu_;
  double tokens_;
  absl::Time last_;
};

const api::KindInfo& Kind(std::string_view kind) {
  for (const api::KindInfo& info : api::ServedKinds()) {
    if (info.kind == kind) return info;
  }
  logging::Fatal("client::Kind: unknown kind", {{"kind", kind}});
}

std::string Reason(const absl::Status& status) {
  auto payload = status.GetPayload(kStatusPayload);
  if (!payload) return "";
  Json s = Json::parse(std::string(*payload), nullptr, false);
  if (!s.is_object() || !s.contains("reason") || !s["reason"].is_string()) {
    return "";
  }
  return s["reason"].get<std::string>();
}

namespace {
int HttpCodeOf(const absl::Status& status) {
  auto payload = status.GetPayload(kStatusPayload);
  if (!payload) return 0;
  Json s = Json::parse(std::string(*payload), nullptr, false);
  if (!s.is_object() || !s.contains("code") || !s["code"].is_number_integer()) {
    return 0;
  }
  return s["code"].get<int>();
}
}  // namespace

bool IsNotFound(const absl::Status& status) {
  return Reason(status) == "NotFound" || HttpCodeOf(status) == 404;
}
bool IsAlreadyExists(const absl::Status& status) {
  return Reason(status) == "AlreadyExists";
}
bool IsConflict(const absl::Status& status) {
  return Reason(status) == "Conflict";
}
bool IsGone(const absl::Status& status) {
  const std::string reason = Reason(status);
  return reason == "Expired" || reason == "Gone" || HttpCodeOf(status) == 410;
}
bool IsInvalid(const absl::Status& status) {
  return Reason(status) == "Invalid" || HttpCodeOf(status) == 422;
}

namespace {

// client-go's default maxRetries of a request.
constexpr int kMaxRetries = 10;

// client-go's checkWait: the seconds to wait before trying `reply`'s
// request again; nullopt when it is not to be retried (not a 429 or 5xx,
// or no integer Retry-After).
std::optional<int> RetryAfterSeconds(const HttpReply& reply) {
  if (reply.status != 429 && reply.status < 500) return std::nullopt;
  auto it = reply.headers.find("retry-after");
  if (it == reply.headers.end()) return std::nullopt;
  int seconds = 0;
  if (!absl::SimpleAtoi(it->second, &seconds) || seconds < 0) {
    return std::nullopt;
  }
  return seconds;
}

}  // namespace

Client::Client(std::unique_ptr<Transport> transport, RestConfig config)
    : transport_(std::move(transport)),
      config_(std::move(config)),
      limiter_(std::make_unique<RateLimiter>(config_.qps, config_.burst)) {}

Client::~Client() = default;

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(
    const RestConfig& config) {
  auto transport = NewHttpTransport(config);
  if (!transport.ok()) return transport.status();
  return std::make_unique<Client>(*std::move(transport), config);
}

absl::StatusOr<HttpReply> Client::Do(const HttpCall& call) {
  const absl::Duration waited = limiter_->Wait();
  if (waited > absl::Seconds(1)) {
    // client-go's message (rest/request.go, tryThrottle).
    logging::Info(StrCat("Waited for ", FormatSeconds(waited),
                         " due to client-side throttling, request: ",
                         call.method, ":", config_.server, call.path));
  }
  auto reply = transport_->RoundTrip(call);
  // client-go's retry: a 429, or a 5xx with Retry-After, is tried again
  // after the seconds Retry-After names, up to kMaxRetries times.
  for (int attempt = 1; attempt <= kMaxRetries && reply.ok(); ++attempt) {
    const std::optional<int> wait = RetryAfterSeconds(*reply);
    if (!wait.has_value()) break;
    // client-go's message, at its verbosity.
    if (logging::V(4)) {
      logging::V(4).Info(StrCat("Got a Retry-After ", *wait,
                                "s response for attempt ", attempt, " to ",
                                config_.server, call.path));
    }
    absl::SleepFor(absl::Seconds(*wait));
    reply = transport_->RoundTrip(call);
  }
  if (!reply.ok()) return reply.status();
  if (reply->status < 200 || reply->status > 299) return ReplyError(*reply);
  return reply;
}

absl::StatusOr<api::Object> Client::Get(const api::KindInfo& kind,
                                        std::string_view ns,
                                        std::string_view name) {
  if (name.empty()) return absl::InvalidArgumentError("Get: empty name");
  HttpCall call = MakeCall("GET", ResourcePath(kind, ns, name));
  auto reply = Do(call);
  if (!reply.ok()) return reply.status();
  return DecodeBody(*reply);
}

absl::StatusOr<ObjectList> Client::List(const api::KindInfo& kind,
                                        std::string_view ns,
                                        const ListOptions& options) {
  HttpCall call = MakeCall("GET", ResourcePath(kind, ns));
  if (!options.label_selector.empty()) {
    call.query.emplace("labelSelector", options.label_selector);
  }
  if (!options.field_selector.empty()) {
    call.query.emplace("fieldSelector", options.field_selector);
  }
  if (!options.resource_version.empty()) {
    call.query.emplace("resourceVersion", options.resource_version);
  }
  if (!options.resource_version_match.empty()) {
    call.query.emplace("resourceVersionMatch", options.resource_version_match);
  }
  if (options.limit > 0) {
    call.query.emplace("limit", std::to_string(options.limit));
  }
  if (!options.continue_token.empty()) {
    call.query.emplace("continue", options.continue_token);
  }
  auto reply = Do(call);
  if (!reply.ok()) return reply.status();
  auto json = ReplyJson(*reply);
  if (!json.ok()) return json.status();
  ObjectList out;
  try {
    const std::string api_version = json->value("apiVersion", "");
    std::string item_kind = json->value("kind", "");
    if (item_kind.size() > 4 &&
        item_kind.compare(item_kind.size() - 4, 4, "List") == 0) {
      item_kind.resize(item_kind.size() - 4);
    }
    if (json->contains("metadata") && (*json)["metadata"].is_object()) {
      const Json& meta = (*json)["metadata"];
      out.resource_version = api::StringMemberOrEmpty(meta, "resourceVersion");
      out.continue_token = api::StringMemberOrEmpty(meta, "continue");
    }
    if (json->contains("items") && (*json)["items"].is_array()) {
      for (Json& item : (*json)["items"]) {
        if (!item.is_object()) continue;
        if (!item.contains("apiVersion")) item["apiVersion"] = api_version;
        if (!item.contains("kind")) item["kind"] = item_kind;
        if (options.drop_managed_fields) DropManagedFields(item);
        auto object = DecodeJson(item);
        if (!object.ok()) return object.status();
        out.items.push_back(*std::move(object));
      }
    }
  } catch (const std::exception& e) {
    return absl::DataLossError(
        StrCat("invalid list from the server: ", e.what()));
  }
  return out;
}

namespace {
// The kind, namespace and name of an object to write, and its JSON in the
// kind's preferred version.
// (Its move constructor is noexcept; the check follows api::Json's
// debug-only invariant assertion.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Encoded {
  const api::KindInfo* kind = nullptr;
  std::string ns, name;
  Json body;
};

absl::StatusOr<Encoded> Encode(const api::Object& object) {
  Encoded out;
  for (const api::KindInfo& info : api::ServedKinds()) {
    if (info.kind == object.kind()) out.kind = &info;
  }
  if (out.kind == nullptr) {
    return absl::InvalidArgumentError(
        StrCat("kind \"", object.kind(), "\" is not served"));
  }
  const api::ObjectMeta* meta = object.metadata();
  if (meta == nullptr) {
    return absl::InvalidArgumentError(
        StrCat(object.kind(), ": not a typed object"));
  }
  out.ns = out.kind->namespaced ? meta->namespace_ : "";
  out.name = meta->name;
  if (out.kind->namespaced && out.ns.empty()) {
    return absl::InvalidArgumentError(
        StrCat(object.DisplayName(), ": metadata.namespace is required"));
  }
  auto json = api::EncodeObject(object, ApiVersionOf(*out.kind));
  if (!json.ok()) return json.status();
  out.body = *std::move(json);
  return out;
}
}  // namespace

absl::StatusOr<api::Object> Client::WriteObject(bool create,
                                                std::string_view subresource,
                                                const api::Object& object,
                                                const WriteOptions& options) {
  auto e = Encode(object);
  if (!e.ok()) return e.status();
  if (!create && e->name.empty()) {
    return absl::InvalidArgumentError(StrCat(
        subresource.empty() ? "Update" : "UpdateStatus", ": empty name"));
  }
  HttpCall call =
      create ? MakeJsonCall("POST", ResourcePath(*e->kind, e->ns),
                            std::move(e->body))
             : MakeJsonCall("PUT",
                            ResourcePath(*e->kind, e->ns, e->name, subresource),
                            std::move(e->body));
  call.json_body_is_encoded_object = true;
  call.drop_managed_fields = options.drop_managed_fields;
  AddWriteOptions(call, options);
  auto reply = Do(call);
  if (!reply.ok()) return reply.status();
  if (reply->typed != nullptr) return *reply->typed;
  if (!options.drop_managed_fields) return DecodeBody(*reply);
  auto json = ReplyJson(*reply);
  if (!json.ok()) return json.status();
  DropManagedFields(*json);
  return DecodeJson(*json);
}

absl::StatusOr<api::Object> Client::Create(const api::Object& object,
                                           const WriteOptions& options) {
  return WriteObject(true, "", object, options);
}

absl::StatusOr<api::Object> Client::Update(const api::Object& object,
                                           const WriteOptions& options) {
  return WriteObject(false, "", object, options);
}

absl::StatusOr<api::Object> Client::UpdateStatus(const api::Object& object,
                                                 const WriteOptions& options) {
  return WriteObject(false, "status", object, options);
}

absl::StatusOr<api::Object> Client::Patch(const api::KindInfo& kind,
                                          std::string_view ns,
                                          std::string_view name, PatchType type,
                                          std::string_view body,
                                          const PatchOptions& options) {
  if (name.empty()) return absl::InvalidArgumentError("Patch: empty name");
  HttpCall call =
      MakeCall("PATCH", ResourcePath(kind, ns, name, options.subresource),
               std::string(body));
  call.headers = {{"Content-Type", ContentType(type)}};
  if (!options.field_manager.empty()) {
    call.query.emplace("fieldManager", options.field_manager);
  }
  if (options.force && type == PatchType::kApply) {
    call.query.emplace("force", "true");
  }
  auto reply = Do(call);
  if (!reply.ok()) return reply.status();
  return DecodeBody(*reply);
}

absl::Status Client::Delete(const api::KindInfo& kind, std::string_view ns,
                            std::string_view name,
                            const DeleteOptions& options) {
  if (name.empty()) return absl::InvalidArgumentError("Delete: empty name");
  HttpCall call = MakeCall("DELETE", ResourcePath(kind, ns, name));
  if (!options.precondition_uid.empty() ||
      !options.precondition_resource_version.empty() ||
      !options.propagation_policy.empty() ||
      options.grace_period_seconds.has_value()) {
    Json body{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
    if (options.grace_period_seconds.has_value()) {
      body["gracePeriodSeconds"] = *options.grace_period_seconds;
    }
    if (!options.precondition_uid.empty() ||
        !options.precondition_resource_version.empty()) {
      Json pre = Json::object();
      if (!options.precondition_uid.empty()) {
        pre["uid"] = options.precondition_uid;
      }
      if (!options.precondition_resource_version.empty()) {
        pre["resourceVersion"] = options.precondition_resource_version;
      }
      body["preconditions"] = std::move(pre);
    }
    if (!options.propagation_policy.empty()) {
      body["propagationPolicy"] = options.propagation_policy;
    }
    call.body = api::DumpJson(body);
  }
  auto reply = Do(call);
  return reply.status();
}

absl::StatusOr<Json> Client::PostSubresource(const api::KindInfo& kind,
                                             std::string_view ns,
                                             std::string_view name,
                                             std::string_view subresource,
                                             const Json& body) {
  if (name.empty() || subresource.empty()) {
    return absl::InvalidArgumentError(
        "PostSubresource: empty name or subresource");
  }
  HttpCall call =
      MakeJsonCall("POST", ResourcePath(kind, ns, name, subresource), body);
  auto reply = Do(call);
  if (!reply.ok()) return reply.status();
  if (reply->json == nullptr && reply->body.empty()) return Json::object();
  return ReplyJson(*reply);
}

absl::StatusOr<Json> Client::GetJson(std::string_view path) {
  auto reply = Do(MakeCall("GET", std::string(path)));
  if (!reply.ok()) return reply.status();
  return ReplyJson(*reply);
}

absl::StatusOr<Json> Client::PostJson(std::string_view path, const Json& body) {
  auto reply = Do(MakeJsonCall("POST", std::string(path), body));
  if (!reply.ok()) return reply.status();
  if (reply->json == nullptr && reply->body.empty()) return Json::object();
  return ReplyJson(*reply);
}

absl::Status Client::Watch(const api::KindInfo& kind, std::string_view ns,
                           const WatchOptions& options,
                           const std::function<bool(WatchEvent)>& on_event,
                           const CancelFlag& cancel) {
  HttpCall call = MakeCall("GET", ResourcePath(kind, ns));
  call.query.emplace("watch", "true");
  if (!options.label_selector.empty()) {
    call.query.emplace("labelSelector", options.label_selector);
  }
  if (!options.field_selector.empty()) {
    call.query.emplace("fieldSelector", options.field_selector);
  }
  if (!options.resource_version.empty()) {
    call.query.emplace("resourceVersion", options.resource_version);
  }
  if (options.allow_bookmarks)
    call.query.emplace("allowWatchBookmarks", "true");
  if (options.timeout_seconds > 0) {
    call.query.emplace("timeoutSeconds",
                       std::to_string(options.timeout_seconds));
  }
  call.drop_managed_fields = options.drop_managed_fields;
  const absl::Duration waited = limiter_->Wait();
  if (waited > absl::Seconds(1)) {
    logging::Info(StrCat("Waited for ", FormatSeconds(waited),
                         " due to client-side throttling, request: GET:",
                         config_.server, call.path, " (watch)"));
  }

  int http_status = 0;
  std::string error_body;  // the body of a non-200 answer
  std::string pending;     // an incomplete line
  bool stopped = false;    // on_event returned false
  absl::Status decode_error;

  auto handle_line = [&](std::string_view line) -> bool {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
      line.remove_suffix(1);
    }
    if (line.empty()) return true;
    Json json = Json::parse(line, nullptr, false);
    if (!json.is_object() || !json.contains("type") ||
        !json["type"].is_string() || !json.contains("object") ||
        !json["object"].is_object()) {
      decode_error = absl::DataLossError(
          StrCat("invalid watch event: ",
                 line.substr(0, std::min<size_t>(200, line.size()))));
      return false;
    }
    WatchEvent event;
    event.type = json["type"].get<std::string>();
    Json& object = json["object"];
    if (event.type == "ERROR") {
      event.error = StatusError(object, 500);
    } else if (event.type == "BOOKMARK") {
      api::Object bookmark;
      bookmark.type.api_version =
          api::StringMemberOrEmpty(object, "apiVersion");
      bookmark.type.kind = api::StringMemberOrEmpty(object, "kind");
      auto decoded = api::DecodeObject(object);
      if (decoded.ok()) {
        bookmark = std::move(decoded->object);
      } else if (object.contains("metadata") &&
                 object["metadata"].is_object()) {
        // Only metadata.resourceVersion matters in a bookmark.
        bookmark.value = api::UnstructuredObject{object};
      }
      event.object = std::make_shared<const api::Object>(std::move(bookmark));
    } else {
      if (options.drop_managed_fields) DropManagedFields(object);
      auto decoded = DecodeJson(object);
      if (!decoded.ok()) {
        decode_error = decoded.status();
        return false;
      }
      event.object = std::make_shared<const api::Object>(*std::move(decoded));
    }
    if (!on_event(std::move(event))) {
      stopped = true;
      return false;
    }
    return true;
  };

  absl::Status st = transport_->Stream(
      call,
      [&](int status, const std::map<std::string, std::string>&) {
        http_status = status;
      },
      [&](std::string_view data) -> bool {
        if (http_status != 200) {
          error_body.append(data);
          return error_body.size() < (1 << 20);
        }
        pending.append(data);
        size_t start = 0;
        while (true) {
          const size_t nl = pending.find('\n', start);
          if (nl == std::string::npos) break;
          if (!handle_line(
                  std::string_view(pending).substr(start, nl - start))) {
            return false;
          }
          start = nl + 1;
        }
        pending.erase(0, start);
        return true;
      },
      [&](std::string_view type, std::shared_ptr<const api::Object> object) {
        WatchEvent event;
        event.type = std::string(type);
        event.object = std::move(object);
        if (!on_event(std::move(event))) {
          stopped = true;
          return false;
        }
        return true;
      },
      cancel);
  if (!st.ok()) return st;
  if (http_status != 200 && http_status != 0) {
    HttpReply reply;
    reply.status = http_status;
    reply.body = std::move(error_body);
    return ReplyError(reply);
  }
  if (!decode_error.ok()) return decode_error;
  if (stopped || cancel.load()) return absl::OkStatus();
  if (!pending.empty() && !handle_line(pending) && !decode_error.ok()) {
    return decode_error;
  }
  return absl::OkStatus();
}

absl::Status RetryOnConflict(const std::function<absl::Status()>& fn,
                             int attempts) {
  static thread_local std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> jitter(0, 0.1);
  absl::Status last;
  for (int i = 0; i < std::max(1, attempts); ++i) {
    if (i > 0) absl::SleepFor(absl::Milliseconds(10 * (1 + jitter(rng))));
    last = fn();
    if (!IsConflict(last)) return last;
  }
  return last;
}

}  // namespace draplane::client
