// Scheduling decisions on fake clusters (ClusterState fed directly, no
// API): the guide's examples, explanations, in-flight allocations, shared
// claims, policies, and the answer cache proven not to change decisions.
#include "scheduler/scheduling_cycle.h"

#include <array>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>

#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/testing/cluster_builder.h"
#include "testing/shared_test_data.h"

namespace draplane::scheduler {
namespace {

namespace fs = std::filesystem;
using api::Json;
using testing::Decode;

fs::path SeedDir() { return testing::SeedManifestsDir(); }

std::string ReadFile(const fs::path& p) { return testing::ReadFile(p); }

ObjectPtr Ptr(api::Object o) {
  return std::make_shared<const api::Object>(std::move(o));
}

class Cluster {
 public:
  explicit Cluster(std::string_view policy = "upstream",
                   CycleOptions options = {})
      : state(allocator::Features::Defaults()),
        policy_(*NewScoringPolicy(policy)),
        cycle(&state, policy_.get(), options) {}

  void Add(const api::Object& o) {
    ObjectPtr p = Ptr(o);
    const std::string& kind = o.kind();
    if (kind == "Node") state.SetNode(p);
    if (kind == "ResourceSlice") state.SetSlice(p);
    if (kind == "DeviceClass") state.SetDeviceClass(p);
    if (kind == "ResourceClaim") state.SetClaim(p);
    if (kind == "Pod") state.SetPod(p);
    if (kind == "Namespace") state.SetNamespace(p);
  }
  void Add(const Json& j) { Add(Decode(j)); }

  api::Pod Pod(const Json& j, std::string uid) {
    api::Object o = Decode(j);
    std::get<api::Pod>(o.value).metadata.uid = std::move(uid);
    Add(o);
    return std::get<api::Pod>(o.value);
  }

  // Schedules and reserves; the decision is kept as written by a binder
  // (the claim gets its allocation and reservation).
  Decision ScheduleAndCommit(const api::Pod& pod) {
    Decision d = cycle.Schedule(pod);
    if (d.kind != Decision::Kind::kScheduled) return d;
    cycle.Reserve(pod, d);
    for (const ClaimPlan& plan : d.claims) {
      api::Object o = *plan.claim;
      auto& claim = std::get<api::ResourceClaim>(o.value);
      if (plan.allocation.has_value())
        claim.status.allocation = plan.allocation;
      claim.status.reserved_for.push_back(
          {"", "pods", pod.metadata.name, pod.metadata.uid});
      claim.metadata.resource_version = std::to_string(++rv_);
      state.AssumeClaim(Ptr(o));
      state.RemoveInFlight(plan.claim_key);
    }
    api::Pod bound = pod;
    bound.spec.node_name = d.node;
    state.SetPod(Ptr(api::Object{{"v1", "Pod"}, bound}));
    return d;
  }

  ClusterState state;
  std::unique_ptr<ScoringPolicy> policy_;
  SchedulingCycle cycle;

