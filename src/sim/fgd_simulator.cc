#include "sim/fgd_simulator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/str_cat.h"
#include "scheduler/cluster_state.h"
#include "scheduler/packing_policies.h"
#include "scheduler/scheduling_cycle.h"
#include "sim/cluster_model.h"

namespace draplane::sim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Curve NaNCurve() {
  Curve c;
  c.fill(kNaN);
  return c;
}

// Per-percentage means, as merge_alloc_discrete: a percentage without
// values takes the mean of the values within one percentage of it.
class Buckets {
 public:
  void Add(int pct, double value) {
    if (pct < 0 || pct > kMaxArrivedPct) return;
    sum_[pct] += value;
    ++count_[pct];
  }
  Curve Means() const {
    Curve out = NaNCurve();
    for (int p = 0; p <= kMaxArrivedPct; ++p) {
      if (count_[p] > 0) {
        out[p] = sum_[p] / count_[p];
        continue;
      }
      double s = 0;
      int64_t n = 0;
      for (int q = std::max(0, p - 1); q <= std::min(kMaxArrivedPct, p + 1);
           ++q) {
        s += sum_[q];
        n += count_[q];
      }
      if (n > 0) out[p] = s / n;
    }
    return out;
  }

 private:
  std::array<double, kMaxArrivedPct + 1> sum_{};
  std::array<int64_t, kMaxArrivedPct + 1> count_{};
};

std::string PodType(const TracePod& p) {
  if (p.num_gpu == 0) return "cpu";
  if (p.gpu_milli < 1000) return "share";
  return p.num_gpu == 1 ? "1-gpu" : "multi-gpu";
}

scheduler::PodShape ShapeOf(const TracePod& p) {
  scheduler::PodShape s;
  s.cpu_milli = p.cpu_milli;
  s.gpu_count = p.num_gpu;
  s.gpu_milli = p.gpu_milli;
  s.models = p.gpu_spec;
  return s;
}

// The node's GPU state as the fragmentation measure reads it.
scheduler::NodeGpuState StateOf(scheduler::ClusterState& state,
                                const scheduler::ClusterState::NodeInfo& info) {
  scheduler::NodeGpuState s;
  const auto& devices = state.NodeDevices(info);
  s.model = scheduler::NodeGpuModel(devices);
  s.cpu_left_milli =
      info.allocatable.amounts.milli_cpu - info.usage.requested.milli_cpu;
  for (const auto& d : devices) s.gpu_left_milli.push_back(d.free_milli);
  return s;
}

struct Shared {
  const std::vector<TraceNode>* nodes;
  const std::vector<TracePod>* pods;
  const ClusterModel* cluster;
  const PodFactory* factory;
  const scheduler::TargetWorkload* workload;
  const std::vector<scheduler::PodShape>* shapes;
  const FgdOptions* options;
  std::atomic<int64_t> done{0};
  int64_t total = 0;
  absl::Mutex progress_mu;
  int64_t next_report = 0;
};

