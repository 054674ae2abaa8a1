#include "controllers/resource_claim_controller.h"

#include <set>

#include "absl/time/clock.h"
#include "api/helpers/pod_claims.h"
#include "api/object_codec.h"
#include "clock/simulated_clock.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"
#include "testing/in_process_cluster.h"

namespace draplane::controllers {
namespace {

using api::Json;
using draplane::testing::Consistently;
using draplane::testing::Eventually;

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
  EXPECT_EQ(rc.metadata.annotations.at(api::kAnnotationPodClaimName), "gpus");
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
  EXPECT_TRUE(Consistently([&] {
    auto claims = c.List(client::Kind("ResourceClaim"), "default");
    return claims.ok() && claims->items.size() == 21;
  }));
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
  EXPECT_TRUE(Consistently([&] { return controller.claims_created() == 0; },
                           absl::Milliseconds(50)));
  cluster->MustCreate(Template());
  ASSERT_TRUE(Eventually([&] { return controller.claims_created() == 1; }));
}

// ------------------------------------------------- reservations, deallocation

// A user-created claim (resourceClaimName in pods), with the scheduler's
// finalizer.
Json NamedClaim(const std::string& name) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaim"},
          {"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"finalizers",
             Json::array({"resource.kubernetes.io/delete-protection"})}}},
          {"spec",
           {{"devices",
             {{"requests",
               Json::array({{{"name", "gpu"},
                             {"exactly", {{"deviceClassName", "gpu"}}}}})}}}}}};
}

Json PodUsing(const std::string& name, const std::string& claim,
              const std::string& node) {
  Json pod = Pod(name);
  pod["spec"]["resourceClaims"] =
      Json::array({{{"name", "gpus"}, {"resourceClaimName", claim}}});
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

std::string Uid(const api::Object& o) { return o.metadata()->uid; }

// Writes status.allocation (one device) and status.reservedFor as the
// scheduler would.
void Allocate(client::Client& c, const std::string& claim,
              const std::vector<std::pair<std::string, std::string>>& pods,
              const std::string& device = "gpu-0") {
  Json reserved = Json::array();
  for (const auto& [name, uid] : pods) {
    reserved.push_back({{"resource", "pods"}, {"name", name}, {"uid", uid}});
  }
  Json status = {{"status",
                  {{"allocation",
                    {{"devices",
                      {{"results", Json::array({{{"request", "gpu"},
                                                 {"driver", "gpu.example.com"},
                                                 {"pool", "node-1"},
                                                 {"device", device}}})}}}}},
                   {"reservedFor", reserved}}}};
  client::PatchOptions o;
  o.subresource = "status";
  auto patched = c.Patch(client::Kind("ResourceClaim"), "default", claim,
                         client::PatchType::kMerge, api::DumpJson(status), o);
  ASSERT_TRUE(patched.ok()) << patched.status();
}

absl::StatusOr<api::ResourceClaim> GetClaim(client::Client& c,
                                            const std::string& name) {
  auto o = c.Get(client::Kind("ResourceClaim"), "default", name);
  if (!o.ok()) return o.status();
  return std::get<api::ResourceClaim>(o->value);
}

bool Deallocated(client::Client& c, const std::string& name) {
  auto claim = GetClaim(c, name);
  return claim.ok() && !claim->status.allocation.has_value() &&
         claim->status.reserved_for.empty() &&
         claim->metadata.finalizers.empty();
}

void SetPhase(client::Client& c, const std::string& pod, const char* phase) {
  client::PatchOptions o;
  o.subresource = "status";
  Json body = {{"status", {{"phase", phase}}}};
  auto patched = c.Patch(client::Kind("Pod"), "default", pod,
                         client::PatchType::kMerge, api::DumpJson(body), o);
  ASSERT_TRUE(patched.ok()) << patched.status();
}

TEST(ResourceClaimControllerTest, DeletingTheLastReservingPodDeallocates) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(NamedClaim("shared"));
  std::string a = Uid(cluster->MustCreate(PodUsing("a", "shared", "node-1")));
  std::string b = Uid(cluster->MustCreate(PodUsing("b", "shared", "node-1")));
  Allocate(c, "shared", {{"a", a}, {"b", b}});
  ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());

  ASSERT_TRUE(c.Delete(client::Kind("Pod"), "default", "a").ok());
  ASSERT_TRUE(Eventually([&] {
    auto claim = GetClaim(c, "shared");
    return claim.ok() && claim->status.reserved_for.size() == 1;
  }));
  // Still used by b: allocated, protected.
  auto claim = GetClaim(c, "shared");
  EXPECT_EQ(claim->status.reserved_for[0].name, "b");
  EXPECT_TRUE(claim->status.allocation.has_value());
  EXPECT_EQ(claim->metadata.finalizers.size(), 1u);

  ASSERT_TRUE(c.Delete(client::Kind("Pod"), "default", "b").ok());
  ASSERT_TRUE(Eventually([&] { return Deallocated(c, "shared"); }));
  // A user's claim stays (only generated claims are deleted).
  EXPECT_TRUE(GetClaim(c, "shared").ok());
  ASSERT_TRUE(Eventually(
      [&] { return controller.stats().allocated_resource_claims == 0; }));
  EXPECT_EQ(controller.stats().resource_claims, 1);
}