 private:
  int rv_ = 1000;
};

TEST(SchedulingCycleTest, SeedDistributedTrainingLandsOnSharedNvlink) {
  fs::path dir = SeedDir();
  DRAPLANE_REQUIRE_SHARED_DATA(dir);
  Cluster c;
  for (const api::Object& o :
       testing::DecodeStream(ReadFile(dir / "02-deviceclasses.yaml"))) {
    c.Add(o);
  }
  std::vector<api::Object> seed =
      testing::DecodeStream(ReadFile(dir / "03-resourceclaim-and-pod.yaml"));
  ASSERT_EQ(seed.size(), 2u);
  // node-a: NVLink groups of 3, 3 and 2 (no four GPUs share one); node-b:
  // two groups of four; node-c: H100s.
  c.Add(testing::NodeJson("node-a"));
  c.Add(testing::SliceJson(
      "node-a", "gpu.nvidia.com",
      testing::NvidiaGpus(8, "NVIDIA A100 80GB PCIe",
                          [](int i) { return StrCat("nvl-", i / 3); })));
  c.Add(testing::NodeJson("node-b"));
  c.Add(testing::SliceJson(
      "node-b", "gpu.nvidia.com",
      testing::NvidiaGpus(8, "NVIDIA A100 80GB PCIe",
                          [](int i) { return StrCat("nvl-", i / 4); })));
  c.Add(testing::NodeJson("node-c"));
  c.Add(testing::SliceJson("node-c", "gpu.nvidia.com",
                           testing::NvidiaGpus(8, "NVIDIA H100 80GB HBM3",
                                               [](int i) { return "nvl-0"; })));
  c.Add(seed[0]);  // training-gpu-claim
  api::Object pod_object = seed[1];
  std::get<api::Pod>(pod_object.value).metadata.uid = "uid-training";
  c.Add(pod_object);
  const auto& pod = std::get<api::Pod>(pod_object.value);

  Decision d = c.cycle.Schedule(pod);
  ASSERT_EQ(d.kind, Decision::Kind::kScheduled) << d.message;
  EXPECT_EQ(d.node, "node-b");
  ASSERT_EQ(d.claims.size(), 1u);
  ASSERT_TRUE(d.claims[0].allocation.has_value());
  const auto& results = d.claims[0].allocation->devices.results;
  ASSERT_EQ(results.size(), 4u);
  std::set<std::string> groups;
  for (const auto& r : results) {
    EXPECT_EQ(r.driver, "gpu.nvidia.com");
    EXPECT_EQ(r.pool, "node-b");
    int index = std::stoi(r.device.substr(4));
    groups.insert(StrCat("nvl-", index / 4));
  }
  EXPECT_EQ(groups.size(), 1u) << "the four GPUs must share one NVLink value";
}

Json GpuClass() { return testing::GpuClassJson(); }

void AddGpuNodes(Cluster& c, int nodes, int gpus) {
  c.Add(GpuClass());
  for (int n = 0; n < nodes; ++n) {
    std::string name = StrCat("node-", n);
    c.Add(testing::NodeJson(name));
    c.Add(testing::SliceJson(name, "gpu.nvidia.com",
                             testing::NvidiaGpus(gpus, "NVIDIA A100")));
  }
}

TEST(SchedulingCycleTest, UnfitClaimExplainsWhy) {
  Cluster c;
  AddGpuNodes(c, 2, 8);
  c.Add(testing::ClaimJson("default", "big", "gpu", 9));
  api::Pod pod = c.Pod(testing::ClaimPodJson("default", "p", "big"), "u1");
  Decision d = c.cycle.Schedule(pod);
  ASSERT_EQ(d.kind, Decision::Kind::kUnschedulable);
  EXPECT_EQ(d.message.rfind("0/2 nodes are available: 2 cannot allocate all "
                            "claims.",
                            0),
            0u)
      << d.message;
  EXPECT_NE(d.message.find("On node node-0 (and 1 more alike): claim "
                           "default/big: request gpu (class gpu) needs 9 "
                           "devices: the node's pools offer 8"),
            std::string::npos)
      << d.message;
  EXPECT_NE(d.message.find("1 short"), std::string::npos) << d.message;
}

TEST(SchedulingCycleTest, InFlightAllocationsAreNeverHandedOutTwice) {
  Cluster c;
  AddGpuNodes(c, 1, 2);
  c.Add(testing::ClaimJson("default", "a", "gpu", 1));
  c.Add(testing::ClaimJson("default", "b", "gpu", 1));
  c.Add(testing::ClaimJson("default", "x", "gpu", 1));
  api::Pod pa = c.Pod(testing::ClaimPodJson("default", "pa", "a"), "ua");
  api::Pod pb = c.Pod(testing::ClaimPodJson("default", "pb", "b"), "ub");
  api::Pod px = c.Pod(testing::ClaimPodJson("default", "px", "x"), "ux");
  // Reserved but not written: the devices are in flight.
  Decision da = c.cycle.Schedule(pa);
  ASSERT_EQ(da.kind, Decision::Kind::kScheduled);
  c.cycle.Reserve(pa, da);
  Decision db = c.cycle.Schedule(pb);
  ASSERT_EQ(db.kind, Decision::Kind::kScheduled);
  c.cycle.Reserve(pb, db);
  EXPECT_NE(da.claims[0].allocation->devices.results[0].device,
            db.claims[0].allocation->devices.results[0].device);
  Decision dx = c.cycle.Schedule(px);
  EXPECT_EQ(dx.kind, Decision::Kind::kUnschedulable) << dx.message;
  EXPECT_NE(dx.message.find("2 of those are allocated to other claims"),
            std::string::npos)
      << dx.message;
  // Unreserve gives the device back.
  c.cycle.Unreserve(pb, db);
  Decision again = c.cycle.Schedule(px);
  ASSERT_EQ(again.kind, Decision::Kind::kScheduled) << again.message;
  EXPECT_EQ(again.claims[0].allocation->devices.results[0].device,
            db.claims[0].allocation->devices.results[0].device);
}

TEST(SchedulingCycleTest, PodsSharingAClaimOnlyReserve) {
  Cluster c;
  AddGpuNodes(c, 3, 1);
  c.Add(testing::ClaimJson("default", "shared", "gpu", 1));
  api::Pod p1 = c.Pod(testing::ClaimPodJson("default", "p1", "shared"), "u1");
  api::Pod p2 = c.Pod(testing::ClaimPodJson("default", "p2", "shared"), "u2");
  Decision d1 = c.ScheduleAndCommit(p1);
  ASSERT_EQ(d1.kind, Decision::Kind::kScheduled);
  Decision d2 = c.cycle.Schedule(p2);
  ASSERT_EQ(d2.kind, Decision::Kind::kScheduled) << d2.message;
  EXPECT_EQ(d2.node, d1.node);  // the allocation's node selector
  ASSERT_EQ(d2.claims.size(), 1u);
  EXPECT_FALSE(d2.claims[0].allocation.has_value());
  EXPECT_TRUE(d2.claims[0].reserve);
}

TEST(SchedulingCycleTest, SharedClaimBeingAllocatedMakesOthersWait) {
  Cluster c;
  AddGpuNodes(c, 1, 1);
  c.Add(testing::ClaimJson("default", "shared", "gpu", 1));
  api::Pod p1 = c.Pod(testing::ClaimPodJson("default", "p1", "shared"), "u1");
  api::Pod p2 = c.Pod(testing::ClaimPodJson("default", "p2", "shared"), "u2");
  Decision d1 = c.cycle.Schedule(p1);
  ASSERT_EQ(d1.kind, Decision::Kind::kScheduled);
  c.cycle.Reserve(p1, d1);
  Decision d2 = c.cycle.Schedule(p2);
  EXPECT_EQ(d2.kind, Decision::Kind::kUnschedulable);
  EXPECT_EQ(d2.message,
            "0/1 nodes are available: resource claim default/shared is in "
            "the process of being allocated.");
}

TEST(SchedulingCycleTest, TemplatePodWaitsForItsClaim) {
  Cluster c;
  AddGpuNodes(c, 1, 1);
  api::Pod pod = c.Pod(
      testing::TemplatePodJson("default", "p", "test-claim-template"), "u1");
  Decision d = c.cycle.Schedule(pod);
  EXPECT_EQ(d.kind, Decision::Kind::kWaiting);
  EXPECT_EQ(d.message, "pod \"default/p\": ResourceClaim not created yet");

  pod.status.resource_claim_statuses.push_back({"resource", "p-resource-x"});
  d = c.cycle.Schedule(pod);
  EXPECT_EQ(d.kind, Decision::Kind::kWaiting);
  EXPECT_EQ(d.waiting_for_claim, "default/p-resource-x");

  // A claim not controlled by the pod is refused.
  Json claim = testing::ClaimJson("default", "p-resource-x", "gpu", 1);
  c.Add(claim);
  d = c.cycle.Schedule(pod);
  EXPECT_EQ(d.kind, Decision::Kind::kWaiting);
  EXPECT_EQ(d.message,
            "ResourceClaim default/p-resource-x was not created for pod "
            "default/p (pod is not owner)");
  claim["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", "v1"},
                                                       {"kind", "Pod"},
                                                       {"name", "p"},
                                                       {"uid", "u1"},
                                                       {"controller", true}}});
  c.Add(claim);
  d = c.cycle.Schedule(pod);
  EXPECT_EQ(d.kind, Decision::Kind::kScheduled) << d.message;
}

