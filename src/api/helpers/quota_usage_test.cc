#include "api/helpers/quota_usage.h"

#include "api/object_codec.h"
#include "gtest/gtest.h"

namespace draplane::api {
namespace {

ResourceClaim Claim(const Json& requests) {
  Json json = {{"apiVersion", "resource.k8s.io/v1"},
               {"kind", "ResourceClaim"},
               {"metadata", {{"name", "c"}, {"namespace", "ns"}}},
               {"spec", {{"devices", {{"requests", requests}}}}}};
  absl::StatusOr<DecodeResult> r = DecodeObject(json);
  EXPECT_TRUE(r.ok()) << r.status();
  return std::get<ResourceClaim>(r->object.value);
}

TEST(ClaimQuotaUsageTest, CountsAsUpstreamsEvaluator) {
  ResourceClaim claim = Claim(Json::array({
      {{"name", "two"},
       {"exactly",
        {{"deviceClassName", "gpu"},
         {"allocationMode", "ExactCount"},
         {"count", 2}}}},
      {{"name", "all"},
       {"exactly", {{"deviceClassName", "nic"}, {"allocationMode", "All"}}}},
      // The worst case per class over the subrequests: 4 gpu, 1 mig.
      {{"name", "either"},
       {"firstAvailable", Json::array({{{"name", "big"},
                                        {"deviceClassName", "gpu"},
                                        {"allocationMode", "ExactCount"},
                                        {"count", 4}},
                                       {{"name", "small"},
                                        {"deviceClassName", "gpu"},
                                        {"allocationMode", "ExactCount"},
                                        {"count", 1}},
                                       {{"name", "slice"},
                                        {"deviceClassName", "mig"},
                                        {"allocationMode", "ExactCount"},
                                        {"count", 1}}})}},
  }));
  std::map<std::string, int64_t> want = {
      {"count/resourceclaims.resource.k8s.io", 1},
      {"gpu.deviceclass.resource.k8s.io/devices", 6},
      {"nic.deviceclass.resource.k8s.io/devices", 32},
      {"mig.deviceclass.resource.k8s.io/devices", 1},
  };
  EXPECT_EQ(ClaimQuotaUsage(claim), want);
}

TEST(ClaimQuotaUsageTest, ResourceNames) {
  EXPECT_TRUE(IsClaimQuotaResource("count/resourceclaims.resource.k8s.io"));
  EXPECT_TRUE(IsClaimQuotaResource(
      "gpu.nvidia.com.deviceclass.resource.k8s.io/devices"));
  EXPECT_FALSE(IsClaimQuotaResource(".deviceclass.resource.k8s.io/devices"));
  EXPECT_FALSE(IsClaimQuotaResource("requests.cpu"));
  EXPECT_FALSE(IsClaimQuotaResource("count/pods"));
}

}  // namespace
}  // namespace draplane::api