absl::StatusOr<SeedRun> RunSeed(Shared& shared, uint64_t seed,
                                const std::vector<size_t>& order) {
  const absl::Time start = absl::Now();
  SeedRun run;
  run.seed = seed;
  // Nodes in a random order per seed, as the paper's simulator names them
  // "<position>-<name>" (its scheduler takes the first best node).
  std::vector<size_t> perm(shared.cluster->nodes.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937_64 node_rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::shuffle(perm.begin(), perm.end(), node_rng);
  const int width = static_cast<int>(std::to_string(perm.size()).size());
  std::vector<std::string> names;
  for (size_t i = 0; i < perm.size(); ++i) {
    std::string position = std::to_string(perm[i]);
    position.insert(0, static_cast<size_t>(width) - position.size(), '0');
    names.push_back(StrCat(
        position, "-",
        std::get<api::Node>(shared.cluster->nodes[i]->value).metadata.name));
  }
  const ClusterModel cluster = RenameNodes(*shared.cluster, names);
  scheduler::ClusterState state(allocator::Features::Defaults());
  state.SetDeviceClass(cluster.device_class);
  for (const auto& n : cluster.nodes) state.SetNode(n);
  for (const auto& s : cluster.slices) state.SetSlice(s);
  scheduler::PolicyOptions policy_options;
  policy_options.pod_shapes = *shared.shapes;
  policy_options.seed = seed;
  absl::StatusOr<std::unique_ptr<scheduler::ScoringPolicy>> policy =
      scheduler::NewScoringPolicy(shared.options->policy, policy_options);
  if (!policy.ok()) return policy.status();
  scheduler::CycleOptions cycle_options;
  cycle_options.seed = seed;
  cycle_options.filter_timeout = absl::ZeroDuration();
  cycle_options.max_explained_nodes = 0;
  cycle_options.max_cached_specs = 4096;
  scheduler::SchedulingCycle cycle(&state, policy->get(), cycle_options);

  const auto& infos = state.Nodes();
  absl::flat_hash_map<std::string, size_t> index_of;
  std::vector<double> node_frag(infos.size());
  double cluster_frag = 0;
  int64_t idle = 0;
  for (size_t i = 0; i < infos.size(); ++i) {
    index_of[infos[i]->node().metadata.name] = i;
    scheduler::NodeGpuState s = StateOf(state, *infos[i]);
    node_frag[i] = scheduler::FragmentationAmount(s, *shared.workload);
    cluster_frag += node_frag[i];
    for (int64_t l : s.gpu_left_milli) idle += l;
  }
  const int64_t gpus = shared.cluster->gpus;
  const double capacity_milli = static_cast<double>(gpus) * 1000;

  Buckets allocated, frag_total, frag_idle;
  int64_t arrived = 0;
  int64_t used = 0;
  int64_t local_done = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const TracePod& trace_pod = (*shared.pods)[order[k]];
    PodObjects objects =
        shared.factory->Instantiate(order[k], StrCat("pod-", k));
    if (objects.claim != nullptr) state.SetClaim(objects.claim);
    arrived += trace_pod.GpuMilli();
    ++run.pods;
    scheduler::Decision d = cycle.Schedule(objects.pod);
    if (d.kind == scheduler::Decision::Kind::kScheduled) {
      cycle.Reserve(objects.pod, d);
      ++run.scheduled;
      auto it = index_of.find(d.node);
      if (it != index_of.end()) {
        const size_t i = it->second;
        scheduler::NodeGpuState s = StateOf(state, *infos[i]);
        const double f = scheduler::FragmentationAmount(s, *shared.workload);
        cluster_frag += f - node_frag[i];
        node_frag[i] = f;
      }
      used += trace_pod.GpuMilli();
      idle -= trace_pod.GpuMilli();
    } else if (d.kind == scheduler::Decision::Kind::kError) {
      return absl::InternalError(
          StrCat("seed ", seed, ", pod ", trace_pod.name, ": ", d.message));
    } else {
      ++run.failed[PodType(trace_pod)];
      if (objects.claim != nullptr) {
        state.RemoveClaim(
            StrCat(kSimNamespace, "/", objects.pod.metadata.name, "-gpu"));
      }
    }
    const int pct = static_cast<int>(
        std::nearbyint(static_cast<double>(arrived) / capacity_milli * 100));
    allocated.Add(pct, std::round(used / capacity_milli * 100 * 100) / 100);
    frag_total.Add(pct, cluster_frag / capacity_milli * 100);
    frag_idle.Add(pct, idle > 0 ? cluster_frag / idle * 100 : 0);
    if (++local_done % 256 == 0 || k + 1 == order.size()) {
      int64_t all = shared.done.fetch_add(local_done) + local_done;
      local_done = 0;
      if (shared.options->progress) {
        absl::MutexLock lock(&shared.progress_mu);
        if (all >= shared.next_report || all == shared.total) {
          shared.next_report = all + std::max<int64_t>(1, shared.total / 100);
          shared.options->progress(all, shared.total);
        }
      }
    }
  }
  run.arrived_gpu_milli = arrived;
  run.allocated_pct = allocated.Means();
  run.frag_pct_of_total = frag_total.Means();
  run.frag_pct_of_idle = frag_idle.Means();
  for (const auto* info : infos) {
    const auto& devices = state.NodeDevices(*info);
    if (devices.empty()) continue;
    NodeOccupancy o;
    o.name = info->node().metadata.name;
    o.model = std::string(scheduler::NodeGpuModel(devices));
    for (const auto& d : devices)
      o.gpu_used_milli.push_back(1000 - d.free_milli);
    const int64_t cpu = info->allocatable.amounts.milli_cpu;
    o.cpu_used_fraction =
        cpu > 0 ? static_cast<double>(info->usage.requested.milli_cpu) / cpu
                : 0;
    run.nodes.push_back(std::move(o));
  }
  run.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return run;
}

}  // namespace

