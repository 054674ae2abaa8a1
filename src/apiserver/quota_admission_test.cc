// ResourceQuota admission under concurrency: however many creates race,
// no more claims are admitted and stored than spec.hard allows, and
// status.used counts exactly those.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/api_server_test_util.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

class QuotaAdmissionTest : public ApiServerTest {
 protected:
  // Namespace `ns` with quota "q" limiting `resource` to `hard`, its
  // status written as the quota controller would (hard known, used 0).
  void Limit(const std::string& ns, const std::string& resource, int hard) {
    ASSERT_EQ(Do("POST", "/api/v1/namespaces",
                 api::DumpJson(Json{{"apiVersion", "v1"},
                                    {"kind", "Namespace"},
                                    {"metadata", {{"name", ns}}}}))
                  .code,
              201);
    const std::string quotas =
        StrCat("/api/v1/namespaces/", ns, "/resourcequotas");
    Json quota = {{"apiVersion", "v1"},
                  {"kind", "ResourceQuota"},
                  {"metadata", {{"name", "q"}}},
                  {"spec", {{"hard", {{resource, std::to_string(hard)}}}}}};
    Response created = Do("POST", quotas, api::DumpJson(quota));
    ASSERT_EQ(created.code, 201) << created.body;
    Json with_status = created.JsonBody();
    with_status["status"] = {{"hard", {{resource, std::to_string(hard)}}},
                             {"used", {{resource, "0"}}}};
    ASSERT_EQ(Do("PUT", quotas + "/q/status", api::DumpJson(with_status)).code,
              200);
  }

  // Creates `n` claims in `ns` from `n` threads at once; how many were
  // admitted (201).
  int CreateConcurrently(const std::string& ns, int n) {
    const std::string claims =
        StrCat("/apis/resource.k8s.io/v1/namespaces/", ns, "/resourceclaims");
    std::atomic<int> admitted{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        while (!go.load()) std::this_thread::yield();
        if (Do("POST", claims, Claim(StrCat("c", i))).code == 201) {
          ++admitted;
        }
      });
    }
    go = true;
    for (std::thread& t : threads) t.join();
    return admitted.load();
  }

  size_t Stored(const std::string& ns) {
    return Do("GET", StrCat("/apis/resource.k8s.io/v1/namespaces/", ns,
                            "/resourceclaims"))
        .JsonBody()["items"]
        .size();
  }

  std::string Used(const std::string& ns, const std::string& resource) {
    return Do("GET", StrCat("/api/v1/namespaces/", ns, "/resourcequotas/q"))
        .JsonBody()["status"]["used"][resource];
  }

  void Trials(const std::string& resource, int creates, int trials) {
    for (int trial = 0; trial < trials; ++trial) {
      const std::string ns = StrCat("t", creates, "-", trial);
      Limit(ns, resource, 5);
      EXPECT_EQ(CreateConcurrently(ns, creates), 5) << ns;
      EXPECT_EQ(Stored(ns), 5u) << ns;
      EXPECT_EQ(Used(ns, resource), "5") << ns;
    }
  }
};

constexpr char kCount[] = "count/resourceclaims.resource.k8s.io";
constexpr char kDevices[] =
    "gpu.example.com.deviceclass.resource.k8s.io/devices";

TEST_F(QuotaAdmissionTest, ExactlyHardClaimsOfFortyConcurrentCreates) {
  Trials(kCount, 40, 20);
}

TEST_F(QuotaAdmissionTest, ExactlyHardClaimsOfTwoHundredConcurrentCreates) {
  Trials(kCount, 200, 20);
}

TEST_F(QuotaAdmissionTest, ExactlyHardDevicesOfConcurrentCreates) {
  Trials(kDevices, 40, 20);
  Trials(kDevices, 200, 20);
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test
