// Content negotiation and conversion between the wire and storage: the
// Accept header (JSON or a meta.k8s.io Table), request bodies in JSON,
// protobuf or YAML, conversion between served versions, watch lines and
// Warning headers (upstream's handlers/negotiation and the codecs).
#ifndef DRAPLANE_APISERVER_INTERNAL_NEGOTIATION_H_
#define DRAPLANE_APISERVER_INTERNAL_NEGOTIATION_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/manifest.h"
#include "api/meta_types.h"
#include "api/object.h"
#include "apiserver/internal/request_scope.h"
#include "apiserver/internal/resources.h"
#include "apiserver/internal/responder.h"
#include "http/http_server.h"

namespace draplane::apiserver::internal {

using api::Json;

// The media type a response should use for objects.
struct Negotiated {
  bool table = false;
  std::string table_version = "v1";  // meta.k8s.io version of the Table
};

// The first acceptable media range of an Accept header wins.
Negotiated Negotiate(const std::string& accept);

// Converts a stored (v1) object into `version` of its resource.
absl::StatusOr<Json> ToVersion(const ResourceInfo& r, const Json& object,
                               std::string_view version);

// A watch event's object as an in-process watcher would decode it from
// the line (stored JSON in `version`, managedFields dropped on request).
absl::StatusOr<api::Object> TypedEventObject(const ResourceInfo& r,
                                             const Json& stored,
                                             std::string_view version,
                                             bool drop_managed_fields);

// One line of a JSON watch stream (`type` is a plain word).
std::string WatchLine(std::string_view type, const Json& object);

// Parses a request body in the request's Content-Type into JSON (an
// in-process caller's parsed body is taken as it is).
absl::StatusOr<Json> ParseBody(const http::HttpRequest& req, Responder& w);

// Nodes one YAML request body (or apply patch) may decode to, and those
// all requests being decoded may hold at once: a node of decoded JSON
// takes some 128 bytes, so about 64 MiB and 128 MiB. Beyond them a
// request gets 413, or 429 to try again; the second is well above the
// first, so that a request alone is never put off. Besides, 64 requests
// at once decode their first api::kYamlOpeningNodes from openings of
// their own (64 MiB more at most).
inline constexpr size_t kYamlNodesPerRequest = 500'000;
inline constexpr size_t kYamlNodesInFlight = 1'000'000;
inline constexpr int kYamlOpenings = 64;
// The limits every YAML request body is decoded with.
const api::YamlDecodeLimits& RequestYamlLimits();
// The answer for a YAML decode error: 400, 413 over the per-request
// budget, 429 when the shared one is spent.
absl::Status YamlDecodeError(const absl::Status& s);

// A request body (in the URL's version) checked and converted to the
// storage version; unknown fields handled per fieldValidation, a warning
// each for kWarn. An `encoded_object` body
// (Responder::ParsedBodyIsEncodedObject) in the storage version is already
// what this would make of it.
absl::StatusOr<Json> BodyToStorage(const Target& t, Json body,
                                   FieldValidation validation,
                                   std::vector<std::string>& warnings,
                                   bool encoded_object = false);

// An HTTP date (RFC 7231 IMF-fixdate) one year from now: the Expires of an
// immutable OpenAPI document, as handler3 sets it.
std::string HttpDateOneYearAhead();

// A Warning header value (RFC 7234 code 299, as upstream writes them).
std::string WarningHeader(const std::string& message);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_NEGOTIATION_H_
