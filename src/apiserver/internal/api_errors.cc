#include "apiserver/internal/api_errors.h"

#include "absl/strings/cord.h"
#include "apiserver/admission.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

constexpr char kStatusPayload[] = "draplane.dev/k8s-status";

absl::StatusCode CodeFor(int http) {
  switch (http) {
    case 400:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 409:
      return absl::StatusCode::kAlreadyExists;
    case 410:
      return absl::StatusCode::kOutOfRange;
    case 413:
      return absl::StatusCode::kResourceExhausted;
    case 422:
      return absl::StatusCode::kInvalidArgument;
    case 504:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      return http >= 500 ? absl::StatusCode::kInternal
                         : absl::StatusCode::kFailedPrecondition;
  }
}

api::Json Details(const ResourceInfo& r, std::string_view name,
                  bool kind_is_kind = false) {
  api::Json d = api::Json::object();
  if (!name.empty()) d["name"] = std::string(name);
  d["group"] = std::string(r.group());
  d["kind"] =
      kind_is_kind ? std::string(r.kind->kind) : std::string(r.resource());
  return d;
}

}  // namespace

api::Json StatusObject(int code, std::string_view reason,
                       std::string_view message, api::Json details) {
  api::Json s = api::Json::object();
  s["kind"] = "Status";
  s["apiVersion"] = "v1";
  s["metadata"] = api::Json::object();
  s["status"] = "Failure";
  s["message"] = std::string(message);
  if (!reason.empty()) s["reason"] = std::string(reason);
  if (!details.is_null()) s["details"] = std::move(details);
  s["code"] = code;
  return s;
}

absl::Status ApiError(int code, std::string_view reason,
                      std::string_view message, api::Json details) {
  absl::Status s(CodeFor(code), std::string(message));
  s.SetPayload(kStatusPayload,
               absl::Cord(api::DumpJson(
                   StatusObject(code, reason, message, std::move(details)))));
  return s;
}

api::Json StatusBody(const absl::Status& status) {
  if (auto payload = status.GetPayload(kStatusPayload)) {
    return api::Json::parse(std::string(*payload));
  }
  return StatusObject(
      500, "InternalError",
      StrCat("Internal error occurred: ", std::string(status.message())),
      api::Json{{"causes", api::Json::array({api::Json{
                               {"message", std::string(status.message())}}})}});
}

int HttpCode(const absl::Status& status) {
  if (auto payload = status.GetPayload(kStatusPayload)) {
    return api::Json::parse(std::string(*payload)).value("code", 500);
  }
  return 500;
}

absl::Status NotFound(const ResourceInfo& r, std::string_view name) {
  return ApiError(404, "NotFound",
                  StrCat(r.QualifiedResource(), " \"", name, "\" not found"),
                  Details(r, name));
}

absl::Status AlreadyExists(const ResourceInfo& r, std::string_view name) {
  return ApiError(
      409, "AlreadyExists",
      StrCat(r.QualifiedResource(), " \"", name, "\" already exists"),
      Details(r, name));
}

absl::Status Conflict(const ResourceInfo& r, std::string_view name,
                      std::string_view detail) {
  return ApiError(409, "Conflict",
                  StrCat("Operation cannot be fulfilled on ",
                         r.QualifiedResource(), " \"", name, "\": ", detail),
                  Details(r, name));
}

absl::Status SubresourceConflict(const ResourceInfo& r,
                                 std::string_view subresource,
                                 std::string_view name,
                                 std::string_view detail) {
  const std::string resource = StrCat(r.resource(), "/", subresource);
  api::Json details = Details(r, name);
  details["kind"] = resource;
  return ApiError(
      409, "Conflict",
      StrCat("Operation cannot be fulfilled on ",
             r.group().empty() ? resource : StrCat(resource, ".", r.group()),
             " \"", name, "\": ", detail),
      std::move(details));
}

absl::Status PreconditionFailed(const ResourceInfo& r, std::string_view name,
                                std::string_view field, std::string_view wanted,
                                std::string_view actual) {
  return Conflict(r, name,
                  StrCat("Precondition failed: ", field, " in precondition: ",
                         wanted, ", ", field, " in object meta: ", actual));
}

