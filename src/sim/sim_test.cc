// The simulator's parts on small inputs: trace parsing and its errors, the
// FGD protocol's arrival order, the fragmentation measure and the target
// workload, the policies' GPU choice inside a node (through the real
// scheduling cycle), a whole run's metrics, the report files.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/cluster_state.h"
#include "scheduler/fragmentation.h"
#include "scheduler/packing_policies.h"
#include "scheduler/scheduling_cycle.h"
#include "sim/cluster_model.h"
#include "sim/fgd_report.h"
#include "sim/fgd_simulator.h"
#include "sim/published_results.h"
#include "sim/trace.h"

namespace draplane::sim {
namespace {

namespace fs = std::filesystem;

constexpr char kNodes[] =
    "sn,cpu_milli,memory_mib,gpu,model\n"
    "n0,32000,131072,2,T4\n"
    "n1,96000,393216,8,G2\n"
    "n2,8000,32768,0,\n";

constexpr char kPods[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n"
    "p0,4000,8192,1,500,,LS\n"
    "p1,8000,16384,1,1000,T4,BE\n"
    "p2,2000,4096,0,0,,LS\n"
    "p3,16000,65536,4,1000,G2|V100M32,LS\n";

TEST(TraceTest, ParsesNodesAndPods) {
  auto nodes = ParseNodeList(kNodes, "nodes.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 3u);
  EXPECT_EQ((*nodes)[1].name, "n1");
  EXPECT_EQ((*nodes)[1].gpus, 8);
  EXPECT_EQ((*nodes)[1].model, "G2");
  EXPECT_EQ((*nodes)[2].model, "");
  auto pods = ParsePodList(kPods, "pods.csv");
  ASSERT_TRUE(pods.ok()) << pods.status();
  ASSERT_EQ(pods->size(), 4u);
  EXPECT_EQ((*pods)[0].GpuMilli(), 500);
  EXPECT_EQ((*pods)[3].GpuMilli(), 4000);
  EXPECT_EQ((*pods)[3].gpu_spec, (std::vector<std::string>{"G2", "V100M32"}));
  EXPECT_TRUE((*pods)[2].gpu_spec.empty());
  // The multigpu files have only the first five columns.
  auto short_pods = ParsePodList(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nq,1000,1024,2,1000\n",
      "short.csv");
  ASSERT_TRUE(short_pods.ok()) << short_pods.status();
  EXPECT_EQ((*short_pods)[0].num_gpu, 2);
}

TEST(TraceTest, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(ParseNodeList("sn,cpu_milli,memory_mib,gpu\n", "a.csv")
                .status()
                .message(),
            "a.csv:1: missing column \"model\"");
  EXPECT_EQ(ParseNodeList("sn,cpu_milli,memory_mib,gpu,model\nx,abc,1,1,T4\n",
                          "a.csv")
                .status()
                .message(),
            "a.csv:2: column cpu_milli: \"abc\" is not a non-negative integer");
  EXPECT_EQ(
      ParseNodeList("sn,cpu_milli,memory_mib,gpu,model\nx,1,1,2,\n", "a.csv")
          .status()
          .message(),
      "a.csv:2: node x has GPUs but no model");
  EXPECT_EQ(
      ParseNodeList("sn,cpu_milli,memory_mib,gpu,model\nx,1,1,0,\nx,1,1,0,\n",
                    "a.csv")
          .status()
          .message(),
      "a.csv:3: duplicate node x");
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n";
  EXPECT_EQ(ParsePodList(header + "p,1,1,2,500\n", "b.csv").status().message(),
            "b.csv:2: pod p shares (gpu_milli 500) across 2 GPUs; only "
            "single-GPU pods may share");
  EXPECT_EQ(ParsePodList(header + "p,1,1,1,1500\n", "b.csv").status().message(),
            "b.csv:2: column gpu_milli: 1500 is above 1000");
  EXPECT_EQ(ParsePodList(header + "p,1,1,1,0\n", "b.csv").status().message(),
            "b.csv:2: pod p asks for 1 GPUs with gpu_milli 0");
  EXPECT_EQ(ParsePodList(header + "p,1,1\n", "b.csv").status().message(),
            "b.csv:2: 3 fields, the header has 5");
  EXPECT_EQ(
      ParsePodList(header + "\"p\",1,1,1,1\n", "b.csv").status().message(),
      "b.csv:2: quoted CSV fields are not supported");
  EXPECT_EQ(LoadPodList("/nonexistent.csv").status().message(),
            "/nonexistent.csv: cannot open");
}

std::vector<TracePod> Pods(
    std::initializer_list<std::pair<int, int64_t>> gpus) {
  std::vector<TracePod> pods;
  for (const auto& [n, milli] : gpus) {
    TracePod p;
    p.name = StrCat("p", pods.size());
    p.cpu_milli = 1000;
    p.memory_mib = 1024;
    p.num_gpu = n;
    p.gpu_milli = n == 0 ? 0 : milli;
    pods.push_back(p);
  }
  return pods;
}

TEST(ProtocolTest, ArrivalOrderShufflesThenResamplesToTheTarget) {
  std::vector<TracePod> pods = Pods({{1, 1000}, {1, 500}, {2, 1000}, {0, 0}});
  // Cluster of 10 GPUs, target 1.3: demand grows to at most 13 GPUs.
  std::vector<size_t> order = ArrivalOrder(pods, 10000, 1.3, 42);
  ASSERT_GE(order.size(), 4u);
  std::vector<size_t> head(order.begin(), order.begin() + 4);
  std::sort(head.begin(), head.end());
  EXPECT_EQ(head, (std::vector<size_t>{0, 1, 2, 3}));  // every pod once first
  int64_t demand = 0;
  for (size_t i : order) demand += pods[i].GpuMilli();
  EXPECT_LE(demand, 13000 + 1000);  // a 2-GPU draw may overshoot by one GPU
  EXPECT_GE(demand, 13000 - 2000);
  EXPECT_EQ(order, ArrivalOrder(pods, 10000, 1.3, 42));  // reproducible
  EXPECT_NE(order, ArrivalOrder(pods, 10000, 1.3, 43));
  // Above the target: random pods leave until it is met.
  std::vector<size_t> down = ArrivalOrder(pods, 1000, 1.3, 42);
  int64_t left = 0;
  for (size_t i : down) left += pods[i].GpuMilli();
  EXPECT_LE(left, 1300);
}

TEST(FragmentationTest, TypicalWorkloadAndNodeMeasure) {
  using scheduler::PodShape;
  std::vector<PodShape> shapes;
  auto add = [&](int count, int64_t cpu, int gpus, int64_t milli) {
    for (int i = 0; i < count; ++i) shapes.push_back({cpu, gpus, milli, {}});
  };
  add(6, 1000, 1, 500);   // 60 %
  add(3, 2000, 1, 1000);  // 30 %
  add(1, 4000, 0, 0);     // 10 %
  scheduler::TargetWorkload w = scheduler::TypicalWorkload(shapes, 85);
  ASSERT_EQ(w.size(), 2u);  // 60 + 30 >= 85
  EXPECT_EQ(w[0].shape.gpu_milli, 500);
  EXPECT_NEAR(w[0].popularity, 6.0 / 9, 1e-9);
  EXPECT_NEAR(w[1].popularity, 3.0 / 9, 1e-9);
  // Node with GPUs free 1000 and 300: the 500-share shape runs and only
  // the 300 left is fragment for it; the whole-GPU shape runs and the
  // 300 is fragment too. 300 * (6/9 + 3/9) = 300.
  scheduler::NodeGpuState node{"T4", 8000, {1000, 300}};
  EXPECT_NEAR(scheduler::FragmentationAmount(node, w), 300, 1e-9);
  // Without cpu nothing runs: all 1300 idle is fragment.
  node.cpu_left_milli = 500;
  EXPECT_NEAR(scheduler::FragmentationAmount(node, w), 1300, 1e-9);
  // A model constraint the node does not meet makes it fragment for that
  // shape only.
  w[1].shape.models = {"V100"};
  node.cpu_left_milli = 8000;
  EXPECT_NEAR(scheduler::FragmentationAmount(node, w),
              300 * 6.0 / 9 + 1300 * 3.0 / 9, 1e-9);
  // CPU-only shapes count every idle GPU share (the paper's measure).
  scheduler::TargetWorkload cpu_only = {{{1000, 0, 0, {}}, 1.0}};
  EXPECT_NEAR(scheduler::FragmentationAmount(node, cpu_only), 1300, 1e-9);
}

// The trace nodes' objects in `state`.
void LoadCluster(const std::vector<TraceNode>& nodes,
                 scheduler::ClusterState& state) {
  auto cluster = BuildCluster(nodes);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  state.SetDeviceClass(cluster->device_class);
  for (const auto& n : cluster->nodes) state.SetNode(n);
  for (const auto& sl : cluster->slices) state.SetSlice(sl);
}

// A two-GPU node with one GPU partly used; which GPU gets a 300 share.
class GpuChoiceTest : public ::testing::Test {
 protected:
  struct Placed {
    std::string node;
    std::string device;
  };
  // The target workload is `shapes`, or half 700 shares and half 300
  // when empty; `learn`: none given.
  Placed Run(const std::string& policy,
             const std::vector<int64_t>& first_shares, int64_t share,
             bool learn = false, std::vector<scheduler::PodShape> shapes = {}) {
    scheduler::ClusterState state(allocator::Features::Defaults());
    LoadCluster({{"a", 64000, 262144, 4, "T4"}}, state);
    scheduler::PolicyOptions options;
    if (shapes.empty()) shapes = {{1000, 1, 700, {}}, {1000, 1, 300, {}}};
    if (!learn) options.pod_shapes = std::move(shapes);
    auto p = scheduler::NewScoringPolicy(policy, options);
    EXPECT_TRUE(p.ok()) << p.status();
    // The first pods by the allocator alone (first fit), the last by the
    // policy under test.
    auto setup_policy = scheduler::NewScoringPolicy("binpack");
    scheduler::SchedulingCycle setup(&state, setup_policy->get(), {});
    scheduler::SchedulingCycle cycle(&state, p->get(), {});
    std::vector<TracePod> pods;
    pods.reserve(first_shares.size() + 1);
    for (int64_t s : first_shares) pods.push_back(Pods({{1, s}})[0]);
    pods.push_back(Pods({{1, share}})[0]);
    auto factory = PodFactory::Create(pods);
    EXPECT_TRUE(factory.ok());
    Placed last;
    for (size_t i = 0; i < pods.size(); ++i) {
      PodObjects o = factory->Instantiate(i, StrCat("pod", i));
      state.SetClaim(o.claim);
      scheduler::SchedulingCycle& c = i + 1 == pods.size() ? cycle : setup;
      scheduler::Decision d = c.Schedule(o.pod);
      EXPECT_EQ(d.kind, scheduler::Decision::Kind::kScheduled) << d.message;
      c.Reserve(o.pod, d);
      last.node = d.node;
      last.device = d.claims.at(0).allocation->devices.results.at(0).device;
    }
    return last;
  }
};

TEST_F(GpuChoiceTest, PoliciesChooseTheGpuInsideTheNode) {
  // First fit leaves gpu-0 600 free (400 taken) and gpu-1 300 free (700
  // taken); gpu-2 and gpu-3 free. Where a 300 share goes:
  // - the allocator alone (binpack) takes the first that fits;
  EXPECT_EQ(Run("binpack", {400, 700}, 300).device, "gpu-0");
  // - best fit the least free that fits, filling gpu-1;
  EXPECT_EQ(Run("bestfit", {400, 700}, 300).device, "gpu-1");
  EXPECT_EQ(Run("dotprod", {400, 700}, 300).device, "gpu-1");
  // - fgd (workload: half 700 shares, half 300): gpu-0 and gpu-1 both
  //   lower the fragmentation by 150 (the 700 shape loses nothing it
  //   could use), gpu-2 by 0: the first best, gpu-0;
  EXPECT_EQ(Run("fgd", {400, 700}, 300).device, "gpu-0");
  // - draplane breaks that tie by best fit: gpu-1.
  EXPECT_EQ(Run("draplane", {400, 700}, 300).device, "gpu-1");
  // A 700 share fits only the free GPUs: the first of them.
  EXPECT_EQ(Run("fgd", {400, 700}, 700).device, "gpu-2");
  // Without a given workload fgd and draplane learn it from the pods they
  // score (a live scheduler): here only the last pod's 300 shape, for
  // which no GPU left is a fragment before or after: all placements tie,
  // fgd takes the first, draplane the fullest.
  EXPECT_EQ(Run("fgd", {400, 700}, 300, /*learn=*/true).device, "gpu-0");
  EXPECT_EQ(Run("draplane", {400, 700}, 300, /*learn=*/true).device, "gpu-1");
  // Every policy places it somewhere valid.
  for (std::string_view p : scheduler::PolicyNames()) {
    if (p == "topology") continue;
    EXPECT_EQ(Run(std::string(p), {400, 700}, 300).node, "a") << p;
  }
}

TEST_F(GpuChoiceTest, DraplaneAvoidsLeavingShareNoCommonSizeFits) {
  // Workload: 470, 320 and 650 thousandths and whole GPUs in equal parts.
  // After a 470 share, the 530 free on gpu-0 could still take another 470
  // (60 left); a 320 share there would leave 210 that no size fits.
  std::vector<scheduler::PodShape> shapes;
  for (int64_t share : {470, 320, 650, 1000}) {
    shapes.push_back({1000, 1, share, {}});
  }
  // FGD's measure prefers gpu-0: it falls by 55 there (the 530 already
  // counted as fragmented for the 650 share and whole GPUs) and rises by
  // 170 on a free GPU (680 left, too small for a whole GPU). Best fit
  // takes gpu-0 too.
  EXPECT_EQ(Run("fgd", {470}, 320, false, shapes).device, "gpu-0");
  EXPECT_EQ(Run("bestfit", {470}, 320, false, shapes).device, "gpu-0");
  // draplane pays for the 150 more that can never be filled (210 instead
  // of 60) and opens a free GPU, whose 680 left a 650 share fits.
  EXPECT_EQ(Run("draplane", {470}, 320, false, shapes).device, "gpu-1");
  // With a 650 share on gpu-1 (350 free, 30 after a 320 share either
  // way), the 320 share goes there.
  EXPECT_EQ(Run("draplane", {470, 650}, 320, false, shapes).device, "gpu-1");
}

// Where a whole-GPU pod that any model can run goes, on one T4 node
// (first in order) and three G2 nodes of one GPU each, when a tenth of the
// workload can only use T4 and another tenth only G2.
std::string PlaceUnconstrained(const std::string& policy) {
  scheduler::ClusterState state(allocator::Features::Defaults());
  LoadCluster({{"a", 16000, 65536, 1, "T4"},
               {"b", 16000, 65536, 1, "G2"},
               {"c", 16000, 65536, 1, "G2"},
               {"d", 16000, 65536, 1, "G2"}},
              state);
  scheduler::PolicyOptions options;
  for (int i = 0; i < 8; ++i) options.pod_shapes.push_back({1000, 1, 1000, {}});
  options.pod_shapes.push_back({1000, 1, 1000, {"T4"}});
  options.pod_shapes.push_back({1000, 1, 1000, {"G2"}});
  auto p = scheduler::NewScoringPolicy(policy, options);
  EXPECT_TRUE(p.ok()) << p.status();
  scheduler::SchedulingCycle cycle(&state, p->get(), {});
  auto factory = PodFactory::Create(Pods({{1, 1000}}));
  EXPECT_TRUE(factory.ok());
  PodObjects o = factory->Instantiate(0, "pod0");
  state.SetClaim(o.claim);
  scheduler::Decision d = cycle.Schedule(o.pod);
  EXPECT_EQ(d.kind, scheduler::Decision::Kind::kScheduled) << d.message;
  return d.node;
}

TEST(ModelReservationTest, DraplaneKeepsScarceModelsForThePodsThatNeedThem) {
  // FGD's measure: the T4 GPU is a fragment for the G2-only tenth, each
  // G2 GPU for the T4-only tenth; taking either lowers it by 100: a tie,
  // and the first node, the only T4, goes.
  EXPECT_EQ(PlaceUnconstrained("fgd"), "a");
  // draplane prices the share taken by the pressure on the model: the
  // T4-only demand has one GPU, the G2-only demand three, so T4 costs
  // three times as much (pressure 0.4 vs 0.13 of the mean demand per GPU).
  EXPECT_EQ(PlaceUnconstrained("draplane"), "b");
}

TEST(FragmentationTest, UnfillableShareCountsOnlyCommonSizes) {
  // 470 and 650 shares, each for 40 % of the pods, 160 shares for `rare`
  // per mille, whole GPUs for the rest.
  auto workload = [](int rare) {
    scheduler::TargetWorkload w;
    w.push_back({{1000, 1, 470, {}}, 0.4});
    w.push_back({{1000, 1, 650, {}}, 0.4});
    w.push_back({{1000, 1, 160, {}}, rare / 1000.0});
    w.push_back({{1000, 1, 1000, {}}, (200 - rare) / 1000.0});
    return w;
  };
  // 160 shares for an eighth as many pods as 470 shares: counted on.
  const std::vector<int64_t> common =
      scheduler::UnfillableShare(workload(50), 0.1);
  ASSERT_EQ(common.size(), 1001u);
  EXPECT_EQ(common[0], 0);
  EXPECT_EQ(common[100], 100);  // nothing fits
  EXPECT_EQ(common[190], 30);   // 160
  EXPECT_EQ(common[530], 50);   // 160 x 3 (470 leaves 60)
  EXPECT_EQ(common[630], 0);    // 470 + 160
  EXPECT_EQ(common[1000], 30);  // 650 + 160 x 2
  // For 30 per mille (under a tenth): not.
  const std::vector<int64_t> rare =
      scheduler::UnfillableShare(workload(30), 0.1);
  EXPECT_EQ(rare[190], 190);
  EXPECT_EQ(rare[530], 60);
  EXPECT_EQ(rare[630], 160);
  EXPECT_EQ(rare[1000], 60);  // 470 x 2
  // The ratio, not the share of all pods, decides: the same sizes in a
  // workload where they are a tenth as common.
  scheduler::TargetWorkload diluted = workload(50);
  for (auto& w : diluted) w.popularity /= 10;
  diluted.push_back({{1000, 0, 0, {}}, 0.9});
  EXPECT_EQ(scheduler::UnfillableShare(diluted, 0.1), common);
  // A size asked with several cpu requests adds up.
  scheduler::TargetWorkload split = workload(0);
  split.push_back({{2000, 1, 160, {}}, 0.025});
  split.push_back({{3000, 1, 160, {}}, 0.025});
  EXPECT_EQ(scheduler::UnfillableShare(split, 0.1)[190], 30);
  EXPECT_EQ(scheduler::UnfillableShare({}, 0.1)[700], 700);
}

TEST(SimulatorTest, RunsTheProtocolOnASmallTrace) {
  auto nodes = ParseNodeList(kNodes, "nodes.csv");
  auto pods = ParsePodList(kPods, "pods.csv");
  ASSERT_TRUE(nodes.ok() && pods.ok());
  FgdOptions options;
  options.policy = "fgd";
  options.seeds = {1, 2, 3};
  options.jobs = 2;
  int64_t last_progress = 0;
  options.progress = [&](int64_t done, int64_t total) {
    EXPECT_LE(done, total);
    last_progress = done;
  };
  auto result = RunFgd(*nodes, *pods, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->gpus, 10);
  ASSERT_EQ(result->runs.size(), 3u);
  int64_t pods_run = 0;
  for (const SeedRun& r : result->runs) {
    pods_run += r.pods;
    // 10 GPUs, demand up to 13: something fails, and allocation never
    // exceeds arrival.
    EXPECT_GT(r.scheduled, 0);
    EXPECT_LT(r.scheduled, r.pods);
    // Values only where pods arrived (each pod moves arrival by 5 to 40
    // points here), never above what arrived.
    int values = 0;
    for (int p = 0; p <= kMaxArrivedPct; ++p) {
      if (std::isnan(r.allocated_pct[p])) continue;
      ++values;
      EXPECT_LE(r.allocated_pct[p], p + 1.5) << p;
      EXPECT_LE(r.allocated_pct[p], 100.0);
    }
    EXPECT_GE(values, 3);
    EXPECT_LT(values, 3 * static_cast<int>(r.pods) + 1);
    EXPECT_EQ(r.nodes.size(), 2u);  // the GPU nodes
  }
  EXPECT_EQ(last_progress, pods_run);
  api::Json j = FgdResultJson(*result);
  EXPECT_EQ(j["policy"], "fgd");
  EXPECT_EQ(j["seeds"].size(), 3u);
  for (const char* p : {"90", "95", "100", "110", "130"}) {
    EXPECT_TRUE(j["unallocated_pct"].contains(p)) << p;
  }
  EXPECT_EQ(j["per_seed"].size(), 3u);
  EXPECT_NE(FgdResultTable(*result).find("mean"), std::string::npos);

  const fs::path dir = fs::temp_directory_path() / "draplane-sim-report-test";
  fs::remove_all(dir);
  ReportInput input;
  input.results.push_back(&*result);
  input.workload_name = "pods.csv";
  input.published_path = "/nonexistent/analysis_allo_discrete.csv";
  ASSERT_TRUE(WriteFgdReport(dir.string(), input).ok());
  for (const char* f : {"index.html", "unallocated.svg", "fragmentation.svg",
                        "occupancy.svg"}) {
    EXPECT_GT(fs::file_size(dir / f), 200u) << f;
  }
  {
    std::ifstream index(dir / "index.html");
    std::stringstream html;
    html << index.rdbuf();
    EXPECT_NE(html.str().find("published curves were not found"),
              std::string::npos);
  }
  fs::remove_all(dir);

  options.policy = "nope";
  EXPECT_EQ(RunFgd(*nodes, *pods, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PublishedResultsTest, ParsesTheCurvesFile) {
  const fs::path path =
      fs::temp_directory_path() / "draplane-published-test.csv";
  {
    std::ofstream f(path);
    f << "workload,sc_policy,tune,seed,total_gpus";
    for (int p = 0; p <= kMaxArrivedPct; ++p) f << "," << p;
    f << "\n";
    for (int seed : {42, 43}) {
      f << "w,06-FGD,1.3," << seed << ",10";
      for (int p = 0; p <= kMaxArrivedPct; ++p) {
        f << "," << (p == 100 ? (seed == 42 ? 95.0 : 97.0) : 50.0);
      }
      f << "\n";
    }
  }
  auto runs = LoadPublishedRuns(path.string());
  ASSERT_TRUE(runs.ok()) << runs.status();
  PublishedCurve c = Published(*runs, "w", "06-FGD");
  EXPECT_EQ(c.runs, 2);
  EXPECT_NEAR(c.unallocated_mean[100], 4.0, 1e-9);
  EXPECT_NEAR(c.unallocated_sd[100], std::sqrt(2.0), 1e-9);
  EXPECT_EQ(Published(*runs, "w", "01-Random").runs, 0);
  EXPECT_EQ(PaperPolicyName("gpu-packing"), "04-GpuPacking");
  EXPECT_EQ(PaperPolicyName("draplane"), "");
  EXPECT_EQ(WorkloadName("/x/openb_pod_list_default.csv"),
            "openb_pod_list_default");
  fs::remove(path);
}

}  // namespace
}  // namespace draplane::sim
