// The scheduler end to end through the API (draplane's server in-process
// over an in-memory store): the guide's example, pending pods with their
// explanation, template pods with the claim controller, two schedulers
// racing, leader failover.
#include "scheduler/scheduler.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "absl/time/clock.h"
#include "common/str_cat.h"
#include "controllers/resource_claim_controller.h"
#include "gtest/gtest.h"
#include "scheduler/testing/cluster_builder.h"
#include "testing/eventually.h"
#include "testing/in_process_cluster.h"
#include "testing/shared_test_data.h"

namespace draplane::scheduler {
namespace {

namespace fs = std::filesystem;
using api::Json;
using draplane::testing::Consistently;
using draplane::testing::InProcessCluster;

// The scheduler tests wait up to 20 s (many pods under the sanitizers).
template <typename F>
bool Eventually(F done, absl::Duration timeout = absl::Seconds(20)) {
  return draplane::testing::Eventually(done, timeout);
}

std::unique_ptr<Scheduler> MustStart(client::Client* c,
                                     SchedulerOptions options = {}) {
  absl::StatusOr<std::unique_ptr<Scheduler>> s =
      Scheduler::Create(c, std::move(options));
  EXPECT_TRUE(s.ok()) << s.status();
  absl::Status started = (*s)->Start(absl::Seconds(10));
  EXPECT_TRUE(started.ok()) << started;
  return *std::move(s);
}

Json GpuClass() { return testing::GpuClassJson(); }

void AddGpuNodes(InProcessCluster& c, int nodes, int gpus, int first = 0) {
  for (int n = first; n < first + nodes; ++n) {
    std::string name = StrCat("node-", n);
    c.MustCreate(testing::NodeJson(name));
    c.MustCreate(testing::SliceJson(name, "gpu.nvidia.com",
                                    testing::NvidiaGpus(gpus, "A100")));
  }
}

api::Pod GetPod(client::Client& c, const std::string& ns,
                const std::string& name) {
  auto p = c.Get(client::Kind("Pod"), ns, name);
  if (!p.ok()) return {};
  return std::get<api::Pod>(p->value);
}

std::vector<api::ResourceClaim> Claims(client::Client& c) {
  std::vector<api::ResourceClaim> out;
  auto list = c.List(client::Kind("ResourceClaim"), "");
  if (!list.ok()) return out;
  for (auto& o : list->items) {
    out.push_back(std::get<api::ResourceClaim>(std::move(o.value)));
  }
  return out;
}

std::vector<api::Event> Events(client::Client& c, const std::string& ns) {
  std::vector<api::Event> out;
  auto list = c.List(client::Kind("Event"), ns);
  if (!list.ok()) return out;
  for (auto& o : list->items) {
    out.push_back(std::get<api::Event>(std::move(o.value)));
  }
  return out;
}

// No device is held by two claims; every bound pod's claims are allocated
// and reserved for it. Returns the number of bound pods.
int CheckNoDoubleAllocation(client::Client& c) {
  std::map<std::string, std::string> holder;
  for (const api::ResourceClaim& claim : Claims(c)) {
    if (!claim.status.allocation.has_value()) continue;
    for (const auto& r : claim.status.allocation->devices.results) {
      std::string id = StrCat(r.driver, "/", r.pool, "/", r.device);
      auto [it, inserted] = holder.emplace(id, claim.metadata.name);
      EXPECT_TRUE(inserted)
          << id << " held by " << it->second << " and " << claim.metadata.name;
    }
  }
  int bound = 0;
  auto pods = c.List(client::Kind("Pod"), "");
  for (const auto& o : pods->items) {
    const auto& pod = std::get<api::Pod>(o.value);
    if (pod.spec.node_name.empty()) continue;
    ++bound;
    for (const auto& prc : pod.spec.resource_claims) {
      std::string name = prc.resource_claim_name.value_or("");
      for (const auto& s : pod.status.resource_claim_statuses) {
        if (s.name == prc.name) name = s.resource_claim_name.value_or("");
      }
      auto claim =
          c.Get(client::Kind("ResourceClaim"), pod.metadata.namespace_, name);
      EXPECT_TRUE(claim.ok()) << name;
      if (!claim.ok()) continue;
      const auto& rc = std::get<api::ResourceClaim>(claim->value);
      EXPECT_TRUE(rc.status.allocation.has_value()) << name;
      bool reserved = false;
      for (const auto& r : rc.status.reserved_for) {
        reserved |= r.uid == pod.metadata.uid;
      }
      EXPECT_TRUE(reserved)
          << name << " not reserved for " << pod.metadata.name;
    }
  }
  return bound;
}

fs::path SeedDir() { return testing::SeedManifestsDir(); }

std::string ReadFile(const fs::path& p) { return testing::ReadFile(p); }

TEST(SchedulerTest, SeedDistributedTrainingThroughTheApi) {
  fs::path dir = SeedDir();
  DRAPLANE_REQUIRE_SHARED_DATA(dir);
  auto cluster = *InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate({{"apiVersion", "v1"},
                       {"kind", "Namespace"},
                       {"metadata", {{"name", "ml-workloads"}}}});
  for (const api::Object& o :
       testing::DecodeStream(ReadFile(dir / "02-deviceclasses.yaml"))) {
    ASSERT_TRUE(c.Create(o).ok());
  }
  cluster->MustCreate(testing::NodeJson("node-a"));
  cluster->MustCreate(testing::SliceJson(
      "node-a", "gpu.nvidia.com",
      testing::NvidiaGpus(8, "NVIDIA A100 80GB PCIe",
                          [](int i) { return StrCat("nvl-", i / 3); })));
  cluster->MustCreate(testing::NodeJson("node-b"));
  cluster->MustCreate(testing::SliceJson(
      "node-b", "gpu.nvidia.com",
      testing::NvidiaGpus(8, "NVIDIA A100 80GB PCIe",
                          [](int i) { return StrCat("nvl-", i / 4); })));
  // The guide's v1beta1 claim and its pod (no schedulerName: the default).
  for (const api::Object& o :
       testing::DecodeStream(ReadFile(dir / "03-resourceclaim-and-pod.yaml"))) {
    auto created = c.Create(o);
    ASSERT_TRUE(created.ok()) << created.status();
  }
  SchedulerOptions options;
  options.also_default_scheduler = true;
  auto scheduler = MustStart(&c, options);
  ASSERT_TRUE(Eventually([&] {
    return !GetPod(c, "ml-workloads", "distributed-training")
                .spec.node_name.empty();
  }));
  api::Pod pod = GetPod(c, "ml-workloads", "distributed-training");
  EXPECT_EQ(pod.spec.node_name, "node-b");
  auto claim = c.Get(client::Kind("ResourceClaim"), "ml-workloads",
                     "training-gpu-claim");
  ASSERT_TRUE(claim.ok());
  const auto& rc = std::get<api::ResourceClaim>(claim->value);
  ASSERT_TRUE(rc.status.allocation.has_value());
  std::set<std::string> domains;
  for (const auto& r : rc.status.allocation->devices.results) {
    EXPECT_EQ(r.pool, "node-b");
    domains.insert(StrCat("nvl-", std::stoi(r.device.substr(4)) / 4));
  }
  EXPECT_EQ(rc.status.allocation->devices.results.size(), 4u);
  EXPECT_EQ(domains.size(), 1u);
  ASSERT_EQ(rc.status.reserved_for.size(), 1u);
  EXPECT_EQ(rc.status.reserved_for[0].resource, "pods");
  EXPECT_EQ(rc.status.reserved_for[0].name, "distributed-training");
  EXPECT_EQ(rc.status.reserved_for[0].uid, pod.metadata.uid);
  EXPECT_EQ(
      rc.metadata.finalizers,
      std::vector<std::string>{"resource.kubernetes.io/delete-protection"});
  ASSERT_TRUE(Eventually([&] {
    for (const auto& e : Events(c, "ml-workloads")) {
      if (e.reason == "Scheduled" &&
          e.message ==
              "Successfully assigned ml-workloads/distributed-training to "
              "node-b") {
        return true;
      }
    }
    return false;
  }));
  scheduler->Stop();
}

TEST(SchedulerTest, PendingPodCarriesTheExplanationAndRetriesOnNewDevices) {
  auto cluster = *InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(GpuClass());
  AddGpuNodes(*cluster, 2, 8);
  cluster->MustCreate(testing::ClaimJson("default", "big", "gpu", 12));
  cluster->MustCreate(testing::ClaimPodJson("default", "big-pod", "big"));
  auto scheduler = MustStart(&c);

  api::Event failed;
  ASSERT_TRUE(Eventually([&] {
    for (const auto& e : Events(c, "default")) {
      if (e.reason == "FailedScheduling" && e.involved_object.kind == "Pod") {
        failed = e;
      }
    }
    return !failed.reason.empty();
  }));
  EXPECT_EQ(failed.type, "Warning");
  EXPECT_EQ(failed.involved_object.name, "big-pod");
  EXPECT_EQ(failed.message.rfind(
                "0/2 nodes are available: 2 cannot allocate all claims.", 0),
            0u)
      << failed.message;
  EXPECT_NE(failed.message.find("request gpu (class gpu) needs 12 devices: "
                                "the node's pools offer 8"),
            std::string::npos)
      << failed.message;
  EXPECT_NE(failed.message.find("4 short"), std::string::npos)
      << failed.message;
  ASSERT_TRUE(Eventually([&] {
    for (const auto& cond : GetPod(c, "default", "big-pod").status.conditions) {
      if (cond.type == "PodScheduled" && cond.status == "False" &&
          cond.reason == "Unschedulable" && cond.message == failed.message) {
        return true;
      }
    }
    return false;
  }));
  // The same explanation on the claim (draplane's).
  ASSERT_TRUE(Eventually([&] {
    for (const auto& e : Events(c, "default")) {
      if (e.reason == "FailedScheduling" &&
          e.involved_object.kind == "ResourceClaim") {
        EXPECT_EQ(e.involved_object.name, "big");
        EXPECT_EQ(e.involved_object.api_version, "resource.k8s.io/v1");
        EXPECT_EQ(e.message, "pod default/big-pod: " + failed.message);
        return true;
      }
    }
    return false;
  }));

  // A bigger node appears: the slice event requeues the pod.
  cluster->MustCreate(testing::NodeJson("node-big"));
  cluster->MustCreate(testing::SliceJson("node-big", "gpu.nvidia.com",
                                         testing::NvidiaGpus(16, "A100")));
  ASSERT_TRUE(Eventually([&] {
    return GetPod(c, "default", "big-pod").spec.node_name == "node-big";
  }));
  CheckNoDoubleAllocation(c);
}

TEST(SchedulerTest, TemplatePodsWithTheClaimControllerAndDeletion) {
  auto cluster = *InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(testing::PerfClassJson());
  cluster->MustCreate(testing::PerfTemplateJson("default"));
  for (int n = 0; n < 4; ++n) {
    std::string name = StrCat("perf-", n);
    cluster->MustCreate(testing::NodeJson(name));
    cluster->MustCreate(testing::PerfSliceJson(name, 10));
  }
  for (int i = 0; i < 45; ++i) {
    cluster->MustCreate(testing::TemplatePodJson("default", StrCat("p", i),
                                                 "test-claim-template"));
  }
  metrics::Registry registry;
  SchedulerOptions options;
  options.metrics = &registry;
  auto scheduler = MustStart(&c, options);
  // No claims exist yet: every pod is held back (upstream's PreEnqueue),
  // which is not a scheduling attempt.
  ASSERT_TRUE(Eventually([&] { return scheduler->stats().gated >= 45; }));
  EXPECT_EQ(scheduler->stats().attempts, 0);
  controllers::ResourceClaimController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  // 40 devices for 45 pods: 40 bound, 5 pending.
  ASSERT_TRUE(Eventually([&] { return scheduler->stats().scheduled == 40; }));
  EXPECT_TRUE(Consistently([&] { return scheduler->stats().scheduled == 40; }));
  EXPECT_EQ(CheckNoDoubleAllocation(c), 40);

  // Five bound pods go: the controller releases and deallocates their
  // claims (the garbage collector deletes them, the controller lifts the
  // finalizer) and the five pending pods take the devices.
  int deleted = 0;
  for (int i = 0; i < 45 && deleted < 5; ++i) {
    std::string name = StrCat("p", i);
    if (GetPod(c, "default", name).spec.node_name.empty()) continue;
    ASSERT_TRUE(c.Delete(client::Kind("Pod"), "default", name).ok());
    ++deleted;
  }
  ASSERT_TRUE(Eventually([&] { return scheduler->stats().scheduled == 45; }));
  ASSERT_TRUE(Eventually([&] { return Claims(c).size() == 40; }))
      << "the deleted pods' claims are gone: " << Claims(c).size();
  EXPECT_EQ(CheckNoDoubleAllocation(c), 40);
  for (const api::ResourceClaim& claim : Claims(c)) {
    EXPECT_TRUE(claim.status.allocation.has_value()) << claim.metadata.name;
  }
  // Every attempt ended one way: bound, unschedulable or failed.
  const SchedulerStats stats = scheduler->stats();
  EXPECT_EQ(stats.attempts,
            stats.scheduled + stats.unschedulable + stats.errors)
      << "gated " << stats.gated;
  // Every binding and every allocation is in the metrics; the five pods
  // that waited were unschedulable at least once.
  std::string text = registry.Text();
  auto value = [&](const std::string& sample) {
    size_t at = text.find(sample + " ");
    EXPECT_NE(at, std::string::npos) << sample << "\n" << text;
    if (at == std::string::npos) return -1.0;
    return std::stod(text.substr(at + sample.size() + 1));
  };
  EXPECT_EQ(
      value(
          R"(scheduler_schedule_attempts_total{profile="draplane",result="scheduled"})"),
      45);
  EXPECT_GE(
      value(
          R"(scheduler_schedule_attempts_total{profile="draplane",result="unschedulable"})"),
      5);
  EXPECT_EQ(
      value(
          R"(scheduler_scheduling_attempt_duration_seconds_count{profile="draplane",result="scheduled"})"),
      45);
  EXPECT_EQ(
      value(R"(dra_allocation_duration_seconds_count{profile="draplane"})"),
      45);
  EXPECT_GT(value(R"(dra_allocation_duration_seconds_sum{profile="draplane"})"),
            0);
  scheduler->Stop();
  controller.Stop();
}

// Two schedulers without leader election, many pods, few devices: the
// server's exclusive-allocation check and the schedulers' conflict
// handling keep every device with one claim.
TEST(SchedulerTest, TwoSchedulersRacingNeverDoubleAllocate) {
  auto cluster = *InProcessCluster::Start();
  cluster->MustCreate(GpuClass());
  AddGpuNodes(*cluster, 6, 4);
  const int kPods = 60;
  for (int i = 0; i < kPods; ++i) {
    cluster->MustCreate(
        testing::ClaimJson("default", StrCat("c", i), "gpu", 1 + i % 2));
    cluster->MustCreate(
        testing::ClaimPodJson("default", StrCat("p", i), StrCat("c", i)));
  }
  auto client_a = cluster->NewClient();
  auto client_b = cluster->NewClient();
  SchedulerOptions options;
  options.record_events = false;
  auto a = MustStart(client_a.get(), options);
  auto b = MustStart(client_b.get(), options);
  // 24 devices; pods take 1 or 2: at least 12 and at most 24 pods fit. Wait
  // until the devices are used up and nothing moves any more.
  auto scheduled = [&] { return a->stats().scheduled + b->stats().scheduled; };
  ASSERT_TRUE(Eventually(
      [&] {
        const int64_t now = scheduled();
        return now >= 12 && Consistently([&] { return scheduled() == now; },
                                         absl::Milliseconds(300));
      },
      absl::Seconds(60)));
  a->Stop();
  b->Stop();
  client::Client& c = cluster->client();
  int bound = CheckNoDoubleAllocation(c);
  EXPECT_GE(bound, 12);
  int used = 0;
  for (const auto& claim : Claims(c)) {
    if (claim.status.allocation.has_value()) {
      used += static_cast<int>(claim.status.allocation->devices.results.size());
    }
  }
  EXPECT_LE(used, 24);
  // Both took part.
  EXPECT_GT(a->stats().attempts, 0);
  EXPECT_GT(b->stats().attempts, 0);
}

TEST(SchedulerTest, LeaderFailover) {
  auto cluster = *InProcessCluster::Start();
  cluster->MustCreate(GpuClass());
  AddGpuNodes(*cluster, 2, 8);
  auto client_a = cluster->NewClient();
  auto client_b = cluster->NewClient();
  auto options = [](std::string identity) {
    SchedulerOptions o;
    o.record_events = false;
    client::LeaderElectionConfig le;
    le.lease_name = "draplane-scheduler";
    le.identity = std::move(identity);
    le.lease_duration = absl::Seconds(2);
    le.renew_deadline = absl::Seconds(1);
    le.retry_period = absl::Milliseconds(100);
    o.leader_election = le;
    return o;
  };
  auto a = MustStart(client_a.get(), options("a"));
  ASSERT_TRUE(Eventually([&] { return a->stats().leading; }));
  auto b = MustStart(client_b.get(), options("b"));
  EXPECT_TRUE(Consistently([&] { return !b->stats().leading; },
                           absl::Milliseconds(500)));

  for (int i = 0; i < 4; ++i) {
    cluster->MustCreate(
        testing::ClaimJson("default", StrCat("c", i), "gpu", 1));
    cluster->MustCreate(
        testing::ClaimPodJson("default", StrCat("p", i), StrCat("c", i)));
  }
  ASSERT_TRUE(Eventually([&] { return a->stats().scheduled == 4; }));
  EXPECT_EQ(b->stats().scheduled, 0);

  // The leader goes away; the other takes over and schedules new pods.
  a->Stop();
  ASSERT_TRUE(Eventually([&] { return b->stats().leading; }));
  for (int i = 4; i < 8; ++i) {
    cluster->MustCreate(
        testing::ClaimJson("default", StrCat("c", i), "gpu", 1));
    cluster->MustCreate(
        testing::ClaimPodJson("default", StrCat("p", i), StrCat("c", i)));
  }
  ASSERT_TRUE(Eventually([&] { return b->stats().scheduled == 4; }));
  EXPECT_EQ(CheckNoDoubleAllocation(cluster->client()), 8);
  auto lease = cluster->client().Get(client::Kind("Lease"), "kube-system",
                                     "draplane-scheduler");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(std::get<api::Lease>(lease->value).spec.holder_identity, "b");
}

}  // namespace
}  // namespace draplane::scheduler
