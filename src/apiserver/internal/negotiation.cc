
#include "apiserver/internal/negotiation.h"

#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "api/manifest.h"
#include "api/object_codec.h"
#include "apiserver/internal/api_errors.h"
#include "common/str_cat.h"
#include "protobuf/kube_protobuf.h"

namespace draplane::apiserver::internal {

Negotiated Negotiate(const std::string& accept) {
  Negotiated n;
  size_t start = 0;
  // The first acceptable media range wins.
  while (start <= accept.size()) {
    size_t end = accept.find(',', start);
    if (end == std::string::npos) end = accept.size();
    std::string_view range(accept.data() + start, end - start);
    if (range.find("as=Table") != std::string_view::npos &&
        range.find("g=meta.k8s.io") != std::string_view::npos) {
      n.table = true;
      n.table_version =
          range.find("v=v1beta1") != std::string_view::npos ? "v1beta1" : "v1";
      return n;
    }
    if (range.find("application/json") != std::string_view::npos ||
        range.find("*/*") != std::string_view::npos ||
        range.find("application/vnd.kubernetes.protobuf") !=
            std::string_view::npos) {
      return n;
    }
    start = end + 1;
  }
  return n;
}

// Converts a stored (v1) object into `api_version`.
absl::StatusOr<Json> ToVersion(const ResourceInfo& r, const Json& object,
                               std::string_view version) {
  if (version == r.StorageVersion()) return object;
  auto decoded = api::DecodeObject(object);
  if (!decoded.ok()) {
    return internal::InternalServerError(
        std::string(decoded.status().message()));
  }
  auto encoded = api::EncodeObject(decoded->object, r.ApiVersion(version));
  if (!encoded.ok()) {
    return internal::InternalServerError(
        std::string(encoded.status().message()));
  }
  return *std::move(encoded);
}

// A watch event's object as an in-process watcher would decode it from
// the line (stored JSON in `version`, managedFields dropped on request).
absl::StatusOr<api::Object> TypedEventObject(const ResourceInfo& r,
                                             const Json& stored,
                                             std::string_view version,
                                             bool drop_managed_fields) {
  absl::StatusOr<api::DecodeResult> decoded;
  if (version == r.StorageVersion()) {
    decoded = api::DecodeObject(stored);
  } else {
    auto v = ToVersion(r, stored, version);
    if (!v.ok()) return v.status();
    decoded = api::DecodeObject(*v);
  }
  if (!decoded.ok()) return decoded.status();
  if (drop_managed_fields) internal::DropManagedFields(decoded->object);
  return std::move(decoded->object);
}

// One line of a JSON watch stream (`type` is a plain word).
std::string WatchLine(std::string_view type, const Json& object) {
  return StrCat("{\"type\":\"", type, "\",\"object\":", api::DumpJson(object),
                "}\n");
}

const api::YamlDecodeLimits& RequestYamlLimits() {
  // Process-wide, as the memory it guards.
  static api::YamlDecodeBudget* const budget =
      new api::YamlDecodeBudget(kYamlNodesInFlight, kYamlOpenings);
  static const api::YamlDecodeLimits limits{kYamlNodesPerRequest, budget};
  return limits;
}

absl::Status YamlDecodeError(const absl::Status& s) {
  const std::string message(s.message());
  switch (s.code()) {
    case absl::StatusCode::kResourceExhausted:
      return RequestEntityTooLarge(message);
    case absl::StatusCode::kUnavailable:
      return TooManyRequests(message, 1);
    default:
      return BadRequest(message);
  }
}

// Parses a request body in the request's Content-Type into JSON (an
// in-process caller's parsed body is taken as it is).
absl::StatusOr<Json> ParseBody(const http::HttpRequest& req, Responder& w) {
  if (Json* parsed = w.ParsedBody(); parsed != nullptr) {
    // What serialising would have done to strings built in code.
    api::ReplaceInvalidUtf8(*parsed);
    return std::move(*parsed);
  }
  std::string type = req.Header("content-type");
  if (size_t semi = type.find(';'); semi != std::string::npos) {
    type.resize(semi);
  }
  if (type.empty() || type == kJsonContentType) {
    auto json = api::ParseJsonText(req.body, "request body");
    if (!json.ok()) {
      return internal::BadRequest(std::string(json.status().message()));
    }
    return *std::move(json);
  }
  if (type == protobuf::kKubeProtobufContentType) {
    auto json = protobuf::DecodeKubeProtobuf(req.body);
    if (!json.ok()) {
      return internal::BadRequest(std::string(json.status().message()));
    }
    return *std::move(json);
  }
  if (type == "application/yaml") {
    auto docs =
        api::ParseManifests(req.body, "request body", RequestYamlLimits());
    if (!docs.ok()) return YamlDecodeError(docs.status());
    if (docs->size() != 1) {
      return internal::BadRequest("the request body must hold one object");
    }
    return std::move((*docs)[0].json);
  }
  return internal::UnsupportedMediaType(type);
}

// A request body (in the URL's version) checked and converted to the
// storage version; unknown fields handled per fieldValidation. An
// `encoded_object` body (http::InProcessExchange::ParsedBodyIsEncodedObject) in
// the storage version is already what this would make of it.
absl::StatusOr<Json> BodyToStorage(const Target& t, Json body,
                                   FieldValidation validation,
                                   std::vector<std::string>& warnings,
                                   bool encoded_object) {
  const ResourceInfo& r = *t.resource;
  if (!body.is_object()) {
    return internal::BadRequest("the request body must be a JSON object");
  }
  // Go's json.Unmarshal into the TypeMeta strings: null is "", anything
  // else that is not a string is the decoder's 400.
  for (const char* field : {"apiVersion", "kind"}) {
    auto it = body.find(field);
    if (it == body.end() || it->is_string()) continue;
    if (it->is_null()) {
      body.erase(it);
      continue;
    }
    const std::string type = it->is_boolean() ? "bool" : it->type_name();
    return internal::BadRequest(
        StrCat("couldn't get version/kind; json parse error: json: cannot "
               "unmarshal ",
               type, " into Go struct field .", field, " of type string"));
  }
  const std::string expected = r.ApiVersion(t.version);
  const std::string api_version = body.value("apiVersion", "");
  const std::string kind = body.value("kind", "");
  if (api_version.empty()) body["apiVersion"] = expected;
  if (kind.empty()) body["kind"] = std::string(r.kind->kind);
  if (!api_version.empty() && api_version != expected) {
    return internal::BadRequest(
        StrCat("the API version in the data (", api_version,
               ") does not match the expected API version (", expected, ")"));
  }
  if (!kind.empty() && kind != r.kind->kind) {
    return internal::BadRequest(StrCat("the kind in the data (", kind,
                                       ") does not match the expected kind (",
                                       r.kind->kind, ")"));
  }
  if (encoded_object && t.version == r.StorageVersion()) return body;
  auto decoded = api::DecodeObject(body);
  if (!decoded.ok()) {
    return internal::BadRequest(std::string(decoded.status().message()));
  }
  if (!decoded->unknown_fields.empty()) {
    if (validation == FieldValidation::kStrict) {
      std::string msg = "strict decoding error: ";
      for (size_t i = 0; i < decoded->unknown_fields.size(); ++i) {
        if (i > 0) msg += ", ";
        StrAppend(&msg, "unknown field \"", decoded->unknown_fields[i].field,
                  "\"");
      }
      return internal::BadRequest(msg);
    }
    if (validation == FieldValidation::kWarn) {
      for (const FieldError& e : decoded->unknown_fields) {
        warnings.push_back(StrCat("unknown field \"", e.field, "\""));
      }
    }
  }
  auto encoded =
      api::EncodeObject(decoded->object, r.ApiVersion(r.StorageVersion()));
  if (!encoded.ok()) {
    return internal::BadRequest(std::string(encoded.status().message()));
  }
  // On the main resource an explicit empty managedFields list (Go:
  // non-nil, empty) resets them, while a missing one keeps the live ones;
  // encoding drops empty lists, so the request's is carried over.
  // Subresource writes never set managedFields (upstream ignores them).
  if (const auto meta = body.find("metadata");
      t.subresource.empty() && meta != body.end() && meta->is_object()) {
    if (const auto mf = meta->find("managedFields");
        mf != meta->end() && mf->is_array() && mf->empty()) {
      (*encoded)["metadata"]["managedFields"] = Json::array();
    }
  }
  return *std::move(encoded);
}

// An HTTP date (RFC 7231 IMF-fixdate) one year from now: the Expires of an
// immutable OpenAPI document, as handler3 sets it.
std::string HttpDateOneYearAhead() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  utc.tm_year += 1;
  if (utc.tm_mon == 1 && utc.tm_mday == 29) utc.tm_mday = 28;
  const std::time_t later = timegm(&utc);
  gmtime_r(&later, &utc);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return buf;
}

std::string WarningHeader(const std::string& message) {
  std::string escaped;
  for (char c : message) {
    if (c == '"' || c == '\\') escaped.push_back('\\');
    escaped.push_back(c);
  }
  return StrCat("299 - \"", escaped, "\"");
}

}  // namespace draplane::apiserver::internal