TEST(ResourceClaimControllerTest,
     AFinishedPodReleasesAndDeletesItsGeneratedClaim) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(Template());
  std::string uid = Uid(cluster->MustCreate(Pod("job")));
  ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  std::string claim_name;
  ASSERT_TRUE(Eventually([&] {
    auto p = c.Get(client::Kind("Pod"), "default", "job");
    const auto& st =
        std::get<api::Pod>(p->value).status.resource_claim_statuses;
    if (st.size() != 1) return false;
    claim_name = *st[0].resource_claim_name;
    return true;
  }));
  // The scheduler: finalizer, allocation, reservation.
  Json finalizer = {
      {"metadata",
       {{"finalizers",
         Json::array({std::string(api::kFinalizerDeleteProtection)})}}}};
  ASSERT_TRUE(c.Patch(client::Kind("ResourceClaim"), "default", claim_name,
                      client::PatchType::kMerge, api::DumpJson(finalizer))
                  .ok());
  Allocate(c, claim_name, {{"job", uid}});
  ASSERT_TRUE(Consistently(
      [&] { return GetClaim(c, claim_name)->status.allocation.has_value(); },
      absl::Milliseconds(100)))
      << "a running pod's claim must stay allocated";

  SetPhase(c, "job", "Succeeded");
  ASSERT_TRUE(Eventually([&] {
    return client::IsNotFound(GetClaim(c, claim_name).status());
  })) << "the generated claim of a finished pod is deleted";
  // The pod itself stays (nothing deletes finished pods here).
  EXPECT_TRUE(c.Get(client::Kind("Pod"), "default", "job").ok());
}

TEST(ResourceClaimControllerTest,
     ReservesAnAllocatedClaimForAPodBoundWithoutTheScheduler) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(NamedClaim("pre"));
  std::string other =
      Uid(cluster->MustCreate(PodUsing("first", "pre", "node-1")));
  Allocate(c, "pre", {{"first", other}});
  ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  // nodeName preset by the user: no scheduler will reserve the claim.
  std::string uid =
      Uid(cluster->MustCreate(PodUsing("direct", "pre", "node-1")));
  ASSERT_TRUE(Eventually([&] {
    auto claim = GetClaim(c, "pre");
    return claim.ok() && claim->status.reserved_for.size() == 2;
  }));
  auto claim = GetClaim(c, "pre");
  EXPECT_EQ(claim->status.reserved_for[1].resource, "pods");
  EXPECT_EQ(claim->status.reserved_for[1].name, "direct");
  EXPECT_EQ(claim->status.reserved_for[1].uid, uid);
  // A pod not yet bound is the scheduler's business.
  cluster->MustCreate(PodUsing("pending", "pre", ""));
  EXPECT_TRUE(Consistently(
      [&] { return GetClaim(c, "pre")->status.reserved_for.size() == 2; }));
}