TEST(SchedulingCycleTest, MissingDeviceClassIsReported) {
  Cluster c;
  AddGpuNodes(c, 1, 1);
  c.Add(testing::ClaimJson("default", "c", "no-such-class", 1));
  api::Pod pod = c.Pod(testing::ClaimPodJson("default", "p", "c"), "u1");
  Decision d = c.cycle.Schedule(pod);
  EXPECT_EQ(d.kind, Decision::Kind::kUnschedulable);
  EXPECT_EQ(d.message,
            "0/1 nodes are available: request gpu: device class "
            "no-such-class does not exist.");
}

Json NamespaceJson(std::string_view name, bool admin_access) {
  Json ns{{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", {{"name", name}}}};
  if (admin_access) {
    ns["metadata"]["labels"] = {
        {"resource.kubernetes.io/admin-access", "true"}};
  }
  return ns;
}

// The tenant case: team-a's running pod holds the only GPU; team-b asks
// for it with adminAccess. Only a labelled namespace gets it.
TEST(SchedulingCycleTest, AdminAccessNeedsALabelledNamespace) {
  Cluster c;
  AddGpuNodes(c, 1, 1);
  c.Add(NamespaceJson("team-a", false));
  c.Add(testing::ClaimJson("team-a", "gpu", "gpu", 1));
  api::Pod holder =
      c.Pod(testing::ClaimPodJson("team-a", "holder", "gpu"), "u1");
  ASSERT_EQ(c.ScheduleAndCommit(holder).kind, Decision::Kind::kScheduled);

  Json admin = testing::ClaimJson("team-b", "admin", "gpu", 1);
  admin["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = true;
  c.Add(admin);
  api::Pod pod = c.Pod(testing::ClaimPodJson("team-b", "p", "admin"), "u2");
  const std::string refused =
      "0/1 nodes are available: request gpu: admin access to devices "
      "requires the `resource.kubernetes.io/admin-access: true` label on "
      "namespace team-b.";
  // Unknown namespace, then unlabelled: refused.
  Decision d = c.cycle.Schedule(pod);
  EXPECT_EQ(d.kind, Decision::Kind::kUnschedulable);
  EXPECT_EQ(d.message, refused);
  c.Add(NamespaceJson("team-b", false));
  d = c.cycle.Schedule(pod);
  EXPECT_EQ(d.kind, Decision::Kind::kUnschedulable);
  EXPECT_EQ(d.message, refused);

  // Labelled: the in-use GPU, as admin access is not an allocation.
  c.Add(NamespaceJson("team-b", true));
  d = c.cycle.Schedule(pod);
  ASSERT_EQ(d.kind, Decision::Kind::kScheduled) << d.message;
  ASSERT_EQ(d.claims.size(), 1u);
  ASSERT_TRUE(d.claims[0].allocation.has_value());
  ASSERT_EQ(d.claims[0].allocation->devices.results.size(), 1u);
  EXPECT_EQ(d.claims[0].allocation->devices.results[0].admin_access, true);

  // The label removed (or the namespace gone): refused again.
  c.Add(NamespaceJson("team-b", false));
  EXPECT_EQ(c.cycle.Schedule(pod).message, refused);
  c.Add(NamespaceJson("team-b", true));
  c.state.RemoveNamespace("team-b");
  EXPECT_EQ(c.cycle.Schedule(pod).message, refused);
}

TEST(SchedulingCycleTest, NoNodesAtAll) {
  Cluster c;
  c.Add(GpuClass());
  c.Add(testing::ClaimJson("default", "c", "gpu", 1));
  api::Pod pod = c.Pod(testing::ClaimPodJson("default", "p", "c"), "u1");
  Decision d = c.cycle.Schedule(pod);
  EXPECT_EQ(d.kind, Decision::Kind::kUnschedulable);
  EXPECT_EQ(d.message, "no nodes available to schedule pods");
}

TEST(SchedulingCycleTest, NodeFiltersComeFirst) {
  Cluster c;
  AddGpuNodes(c, 2, 1);
  Json tainted = testing::NodeJson("node-0");
  tainted["spec"]["taints"] = Json::array(
      {{{"key", "dedicated"}, {"value", "x"}, {"effect", "NoSchedule"}}});
  c.Add(tainted);
  c.Add(testing::ClaimJson("default", "c", "gpu", 1));
  api::Pod pod = c.Pod(testing::ClaimPodJson("default", "p", "c"), "u1");
  Decision d = c.cycle.Schedule(pod);
  ASSERT_EQ(d.kind, Decision::Kind::kScheduled);
  EXPECT_EQ(d.node, "node-1");
  c.Add(testing::ClaimJson("default", "c2", "gpu", 2));
  api::Pod pod2 = c.Pod(testing::ClaimPodJson("default", "p2", "c2"), "u2");
  d = c.cycle.Schedule(pod2);
  ASSERT_EQ(d.kind, Decision::Kind::kUnschedulable);
  EXPECT_EQ(d.message.rfind("0/2 nodes are available: 1 cannot allocate all "
                            "claims, 1 node(s) had untolerated taint(s).",
                            0),
            0u)
      << d.message;
}

TEST(SchedulingCycleTest, BinpackFillsUsedNodesSpreadAvoidsThem) {
  for (std::string_view policy : {"binpack", "spread"}) {
    Cluster c(policy);
    AddGpuNodes(c, 3, 4);
    std::vector<std::string> nodes;
    for (int i = 0; i < 3; ++i) {
      c.Add(testing::ClaimJson("default", StrCat("c", i), "gpu", 1));
      api::Pod pod = c.Pod(
          testing::ClaimPodJson("default", StrCat("p", i), StrCat("c", i)),
          StrCat("u", i));
      Decision d = c.ScheduleAndCommit(pod);
      ASSERT_EQ(d.kind, Decision::Kind::kScheduled) << d.message;
      nodes.push_back(d.node);
    }
    if (policy == "binpack") {
      EXPECT_EQ(nodes,
                (std::vector<std::string>{"node-0", "node-0", "node-0"}));
    } else {
      EXPECT_EQ(nodes,
                (std::vector<std::string>{"node-0", "node-1", "node-2"}));
    }
  }
}

TEST(SchedulingCycleTest, TopologyPrefersSharedInterconnectWithoutRequiringIt) {
  Cluster c("topology");
  c.Add(GpuClass());
  // node-0 comes first but its GPUs share no NVLink domain four at a time.
  c.Add(testing::NodeJson("node-0"));
  c.Add(testing::SliceJson("node-0", "gpu.nvidia.com",
                           testing::NvidiaGpus(8, "A100", [](int i) {
                             return StrCat("d", i % 4);
                           })));
  c.Add(testing::NodeJson("node-1"));
  c.Add(testing::SliceJson("node-1", "gpu.nvidia.com",
                           testing::NvidiaGpus(8, "A100", [](int i) {
                             return StrCat("d", i / 4);
                           })));
  c.Add(testing::ClaimJson("default", "four", "gpu", 4));
  api::Pod pod = c.Pod(testing::ClaimPodJson("default", "p", "four"), "u1");
  Decision d = c.ScheduleAndCommit(pod);
  ASSERT_EQ(d.kind, Decision::Kind::kScheduled) << d.message;
  EXPECT_EQ(d.node, "node-1");
  // The claim carries no constraint: with node-1's groups used up, a
  // second claim still lands, unaligned.
  c.Add(testing::ClaimJson("default", "four2", "gpu", 4));
  api::Pod p2 = c.Pod(testing::ClaimPodJson("default", "p2", "four2"), "u2");
  d = c.ScheduleAndCommit(p2);
  ASSERT_EQ(d.kind, Decision::Kind::kScheduled);
  c.Add(testing::ClaimJson("default", "four3", "gpu", 4));
  api::Pod p3 = c.Pod(testing::ClaimPodJson("default", "p3", "four3"), "u3");
  d = c.ScheduleAndCommit(p3);
  ASSERT_EQ(d.kind, Decision::Kind::kScheduled) << d.message;
}

TEST(ScoringPolicyTest, UnknownNameListsThePolicies) {
  absl::StatusOr<std::unique_ptr<ScoringPolicy>> p = NewScoringPolicy("fast");
  EXPECT_EQ(p.status().message(),
            "unknown scheduling policy \"fast\": must be one of upstream, "
            "binpack, spread, topology, random, dotprod, gpu-clustering, "
            "gpu-packing, bestfit, fgd, draplane");
  EXPECT_EQ(NewScoringPolicy("topology", {"noDomain"}).status().message(),
            "topology attribute \"noDomain\" must be fully qualified "
            "(domain/name), as matchAttribute requires");
}

api::ResourceClaim ClaimAsking(std::string name, int64_t count) {
  api::ResourceClaim c;
  c.metadata.name = std::move(name);
  api::DeviceRequest r;
  r.name = "gpus";
  r.exactly = api::ExactDeviceRequest{};
  r.exactly->device_class_name = "gpu";
  r.exactly->count = count;
  c.spec.devices.requests.push_back(r);
  return c;
}

TEST(ScoringPolicyTest, TopologySoftVariantsAlignOnlyMultiDeviceClaims) {
  auto topology =
      *NewScoringPolicy("topology", {"x.example.com/a", "x.example.com/b"});
  const api::ResourceClaim one = ClaimAsking("one", 1);
  const api::ResourceClaim two = ClaimAsking("two", 2);
  EXPECT_TRUE(topology->SoftVariants({&one}).empty());
  const auto variants = topology->SoftVariants({&one, &two});
  ASSERT_EQ(variants.size(), 2u);
  for (size_t v = 0; v < 2; ++v) {
    ASSERT_EQ(variants[v].size(), 2u);
    EXPECT_TRUE(variants[v][0].spec.devices.constraints.empty());
    ASSERT_EQ(variants[v][1].spec.devices.constraints.size(), 1u);
    EXPECT_EQ(variants[v][1].spec.devices.constraints[0].match_attribute,
              v == 0 ? "x.example.com/a" : "x.example.com/b");
  }
  // The other policies add none.
  EXPECT_TRUE((*NewScoringPolicy("binpack"))->SoftVariants({&two}).empty());
}

TEST(ScoringPolicyTest, SamplingAndTieBreakingAreUpstreamsOnlyForUpstream) {
  auto upstream = *NewScoringPolicy("upstream");
  auto binpack = *NewScoringPolicy("binpack");
  // numFeasibleNodesToFind: 5000 nodes, adaptive = 50 - 5000/125 = 10 %.
  EXPECT_EQ(upstream->SampleNodes(5000, 0).feasible_to_find, 500u);
  EXPECT_TRUE(upstream->SampleNodes(5000, 0).rotate_start);
  EXPECT_EQ(upstream->SampleNodes(50, 0).feasible_to_find, 50u);
  EXPECT_EQ(binpack->SampleNodes(5000, 0).feasible_to_find, 5000u);
  EXPECT_FALSE(binpack->SampleNodes(5000, 0).rotate_start);

  // Reservoir sampling: each of three tied nodes wins about a third.
  std::mt19937_64 rng(7);
  std::array<int, 3> wins = {0, 0, 0};
  for (int round = 0; round < 3000; ++round) {
    int best = 0;
    for (int ties = 2; ties <= 3; ++ties) {
      if (upstream->TakeTiedNode(ties, rng)) best = ties - 1;
    }
    ++wins[best];
  }
  for (int w : wins) EXPECT_NEAR(w, 1000, 120);
  EXPECT_FALSE(binpack->TakeTiedNode(2, rng));
}

TEST(ScoringPolicyTest, OnlyTheGpuSharingPoliciesPreferDevices) {
  for (std::string_view name : PolicyNames()) {
    const bool packing = name != "upstream" && name != "binpack" &&
                         name != "spread" && name != "topology";
    EXPECT_EQ((*NewScoringPolicy(name))->device_preference() != nullptr,
              packing)
        << name;
  }
}

// The answer cache must never change a decision: the same pods on the same
// random clusters, with and without it (and the same tie-break seed).
TEST(SchedulingCycleTest, AnswerCacheChangesNoDecision) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    CycleOptions cached, uncached;
    cached.seed = uncached.seed = seed;
    uncached.cache_answers = false;
    Cluster a("upstream", cached), b("upstream", uncached);
    int nodes = 2 + static_cast<int>(rng() % 6);
    for (Cluster* c : {&a, &b}) AddGpuNodes(*c, nodes, 1 + nodes % 3);
    for (int i = 0; i < 3 * nodes; ++i) {
      int count = 1 + static_cast<int>(rng() % 3);
      Json claim = testing::ClaimJson("default", StrCat("c", i), "gpu", count);
      Json pod =
          testing::ClaimPodJson("default", StrCat("p", i), StrCat("c", i));
      Decision da, db;
      for (Cluster* c : {&a, &b}) {
        c->Add(claim);
        api::Pod p = c->Pod(pod, StrCat("u", i));
        (c == &a ? da : db) = c->ScheduleAndCommit(p);
      }
      ASSERT_EQ(da.kind, db.kind) << "seed " << seed << " pod " << i;
      EXPECT_EQ(da.node, db.node) << "seed " << seed << " pod " << i;
      EXPECT_EQ(da.message, db.message);
      if (da.kind == Decision::Kind::kScheduled) {
        EXPECT_EQ(da.claims[0].allocation->devices.results.size(),
                  db.claims[0].allocation->devices.results.size());
        for (size_t k = 0; k < da.claims[0].allocation->devices.results.size();
             ++k) {
          EXPECT_EQ(da.claims[0].allocation->devices.results[k].device,
                    db.claims[0].allocation->devices.results[k].device);
        }
      }
    }
  }
}

}  // namespace
}  // namespace draplane::scheduler
