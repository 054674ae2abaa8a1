#include "controllers/resource_claim_controller.h"

#include "absl/time/clock.h"
#include "api/object_codec.h"
#include "gtest/gtest.h"
#include "testing/in_process_cluster.h"

namespace draplane::controllers {
namespace {

using api::Json;

TEST(GeneratePodClaimNameTest, ShortNamesKeepBothPartsAndAHyphen) {
  EXPECT_EQ(GeneratePodClaimName("my-pod", "gpu"), "my-pod-gpu-");
}

TEST(GeneratePodClaimNameTest, LongNamesAreTruncatedProportionally) {
  // "<60 a>-gpu-" is 65 characters: 60*57/65 = 52 and 3*57/65 = 2.
  EXPECT_EQ(GeneratePodClaimName(std::string(60, 'a'), "gpu"),
            std::string(52, 'a') + "-gp");
  // 30 + 30: 62 characters; each part keeps 30*57/62 = 27.
  EXPECT_EQ(GeneratePodClaimName(std::string(30, 'p'), std::string(30, 'c')),
            std::string(27, 'p') + "-" + std::string(27, 'c'));
}

Json Template() {
  return {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaimTemplate"},
      {"metadata", {{"name", "gpu-template"}, {"namespace", "default"}}},
      {"spec",
       {{"metadata",
         {{"labels", {{"team", "ml"}}},
          {"annotations", {{"note", "from-template"}}}}},
        {"spec",
         {{"devices",
           {{"requests",
             Json::array({{{"name", "gpu"},
                           {"exactly", {{"deviceClassName", "gpu"}}}}})}}}}}}}};
}

Json Pod(const std::string& name) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"spec",
       {{"containers",
         Json::array({{{"name", "c"},
                       {"image", "x"},
                       {"resources",
                        {{"claims", Json::array({{{"name", "gpus"}}})}}}}})},
        {"resourceClaims",
         Json::array({{{"name", "gpus"},
                       {"resourceClaimTemplateName", "gpu-template"}}})}}}};
}

// Waits until `done` holds (polling the API), up to 10 s.
template <typename F>
bool Eventually(F done) {
  absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline) {
    if (done()) return true;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return false;
}

TEST(ResourceClaimControllerTest, CreatesClaimsFromTemplatesOnce) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(Template());
  api::Object pod = cluster->MustCreate(Pod("trainer"));
  ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());

  std::string claim_name;
  ASSERT_TRUE(Eventually([&] {
    auto p = c.Get(client::Kind("Pod"), "default", "trainer");
    if (!p.ok()) return false;
    const auto& st =
        std::get<api::Pod>(p->value).status.resource_claim_statuses;
    if (st.size() != 1 || !st[0].resource_claim_name.has_value()) return false;
    EXPECT_EQ(st[0].name, "gpus");
    claim_name = *st[0].resource_claim_name;
    return true;
  }));
  EXPECT_EQ(claim_name.rfind("trainer-gpus-", 0), 0u) << claim_name;
  EXPECT_EQ(claim_name.size(), std::string("trainer-gpus-").size() + 5);

  auto claim = c.Get(client::Kind("ResourceClaim"), "default", claim_name);
  ASSERT_TRUE(claim.ok()) << claim.status();
  const auto& rc = std::get<api::ResourceClaim>(claim->value);
  EXPECT_EQ(rc.metadata.labels.at("team"), "ml");
  EXPECT_EQ(rc.metadata.annotations.at("note"), "from-template");
  EXPECT_EQ(rc.metadata.annotations.at(std::string(kPodClaimNameAnnotation)),
            "gpus");
  ASSERT_EQ(rc.metadata.owner_references.size(), 1u);
  const auto& owner = rc.metadata.owner_references[0];
  EXPECT_EQ(owner.kind, "Pod");
  EXPECT_EQ(owner.name, "trainer");
  EXPECT_EQ(owner.uid, std::get<api::Pod>(pod.value).metadata.uid);
  EXPECT_TRUE(owner.controller.value_or(false));
  EXPECT_TRUE(owner.block_owner_deletion.value_or(false));
  ASSERT_EQ(rc.spec.devices.requests.size(), 1u);
  EXPECT_EQ(rc.spec.devices.requests[0].exactly->device_class_name, "gpu");

  // The pod's status field is owned by the controller's field manager.
  auto p = c.Get(client::Kind("Pod"), "default", "trainer");
  bool managed = false;
  for (const auto& m : p->metadata()->managed_fields) {
    managed |=
        m.manager == "ResourceClaimController" && m.subresource == "status";
  }
  EXPECT_TRUE(managed) << [&] {
    std::string out;
    for (const auto& m : p->metadata()->managed_fields) {
      out += m.manager + "/" + m.operation + "/" + m.subresource + " ";
    }
    return out;
  }();

  // More pods: each gets exactly one claim.
  for (int i = 0; i < 20; ++i) {
    cluster->MustCreate(Pod("p" + std::to_string(i)));
  }
  ASSERT_TRUE(Eventually([&] {
    auto claims = c.List(client::Kind("ResourceClaim"), "default");
    return claims.ok() && claims->items.size() == 21;
  }));
  absl::SleepFor(absl::Milliseconds(200));
  auto claims = c.List(client::Kind("ResourceClaim"), "default");
  EXPECT_EQ(claims->items.size(), 21u);
  EXPECT_EQ(controller.claims_created(), 21);
  controller.Stop();
}

TEST(ResourceClaimControllerTest, ReusesAClaimThePodAlreadyOwns) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(Template());
  api::Object pod = cluster->MustCreate(Pod("trainer"));
  // A claim created for this pod entry earlier (status write lost).
  Json claim = {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaim"},
      {"metadata",
       {{"name", "trainer-gpus-abcde"},
        {"namespace", "default"},
        {"annotations", {{"resource.kubernetes.io/pod-claim-name", "gpus"}}},
        {"ownerReferences",
         Json::array({{{"apiVersion", "v1"},
                       {"kind", "Pod"},
                       {"name", "trainer"},
                       {"uid", std::get<api::Pod>(pod.value).metadata.uid},
                       {"controller", true}}})}}},
      {"spec",
       {{"devices",
         {{"requests",
           Json::array({{{"name", "gpu"},
                         {"exactly", {{"deviceClassName", "gpu"}}}}})}}}}}};
  cluster->MustCreate(claim);
  ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  ASSERT_TRUE(Eventually([&] {
    auto p = c.Get(client::Kind("Pod"), "default", "trainer");
    const auto& st =
        std::get<api::Pod>(p->value).status.resource_claim_statuses;
    return st.size() == 1 && st[0].resource_claim_name == "trainer-gpus-abcde";
  }));
  EXPECT_EQ(controller.claims_created(), 0);
}

TEST(ResourceClaimControllerTest, MissingTemplateIsRetried) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(Pod("early"));
  ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(controller.claims_created(), 0);
  cluster->MustCreate(Template());
  ASSERT_TRUE(Eventually([&] { return controller.claims_created() == 1; }));
}

}  // namespace
}  // namespace draplane::controllers
