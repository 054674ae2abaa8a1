// Arbitrary query strings on the API server's reads, as a client sends
// them: the first byte picks a path (lists, gets, watches of namespaced
// and cluster-scoped kinds), the rest is split at '&' and the first '='
// into parameters (labelSelector, fieldSelector, resourceVersion,
// resourceVersionMatch, limit, continue, timeoutSeconds, watch, ... or any
// other name). Every answer must be JSON (or a watch stream), and every
// error a Status with the HTTP code it was sent with. Any crash, sanitizer
// report or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/meta_types.h"
#include "apiserver/api_server.h"
#include "checking_writer.h"
#include "store/store.h"

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
    req.headers["content-type"] = "application/json";
    req.path = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";
    for (const char* name : {"a", "b", "c"}) {
      req.body = std::string(R"({"apiVersion":"resource.k8s.io/v1",
        "kind":"ResourceClaim","metadata":{"name":")") +
                 name + R"(","labels":{"app":"web","n":"1"}},"spec":{"devices":
        {"requests":[{"name":"gpu","exactly":{"deviceClassName":"g"}}]}}})";
      s->Handle(req, w);
    }
    req.path = "/api/v1/namespaces/default/pods";
    req.body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",
      "labels":{"app":"web"}},"spec":{"nodeName":"n1",
      "containers":[{"name":"c","image":"x"}]}})";
    s->Handle(req, w);
    return s;
  }();
  return *server;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const char* kPaths[] = {
      "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
      "/apis/resource.k8s.io/v1/resourceclaims",
      "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/a",
      "/apis/resource.k8s.io/v1beta1/deviceclasses",
      "/apis/resource.k8s.io/v1/resourceslices",
      "/api/v1/namespaces/default/pods",
      "/api/v1/pods",
      "/api/v1/nodes",
      "/api/v1/namespaces",
      "/api/v1/namespaces/default/events"};
  HttpRequest req;
  req.method = "GET";
  req.path = kPaths[data[0] % 10];
  if (data[0] & 0x80)
    req.headers["accept"] = "application/json;as=Table;v=v1;g=meta.k8s.io";
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    std::string_view param = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view()
                                         : rest.substr(amp + 1);
    const size_t eq = param.find('=');
    req.query.emplace(std::string(param.substr(0, eq)),
                      eq == std::string_view::npos
                          ? std::string()
                          : std::string(param.substr(eq + 1)));
  }
  CheckingWriter w;
  Server().Handle(req, w);
  return 0;
}
