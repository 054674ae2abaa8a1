// The non-resource paths: /version, health, /metrics, discovery (aggregated
// and legacy) and OpenAPI v3.
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/discovery.h"
#include "apiserver/internal/handlers.h"
#include "apiserver/internal/negotiation.h"
#include "common/str_cat.h"
#include "common/uuid.h"
#include "openapi/openapi.h"

namespace draplane::apiserver::internal {

// k8s.io/apimachinery's version.Info in its field order: 1.33 and later
// add the emulation version (the release served) and the oldest release
// whose behaviour it stays compatible with (one minor before).
Json Handlers::VersionInfo() const {
  int minor = 0;
  const bool numeric = absl::SimpleAtoi(options_.version_minor, &minor);
  Json info = Json::object();
  info["major"] = options_.version_major;
  info["minor"] = options_.version_minor;
  info["emulationMajor"] = options_.version_major;
  info["emulationMinor"] = options_.version_minor;
  info["minCompatibilityMajor"] = options_.version_major;
  info["minCompatibilityMinor"] =
      numeric && minor > 0 ? std::to_string(minor - 1) : options_.version_minor;
  info["gitVersion"] = options_.git_version;
  info["gitCommit"] = "";
  info["gitTreeState"] = "";
  info["buildDate"] = "";
  info["goVersion"] = "";
#if defined(__clang__)
  info["compiler"] = "clang";
#else
  info["compiler"] = "gcc";
#endif
#if defined(__x86_64__)
  info["platform"] = "linux/amd64";
#elif defined(__aarch64__)
  info["platform"] = "linux/arm64";
#else
  info["platform"] = "linux";
#endif
  return info;
}

bool Handlers::HandleNonResource(const http::HttpRequest& req,
                                 const std::vector<std::string_view>& s,
                                 Responder& w) {
  const std::string accept = req.Header("accept");
  if (s.size() == 1 && s[0] == "version") {
    w.SendJson(200, VersionInfo(), {});
    return true;
  }
  if (s.size() == 1 &&
      (s[0] == "healthz" || s[0] == "livez" || s[0] == "readyz")) {
    w.writer().Send(200, {{"Content-Type", "text/plain"}}, "ok");
    return true;
  }
  // ServiceAccountIssuerDiscovery, as upstream serves it.
  if (service_account_tokens_ != nullptr &&
      ((s.size() == 2 && s[0] == ".well-known" &&
        s[1] == "openid-configuration") ||
       (s.size() == 3 && s[0] == "openid" && s[1] == "v1" && s[2] == "jwks"))) {
    const bool jwks = s[0] == "openid";
    w.writer().Send(200,
                    {{"Content-Type",
                      jwks ? "application/jwk-set+json" : "application/json"},
                     {"Cache-Control", "public, max-age=3600"}},
                    jwks ? service_account_tokens_->Jwks()
                         : service_account_tokens_->OpenIdConfiguration(
                               req.Header("host")));
    return true;
  }
  if (s.size() == 1 && s[0] == "metrics" && options_.metrics) {
    w.writer().Send(
        200, {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}},
        options_.metrics());
    return true;
  }
  if (s.size() == 3 && s[0] == "draplane" && s[1] == "store" &&
      s[2] == "backup" && !options_.store_backup_dir.empty()) {
    ServeStoreBackup(w);
    return true;
  }
  if (s.size() == 1 && (s[0] == "api" || s[0] == "apis")) {
    if (internal::AcceptsAggregatedDiscovery(accept)) {
      w.SendJson(200, internal::AggregatedDiscovery(s[0] == "api"), {},
                 std::string(internal::kAggregatedDiscoveryContentType));
    } else {
      w.SendJson(200,
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
    w.SendJson(200, *internal::LegacyResourceList("", "v1"), {});
    return true;
  }
  if (s.size() == 2 && s[0] == "apis") {
    auto group = internal::LegacyApiGroup(s[1]);
    if (!group) return false;
    w.SendJson(200, *group, {});
    return true;
  }
  if (s.size() == 3 && s[0] == "apis") {
    auto list = internal::LegacyResourceList(s[1], s[2]);
    if (!list) return false;
    w.SendJson(200, *list, {});
    return true;
  }
  return false;
}

void Handlers::ServeStoreBackup(Responder& w) {
  if (backup_running_.exchange(true)) {
    w.SendError(TooManyRequests("a store backup is being taken; try again "
                                "when it is done",
                                10),
                {});
    return;
  }
  // The copy is made in the data directory (the store's file system, so
  // a disk with room for the store has room for it), streamed, removed.
  const std::string path =
      StrCat(options_.store_backup_dir, "/.backup-", NewRandomUuid(), ".db");
  absl::StatusOr<int64_t> revision = registry_.store().Backup(path);
  if (!revision.ok()) {
    std::filesystem::remove(path);
    backup_running_ = false;
    w.SendError(revision.status(), {});
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::filesystem::remove(path);  // the open stream keeps it readable
  if (in && w.writer().StartStream(
                200, {{"Content-Type", "application/vnd.sqlite3"},
                      {"X-Draplane-Store-Revision", std::to_string(*revision)},
                      {"Cache-Control", "no-store"}})) {
    std::string chunk(1 << 20, '\0');
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) ||
           in.gcount() > 0) {
      if (!w.writer().WriteChunk(std::string_view(
              chunk.data(), static_cast<size_t>(in.gcount())))) {
        break;
      }
    }
  } else if (!in) {
    w.SendError(absl::InternalError(StrCat("cannot read ", path)), {});
  }
  backup_running_ = false;
}

// GET /openapi/v3 and /openapi/v3/<group-version>, as kube-openapi's
// handler3 serves them: the root lists each document with the hash of its
// bytes; a document requested with the current ?hash= is immutable
// (cached for a year), with another hash it redirects (301) to the
// current one. ETags are the quoted hashes (If-None-Match gives 304).
// Only JSON is served (406 for an Accept without it); /openapi/v2 is not
// served, so kubectl uses v3 throughout.
void Handlers::ServeOpenApiV3(const http::HttpRequest& req,
                              const std::vector<std::string_view>& s,
                              Responder& w) {
  if (s.size() == 2) {
    const openapi::OpenApiDocument& root = openapi::OpenApiV3RootDocument();
    const std::string etag = StrCat("\"", root.hash, "\"");
    if (req.Header("if-none-match") == etag) {
      w.writer().Send(304, {{"Etag", etag}}, "");
      return;
    }
    w.writer().Send(200, {{"Content-Type", kJsonContentType}, {"Etag", etag}},
                    root.bytes);
    return;
  }
  std::string gv;
  for (size_t i = 2; i < s.size(); ++i) {
    StrAppend(&gv, i > 2 ? "/" : "", s[i]);
  }
  const openapi::OpenApiDocument* doc = openapi::OpenApiV3Document(gv);
  if (doc == nullptr) {
    w.SendError(internal::PathNotFound(), {});
    return;
  }
  const std::string accept = req.Header("accept");
  if (!accept.empty() && accept.find("application/json") == std::string::npos &&
      accept.find("*/*") == std::string::npos &&
      accept.find("application/*") == std::string::npos) {
    w.writer().Send(406, {{"Vary", "Accept"}}, "");
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
      w.writer().Send(
          301, headers,
          StrCat("<a href=\"", location, "\">Moved Permanently</a>.\n\n"));
      return;
    }
    headers.emplace_back("Cache-Control", "public, immutable");
    headers.emplace_back("Expires", HttpDateOneYearAhead());
  }
  if (req.Header("if-none-match") == etag) {
    w.writer().Send(304, headers, "");
    return;
  }
  headers.emplace_back("Content-Type", kJsonContentType);
  w.writer().Send(200, headers, doc->bytes);
}

}  // namespace draplane::apiserver::internal
