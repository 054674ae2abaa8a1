// Quota for ResourceClaims end to end: the API server's ResourceQuota
// admission and this controller, as upstream's tests of the resourceclaims
// quota evaluator check them (object count, devices per class, release on
// deletion).
#include "controllers/resource_quota_controller.h"

#include "api/object_codec.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"
#include "testing/in_process_cluster.h"

namespace draplane::controllers {
namespace {

using api::Json;
using draplane::testing::Eventually;

Json Quota() {
  return {{"apiVersion", "v1"},
          {"kind", "ResourceQuota"},
          {"metadata", {{"name", "gpu-quota"}, {"namespace", "ml"}}},
          {"spec",
           {{"hard",
             {{"count/resourceclaims.resource.k8s.io", "2"},
              {"gpu.deviceclass.resource.k8s.io/devices", "3"},
              {"requests.cpu", "4"}}}}}};
}

api::Object Claim(const std::string& name, int gpus) {
  Json json = {{"apiVersion", "resource.k8s.io/v1"},
               {"kind", "ResourceClaim"},
               {"metadata", {{"name", name}, {"namespace", "ml"}}},
               {"spec",
                {{"devices",
                  {{"requests", Json::array({{{"name", "gpu"},
                                              {"exactly",
                                               {{"deviceClassName", "gpu"},
                                                {"count", gpus}}}}})}}}}}};
  return api::DecodeObject(json)->object;
}

std::map<std::string, std::string> Used(client::Client& c) {
  std::map<std::string, std::string> out;
  auto q = c.Get(client::Kind("ResourceQuota"), "ml", "gpu-quota");
  if (!q.ok()) return out;
  for (const auto& [name, value] :
       std::get<api::ResourceQuota>(q->value).status.used) {
    out[name] = value.ToString();
  }
  return out;
}

TEST(ResourceQuotaTest, ClaimsAreCountedRefusedAndReleased) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate({{"apiVersion", "v1"},
                       {"kind", "Namespace"},
                       {"metadata", {{"name", "ml"}}}});
  cluster->MustCreate(Quota());
  ResourceQuotaController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  using Used_t = std::map<std::string, std::string>;
  ASSERT_TRUE(Eventually([&] {
    return Used(c) == Used_t{{"count/resourceclaims.resource.k8s.io", "0"},
                             {"gpu.deviceclass.resource.k8s.io/devices", "0"}};
  })) << "status.hard set and claim usage counted";
  auto quota = c.Get(client::Kind("ResourceQuota"), "ml", "gpu-quota");
  EXPECT_EQ(std::get<api::ResourceQuota>(quota->value).status.hard.size(), 3u);

  ASSERT_TRUE(c.Create(Claim("a", 2)).ok());
  // Charged by the admission at once.
  EXPECT_EQ(Used(c),
            (Used_t{{"count/resourceclaims.resource.k8s.io", "1"},
                    {"gpu.deviceclass.resource.k8s.io/devices", "2"}}));

  absl::StatusOr<api::Object> b = c.Create(Claim("b", 2));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(client::Reason(b.status()), "Forbidden");
  EXPECT_EQ(b.status().message(),
            "resourceclaims.resource.k8s.io \"b\" is forbidden: exceeded "
            "quota: gpu-quota, requested: "
            "gpu.deviceclass.resource.k8s.io/devices=2, used: "
            "gpu.deviceclass.resource.k8s.io/devices=2, limited: "
            "gpu.deviceclass.resource.k8s.io/devices=3");

  ASSERT_TRUE(c.Create(Claim("c", 1)).ok());
  absl::StatusOr<api::Object> d = c.Create(Claim("d", 1));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(),
            "resourceclaims.resource.k8s.io \"d\" is forbidden: exceeded "
            "quota: gpu-quota, requested: "
            "count/resourceclaims.resource.k8s.io=1,"
            "gpu.deviceclass.resource.k8s.io/devices=1, used: "
            "count/resourceclaims.resource.k8s.io=2,"
            "gpu.deviceclass.resource.k8s.io/devices=3, limited: "
            "count/resourceclaims.resource.k8s.io=2,"
            "gpu.deviceclass.resource.k8s.io/devices=3");
  EXPECT_FALSE(c.Get(client::Kind("ResourceClaim"), "ml", "d").ok());

  // Deleting a claim gives its share back.
  ASSERT_TRUE(c.Delete(client::Kind("ResourceClaim"), "ml", "a").ok());
  ASSERT_TRUE(Eventually([&] {
    return Used(c) == Used_t{{"count/resourceclaims.resource.k8s.io", "1"},
                             {"gpu.deviceclass.resource.k8s.io/devices", "1"}};
  })) << Used(c).size();
  ASSERT_TRUE(c.Create(Claim("d", 1)).ok());
  EXPECT_GE(controller.status_writes(), 2);
}

TEST(ResourceQuotaTest, AQuotaTheControllerHasNotSeenRefusesWithStatusUnknown) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate({{"apiVersion", "v1"},
                       {"kind", "Namespace"},
                       {"metadata", {{"name", "ml"}}}});
  cluster->MustCreate(Quota());
  absl::StatusOr<api::Object> a = c.Create(Claim("a", 1));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(),
            "resourceclaims.resource.k8s.io \"a\" is forbidden: status unknown "
            "for quota: gpu-quota, resources: "
            "count/resourceclaims.resource.k8s.io,"
            "gpu.deviceclass.resource.k8s.io/devices");
  // Claims elsewhere are not affected.
  api::Object other = Claim("x", 1);
  std::get<api::ResourceClaim>(other.value).metadata.namespace_ = "default";
  EXPECT_TRUE(c.Create(other).ok());
}

}  // namespace
}  // namespace draplane::controllers
