// Scheduler throughput, shaped like upstream's scheduler_perf
// SchedulingWithResourceClaimTemplate (test/integration/scheduler_perf/dra):
// N nodes, each with one ResourceSlice of D devices of the fake driver
// test-driver.cdi.k8s.io, class test-class, template test-claim-template
// asking for one device, P pods each with a claim from the template.
//
// Modes (a scenario runner printing one JSON object per run, not Google
// Benchmark: a run is seconds long and measures a whole pipeline):
//   decision  the pure scheduling-decision rate: SchedulingCycle on a
//             ClusterState fed directly, claims pre-created as the claim
//             controller would, each decision committed as a binder would.
//             Also the scheduler cache's memory per published device.
//   api       end to end through the API: draplane's server in-process
//             (in-memory or SQLite store), the resourceclaim controller
//             creating claims from the template, the scheduler writing
//             allocations and bindings; pods are created by 30 concurrent
//             creators (as upstream's test/utils CreatePod) as fast as the
//             server takes them. pods/s = pods / (first create
//             to last binding).
//
// Usage: scheduler_benchmark [--mode decision|api] [--store memory|sqlite]
//          [--nodes 500] [--devices 10] [--pods 5000] [--policy upstream]
//          [--phase all|schedule] [--init-claims 0] [--authorization off|on]
//   --authorization on (api mode): the server authenticates and authorizes
//   every request as `draplane server` does (Node, RBAC with upstream's
//   bootstrap policy): the scheduler runs as system:kube-scheduler, the
//   claim controller as its service account, the pod creators as a user
//   bound to `edit` in the namespace.
//   --init-claims N (api mode): before anything is timed, N claims from the
//   template's spec in namespace "init", allocated directly (node after
//   node, device after device, as scheduler_perf's allocResourceClaims
//   fills the cluster) and not reserved, so that --pods measures scheduling
//   into a partly used cluster. Upstream's SchedulingWithResourceClaimTemplate
//   /5000pods_500nodes is --nodes 500 --devices 10 --init-claims 2500
//   --pods 2500 --phase all (scripts/upstream-scheduler-perf runs upstream's).
//   --phase schedule (api mode): pods and their claims are created first,
//   then the scheduler starts; its informers' initial list (every node,
//   slice, claim and pod) is reported apart as sync_seconds /
//   sync_cpu_seconds, and only the scheduling after it (decisions, claim
//   writes, bindings, events) is timed, as upstream's scheduler_perf times
//   a synced scheduler.
//
// Profiling: with DRAPLANE_BENCH_PERF_CTL set to the control FIFO of
// `perf record --control=fifo:FIFO -D -1`, only the timed part of an api
// run is recorded.
#include <malloc.h>
#include <sys/resource.h>

#ifdef DRAPLANE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "api/meta_types.h"
#include "common/str_cat.h"
#include "scheduler/cluster_state.h"
#include "scheduler/scheduling_cycle.h"
#include "scheduler/testing/cluster_builder.h"
#ifdef DRAPLANE_SCHEDULER_API_BENCH
#include "auth/user_info.h"
#include "controllers/resource_claim_controller.h"
#include "scheduler/scheduler.h"
#include "testing/in_process_cluster.h"
#endif