TEST(ResourceClaimControllerTest,
     StaleAndReplacedReservationsAreDroppedAtStart) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(NamedClaim("stale"));
  std::string replaced =
      Uid(cluster->MustCreate(PodUsing("replaced", "stale", "node-1")));
  std::string live =
      Uid(cluster->MustCreate(PodUsing("live", "stale", "node-1")));
  // Reserved for a pod that never existed, an earlier incarnation of
  // "replaced" (another uid), and a live pod.
  Allocate(c, "stale",
           {{"ghost", "00000000-0000-0000-0000-000000000001"},
            {"replaced", "00000000-0000-0000-0000-000000000002"},
            {"live", live}});
  ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  // The two stale entries go; the bound pod now called "replaced" uses
  // the allocated claim without a reservation, so it gets one (as a pod
  // bound with a preset nodeName).
  std::set<std::string> want = {live, replaced};
  ASSERT_TRUE(Eventually([&] {
    auto claim = GetClaim(c, "stale");
    if (!claim.ok()) return false;
    std::set<std::string> uids;
    for (const auto& r : claim->status.reserved_for) uids.insert(r.uid);
    return uids == want && claim->status.reserved_for.size() == 2;
  }));
  EXPECT_TRUE(GetClaim(c, "stale")->status.allocation.has_value());
}

TEST(ResourceClaimControllerTest, ADeletedUnusedClaimIsDeallocatedAndReleased) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(NamedClaim("leftover"));
  Allocate(c, "leftover", {});
  ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  // Allocated but never used: upstream leaves it allocated...
  ASSERT_TRUE(Consistently(
      [&] { return GetClaim(c, "leftover")->status.allocation.has_value(); },
      absl::Milliseconds(100)));
  // ...until it is deleted: then the finalizer must not block forever.
  ASSERT_TRUE(
      c.Delete(client::Kind("ResourceClaim"), "default", "leftover").ok());
  ASSERT_TRUE(Eventually(
      [&] { return client::IsNotFound(GetClaim(c, "leftover").status()); }));
}

TEST(ResourceClaimControllerTest, AMissingTemplateIsAWarningEventOnThePod) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(Pod("orphan"));
  ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  std::string message;
  ASSERT_TRUE(Eventually([&] {
    auto events = c.List(client::Kind("Event"), "default");
    for (const auto& e : events->items) {
      const auto& ev = std::get<api::Event>(e.value);
      if (ev.reason == "FailedResourceClaimCreation" &&
          ev.involved_object.name == "orphan") {
        EXPECT_EQ(ev.type, "Warning");
        EXPECT_EQ(ev.involved_object.kind, "Pod");
        EXPECT_EQ(ev.source->component, "resource_claim");
        message = ev.message;
        return true;
      }
    }
    return false;
  }));
  EXPECT_EQ(message,
            "PodResourceClaim gpus: resource claim template \"gpu-template\": "
            "resourceclaimtemplate.resource.k8s.io \"gpu-template\" not found");
  EXPECT_EQ(controller.stats().create_attempts, 0);
  EXPECT_EQ(controller.claims_created(), 0);
}

TEST(ResourceClaimControllerTest, CountsClaimsAndCreateAttempts) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(Template());
  cluster->MustCreate(Pod("one"));
  cluster->MustCreate(Pod("two"));
  cluster->MustCreate(NamedClaim("user"));
  Allocate(c, "user", {});
  metrics::Registry registry;
  ResourceClaimControllerOptions options;
  options.metrics = &registry;
  ResourceClaimController controller(&c, options);
  ASSERT_TRUE(controller.Start().ok());
  ASSERT_TRUE(Eventually([&] {
    return controller.claims_created() == 2 &&
           controller.stats().resource_claims == 3;
  }));
  ResourceClaimControllerStats stats = controller.stats();
  EXPECT_EQ(stats.create_attempts, 2);
  EXPECT_EQ(stats.create_failures, 0);
  EXPECT_EQ(stats.allocated_resource_claims, 1);
  // Upstream's metrics.
  std::string text = registry.Text();
  for (const char* sample :
       {"dynamic_resource_allocation_resourceclaim_creates_total{admin_access="
        "\"false\",status=\"success\"} 2\n",
        "dynamic_resource_allocation_resource_claims{admin_access=\"false\","
        "allocated=\"false\",source=\"resource_claim_template\"} 2\n",
        "dynamic_resource_allocation_resource_claims{admin_access=\"false\","
        "allocated=\"true\",source=\"\"} 1\n"}) {
    EXPECT_NE(text.find(sample), std::string::npos) << sample << text;
  }
}

