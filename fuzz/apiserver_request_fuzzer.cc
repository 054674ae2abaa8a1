// Feeds arbitrary request bodies (and a method, resource path and
// Content-Type picked from the first bytes) through the API server over an
// in-memory store that already holds objects of each kind. Any crash,
// sanitizer report or hang is a bug; every answer must be JSON, and every
// error answer a Status object with the HTTP code it was sent with.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "api/meta_types.h"
#include "apiserver/api_server.h"
#include "checking_writer.h"

namespace {

using draplane::api::Json;
using draplane::http::HttpHeaders;
using draplane::http::HttpRequest;

using draplane::fuzz::CheckingWriter;

draplane::apiserver::ApiServer& Server() {
  static auto* store = draplane::store::NewMemoryStore().release();
  static auto* server = [] {
    auto* s = new draplane::apiserver::ApiServer(store, {});
    CheckingWriter w;
    HttpRequest req;
    req.method = "POST";
    req.path = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";
    req.headers["content-type"] = "application/json";
    req.body = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"c","labels":{"a":"b"}},"spec":{"devices":{"requests":
      [{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}})";
    s->Handle(req, w);
    req.path = "/api/v1/namespaces/default/pods";
    req.body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
      "spec":{"containers":[{"name":"c","image":"x"}]}})";
    s->Handle(req, w);
    return s;
  }();
  return *server;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  static const char* kMethods[] = {"POST", "PUT", "PATCH", "GET", "DELETE"};
  static const char* kPaths[] = {
      "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
      "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c",
      "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c/status",
      "/apis/resource.k8s.io/v1beta1/deviceclasses",
      "/apis/resource.k8s.io/v1beta1/resourceslices/s",
      "/api/v1/namespaces/default/pods/p",
      "/api/v1/namespaces/default/pods/p/binding",
      "/api/v1/nodes",
      "/api/v1/namespaces"};
  static const char* kTypes[] = {"application/json",
                                 "application/yaml",
                                 "application/merge-patch+json",
                                 "application/json-patch+json",
                                 "application/strategic-merge-patch+json",
                                 "application/apply-patch+yaml"};
  HttpRequest req;
  req.method = kMethods[data[0] % 5];
  req.path = kPaths[data[1] % 9];
  req.headers["content-type"] = kTypes[data[2] % 6];
  if (data[2] & 0x80) req.query.emplace("fieldValidation", "Strict");
  if (data[1] & 0x80) req.query.emplace("dryRun", "All");
  if (req.method == "PATCH" && (data[0] & 0x80)) {
    req.query.emplace("fieldManager", "fuzz");
  }
  req.body.assign(reinterpret_cast<const char*>(data + 3), size - 3);
  CheckingWriter w;
  Server().Handle(req, w);
  return 0;
}