namespace draplane {
namespace {

using api::Json;
using scheduler::testing::Decode;

struct Flags {
  std::string mode = "decision";
  std::string store = "memory";
  int nodes = 500;
  int devices = 10;
  int pods = 5000;
  std::string policy = "upstream";
  // api mode: "all" = pod creation, claim controller and scheduler
  // together; "schedule" = pods and their claims exist first, only the
  // scheduler's work (claim writes, bindings, events) is timed.
  std::string phase = "all";
  // api mode: authenticated and authorized requests (Node, RBAC).
  bool authorization = false;
  // api mode: claims allocated before the timed part (namespace "init").
  int init_claims = 0;
};

// Bytes the program holds on the heap (jemalloc when linked, else glibc).
size_t HeapInUse() {
#ifdef DRAPLANE_JEMALLOC
  mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
  uint64_t epoch = 1;
  size_t size = sizeof(epoch);
  mallctl("epoch", &epoch, &size, &epoch, size);
  size_t allocated = 0;
  size = sizeof(allocated);
  mallctl("stats.allocated", &allocated, &size, nullptr, 0);
  return allocated;
#else
  return mallinfo2().uordblks;
#endif
}

// CPU time (user + system, all threads) the process has used.
double CpuSeconds() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Sends `command` ("enable" / "disable") to the perf control FIFO named by
// DRAPLANE_BENCH_PERF_CTL, when set.
void PerfControl(const char* command) {
  const char* fifo = std::getenv("DRAPLANE_BENCH_PERF_CTL");
  if (fifo == nullptr || *fifo == '\0') return;
  if (FILE* f = std::fopen(fifo, "w"); f != nullptr) {
    std::fputs(command, f);
    std::fputc('\n', f);
    std::fclose(f);
  }
}

scheduler::ObjectPtr Ptr(const Json& json) {
  return std::make_shared<const api::Object>(Decode(json));
}

// The claim the resourceclaim controller would create for pod `i`.
Json ClaimFor(int i, const std::string& uid) {
  Json claim = {{"apiVersion", "resource.k8s.io/v1"},
                {"kind", "ResourceClaim"},
                {"metadata",
                 {{"name", StrCat("pod-", i, "-resource-x")},
                  {"namespace", "default"},
                  {"resourceVersion", "1"},
                  {"ownerReferences", Json::array({{{"apiVersion", "v1"},
                                                    {"kind", "Pod"},
                                                    {"name", StrCat("pod-", i)},
                                                    {"uid", uid},
                                                    {"controller", true}}})}}},
                {"spec", scheduler::testing::PerfTemplateJson(
                             "default")["spec"]["spec"]}};
  return claim;
}

int RunDecision(const Flags& f) {
  const size_t heap0 = HeapInUse();
  scheduler::ClusterState state(allocator::Features::Defaults());
  absl::StatusOr<std::unique_ptr<scheduler::ScoringPolicy>> policy =
      scheduler::NewScoringPolicy(f.policy);
  if (!policy.ok()) {
    std::cerr << policy.status() << "\n";
    return 2;
  }
  state.SetDeviceClass(Ptr(scheduler::testing::PerfClassJson()));
  for (int n = 0; n < f.nodes; ++n) {
    std::string name = StrCat("node-", n);
    state.SetNode(Ptr(scheduler::testing::NodeJson(name)));
    state.SetSlice(Ptr(scheduler::testing::PerfSliceJson(name, f.devices)));
  }
  const size_t heap_objects = HeapInUse() - heap0;
  state.Allocator();  // build the indexes now
  state.Allocated();
  const size_t heap_cache = HeapInUse() - heap0;
  const int64_t published = static_cast<int64_t>(f.nodes) * f.devices;

  // Pods and claims as the API would hold them before scheduling.
  std::vector<api::Pod> pods;
  pods.reserve(f.pods);
  for (int i = 0; i < f.pods; ++i) {
    std::string uid = StrCat("uid-", i);
    Json pod = scheduler::testing::TemplatePodJson("default", StrCat("pod-", i),
                                                   "test-claim-template");
    pod["metadata"]["uid"] = uid;
    pod["status"]["resourceClaimStatuses"] = Json::array(
        {{{"name", "resource"},
          {"resourceClaimName", StrCat("pod-", i, "-resource-x")}}});
    state.SetClaim(Ptr(ClaimFor(i, uid)));
    pods.push_back(std::get<api::Pod>(Decode(pod).value));
    state.SetPod(std::make_shared<const api::Object>(
        api::Object{{"v1", "Pod"}, pods.back()}));
  }

  scheduler::SchedulingCycle cycle(&state, policy->get(), {});
  int scheduled = 0;
  int64_t allocate_calls = 0;
  int64_t rv = 2;
  absl::Time start = absl::Now();
  for (const api::Pod& pod : pods) {
    scheduler::Decision d = cycle.Schedule(pod);
    allocate_calls += d.allocate_calls;
    if (d.kind != scheduler::Decision::Kind::kScheduled) continue;
    ++scheduled;
    cycle.Reserve(pod, d);
    // What the binder's writes come back as.
    for (const scheduler::ClaimPlan& plan : d.claims) {
      api::Object o = *plan.claim;
      auto& claim = std::get<api::ResourceClaim>(o.value);
      claim.status.allocation = plan.allocation;
      claim.status.reserved_for.push_back(
          {"", "pods", pod.metadata.name, pod.metadata.uid});
      claim.metadata.resource_version = std::to_string(++rv);
      state.AssumeClaim(std::make_shared<const api::Object>(std::move(o)));
      state.RemoveInFlight(plan.claim_key);
    }
  }
  double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  std::printf(
      "{\"mode\":\"decision\",\"policy\":\"%s\",\"nodes\":%d,"
      "\"devices_per_node\":%d,\"pods\":%d,\"scheduled\":%d,"
      "\"seconds\":%.3f,\"pods_per_second\":%.0f,"
      "\"allocate_calls_per_pod\":%.2f,\"cache_bytes_per_device\":%.0f,"
      "\"object_bytes_per_device\":%.0f}\n",
      f.policy.c_str(), f.nodes, f.devices, f.pods, scheduled, seconds,
      scheduled / seconds, static_cast<double>(allocate_calls) / f.pods,
      static_cast<double>(heap_cache) / static_cast<double>(published),
      static_cast<double>(heap_objects) / static_cast<double>(published));
  return scheduled == std::min<int64_t>(f.pods, published) ? 0 : 1;
}

#ifdef DRAPLANE_SCHEDULER_API_BENCH
// --init-claims: f.init_claims claims in namespace "init", the k-th
// allocated device k % devices of node k / devices.
absl::Status CreateAllocatedClaims(testing::InProcessCluster& c,
                                   const Flags& f) {
  if (f.init_claims <= 0) return absl::OkStatus();
  if (f.init_claims > static_cast<int64_t>(f.nodes) * f.devices) {
    return absl::InvalidArgumentError(
        "--init-claims exceeds the cluster's devices");
  }
  c.MustCreate(Json{{"apiVersion", "v1"},
                    {"kind", "Namespace"},
                    {"metadata", {{"name", "init"}}}});
  const Json spec =
      scheduler::testing::PerfTemplateJson("init")["spec"]["spec"];
  for (int k = 0; k < f.init_claims; ++k) {
    api::Object claim = c.MustCreate(Json{
        {"apiVersion", "resource.k8s.io/v1"},
        {"kind", "ResourceClaim"},
        {"metadata", {{"name", StrCat("claim-", k)}, {"namespace", "init"}}},
        {"spec", spec}});
    const std::string node = StrCat("node-", k / f.devices);
    api::AllocationResult allocation;
    api::DeviceRequestAllocationResult result;
    result.request = "req-0";
    result.driver = "test-driver.cdi.k8s.io";
    result.pool = node;
    result.device = StrCat("instance-", k % f.devices);
    allocation.devices.results.push_back(std::move(result));
    api::NodeSelectorRequirement on_node;
    on_node.key = "metadata.name";
    on_node.operator_ = "In";
    on_node.values = {node};
    api::NodeSelectorTerm term;
    term.match_fields.push_back(std::move(on_node));
    allocation.node_selector.emplace();
    allocation.node_selector->node_selector_terms.push_back(std::move(term));
    std::get<api::ResourceClaim>(claim.value).status.allocation =
        std::move(allocation);
    absl::StatusOr<api::Object> written = c.client().UpdateStatus(claim);
    if (!written.ok()) return written.status();
  }
  return absl::OkStatus();
}

constexpr char kSchedulerUser[] = "system:kube-scheduler";
constexpr char kClaimControllerUser[] =
    "system:serviceaccount:kube-system:resource-claim-controller";
constexpr char kCreatorUser[] = "bench-creator";

// With --authorization on: the pod creators may edit namespace default,
// and the claim controller reads templates (kube-controller-manager's
// informers read them under its own identity; `draplane server` grants
// the same in draplane:controller-informers).
void GrantBenchmarkRoles(testing::InProcessCluster& c) {
  c.MustCreate(api::Json{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", "bench-creator"}, {"namespace", "default"}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"},
        {"kind", "ClusterRole"},
        {"name", "edit"}}},
      {"subjects", api::Json::array({{{"apiGroup", "rbac.authorization.k8s.io"},
                                      {"kind", "User"},
                                      {"name", kCreatorUser}}})}});
  c.MustCreate(api::Json{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRole"},
      {"metadata", {{"name", "bench:claim-templates"}}},
      {"rules", api::Json::array({{{"apiGroups", {"resource.k8s.io"}},
                                   {"resources", {"resourceclaimtemplates"}},
                                   {"verbs", {"get", "list", "watch"}}}})}});
  c.MustCreate(api::Json{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRoleBinding"},
      {"metadata", {{"name", "bench:claim-templates"}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"},
        {"kind", "ClusterRole"},
        {"name", "bench:claim-templates"}}},
      {"subjects", api::Json::array({{{"kind", "ServiceAccount"},
                                      {"name", "resource-claim-controller"},
                                      {"namespace", "kube-system"}}})}});
}

