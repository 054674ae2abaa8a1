#include "openapi/openapi.h"

#include <openssl/sha.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/object.h"
#include "logging/log.h"
#include "openapi/internal/component_schemas.h"
#include "openapi/internal/operations.h"

namespace draplane::openapi {
namespace {

using internal::Schema;

struct GroupVersion {
  std::string group, version;
  std::string key;  // "api/v1", "apis/<group>/<version>"
};

// Served group-versions in discovery order (core first; otherwise the order
// of api::ServedKinds, each kind's versions in preference order).
std::vector<GroupVersion> ServedGroupVersions() {
  std::vector<GroupVersion> out;
  for (const api::KindInfo& kind : api::ServedKinds()) {
    for (std::string_view version : kind.versions) {
      GroupVersion gv{std::string(kind.group), std::string(version), ""};
      gv.key = gv.group.empty() ? "api/" + gv.version
                                : "apis/" + gv.group + "/" + gv.version;
      if (std::none_of(out.begin(), out.end(), [&](const GroupVersion& g) {
            return g.key == gv.key;
          })) {
        out.push_back(std::move(gv));
      }
    }
  }
  std::stable_partition(out.begin(), out.end(),
                        [](const GroupVersion& g) { return g.group.empty(); });
  return out;
}

std::string Sha512Hex(const std::string& bytes) {
  unsigned char digest[SHA512_DIGEST_LENGTH];
  SHA512(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
         digest);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(2 * SHA512_DIGEST_LENGTH);
  for (unsigned char b : digest) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xf]);
  }
  return out;
}

Schema BuildDocument(const GroupVersion& gv) {
  internal::Paths paths = internal::BuildPaths(gv.group, gv.version);
  internal::SchemaMap schemas =
      internal::BuildComponentSchemas(gv.group, gv.version, paths.models);
  Schema components = Schema::object();
  for (auto& [model, schema] : schemas) components[model] = std::move(schema);
  return Schema{{"components", {{"schemas", std::move(components)}}},
                {"info", {{"title", "Kubernetes"}, {"version", "unversioned"}}},
                {"openapi", "3.0.0"},
                {"paths", std::move(paths.paths)}};
}

const std::vector<OpenApiDocument>& Documents() {
  static const auto* documents = [] {
    auto* out = new std::vector<OpenApiDocument>;
    for (const GroupVersion& gv : ServedGroupVersions()) {
      OpenApiDocument doc;
      doc.group_version = gv.key;
      try {
        doc.bytes = BuildDocument(gv).dump(-1, ' ', false,
                                           Schema::error_handler_t::replace);
      } catch (const std::exception& e) {
        // Unreachable with the static object model (openapi_test builds
        // every document); leave the group-version out rather than crash.
        logging::Error("Building an OpenAPI document failed",
                       {{"groupVersion", gv.key}, {"err", e.what()}});
        continue;
      }
      doc.hash = Sha512Hex(doc.bytes);
      out->push_back(std::move(doc));
    }
    return out;
  }();
  return *documents;
}

}  // namespace

std::vector<std::string_view> OpenApiV3GroupVersions() {
  std::vector<std::string_view> out;
  for (const OpenApiDocument& doc : Documents()) {
    out.push_back(doc.group_version);
  }
  return out;
}

api::Json OpenApiV3Root() {
  api::Json paths = api::Json::object();
  for (const OpenApiDocument& doc : Documents()) {
    paths[doc.group_version] = {
        {"serverRelativeURL",
         "/openapi/v3/" + doc.group_version + "?hash=" + doc.hash}};
  }
  return api::Json{{"paths", std::move(paths)}};
}

const OpenApiDocument& OpenApiV3RootDocument() {
  static const auto* root = [] {
    auto* doc = new OpenApiDocument;
    doc->bytes = api::DumpJson(OpenApiV3Root());
    doc->hash = Sha512Hex(doc->bytes);
    return doc;
  }();
  return *root;
}

const OpenApiDocument* OpenApiV3Document(std::string_view group_version) {
  for (const OpenApiDocument& doc : Documents()) {
    if (doc.group_version == group_version) return &doc;
  }
  return nullptr;
}

}  // namespace draplane::openapi