// Runs `checks` leak checks on the controller's simulated clock: the leak
// thread and every worker wait on it, and the leak thread is back waiting
// at the new time only once its check is done.
void RunLeakChecks(SimulatedClock& clock,
                   const ResourceClaimControllerOptions& options, int checks) {
  const int waiters = options.workers + 1;
  for (int i = 0; i < checks; ++i) {
    ASSERT_TRUE(clock.AwaitWaiters(waiters));
    clock.Advance(options.leak_check_period);
  }
  ASSERT_TRUE(clock.AwaitWaiters(waiters));
}

TEST(ResourceClaimControllerTest,
     TheLeakCheckFreesAGeneratedClaimWhosePodIsGone) {
  // No garbage collector: nothing else would ever delete the claim.
  testing::InProcessClusterOptions cluster_options;
  cluster_options.controller_period = absl::InfiniteDuration();
  auto cluster = *testing::InProcessCluster::Start(cluster_options);
  client::Client& c = cluster->client();
  // Generated for a pod that no longer exists, allocated, not reserved.
  Json claim = NamedClaim("orphan-gpus-x1y2z");
  claim["metadata"]["annotations"] = {
      {"resource.kubernetes.io/pod-claim-name", "gpus"}};
  claim["metadata"]["ownerReferences"] =
      Json::array({{{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"name", "orphan"},
                    {"uid", "00000000-0000-0000-0000-0000000000aa"},
                    {"controller", true}}});
  cluster->MustCreate(claim);
  Allocate(c, "orphan-gpus-x1y2z", {});
  // A user's claim allocated and unused is not a leak.
  cluster->MustCreate(NamedClaim("kept"));
  Allocate(c, "kept", {}, "gpu-1");

  metrics::Registry registry;
  SimulatedClock clock;
  ResourceClaimControllerOptions options;
  options.metrics = &registry;
  options.clock = &clock;
  ResourceClaimController controller(&c, options);
  ASSERT_TRUE(controller.Start().ok());
  // A claim is a leak when two checks in a row find it so.
  for (int check = 0;
       check < 4 &&
       !client::IsNotFound(GetClaim(c, "orphan-gpus-x1y2z").status());
       ++check) {
    RunLeakChecks(clock, options, 1);
  }
  EXPECT_TRUE(client::IsNotFound(GetClaim(c, "orphan-gpus-x1y2z").status()))
      << "the leaked claim is deallocated and deleted";
  EXPECT_EQ(controller.stats().leaked_devices, 1);
  EXPECT_NE(registry.Text().find("dra_leaked_devices_total 1\n"),
            std::string::npos)
      << registry.Text();
  RunLeakChecks(clock, options, 3);
  EXPECT_TRUE(GetClaim(c, "kept")->status.allocation.has_value());
  EXPECT_EQ(controller.stats().leaked_devices, 1) << "counted once";
}

TEST(ResourceClaimControllerTest, ReservationsReleasedByEventsAreNotLeaks) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(NamedClaim("shared"));
  std::string a = Uid(cluster->MustCreate(PodUsing("a", "shared", "node-1")));
  Allocate(c, "shared", {{"a", a}});
  SimulatedClock clock;
  ResourceClaimControllerOptions options;
  options.clock = &clock;
  ResourceClaimController controller(&c, options);
  ASSERT_TRUE(controller.Start().ok());
  ASSERT_TRUE(c.Delete(client::Kind("Pod"), "default", "a").ok());
  ASSERT_TRUE(Eventually([&] { return Deallocated(c, "shared"); }));
  RunLeakChecks(clock, options, 2);
  EXPECT_EQ(controller.stats().leaked_devices, 0);
}

}  // namespace
}  // namespace draplane::controllers