// Concurrent pod creators (upstream's test/utils CreatePod uses 30).
constexpr int kPodCreators = 30;

int RunApi(const Flags& f) {
  testing::InProcessClusterOptions options;
  // The built-in controllers (garbage collector, namespace finalizer) run
  // every second, as in `draplane server` (tests run them more often).
  options.controller_period = absl::Seconds(1);
  options.authorization = f.authorization;
  options.users = {auth::UserInfo{kSchedulerUser, "", {}, {}},
                   auth::UserInfo{kClaimControllerUser,
                                  "",
                                  {"system:serviceaccounts",
                                   "system:serviceaccounts:kube-system"},
                                  {}},
                   auth::UserInfo{kCreatorUser, "", {}, {}}};
  std::filesystem::path dir;
  if (f.store == "sqlite") {
    dir = std::filesystem::temp_directory_path() /
          StrCat("draplane-bench-", getpid());
    std::filesystem::create_directories(dir);
    options.sqlite_path = (dir / "state.db").string();
  }
  absl::StatusOr<std::unique_ptr<testing::InProcessCluster>> cluster =
      testing::InProcessCluster::Start(options);
  if (!cluster.ok()) {
    std::cerr << cluster.status() << "\n";
    return 2;
  }
  testing::InProcessCluster& c = **cluster;
  c.MustCreate(scheduler::testing::PerfClassJson());
  c.MustCreate(scheduler::testing::PerfTemplateJson("default"));
  for (int n = 0; n < f.nodes; ++n) {
    std::string name = StrCat("node-", n);
    c.MustCreate(scheduler::testing::NodeJson(name));
    c.MustCreate(scheduler::testing::PerfSliceJson(name, f.devices));
  }
  if (absl::Status s = CreateAllocatedClaims(c, f); !s.ok()) {
    std::cerr << s << "\n";
    return 2;
  }
  if (f.authorization) GrantBenchmarkRoles(c);
  auto controller_client =
      f.authorization ? c.NewClientAs(kClaimControllerUser) : c.NewClient();
  auto scheduler_client =
      f.authorization ? c.NewClientAs(kSchedulerUser) : c.NewClient();
  auto creator = f.authorization ? c.NewClientAs(kCreatorUser) : c.NewClient();
  controllers::ResourceClaimController controller(controller_client.get());
  if (absl::Status s = controller.Start(); !s.ok()) {
    std::cerr << s << "\n";
    return 2;
  }
  const int64_t expected = std::min<int64_t>(
      f.pods, static_cast<int64_t>(f.nodes) * f.devices - f.init_claims);
  // As upstream's test/utils CreatePod: 30 creators in parallel.
  auto create_pods = [&] {
    std::atomic<int> next{0};
    std::vector<std::thread> creators;
    creators.reserve(std::min(kPodCreators, f.pods));
    for (int t = 0; t < std::min(kPodCreators, f.pods); ++t) {
      creators.emplace_back([&] {
        for (int i = next++; i < f.pods; i = next++) {
          api::Object pod = Decode(scheduler::testing::TemplatePodJson(
              "default", StrCat("pod-", i), "test-claim-template"));
          absl::StatusOr<api::Object> created = creator->Create(pod);
          if (!created.ok()) std::cerr << created.status() << "\n";
        }
      });
    }
    for (std::thread& t : creators) t.join();
  };
  scheduler::SchedulerOptions so;
  so.policy = f.policy;
  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> sched =
      scheduler::Scheduler::Create(scheduler_client.get(), so);
  if (!sched.ok()) {
    std::cerr << sched.status() << "\n";
    return 2;
  }
  absl::Time start, created_at;
  double cpu_start = 0;
  double sync_seconds = 0, sync_cpu_seconds = 0;
  int64_t scheduled_before = 0;  // during Start(), after the sync
  store::JournalStats journal_start;
  if (f.phase == "schedule") {
    create_pods();
    absl::Time wait_until = absl::Now() + absl::Minutes(10);
    while (controller.claims_created() < f.pods && absl::Now() < wait_until) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    absl::SleepFor(absl::Seconds(1));  // the pods' status writes
    const absl::Time sync_start = absl::Now();
    const double sync_cpu_start = CpuSeconds();
    if (!(*sched)->Start().ok()) return 2;
    PerfControl("enable");
    journal_start = c.store().journal_stats();
    start = created_at = absl::Now();
    cpu_start = CpuSeconds();
    scheduled_before = (*sched)->stats().scheduled;
    sync_seconds = absl::ToDoubleSeconds(start - sync_start);
    sync_cpu_seconds = cpu_start - sync_cpu_start;
  } else {
    if (!(*sched)->Start().ok()) return 2;
    PerfControl("enable");
    journal_start = c.store().journal_stats();
    start = absl::Now();
    cpu_start = CpuSeconds();
    create_pods();
    created_at = absl::Now();
  }
  absl::Time deadline = absl::Now() + absl::Minutes(10);
  while ((*sched)->stats().scheduled < expected && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(2));
  }
  absl::Time end = absl::Now();
  const double cpu_seconds = CpuSeconds() - cpu_start;
  const store::JournalStats journal_end = c.store().journal_stats();
  PerfControl("disable");
  scheduler::SchedulerStats stats = (*sched)->stats();
  (*sched)->Stop();
  controller.Stop();
  double seconds = absl::ToDoubleSeconds(end - start);
  const int64_t timed =
      std::max<int64_t>(1, stats.scheduled - scheduled_before);
  const int64_t journal_commits = journal_end.commits - journal_start.commits;
  std::printf(
      "{\"mode\":\"api\",\"phase\":\"%s\",\"store\":\"%s\","
      "\"authorization\":%s,"
      "\"policy\":\"%s\",\"nodes\":%d,"
      "\"devices_per_node\":%d,\"pods\":%d,\"scheduled\":%lld,"
      "\"seconds\":%.3f,\"pods_per_second\":%.0f,\"create_seconds\":%.3f,"
      "\"cpu_ms_per_pod\":%.3f,\"sync_seconds\":%.3f,"
      "\"sync_cpu_seconds\":%.3f,\"attempts\":%lld,\"gated\":%lld,"
      "\"errors\":%lld,"
      "\"init_claims\":%d,\"journal_commits\":%lld,"
      "\"journal_writes_per_commit\":%.2f,\"journal_commit_seconds\":%.3f}\n",
      f.phase.c_str(), f.store.c_str(), f.authorization ? "true" : "false",
      f.policy.c_str(), f.nodes, f.devices, f.pods,
      static_cast<long long>(stats.scheduled), seconds, timed / seconds,
      absl::ToDoubleSeconds(created_at - start), 1000 * cpu_seconds / timed,
      sync_seconds, sync_cpu_seconds, static_cast<long long>(stats.attempts),
      static_cast<long long>(stats.gated), static_cast<long long>(stats.errors),
      f.init_claims, static_cast<long long>(journal_commits),
      journal_commits == 0
          ? 0.0
          : static_cast<double>(journal_end.entries - journal_start.entries) /
                journal_commits,
      1e-9 * static_cast<double>(journal_end.commit_nanos -
                                 journal_start.commit_nanos));
  cluster->reset();
  if (!dir.empty()) std::filesystem::remove_all(dir);
  return stats.scheduled == expected ? 0 : 1;
}
#endif

}  // namespace
}  // namespace draplane

int main(int argc, char** argv) try {
  draplane::Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--mode")
      f.mode = v;
    else if (k == "--store")
      f.store = v;
    else if (k == "--nodes")
      f.nodes = std::atoi(v.c_str());
    else if (k == "--devices")
      f.devices = std::atoi(v.c_str());
    else if (k == "--pods")
      f.pods = std::atoi(v.c_str());
    else if (k == "--policy")
      f.policy = v;
    else if (k == "--phase")
      f.phase = v;
    else if (k == "--init-claims")
      f.init_claims = std::atoi(v.c_str());
    else if (k == "--authorization")
      f.authorization = v == "on";
    else {
      std::cerr << "unknown flag " << k << "\n";
      return 2;
    }
  }
  if (f.mode == "decision") return draplane::RunDecision(f);
#ifdef DRAPLANE_SCHEDULER_API_BENCH
  if (f.mode == "api") return draplane::RunApi(f);
#endif
  std::cerr << "--mode must be decision or api\n";
  return 2;
} catch (const std::exception& e) {
  std::cerr << "scheduler_benchmark: " << e.what() << "\n";
  return 2;
}