absl::Status ObjectModified(const ResourceInfo& r, std::string_view name) {
  return Conflict(r, name,
                  "the object has been modified; please apply your changes "
                  "to the latest version and try again");
}

absl::Status Invalid(const ResourceInfo& r, std::string_view name,
                     const FieldErrorList& errors) {
  return InvalidKind(r.group(), r.kind->kind, name, errors);
}

absl::Status InvalidKind(std::string_view group, std::string_view kind,
                         std::string_view name, const FieldErrorList& errors) {
  api::Json details = api::Json::object();
  if (!name.empty()) details["name"] = std::string(name);
  details["group"] = std::string(group);
  details["kind"] = std::string(kind);
  api::Json causes = api::Json::array();
  for (const FieldError& e : errors) {
    causes.push_back(
        api::Json{{"reason", std::string(FieldErrorReason(e.type))},
                  {"message", e.Body()},
                  {"field", e.field}});
  }
  details["causes"] = std::move(causes);
  std::string qualified(kind);
  if (!group.empty()) StrAppend(&qualified, ".", group);
  return ApiError(422, "Invalid",
                  StrCat(qualified, " \"", name,
                         "\" is invalid: ", AggregateMessage(errors)),
                  std::move(details));
}

absl::Status BadRequest(std::string_view message) {
  return ApiError(400, "BadRequest", message);
}

absl::Status MethodNotSupported(const ResourceInfo& r,
                                std::string_view method) {
  return ApiError(405, "MethodNotAllowed",
                  StrCat(method, " is not supported on resources of kind \"",
                         r.QualifiedResource(), "\""),
                  Details(r, ""));
}

absl::Status Gone(std::string_view message) {
  return ApiError(410, "Expired", message);
}

absl::Status Forbidden(const ResourceInfo& r, std::string_view name,
                       std::string_view message) {
  return ApiError(
      403, "Forbidden",
      StrCat(r.QualifiedResource(), " \"", name, "\" is forbidden: ", message),
      Details(r, name));
}

absl::Status Unauthorized() {
  return ApiError(401, "Unauthorized", "Unauthorized");
}

absl::Status RequestForbidden(const auth::RequestAttributes& a,
                              std::string_view reason) {
  api::Json details = api::Json::object();
  if (a.resource_request) {
    if (!a.name.empty()) details["name"] = a.name;
    if (!a.api_group.empty()) details["group"] = a.api_group;
    if (!a.resource.empty()) details["kind"] = a.resource;
  }
  return ApiError(403, "Forbidden", auth::ForbiddenMessage(a, reason),
                  std::move(details));
}

absl::Status UnsupportedMediaType(std::string_view content_type) {
  return ApiError(415, "UnsupportedMediaType",
                  StrCat("the body of the request was in an unknown format - "
                         "accepted media types include: application/json, "
                         "application/yaml, application/vnd.kubernetes."
                         "protobuf (got \"",
                         content_type, "\")"));
}

absl::Status RequestEntityTooLarge(std::string_view message) {
  return ApiError(413, "RequestEntityTooLarge", message);
}

absl::Status TooManyRequests(std::string_view message,
                             int retry_after_seconds) {
  return ApiError(429, "TooManyRequests", message,
                  api::Json{{"retryAfterSeconds", retry_after_seconds}});
}

absl::Status InternalServerError(std::string_view message) {
  return ApiError(500, "InternalError",
                  StrCat("Internal error occurred: ", message));
}

absl::Status Timeout(std::string_view message, int retry_after_seconds) {
  return ApiError(504, "Timeout", message,
                  api::Json{{"retryAfterSeconds", retry_after_seconds}});
}

absl::Status PathNotFound() {
  return ApiError(404, "NotFound",
                  "the server could not find the requested resource",
                  api::Json::object());
}

}  // namespace draplane::apiserver::internal

namespace draplane::apiserver {

absl::Status AdmissionError(int code, std::string_view reason,
                            std::string_view message) {
  return internal::ApiError(code, reason, message);
}

}  // namespace draplane::apiserver
