// The API server test fixture: an ApiServer over a memory store, requests
// made through Handle with a recording writer, and manifests of a
// DeviceClass and a ResourceClaim.
#ifndef DRAPLANE_APISERVER_API_SERVER_TEST_UTIL_H_
#define DRAPLANE_APISERVER_API_SERVER_TEST_UTIL_H_

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "api/meta_types.h"
#include "apiserver/api_server.h"
#include "common/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {

using api::Json;

// Records what a handler answers.
class RecordingWriter : public http::ResponseWriter {
 public:
  void Send(int status, const http::HttpHeaders& headers,
            std::string body) override {
    code = status;
    this->headers = headers;
    this->body = std::move(body);
  }
  bool StartStream(int status, const http::HttpHeaders& headers) override {
    code = status;
    this->headers = headers;
    return true;
  }
  bool WriteChunk(std::string_view data) override {
    absl::MutexLock lock(&mu);
    chunks.emplace_back(data);
    return true;
  }
  bool Stopping() const override { return stop.load(); }
  bool ClientGone() const override { return false; }

  Json JsonBody() const { return Json::parse(body); }
  std::string Header(const std::string& name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return "";
  }
  std::vector<Json> Events() {
    absl::MutexLock lock(&mu);
    std::vector<Json> out;
    for (const auto& c : chunks) out.push_back(Json::parse(c));
    return out;
  }

  int code = 0;
  http::HttpHeaders headers;
  std::string body;
  absl::Mutex mu;
  std::vector<std::string> chunks;
  std::atomic<bool> stop{false};
};

// A finished response (copyable).
struct Response {
  int code = 0;
  http::HttpHeaders headers;
  std::string body;
  Json JsonBody() const { return Json::parse(body); }
  std::string Header(const std::string& name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return "";
  }
};

// A JSON request to `server` with bearer token `token` (and `headers`,
// `query`), answered in full.
inline Response DoWithToken(
    ApiServer& server, const std::string& token, std::string method,
    const std::string& path, const std::string& body = "",
    const std::map<std::string, std::string>& headers = {},
    const std::multimap<std::string, std::string>& query = {}) {
  http::HttpRequest req;
  req.method = std::move(method);
  req.path = path;
  req.query = query;
  for (const auto& [name, value] : headers) req.headers[name] = value;
  req.headers["authorization"] = "Bearer " + token;
  req.headers["accept"] = "application/json";
  if (!body.empty()) {
    req.headers["content-type"] = "application/json";
    req.body = body;
  }
  RecordingWriter w;
  server.Handle(req, w);
  return Response{w.code, w.headers, w.body};
}

class ApiServerTest : public ::testing::Test {
 protected:
  ApiServerTest()
      : store_(store::NewMemoryStore()), server_(store_.get(), {}) {}

  http::HttpRequest Request(
      std::string method, const std::string& target, std::string body = "",
      const std::string& content_type = "application/json") {
    http::HttpRequest req;
    req.method = std::move(method);
    const size_t q = target.find('?');
    req.path = target.substr(0, q);
    if (q != std::string::npos) {
      std::string query = target.substr(q + 1);
      size_t start = 0;
      while (start < query.size()) {
        size_t amp = query.find('&', start);
        if (amp == std::string::npos) amp = query.size();
        std::string pair = query.substr(start, amp - start);
        const size_t eq = pair.find('=');
        req.query.emplace(pair.substr(0, eq),
                          eq == std::string::npos ? "" : pair.substr(eq + 1));
        start = amp + 1;
      }
    }
    req.body = std::move(body);
    if (!req.body.empty()) req.headers["content-type"] = content_type;
    req.headers["accept"] = "application/json";
    return req;
  }

  Response Do(const http::HttpRequest& req) {
    RecordingWriter w;
    server_.Handle(req, w);
    return Response{w.code, w.headers, w.body};
  }
  Response Do(std::string method, const std::string& target,
              std::string body = "",
              const std::string& content_type = "application/json") {
    return Do(
        Request(std::move(method), target, std::move(body), content_type));
  }
  // Creates pod `name` in "default" with one container and `spec_extra`
  // (JSON members ending in a comma) in its spec; the HTTP code.
  int CreatePod(const std::string& name, const std::string& spec_extra = "") {
    return Do("POST", "/api/v1/namespaces/default/pods",
              R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                  R"("},"spec":{)" + spec_extra +
                  R"("containers":[{"name":"c","image":"busybox"}]}})")
        .code;
  }

  std::unique_ptr<store::Store> store_;
  ApiServer server_;
};

inline constexpr char kClasses[] = "/apis/resource.k8s.io/v1/deviceclasses";
inline constexpr char kClaims[] =
    "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";

inline std::string DeviceClass(
    const std::string& name,
    const std::string& expr = "device.driver == \"gpu.example.com\"") {
  return api::DumpJson(
      Json{{"apiVersion", "resource.k8s.io/v1"},
           {"kind", "DeviceClass"},
           {"metadata", Json{{"name", name}, {"labels", Json{{"tier", "a"}}}}},
           {"spec",
            Json{{"selectors",
                  Json::array({Json{{"cel", Json{{"expression", expr}}}}})}}}});
}

inline std::string Claim(const std::string& name) {
  return api::DumpJson(Json{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaim"},
      {"metadata", Json{{"name", name}}},
      {"spec", Json{{"devices",
                     Json{{"requests",
                           Json::array({Json{
                               {"name", "gpu"},
                               {"exactly", Json{{"deviceClassName",
                                                 "gpu.example.com"}}}}})}}}}}});
}

}  // namespace draplane::apiserver::api_server_test

#endif  // DRAPLANE_APISERVER_API_SERVER_TEST_UTIL_H_
