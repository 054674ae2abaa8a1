#include "apiserver/api_server.h"

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <mutex>
#include <utility>

#include "absl/strings/numbers.h"
#include "api/manifest.h"
#include "api/object_codec.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/default_toleration_seconds.h"
#include "apiserver/internal/discovery.h"
#include "apiserver/internal/garbage_collector.h"
#include "apiserver/internal/inline_claims.h"
#include "apiserver/internal/object_filter.h"
#include "apiserver/internal/patching.h"
#include "apiserver/internal/registry.h"
#include "apiserver/internal/resource_quota_admission.h"
#include "apiserver/internal/resources.h"
#include "apiserver/internal/watch_cache.h"
#include "common/str_cat.h"
#include "http/in_process_exchange.h"
#include "openapi/openapi.h"
#include "printers/table_printer.h"
#include "protobuf/kube_protobuf.h"
#include "selectors/selectors.h"

namespace draplane::apiserver {
namespace {

using api::Json;
using internal::ResourceInfo;

constexpr char kJson[] = "application/json";

// What a request URL names.
struct Target {
  const ResourceInfo* resource = nullptr;
  std::string group;
  std::string version;
  std::string namespace_;  // for namespaced resources ("" = all)
  std::string name;        // "" for collections
  std::string subresource;
};

std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Parses /api/v1/... and /apis/<g>/<v>/... resource paths; nullopt when
// the path is not a resource path (discovery, unknown).
absl::StatusOr<Target> ParseResourcePath(
    const std::vector<std::string_view>& s) {
  Target t;
  size_t i;
  if (s.size() >= 3 && s[0] == "api" && s[1] == "v1") {
    t.version = "v1";
    i = 2;
  } else if (s.size() >= 4 && s[0] == "apis") {
    t.group = std::string(s[1]);
    t.version = std::string(s[2]);
    i = 3;
  } else {
    return internal::PathNotFound();
  }
  std::vector<std::string_view> rest(s.begin() + i, s.end());
  auto find = [&](std::string_view plural) -> const ResourceInfo* {
    const ResourceInfo* r = internal::FindResource(t.group, plural);
    return r != nullptr && r->ServesVersion(t.version) ? r : nullptr;
  };
  // namespaces/<ns>/<resource>[/<name>[/<sub>]]
  if (rest.size() >= 3 && rest[0] == "namespaces" && t.group.empty() &&
      internal::FindResource("", rest[2]) != nullptr &&
      internal::FindResource("", rest[2])->namespaced()) {
    t.namespace_ = std::string(rest[1]);
    rest.erase(rest.begin(), rest.begin() + 2);
  } else if (rest.size() >= 3 && rest[0] == "namespaces" && !t.group.empty()) {
    t.namespace_ = std::string(rest[1]);
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return internal::PathNotFound();
  t.resource = find(rest[0]);
  if (t.resource == nullptr) return internal::PathNotFound();
  if (!t.namespace_.empty() && !t.resource->namespaced()) {
    return internal::PathNotFound();
  }
  if (rest.size() >= 2) t.name = std::string(rest[1]);
  if (rest.size() == 3) {
    t.subresource = std::string(rest[2]);
    if (!t.resource->HasSubresource(t.subresource)) {
      return internal::PathNotFound();
    }
  }
  if (t.resource->namespaced() && t.namespace_.empty() && !t.name.empty()) {
    return internal::PathNotFound();
  }
  return t;
}

// The media type a response should use for objects.
struct Negotiated {
  bool table = false;
  std::string table_version = "v1";  // meta.k8s.io version of the Table
};

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

enum class FieldValidation { kIgnore, kWarn, kStrict };

absl::StatusOr<FieldValidation> ParseFieldValidation(const std::string& v) {
  if (v.empty() || v == "Warn") return FieldValidation::kWarn;
  if (v == "Strict") return FieldValidation::kStrict;
  if (v == "Ignore") return FieldValidation::kIgnore;
  return internal::BadRequest(
      StrCat("fieldValidation parameter unsupported: ", v,
             " (supported values: \"Ignore\", \"Strict\", \"Warn\")"));
}

absl::StatusOr<bool> ParseDryRun(const http::HttpRequest& req) {
  bool dry = false;
  auto range = req.query.equal_range("dryRun");
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second != "All") {
      return internal::BadRequest(StrCat(
          "Invalid dry run value: unsupported dry run option: ", it->second,
          " (supported values: \"All\")"));
    }
    dry = true;
  }
  return dry;
}

// The in-process side channel of `w`, or null for an HTTP caller.
http::InProcessExchange* ExchangeOf(http::ResponseWriter& w) {
  return dynamic_cast<http::InProcessExchange*>(&w);
}

// Whether the request body is an in-process client's encoded typed object.
bool BodyIsEncodedObject(http::ResponseWriter& w) {
  http::InProcessExchange* x = ExchangeOf(w);
  return x != nullptr && x->ParsedBodyIsEncodedObject();
}

// Parses a request body in the request's Content-Type into JSON (an
// in-process caller's parsed body is taken as it is).
absl::StatusOr<Json> ParseBody(const http::HttpRequest& req,
                               http::ResponseWriter& w) {
  if (http::InProcessExchange* x = ExchangeOf(w); x != nullptr) {
    if (Json* parsed = x->ParsedBody(); parsed != nullptr) {
      // What serialising would have done to strings built in code.
      api::ReplaceInvalidUtf8(*parsed);
      return std::move(*parsed);
    }
  }
  std::string type = req.Header("content-type");
  if (size_t semi = type.find(';'); semi != std::string::npos) {
    type.resize(semi);
  }
  if (type.empty() || type == kJson) {
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
    auto docs = api::ParseManifests(req.body, "request body");
    if (!docs.ok()) {
      return internal::BadRequest(std::string(docs.status().message()));
    }
    if (docs->size() != 1) {
      return internal::BadRequest("the request body must hold one object");
    }
    return (*docs)[0].json;
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
                                   bool encoded_object = false) {
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

// The built-in admission plugins that are on, then the caller's; `quota`
// gets the ResourceQuota plugin (to attach to the registry).
std::vector<std::shared_ptr<AdmissionPlugin>> AdmissionChain(
    const ApiServerOptions& options,
    std::shared_ptr<internal::ResourceQuotaAdmission>* quota) {
  std::vector<std::shared_ptr<AdmissionPlugin>> chain;
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

// The options of a write the server makes on its own behalf (scale,
// the dry-run check of a pod's inline claim templates): main
// resource, no field manager.
internal::WriteOptions OwnWrite(bool dry_run) {
  internal::WriteOptions options;
  options.dry_run = dry_run;
  return options;
}

}  // namespace

class ApiServer::Impl {
 public:
  Impl(store::Store* store, ApiServerOptions options)
      : registry_(store, AdmissionChain(options, &quota_)),
        options_(std::move(options)) {
    quota_->Attach(&registry_);
    EnsureDefaultNamespaces();
  }

  void Handle(const http::HttpRequest& req, http::ResponseWriter& w) {
    if (!Authenticated(req)) {
      SendError(w, internal::Unauthorized(), {});
      return;
    }
    const auto segments = Split(req.path);
    if (req.method == "GET" && HandleNonResource(req, segments, w)) return;
    auto target = ParseResourcePath(segments);
    if (!target.ok()) {
      SendError(w, target.status(), {});
      return;
    }
    Dispatch(req, *target, w);
  }

  void RunControllersOnce() {
    internal::FinalizeNamespaces(registry_);
    internal::CollectGarbage(registry_);
  }

 private:
  bool Authenticated(const http::HttpRequest& req) const {
    if (options_.tokens.empty()) return true;
    if (req.path == "/version" || req.path == "/healthz" ||
        req.path == "/livez" || req.path == "/readyz") {
      return true;
    }
    const std::string auth = req.Header("authorization");
    constexpr std::string_view kBearer = "Bearer ";
    if (auth.size() <= kBearer.size() ||
        auth.compare(0, kBearer.size(), kBearer) != 0) {
      return false;
    }
    const std::string token = auth.substr(kBearer.size());
    for (const std::string& t : options_.tokens) {
      if (t.size() == token.size() &&
          CRYPTO_memcmp_equal(t.data(), token.data(), t.size())) {
        return true;
      }
    }
    return false;
  }

  // The user a request acts as (the seam for authorization).
  std::string UserOf(const http::HttpRequest&) const {
    return options_.tokens.empty() ? "system:anonymous" : "admin";
  }

  // The field manager of a write: fieldManager, else the User-Agent's
  // product (what upstream derives), else "unknown".
  static std::string ManagerOf(const http::HttpRequest& req) {
    std::string manager = req.Query("fieldManager");
    if (manager.empty()) {
      manager = req.Header("user-agent");
      manager = manager.substr(0, manager.find('/'));
    }
    return manager.empty() ? "unknown" : manager;
  }

  internal::WriteOptions WriteOptionsOf(const http::HttpRequest& req,
                                        const Target& t, bool dry_run,
                                        bool record_manager = true) const {
    internal::WriteOptions o;
    o.dry_run = dry_run;
    o.subresource = t.subresource == "status" ? "status" : "";
    if (record_manager) {
      o.manager = ManagerOf(req);
      o.manager_api_version = t.resource->ApiVersion(t.version);
    }
    o.user = UserOf(req);
    return o;
  }

  // Constant-time comparison.
  static bool CRYPTO_memcmp_equal(const char* a, const char* b, size_t n) {
    unsigned char diff = 0;
    for (size_t i = 0; i < n; ++i) diff |= a[i] ^ b[i];
    return diff == 0;
  }

  void EnsureDefaultNamespaces() {
    const ResourceInfo& nsr = *internal::FindResource("", "namespaces");
    for (const char* name :
         {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      Json ns{{"apiVersion", "v1"},
              {"kind", "Namespace"},
              {"metadata", Json{{"name", name}}}};
      (void)registry_.Create(nsr, "", std::move(ns), {});
    }
  }

  void SendJson(http::ResponseWriter& w, int code, const Json& body,
                const std::vector<std::string>& warnings,
                std::string content_type = kJson) {
    http::HttpHeaders headers = JsonHeaders(warnings, std::move(content_type));
    if (http::InProcessExchange* x = ExchangeOf(w); x != nullptr) {
      x->SendJson(code, headers, std::make_shared<const Json>(body));
      return;
    }
    w.Send(code, headers, api::DumpJson(body) + "\n");
  }
  // The same for a body that is already shared (an in-process caller gets
  // it without a copy).
  void SendJson(http::ResponseWriter& w, int code,
                std::shared_ptr<const Json> body,
                const std::vector<std::string>& warnings) {
    http::HttpHeaders headers = JsonHeaders(warnings, kJson);
    if (http::InProcessExchange* x = ExchangeOf(w); x != nullptr) {
      x->SendJson(code, headers, std::move(body));
      return;
    }
    w.Send(code, headers, api::DumpJson(*body) + "\n");
  }
  static http::HttpHeaders JsonHeaders(const std::vector<std::string>& warnings,
                                       std::string content_type) {
    http::HttpHeaders headers{{"Content-Type", std::move(content_type)},
                              {"Cache-Control", "no-cache, private"}};
    for (const std::string& warning : warnings) {
      headers.emplace_back("Warning", WarningHeader(warning));
    }
    return headers;
  }

  void SendError(http::ResponseWriter& w, const absl::Status& status,
                 const std::vector<std::string>& warnings) {
    SendJson(w, internal::HttpCode(status), internal::StatusBody(status),
             warnings);
  }

  bool HandleNonResource(const http::HttpRequest& req,
                         const std::vector<std::string_view>& s,
                         http::ResponseWriter& w) {
    const std::string accept = req.Header("accept");
    if (s.size() == 1 && s[0] == "version") {
      SendJson(w, 200,
               Json{{"major", options_.version_major},
                    {"minor", options_.version_minor},
                    {"gitVersion", options_.git_version},
                    {"gitCommit", "draplane"},
                    {"gitTreeState", "clean"},
                    {"buildDate", "2026-11-30T00:00:00Z"},
                    {"goVersion", "go1.23.4"},
                    {"compiler", "gc"},
                    {"platform", "linux/amd64"}},
               {});
      return true;
    }
    if (s.size() == 1 &&
        (s[0] == "healthz" || s[0] == "livez" || s[0] == "readyz")) {
      w.Send(200, {{"Content-Type", "text/plain"}}, "ok");
      return true;
    }
    if (s.size() == 1 && s[0] == "metrics" && options_.metrics) {
      w.Send(200,
             {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}},
             options_.metrics());
      return true;
    }
    if (s.size() == 1 && (s[0] == "api" || s[0] == "apis")) {
      if (internal::AcceptsAggregatedDiscovery(accept)) {
        SendJson(w, 200, internal::AggregatedDiscovery(s[0] == "api"), {},
                 std::string(internal::kAggregatedDiscoveryContentType));
      } else {
        SendJson(w, 200,
                 s[0] == "api" ? internal::LegacyApiVersions()
                               : internal::LegacyApiGroupList(),
                 {});
      }
      return true;
    }
    if (s.size() >= 2 && s[0] == "openapi" && s[1] == "v3") {
      ServeOpenApiV3(req, s, w);
      return true;
    }
    if (s.size() == 2 && s[0] == "api" && s[1] == "v1") {
      SendJson(w, 200, *internal::LegacyResourceList("", "v1"), {});
      return true;
    }
    if (s.size() == 2 && s[0] == "apis") {
      auto group = internal::LegacyApiGroup(s[1]);
      if (!group) return false;
      SendJson(w, 200, *group, {});
      return true;
    }
    if (s.size() == 3 && s[0] == "apis") {
      auto list = internal::LegacyResourceList(s[1], s[2]);
      if (!list) return false;
      SendJson(w, 200, *list, {});
      return true;
    }
    return false;
  }

  // GET /openapi/v3 and /openapi/v3/<group-version>, as kube-openapi's
  // handler3 serves them: the root lists each document with the hash of its
  // bytes; a document requested with the current ?hash= is immutable
  // (cached for a year), with another hash it redirects (301) to the
  // current one. ETags are the quoted hashes (If-None-Match gives 304).
  // Only JSON is served (406 for an Accept without it); /openapi/v2 is not
  // served, so kubectl uses v3 throughout.
  void ServeOpenApiV3(const http::HttpRequest& req,
                      const std::vector<std::string_view>& s,
                      http::ResponseWriter& w) {
    if (s.size() == 2) {
      const openapi::OpenApiDocument& root = openapi::OpenApiV3RootDocument();
      const std::string etag = StrCat("\"", root.hash, "\"");
      if (req.Header("if-none-match") == etag) {
        w.Send(304, {{"Etag", etag}}, "");
        return;
      }
      w.Send(200, {{"Content-Type", kJson}, {"Etag", etag}}, root.bytes);
      return;
    }
    std::string gv;
    for (size_t i = 2; i < s.size(); ++i) {
      StrAppend(&gv, i > 2 ? "/" : "", s[i]);
    }
    const openapi::OpenApiDocument* doc = openapi::OpenApiV3Document(gv);
    if (doc == nullptr) {
      SendError(w, internal::PathNotFound(), {});
      return;
    }
    const std::string accept = req.Header("accept");
    if (!accept.empty() &&
        accept.find("application/json") == std::string::npos &&
        accept.find("*/*") == std::string::npos &&
        accept.find("application/*") == std::string::npos) {
      w.Send(406, {{"Vary", "Accept"}}, "");
      return;
    }
    const std::string etag = StrCat("\"", doc->hash, "\"");
    http::HttpHeaders headers{{"Vary", "Accept"}, {"Etag", etag}};
    if (req.HasQuery("hash")) {
      if (req.Query("hash") != doc->hash) {
        const std::string location =
            StrCat("/openapi/v3/", gv, "?hash=", doc->hash);
        headers.emplace_back("Location", location);
        headers.emplace_back("Content-Type", "text/html; charset=utf-8");
        w.Send(301, headers,
               StrCat("<a href=\"", location, "\">Moved Permanently</a>.\n\n"));
        return;
      }
      headers.emplace_back("Cache-Control", "public, immutable");
      headers.emplace_back("Expires", HttpDateOneYearAhead());
    }
    if (req.Header("if-none-match") == etag) {
      w.Send(304, headers, "");
      return;
    }
    headers.emplace_back("Content-Type", kJson);
    w.Send(200, headers, doc->bytes);
  }

  void Dispatch(const http::HttpRequest& req, const Target& t,
                http::ResponseWriter& w) {
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
    if (!status.ok()) SendError(w, status, warnings);
  }

  // Sends one object (converted, or as a one-row Table).
  absl::Status SendObject(const http::HttpRequest& req, const Target& t,
                          std::shared_ptr<const Json> object, int code,
                          const std::vector<std::string>& warnings,
                          http::ResponseWriter& w) {
    const Negotiated n = Negotiate(req.Header("accept"));
    if (n.table) {
      auto table =
          Table(req, t, {*object},
                object->at("metadata").value("resourceVersion", ""), "", n);
      if (!table.ok()) return table.status();
      SendJson(w, code, *table, warnings);
      return absl::OkStatus();
    }
    if (t.version == t.resource->StorageVersion()) {
      SendJson(w, code, std::move(object), warnings);
      return absl::OkStatus();
    }
    auto out = ToVersion(*t.resource, *object, t.version);
    if (!out.ok()) return out.status();
    SendJson(w, code, *out, warnings);
    return absl::OkStatus();
  }

  // Sends a create's or update's result: as SendObject, or, to an
  // in-process caller that takes typed replies, the written value's typed
  // form (shared with the watchers; managedFields left out as asked).
  absl::Status SendWritten(const http::HttpRequest& req, const Target& t,
                           const internal::WriteResult& result, int code,
                           const std::vector<std::string>& warnings,
                           http::ResponseWriter& w) {
    http::InProcessExchange* x = ExchangeOf(w);
    if (x != nullptr && x->TakesTypedReply() && result.value != nullptr &&
        t.version == t.resource->StorageVersion() &&
        !Negotiate(req.Header("accept")).table) {
      if (auto typed =
              result.typed != nullptr
                  ? result.typed
                  : registry_.TypedObject(result.value, result.revision)) {
        x->SendTyped(code, JsonHeaders(warnings, kJson), std::move(typed));
        return absl::OkStatus();
      }
    }
    return SendObject(req, t, result.object, code, warnings, w);
  }

  absl::StatusOr<Json> Table(const http::HttpRequest& req, const Target& t,
                             const std::vector<Json>& objects,
                             const std::string& resource_version,
                             const std::string& continue_token,
                             const Negotiated& n) {
    printers::TableOptions options;
    options.now = absl::Now();
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
      return internal::InternalServerError(
          std::string(table.status().message()));
    }
    (*table)["apiVersion"] = StrCat("meta.k8s.io/", n.table_version);
    return *std::move(table);
  }

  absl::Status Get(const http::HttpRequest& req, const Target& t,
                   http::ResponseWriter& w) {
    auto object = registry_.Get(*t.resource, t.namespace_, t.name);
    if (!object.ok()) return object.status();
    if (t.subresource == "scale") {
      SendJson(w, 200, ScaleOf(*object), {});
      return absl::OkStatus();
    }
    return SendObject(req, t, std::make_shared<const Json>(*std::move(object)),
                      200, {}, w);
  }

  // The autoscaling/v1 Scale of a Deployment (upstream's scale
  // subresource).
  static Json ScaleOf(const Json& deployment) {
    const Json& meta = deployment.at("metadata");
    Json scale_meta = Json::object();
    for (const char* field :
         {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
      if (meta.contains(field)) scale_meta[field] = meta[field];
    }
    const Json spec = deployment.value("spec", Json::object());
    const Json status = deployment.value("status", Json::object());
    std::string selector;
    if (spec.contains("selector")) {
      auto parsed = selectors::LabelSelectorFromJson(spec["selector"]);
      if (parsed.ok()) selector = parsed->String();
    }
    Json scale_status{{"replicas", status.value("replicas", 0)}};
    if (!selector.empty()) scale_status["selector"] = selector;
    return Json{{"kind", "Scale"},
                {"apiVersion", "autoscaling/v1"},
                {"metadata", std::move(scale_meta)},
                {"spec", Json{{"replicas", spec.value("replicas", 1)}}},
                {"status", std::move(scale_status)}};
  }

  // PUT or PATCH of a Deployment's scale: `scale` gives the new Scale from
  // the current one.
  absl::Status WriteScale(
      const http::HttpRequest& req, const Target& t, http::ResponseWriter& w,
      const std::function<absl::StatusOr<Json>(const Json&)>& scale) {
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    auto result = registry_.Modify(
        *t.resource, t.namespace_, t.name,
        [&](const Json& current) -> absl::StatusOr<Json> {
          auto next_scale = scale(ScaleOf(current));
          if (!next_scale.ok()) return next_scale.status();
          const Json spec = next_scale->value("spec", Json::object());
          if (!spec.contains("replicas") ||
              !spec["replicas"].is_number_integer() ||
              spec["replicas"].get<int64_t>() < 0) {
            return internal::Invalid(
                *t.resource, t.name,
                {draplane::Invalid(FieldPath("spec.replicas"),
                                   BadValue::Json(api::DumpJson(
                                       spec.value("replicas", Json()))),
                                   "must be greater than or equal to 0")});
          }
          Json next = current;
          const std::string rv = next_scale->value("metadata", Json::object())
                                     .value("resourceVersion", "");
          internal::MutableMetadata(next)["resourceVersion"] =
              rv.empty() ? current.at("metadata").value("resourceVersion", "")
                         : rv;
          next["spec"]["replicas"] = spec["replicas"];
          return next;
        },
        OwnWrite(*dry));
    if (!result.ok()) return result.status();
    SendJson(w, 200, ScaleOf(*result->object), {});
    return absl::OkStatus();
  }

  absl::StatusOr<internal::ObjectFilter> Filter(const http::HttpRequest& req,
                                                const Target& t) {
    return internal::BuildObjectFilter(*t.resource, req.Query("labelSelector"),
                                       req.Query("fieldSelector"));
  }

  absl::Status List(const http::HttpRequest& req, const Target& t,
                    http::ResponseWriter& w) {
    internal::ListQuery q;
    q.namespace_ = t.namespace_;
    auto filter = Filter(req, t);
    if (!filter.ok()) return filter.status();
    q.filter = *filter;
    if (req.HasQuery("limit")) {
      int64_t limit = 0;
      if (!absl::SimpleAtoi(req.Query("limit"), &limit) || limit < 0) {
        return internal::BadRequest(
            StrCat("invalid limit: ", req.Query("limit")));
      }
      q.limit = limit;
    }
    q.continue_token = req.Query("continue");
    q.resource_version = req.Query("resourceVersion");
    q.resource_version_match = req.Query("resourceVersionMatch");
    auto result = registry_.List(*t.resource, q);
    if (!result.ok()) return result.status();
    const std::string rv = std::to_string(result->revision);
    const Negotiated n = Negotiate(req.Header("accept"));
    if (n.table) {
      auto table = Table(req, t, result->items, rv, result->continue_token, n);
      if (!table.ok()) return table.status();
      SendJson(w, 200, *table, {});
      return absl::OkStatus();
    }
    Json items = Json::array();
    for (const Json& item : result->items) {
      auto v = ToVersion(*t.resource, item, t.version);
      if (!v.ok()) return v.status();
      items.push_back(*std::move(v));
    }
    Json meta{{"resourceVersion", rv}};
    if (!result->continue_token.empty()) {
      meta["continue"] = result->continue_token;
      if (result->remaining) meta["remainingItemCount"] = *result->remaining;
    }
    SendJson(w, 200,
             Json{{"kind", t.resource->ListKind()},
                  {"apiVersion", t.resource->ApiVersion(t.version)},
                  {"metadata", std::move(meta)},
                  {"items", std::move(items)}},
             {});
    return absl::OkStatus();
  }

  absl::Status Create(const http::HttpRequest& req, const Target& t,
                      http::ResponseWriter& w) {
    auto validation = ParseFieldValidation(req.Query("fieldValidation"));
    if (!validation.ok()) return validation.status();
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    auto body = ParseBody(req, w);
    if (!body.ok()) return body.status();
    std::vector<std::string> warnings;
    std::vector<internal::InlineClaimTemplate> inline_claims;
    if (t.resource->kind->kind == "Pod") {
      auto extracted = internal::ExtractInlineClaims(*body);
      if (!extracted.ok()) return extracted.status();
      inline_claims = *std::move(extracted);
    }
    // Templates for inline requests are checked before the pod is created
    // and created after it, owned by it.
    std::vector<std::pair<Target, Json>> templates;
    for (const internal::InlineClaimTemplate& inl : inline_claims) {
      Target tt;
      tt.resource =
          internal::FindResource("resource.k8s.io", "resourceclaimtemplates");
      tt.group = "resource.k8s.io";
      tt.version = std::string(
          api::SplitApiVersion(inl.object["apiVersion"].get<std::string>())
              .second);
      tt.namespace_ = t.namespace_;
      auto stored =
          BodyToStorage(tt, inl.object, FieldValidation::kStrict, warnings);
      if (!stored.ok()) return stored.status();
      auto check = registry_.Create(*tt.resource, t.namespace_, *stored,
                                    OwnWrite(/*dry_run=*/true));
      if (!check.ok()) return check.status();
      templates.emplace_back(tt, *std::move(stored));
      warnings.push_back(inl.warning);
    }
    // A pod whose inline claims were cut out is no longer an encoding.
    auto storage =
        BodyToStorage(t, *std::move(body), *validation, warnings,
                      BodyIsEncodedObject(w) && inline_claims.empty());
    if (!storage.ok()) return storage.status();
    auto result =
        registry_.Create(*t.resource, t.namespace_, *std::move(storage),
                         WriteOptionsOf(req, t, *dry));
    if (!result.ok()) return result.status();
    for (auto& [tt, object] : templates) {
      const Json& pod_meta = result->object->at("metadata");
      object["metadata"]["ownerReferences"] =
          Json::array({Json{{"apiVersion", "v1"},
                            {"kind", "Pod"},
                            {"name", pod_meta.value("name", "")},
                            {"uid", pod_meta.value("uid", "")},
                            {"controller", true},
                            {"blockOwnerDeletion", true}}});
      auto created = registry_.Create(*tt.resource, t.namespace_, object,
                                      WriteOptionsOf(req, tt, *dry));
      if (!created.ok()) {
        if (!*dry) {
          (void)registry_.Delete(*t.resource, t.namespace_,
                                 internal::NameOf(*result->object), {});
        }
        return created.status();
      }
    }
    return SendWritten(req, t, *result, 201, warnings, w);
  }

  absl::Status Update(const http::HttpRequest& req, const Target& t,
                      http::ResponseWriter& w) {
    if (t.subresource == "scale") {
      auto body = ParseBody(req, w);
      if (!body.ok()) return body.status();
      return WriteScale(req, t, w, [&](const Json&) -> absl::StatusOr<Json> {
        return *body;
      });
    }
    if (!t.subresource.empty() && t.subresource != "status" &&
        t.subresource != "finalize") {
      return internal::MethodNotSupported(*t.resource, req.method);
    }
    auto validation = ParseFieldValidation(req.Query("fieldValidation"));
    if (!validation.ok()) return validation.status();
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    auto body = ParseBody(req, w);
    if (!body.ok()) return body.status();
    std::vector<std::string> warnings;
    auto storage = BodyToStorage(t, *std::move(body), *validation, warnings,
                                 BodyIsEncodedObject(w));
    if (!storage.ok()) return storage.status();
    auto result =
        registry_.Update(*t.resource, t.namespace_, t.name, *std::move(storage),
                         WriteOptionsOf(req, t, *dry));
    if (!result.ok()) return result.status();
    return SendWritten(req, t, *result, result->created ? 201 : 200, warnings,
                       w);
  }

  absl::Status Patch(const http::HttpRequest& req, const Target& t,
                     http::ResponseWriter& w) {
    std::string type = req.Header("content-type");
    if (size_t semi = type.find(';'); semi != std::string::npos) {
      type.resize(semi);
    }
    auto kind = internal::ParsePatchType(type, *t.resource);
    if (!kind.ok()) return kind.status();
    if (t.subresource == "scale") {
      if (*kind == internal::PatchType::kApply) {
        return internal::MethodNotSupported(*t.resource, "apply");
      }
      const internal::ResourceInfo* r = t.resource;
      return WriteScale(
          req, t, w, [&](const Json& current) -> absl::StatusOr<Json> {
            return internal::ApplyPatch(*kind, *r, current, req.body, {});
          });
    }
    auto validation = ParseFieldValidation(req.Query("fieldValidation"));
    if (!validation.ok()) return validation.status();
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    const bool apply = *kind == internal::PatchType::kApply;
    if (apply && req.Query("fieldManager").empty()) {
      return internal::BadRequest(
          "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required "
          "value: is required for apply patch");
    }
    std::vector<std::string> warnings;
    auto mutate = [&](const Json& current) -> absl::StatusOr<Json> {
      Json versioned;
      if (!current.is_null()) {
        auto v = ToVersion(*t.resource, current, t.version);
        if (!v.ok()) return v.status();
        versioned = *std::move(v);
      }
      internal::ApplyRequest apply;
      apply.manager = req.Query("fieldManager");
      apply.force = req.Query("force") == "true";
      apply.api_version = t.resource->ApiVersion(t.version);
      apply.subresource = t.subresource == "status" ? "status" : "";
      auto patched =
          internal::ApplyPatch(*kind, *t.resource, versioned, req.body, apply);
      if (!patched.ok()) return patched.status();
      warnings.clear();
      return BodyToStorage(t, *std::move(patched), *validation, warnings);
    };
    auto result = registry_.Modify(
        *t.resource, t.namespace_, t.name, mutate,
        WriteOptionsOf(req, t, *dry, /*record_manager=*/!apply),
        /*create=*/apply && t.subresource.empty());
    if (!result.ok()) return result.status();
    return SendObject(req, t, result->object, result->created ? 201 : 200,
                      warnings, w);
  }

  absl::StatusOr<internal::DeleteOptions> DeleteOptionsOf(
      const http::HttpRequest& req) {
    internal::DeleteOptions options;
    options.user = UserOf(req);
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    options.dry_run = *dry;
    if (!req.body.empty()) {
      auto body = api::ParseJsonText(req.body, "request body");
      if (!body.ok() || !body->is_object()) {
        return internal::BadRequest("the body of DeleteOptions is invalid");
      }
      if (body->contains("dryRun")) {
        for (const Json& v : (*body)["dryRun"]) {
          if (v != "All") {
            return internal::BadRequest("Invalid dry run value");
          }
          options.dry_run = true;
        }
      }
      if (body->contains("propagationPolicy") &&
          (*body)["propagationPolicy"].is_string()) {
        options.propagation = (*body)["propagationPolicy"].get<std::string>();
      }
      if (body->contains("orphanDependents") &&
          (*body)["orphanDependents"].is_boolean() &&
          options.propagation.empty()) {
        options.propagation =
            (*body)["orphanDependents"].get<bool>() ? "Orphan" : "Background";
      }
      if (body->contains("preconditions") &&
          (*body)["preconditions"].is_object()) {
        const Json& p = (*body)["preconditions"];
        if (p.contains("uid") && p["uid"].is_string()) {
          options.precondition_uid = p["uid"].get<std::string>();
        }
        if (p.contains("resourceVersion") && p["resourceVersion"].is_string()) {
          options.precondition_resource_version =
              p["resourceVersion"].get<std::string>();
        }
      }
    }
    if (req.HasQuery("propagationPolicy")) {
      options.propagation = req.Query("propagationPolicy");
    }
    if (!options.propagation.empty() && options.propagation != "Background" &&
        options.propagation != "Foreground" &&
        options.propagation != "Orphan") {
      return internal::ApiError(
          422, "Invalid",
          StrCat(
              "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: "
              "Unsupported value: \"",
              options.propagation,
              "\": supported values: \"Foreground\", \"Background\", "
              "\"Orphan\", \"nil\""));
    }
    return options;
  }

  absl::Status Delete(const http::HttpRequest& req, const Target& t,
                      http::ResponseWriter& w) {
    auto options = DeleteOptionsOf(req);
    if (!options.ok()) return options.status();
    auto object = registry_.Delete(*t.resource, t.namespace_, t.name, *options);
    if (!object.ok()) return object.status();
    if (t.resource->kind->kind == "Namespace" && !options->dry_run) {
      internal::FinalizeNamespaces(registry_);
      if (auto again = registry_.Get(*t.resource, "", t.name); again.ok()) {
        *object = *std::move(again);
      }
    }
    return SendObject(req, t, std::make_shared<const Json>(*std::move(object)),
                      200, {}, w);
  }

  absl::Status DeleteCollection(const http::HttpRequest& req, const Target& t,
                                http::ResponseWriter& w) {
    auto options = DeleteOptionsOf(req);
    if (!options.ok()) return options.status();
    internal::ListQuery q;
    q.namespace_ = t.namespace_;
    auto filter = Filter(req, t);
    if (!filter.ok()) return filter.status();
    q.filter = *filter;
    auto list = registry_.List(*t.resource, q);
    if (!list.ok()) return list.status();
    Json items = Json::array();
    for (const Json& item : list->items) {
      auto deleted = registry_.Delete(*t.resource, internal::NamespaceOf(item),
                                      internal::NameOf(item), *options);
      if (!deleted.ok() && !absl::IsNotFound(deleted.status())) {
        return deleted.status();
      }
      if (deleted.ok()) {
        auto v = ToVersion(*t.resource, *deleted, t.version);
        if (v.ok()) items.push_back(*std::move(v));
      }
    }
    SendJson(
        w, 200,
        Json{{"kind", t.resource->ListKind()},
             {"apiVersion", t.resource->ApiVersion(t.version)},
             {"metadata", Json{{"resourceVersion",
                                std::to_string(registry_.store().Revision())}}},
             {"items", std::move(items)}},
        {});
    return absl::OkStatus();
  }

  // POST pods/<name>/binding: assigns the pod to a node as upstream's
  // BindingREST does: one write (spec.nodeName, the binding's annotations
  // and the PodScheduled=True condition together) of an unassigned pod,
  // with the binding's uid and resourceVersion as preconditions.
  absl::Status Bind(const http::HttpRequest& req, const Target& t,
                    http::ResponseWriter& w) {
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    auto body = ParseBody(req, w);
    if (!body.ok()) return body.status();
    const Json& meta_member = api::MemberOrNull(*body, "metadata");
    const Json& target_member = api::MemberOrNull(*body, "target");
    for (const Json* m : {&meta_member, &target_member}) {
      if (!m->is_null() && !m->is_object()) {
        return internal::BadRequest(
            "the Binding's metadata and target must be objects");
      }
    }
    const Json meta = meta_member.is_object() ? meta_member : Json::object();
    const Json target =
        target_member.is_object() ? target_member : Json::object();
    // Upstream decodes the Binding first: a mistyped field is a 400.
    for (const auto& [object, field, path] :
         {std::tuple(&meta, "name", "metadata.name"),
          std::tuple(&meta, "uid", "metadata.uid"),
          std::tuple(&meta, "resourceVersion", "metadata.resourceVersion"),
          std::tuple(&target, "kind", "target.kind"),
          std::tuple(&target, "name", "target.name")}) {
      const Json& v = api::MemberOrNull(*object, field);
      if (!v.is_null() && !v.is_string()) {
        return internal::BadRequest(
            StrCat("the Binding's ", path, " must be a string"));
      }
    }
    for (const char* field : {"annotations", "labels"}) {
      const Json& member = api::MemberOrNull(meta, field);
      bool ok = member.is_null() || member.is_object();
      if (ok && member.is_object()) {
        for (const auto& v : member) ok = ok && v.is_string();
      }
      if (!ok) {
        return internal::BadRequest(StrCat("the Binding's metadata.", field,
                                           " must map strings to strings"));
      }
    }
    if (meta.value("name", t.name) != t.name) {
      return internal::BadRequest(
          "name in URL does not match name in Binding object");
    }
    FieldErrorList errors;
    const std::string kind = target.value("kind", "");
    if (!kind.empty() && kind != "Node") {
      errors.push_back(draplane::NotSupported(
          FieldPath("target.kind"), BadValue(kind), {"Node", "<empty>"}));
    }
    const std::string node = target.value("name", "");
    if (node.empty()) {
      errors.push_back(draplane::Required(FieldPath("target.name"), ""));
    }
    if (!errors.empty()) {
      return internal::Invalid(*t.resource, t.name, errors);
    }
    const std::string uid = meta.value("uid", "");
    const std::string rv = meta.value("resourceVersion", "");
    const Json& annotations = api::MemberOrNull(meta, "annotations");
    const Json& labels = api::MemberOrNull(meta, "labels");
    // As upstream's BindingREST (setPodNodeAndMetadata, with its 1.37
    // defaults ClearingNominatedNodeNameAfterBinding and
    // PodTopologyLabelsAdmission on): a storage-level update of the pod,
    // with no pod admission, validation or managedFields of its own.
    auto result = registry_.GuaranteedUpdate(
        *t.resource, t.namespace_, t.name,
        [&](api::Object& object) -> absl::Status {
          auto* pod = std::get_if<api::Pod>(&object.value);
          if (pod == nullptr) {
            return internal::InternalServerError("the stored pod is no Pod");
          }
          const api::ObjectMeta& current_meta = pod->metadata;
          if (!uid.empty() && uid != current_meta.uid) {
            return internal::PreconditionFailed(*t.resource, t.name, "UID", uid,
                                                current_meta.uid);
          }
          if (!rv.empty() && rv != current_meta.resource_version) {
            return internal::PreconditionFailed(*t.resource, t.name,
                                                "ResourceVersion", rv,
                                                current_meta.resource_version);
          }
          auto refuse = [&](std::string_view why) {
            return internal::SubresourceConflict(*t.resource, "binding", t.name,
                                                 why);
          };
          if (current_meta.deletion_timestamp.has_value()) {
            return refuse(StrCat("pod ", t.name,
                                 " is being deleted, cannot be assigned to a "
                                 "host"));
          }
          if (!pod->spec.node_name.empty()) {
            return refuse(StrCat("pod ", t.name,
                                 " is already assigned to node \"",
                                 pod->spec.node_name, "\""));
          }
          if (const Json& gates = api::MemberOrNull(pod->spec.unknown_fields,
                                                    "schedulingGates");
              gates.is_array() && !gates.empty()) {
            return refuse(
                StrCat("pod ", t.name, " has non-empty .spec.schedulingGates"));
          }
          pod->spec.node_name = node;
          pod->status.nominated_node_name.clear();
          if (annotations.is_object()) {
            for (const auto& [key, value] : annotations.items()) {
              pod->metadata.annotations[key] = value.get<std::string>();
            }
          }
          // The bypassed strategy would have dropped them (upstream's
          // podutil.DropInitContainerAnnotations).
          for (const char* legacy :
               {"pod.beta.kubernetes.io/init-containers",
                "pod.alpha.kubernetes.io/init-containers",
                "pod.beta.kubernetes.io/init-container-statuses",
                "pod.alpha.kubernetes.io/init-container-statuses"}) {
            pod->metadata.annotations.erase(legacy);
          }
          if (labels.is_object()) {
            for (const auto& [key, value] : labels.items()) {
              pod->metadata.labels[key] = value.get<std::string>();
            }
          }
          SetPodScheduled(pod->status);
          return absl::OkStatus();
        },
        *dry);
    if (!result.ok()) return result.status();
    SendJson(w, 201,
             Json{{"kind", "Status"},
                  {"apiVersion", "v1"},
                  {"metadata", Json::object()},
                  {"status", "Success"},
                  {"code", 201}},
             {});
    return absl::OkStatus();
  }

  // Upstream's podutil.UpdatePodCondition with {PodScheduled, True}: the
  // condition replaces an existing one in place (its reason and message
  // go; its lastTransitionTime, set or not, stays when the status was
  // already True) or is appended.
  static void SetPodScheduled(api::PodStatus& status) {
    api::PodCondition condition;
    condition.type = "PodScheduled";
    condition.status = "True";
    condition.last_transition_time = internal::Timestamp(absl::Now());
    for (api::PodCondition& c : status.conditions) {
      if (c.type != "PodScheduled") continue;
      if (c.status == "True") {
        condition.last_transition_time = std::move(c.last_transition_time);
      }
      c = std::move(condition);
      return;
    }
    status.conditions.push_back(std::move(condition));
  }

  void Watch(const http::HttpRequest& req, const Target& t,
             http::ResponseWriter& w);

  // Created by AdmissionChain (before registry_ is), attached to it after.
  std::shared_ptr<internal::ResourceQuotaAdmission> quota_;
  internal::Registry registry_;
  internal::WatchCache watch_cache_;
  const ApiServerOptions options_;
};

// A watch: events queued by the store's sink, converted and filtered on
// the connection's thread.
void ApiServer::Impl::Watch(const http::HttpRequest& req, const Target& t,
                            http::ResponseWriter& w) {
  const ResourceInfo& r = *t.resource;
  auto filter = Filter(req, t);
  if (!filter.ok()) {
    SendError(w, filter.status(), {});
    return;
  }
  const Negotiated n = Negotiate(req.Header("accept"));
  const bool bookmarks = req.Query("allowWatchBookmarks") == "true";
  const bool send_initial = req.Query("sendInitialEvents") == "true";
  absl::Duration timeout = options_.max_watch;
  if (req.HasQuery("timeoutSeconds")) {
    int64_t seconds = 0;
    if (!absl::SimpleAtoi(req.Query("timeoutSeconds"), &seconds) ||
        seconds < 0) {
      SendError(w, internal::BadRequest("invalid timeoutSeconds"), {});
      return;
    }
    timeout = std::min(timeout, absl::Seconds(seconds));
  }
  const std::string rv_text = req.Query("resourceVersion");
  int64_t start = 0;
  std::vector<Json> initial;
  if (rv_text.empty() || rv_text == "0" || send_initial) {
    internal::ListQuery q;
    q.namespace_ = t.namespace_;
    q.filter = *filter;
    auto list = registry_.List(r, q);
    if (!list.ok()) {
      SendError(w, list.status(), {});
      return;
    }
    initial = std::move(list->items);
    start = list->revision;
  } else if (!absl::SimpleAtoi(rv_text, &start) || start < 0) {
    SendError(
        w, internal::BadRequest(StrCat("invalid resource version: ", rv_text)),
        {});
    return;
  }

  struct Queue {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<store::Event> events;
  };
  auto queue = std::make_shared<Queue>();
  auto watch =
      registry_.Watch(r, t.namespace_, start, [queue](const store::Event& e) {
        std::lock_guard lock(queue->mu);
        queue->events.push_back(e);
        queue->cv.notify_one();
      });
  http::InProcessExchange* typed = ExchangeOf(w);
  if (typed != nullptr && (n.table || !typed->TakesTypedEvents())) {
    typed = nullptr;
  }
  http::HttpHeaders headers{{"Content-Type", kJson},
                            {"Cache-Control", "no-cache, private"}};
  if (!w.StartStream(200, headers)) return;
  bool first_table = true;
  auto send = [&](std::string_view type, const Json& object) -> bool {
    Json out;
    if (type == "BOOKMARK" || type == "ERROR") {
      out = object;
    } else if (n.table) {
      auto table = Table(req, t, {object}, "", "", n);
      if (!table.ok()) return false;
      out = *std::move(table);
      if (!first_table) out.erase("columnDefinitions");
      first_table = false;
    } else {
      auto v = ToVersion(r, object, t.version);
      if (!v.ok()) return false;
      out = *std::move(v);
    }
    return w.WriteChunk(
        api::DumpJson(Json{{"type", std::string(type)}, {"object", out}}) +
        "\n");
  };
  auto bookmark = [&](int64_t revision, bool initial_end) {
    Json meta{{"resourceVersion", std::to_string(revision)}};
    if (initial_end) {
      meta["annotations"] = Json{{"k8s.io/initial-events-end", "true"}};
    }
    return send("BOOKMARK", Json{{"kind", std::string(r.kind->kind)},
                                 {"apiVersion", r.ApiVersion(t.version)},
                                 {"metadata", std::move(meta)}});
  };
  if (!watch.ok()) {
    send("ERROR", internal::StatusBody(watch.status()));
    return;
  }
  for (const Json& object : initial) {
    if (!send("ADDED", object)) return;
  }
  if (send_initial && bookmarks && !bookmark(start, true)) return;

  const absl::Time deadline = absl::Now() + timeout;
  absl::Time next_bookmark = absl::Now() + options_.bookmark_interval;
  int64_t last_revision = start;
  while (!w.Stopping()) {
    std::deque<store::Event> batch;
    {
      std::unique_lock lock(queue->mu);
      queue->cv.wait_for(lock, std::chrono::milliseconds(100),
                         [&] { return !queue->events.empty(); });
      batch.swap(queue->events);
    }
    for (const store::Event& e : batch) {
      const auto ev = watch_cache_.Decoded(registry_, e);
      last_revision = e.revision;
      const bool now_matches = !*filter || (*filter)(*ev->object);
      const bool before_matched =
          ev->type == internal::ObjectEvent::kModified && (!*filter || [&] {
            const auto prev = ev->PrevObject();
            return prev != nullptr && (*filter)(*prev);
          }());
      std::string_view type;
      switch (ev->type) {
        case internal::ObjectEvent::kAdded:
          type = now_matches ? "ADDED" : "";
          break;
        case internal::ObjectEvent::kModified:
          type = now_matches ? (before_matched ? "MODIFIED" : "ADDED")
                             : (before_matched ? "DELETED" : "");
          break;
        case internal::ObjectEvent::kDeleted:
          type = now_matches ? "DELETED" : "";
          break;
      }
      if (type.empty()) continue;
      if (n.table) {
        if (!send(type, *ev->object)) return;
        continue;
      }
      // The stored version of a live object, managedFields dropped: the
      // registry's typed form, shared with the next update's validation.
      if (typed != nullptr && typed->DropsManagedFields() &&
          t.version == r.StorageVersion() &&
          ev->type != internal::ObjectEvent::kDeleted) {
        if (auto object = registry_.TypedObject(e.value, e.revision)) {
          if (!typed->WriteEvent(type, std::move(object))) return;
          continue;
        }
      }
      if (typed != nullptr) {
        auto object = watch_cache_.Typed(
            e.revision, t.version, typed->DropsManagedFields(), [&] {
              return TypedEventObject(r, *ev->object, t.version,
                                      typed->DropsManagedFields());
            });
        // An object that does not decode goes out as a line: the caller
        // reports it as it would have.
        if (object.ok()) {
          if (!typed->WriteEvent(type, *std::move(object))) return;
          continue;
        }
      }
      // Plain JSON lines are the same for every watcher of this version.
      auto line = watch_cache_.Line(
          e.revision, type, t.version, [&]() -> absl::StatusOr<std::string> {
            if (t.version == r.StorageVersion()) {
              return WatchLine(type, *ev->object);
            }
            auto v = ToVersion(r, *ev->object, t.version);
            if (!v.ok()) return v.status();
            return WatchLine(type, *v);
          });
      if (!line.ok() || !w.WriteChunk(**line)) return;
    }
    const absl::Time now = absl::Now();
    if (now >= deadline) break;
    if (bookmarks && now >= next_bookmark) {
      if (!bookmark(std::max(last_revision, start), false)) return;
      next_bookmark = now + options_.bookmark_interval;
    }
    if (w.ClientGone()) break;
  }
}

ApiServer::ApiServer(store::Store* store, ApiServerOptions options)
    : impl_(std::make_unique<Impl>(store, std::move(options))) {}

ApiServer::~ApiServer() = default;

void ApiServer::Handle(const http::HttpRequest& request,
                       http::ResponseWriter& writer) {
  impl_->Handle(request, writer);
}

void ApiServer::RunControllersOnce() { impl_->RunControllersOnce(); }

}  // namespace draplane::apiserver
