// The API server answers requests over --max-mutating-requests-inflight
// as kube-apiserver: 429, Retry-After: 1, upstream's text; system:masters
// is served anyway.
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "apiserver/api_server_test_util.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

// Holds the create of namespace "held" until released.
class Gate : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "Gate"; }
  absl::Status Admit(const AdmissionRequest& request,
                     api::Json& object) override {
    (void)object;
    if (request.resource == "namespaces" && request.name == "held") {
      entered.Notify();
      release.WaitForNotification();
    }
    return absl::OkStatus();
  }
  absl::Notification entered, release;
};

TEST(MaxInFlightServerTest, MutatingRequestsOverTheLimitGet429) {
  auto store = store::NewMemoryStore();
  ApiServerOptions options;
  options.max_mutating_requests_inflight = 1;
  options.tokens.push_back(
      auth::StaticToken{"admin", {"admin", "", {"system:masters"}, {}}});
  options.tokens.push_back(auth::StaticToken{"alice", {"alice", "", {}, {}}});
  auto gate = std::make_shared<Gate>();
  options.admission.push_back(gate);
  ApiServer server(store.get(), options);
  auto ns = [](const std::string& name) {
    return R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" +
           name + R"("}})";
  };
  Response held;
  std::thread first([&] {
    held =
        DoWithToken(server, "alice", "POST", "/api/v1/namespaces", ns("held"));
  });
  gate->entered.WaitForNotification();
  Response refused =
      DoWithToken(server, "alice", "POST", "/api/v1/namespaces", ns("b"));
  EXPECT_EQ(refused.code, 429);
  EXPECT_EQ(refused.Header("Retry-After"), "1");
  EXPECT_EQ(refused.body, "Too many requests, please try again later.\n");
  // Reads have their own limit.
  EXPECT_EQ(DoWithToken(server, "admin", "GET", "/api/v1/namespaces").code,
            200);
  gate->release.Notify();
  first.join();
  EXPECT_EQ(held.code, 201) << held.body;
  EXPECT_EQ(
      DoWithToken(server, "alice", "POST", "/api/v1/namespaces", ns("b")).code,
      201)
      << "the place is free again";
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test