std::vector<size_t> ArrivalOrder(const std::vector<TracePod>& pods,
                                 int64_t cluster_gpu_milli, double target,
                                 uint64_t seed) {
  std::vector<size_t> by_name(pods.size());
  std::iota(by_name.begin(), by_name.end(), 0);
  std::stable_sort(by_name.begin(), by_name.end(), [&](size_t a, size_t b) {
    return pods[a].name < pods[b].name;
  });
  std::mt19937_64 rng(seed);
  std::vector<size_t> order = by_name;
  std::shuffle(order.begin(), order.end(), rng);
  if (pods.empty()) return order;
  const double goal = target * static_cast<double>(cluster_gpu_milli);
  double total = 0;
  for (size_t i : order) total += static_cast<double>(pods[i].GpuMilli());
  if (total < goal) {
    std::uniform_int_distribution<size_t> pick(0, by_name.size() - 1);
    while (true) {
      const TracePod& p = pods[by_name[pick(rng)]];
      // tuneUpPods compares the per-GPU share, not the pod's total.
      if (total + static_cast<double>(p.gpu_milli) > goal) break;
      total += static_cast<double>(p.GpuMilli());
      order.push_back(static_cast<size_t>(&p - pods.data()));
    }
  } else {
    while (total > goal && !order.empty()) {
      std::uniform_int_distribution<size_t> pick(0, order.size() - 1);
      size_t at = pick(rng);
      total -= static_cast<double>(pods[order[at]].GpuMilli());
      order.erase(order.begin() + static_cast<std::ptrdiff_t>(at));
    }
  }
  return order;
}

absl::StatusOr<FgdResult> RunFgd(const std::vector<TraceNode>& nodes,
                                 const std::vector<TracePod>& pods,
                                 const FgdOptions& options) {
  const absl::Time start = absl::Now();
  absl::StatusOr<std::unique_ptr<scheduler::ScoringPolicy>> probe =
      scheduler::NewScoringPolicy(options.policy, scheduler::PolicyOptions{});
  if (!probe.ok()) return probe.status();
  if (options.seeds.empty()) {
    return absl::InvalidArgumentError("no seeds to run");
  }
  absl::StatusOr<ClusterModel> cluster = BuildCluster(nodes);
  if (!cluster.ok()) return cluster.status();
  if (cluster->gpus == 0) {
    return absl::InvalidArgumentError("the node list has no GPUs");
  }
  absl::StatusOr<PodFactory> factory = PodFactory::Create(pods);
  if (!factory.ok()) return factory.status();
  std::vector<scheduler::PodShape> shapes;
  shapes.reserve(pods.size());
  for (const TracePod& p : pods) shapes.push_back(ShapeOf(p));

  FgdResult result;
  result.policy = options.policy;
  result.target = options.target;
  result.gpus = cluster->gpus;
  result.workload = scheduler::TypicalWorkload(shapes, options.coverage_pct);

  std::vector<std::vector<size_t>> orders;
  Shared shared;
  for (uint64_t seed : options.seeds) {
    orders.push_back(
        ArrivalOrder(pods, cluster->gpus * 1000, options.target, seed));
    shared.total += static_cast<int64_t>(orders.back().size());
  }
  shared.nodes = &nodes;
  shared.pods = &pods;
  shared.cluster = &*cluster;
  shared.factory = &*factory;
  shared.workload = &result.workload;
  shared.shapes = &shapes;
  shared.options = &options;

  std::vector<absl::StatusOr<SeedRun>> runs(options.seeds.size(),
                                            absl::UnknownError("not run"));
  int jobs = options.jobs > 0
                 ? options.jobs
                 : static_cast<int>(std::thread::hardware_concurrency());
  jobs = std::clamp(jobs, 1, static_cast<int>(options.seeds.size()));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < options.seeds.size(); i = next++) {
      runs[i] = RunSeed(shared, options.seeds[i], orders[i]);
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  for (auto& r : runs) {
    if (!r.ok()) return r.status();
    result.runs.push_back(*std::move(r));
  }
  result.wall_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return result;
}

namespace {

// Per arrival percentage, the seeds' values (NaN ones left out) reduced by
// `reduce` (NaN where no seed has a value).
template <typename F>
Curve OverSeeds(const FgdResult& result, Curve SeedRun::*curve,
                const F& reduce) {
  Curve out = NaNCurve();
  std::vector<double> values;
  for (int p = 0; p <= kMaxArrivedPct; ++p) {
    values.clear();
    for (const SeedRun& r : result.runs) {
      const double v = (r.*curve)[p];
      if (!std::isnan(v)) values.push_back(v);
    }
    if (!values.empty()) out[p] = reduce(values);
  }
  return out;
}

double Mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) /
         static_cast<double>(v.size());
}

}  // namespace

Curve MeanCurve(const FgdResult& result, Curve SeedRun::*curve) {
  return OverSeeds(result, curve, Mean);
}

Curve SdCurve(const FgdResult& result, Curve SeedRun::*curve) {
  return OverSeeds(result, curve, [](const std::vector<double>& v) {
    if (v.size() < 2) return kNaN;
    const double mean = Mean(v);
    double s = 0;
    for (double x : v) s += (x - mean) * (x - mean);
    return std::sqrt(s / static_cast<double>(v.size() - 1));
  });
}

}  // namespace draplane::sim
