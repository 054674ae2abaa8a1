#include "scheduler/packing_policies.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "common/str_cat.h"
#include "scheduler/internal/node_views.h"

namespace draplane::scheduler {

namespace {

using internal::NodeView;
using internal::NodeViews;

// The simulator's normalisation constants (pkg/type/const.go).
constexpr double kMaxSpecCpu = 128000;
constexpr double kMaxSpecGpu = 8000;

// What the policies read of one placement.
struct Placement {
  const NodeView* node = nullptr;
  int64_t pod_cpu = 0;    // the pod's cpu request
  int gpu_count = 0;      // devices the placement takes
  int64_t gpu_milli = 0;  // per device (the first one's share)
  int64_t gpu_total = 0;  // summed share taken
};

Placement Read(const NodeCandidate& c, NodeViews& views) {
  Placement p;
  p.node = &views.Of(c);
  if (c.pod != nullptr) p.pod_cpu = c.pod->requests.milli_cpu;
  p.gpu_count = static_cast<int>(c.takes.size());
  for (const auto& t : c.takes) p.gpu_total += t.milli;
  if (!c.takes.empty()) p.gpu_milli = c.takes.front().milli;
  return p;
}

bool Shares(const Placement& p) {
  return p.gpu_count == 1 && p.gpu_milli < 1000;
}

// The free share of the one device a placement takes, before it; -1 when
// it takes another number of devices or the node's devices are unknown.
int64_t FreeShareOfTakenDevice(const NodeCandidate& c) {
  if (c.takes.size() != 1 || c.devices == nullptr) return -1;
  const int device = c.takes.front().device;
  if (device < 0 || device >= static_cast<int>(c.devices->size())) return -1;
  return (*c.devices)[device].free_milli;
}

class PackingPolicy : public ScoringPolicy, public DevicePreference {
 protected:
  Placement Read(const NodeCandidate& c) const {
    return draplane::scheduler::Read(c, views_);
  }
  mutable NodeViews views_;

 public:
  void StartPod(ClusterState& state) const override {
    views_.Bound(state.Nodes().size());
  }
  // Every node is scored. The paper's simulator runs a kube-scheduler fork
  // whose selectHost takes the first best node; it gives the nodes a
  // random order per seed (by name prefix). Ties here go to the first node
  // in name order (the default tie-breaking).
  const DevicePreference* device_preference() const override { return this; }
  // The simulator's "best" GPU choice: the fitting GPU with the least
  // free share (the lowest index on ties, as the first placement wins).
  int64_t Prefer(const NodeCandidate& c) const override { return BestFit(c); }
  // The fitting GPU with the least free share first.
  static int64_t BestFit(const NodeCandidate& c) {
    return -std::max<int64_t>(0, FreeShareOfTakenDevice(c));
  }
};

class RandomPolicy : public PackingPolicy {
 public:
  explicit RandomPolicy(uint64_t seed) : rng_(seed) {}
  std::string_view name() const override { return "random"; }
  // A uniformly random feasible node (the simulator's PreScore pick).
  bool TakeTiedNode(int ties, std::mt19937_64& rng) const override {
    return RandomTieBreak(ties, rng);
  }
  int64_t Score(const NodeCandidate&) const override { return 0; }
  int64_t Prefer(const NodeCandidate&) const override {
    return static_cast<int64_t>(rng_() >> 1);
  }

 private:
  mutable std::mt19937_64 rng_;
};

class DotProdPolicy : public PackingPolicy {
 public:
  std::string_view name() const override { return "dotprod"; }
  int64_t Score(const NodeCandidate& c) const override {
    Placement p = Read(c);
    const NodeView& n = *p.node;
    if (n.cpu_left < p.pod_cpu) return 0;
    double dot = (n.cpu_left / kMaxSpecCpu) * (p.pod_cpu / kMaxSpecCpu) +
                 (n.left_total / kMaxSpecGpu) * (p.gpu_total / kMaxSpecGpu);
    return static_cast<int64_t>(100 * (1 - dot / 2));
  }
};

class GpuClusteringPolicy : public PackingPolicy {
 public:
  std::string_view name() const override { return "gpu-clustering"; }
  int64_t Score(const NodeCandidate& c) const override {
    Placement p = Read(c);
    if (p.gpu_count == 0 || c.devices == nullptr) return 0;
    // Tags: -1 = GPU-sharing pods, k = pods with k whole GPUs.
    const int pod_tag = Shares(p) ? -1 : p.gpu_count;
    std::map<std::string_view, std::pair<int, bool>> owners;
    for (const auto& d : *c.devices) {
      if (d.owners == nullptr) continue;
      for (const std::string& o : *d.owners) {
        auto& [count, shared] = owners[o];
        ++count;
        shared |= d.owners->size() > 1 || d.free_milli > 0;
      }
    }
    bool has_own = false;
    bool has_other = false;
    for (const auto& [owner, use] : owners) {
      const int tag = use.second ? -1 : use.first;
      (tag == pod_tag ? has_own : has_other) = true;
    }
    const int64_t b = 25 * (8000 - p.node->left_total) / 8000;
    if (has_own && !has_other) return 75 + b;
    if (has_own) return 50 + b;
    if (!has_other) return 25 + b;
    return b;
  }
};

class GpuPackingPolicy : public PackingPolicy {
 public:
  std::string_view name() const override { return "gpu-packing"; }
  int64_t Score(const NodeCandidate& c) const override {
    Placement p = Read(c);
    if (p.gpu_count == 0) return 0;
    const auto& left = p.node->left;
    const int64_t free_gpus = p.node->free_gpus;
    if (free_gpus == static_cast<int64_t>(left.size())) {
      return std::max<int64_t>(33 - free_gpus, free_gpus);
    }
    std::vector<int> order(left.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return left[a] < left[b]; });
    int taken = 0;
    int64_t unused_taken = 0;
    int64_t sum = 0;
    for (int i : order) {
      if (taken == p.gpu_count) break;
      if (left[i] < p.gpu_milli) continue;
      ++taken;
      if (left[i] == 1000) ++unused_taken;
      sum += left[i] * 100 / 1000;
    }
    if (unused_taken > 0) return std::max<int64_t>(50 - unused_taken, 33);
    return std::max<int64_t>(100 - sum / 10, 50);
  }
};

class BestFitPolicy : public PackingPolicy {
 public:
  std::string_view name() const override { return "bestfit"; }
  int64_t Score(const NodeCandidate& c) const override {
    Placement p = Read(c);
    double cpu = 0.5 * (p.node->cpu_left - p.pod_cpu) / kMaxSpecCpu;
    double gpu = 0.5 * (p.node->left_total - p.gpu_total) / kMaxSpecGpu;
    return static_cast<int64_t>((1 - (cpu + gpu)) * 100);
  }
};

// Fragmentation of node states after a placement, memoised (many nodes
// are alike: empty, full, or holding the same common pods). Nodes with
// more than kMaxKeyed devices are computed every time.
class FragmentationMemo {
 public:
  static constexpr size_t kMaxKeyed = 16;
  template <typename F>
  double Of(const NodeView& node, int64_t cpu_left, const int64_t* left,
            size_t n, const F& measure) {
    if (n > kMaxKeyed) return measure(cpu_left, left, n);
    // The measure does not depend on the devices' order: key the sorted
    // shares (insertion sort, n is small).
    std::array<int16_t, kMaxKeyed> sorted{};
    for (size_t i = 0; i < n; ++i) {
      const auto v = static_cast<int16_t>(left[i]);
      size_t j = i;
      for (; j > 0 && sorted[j - 1] > v; --j) sorted[j] = sorted[j - 1];
      sorted[j] = v;
    }
    Key key;
    key.model_and_n = static_cast<uint64_t>(node.model_id) << 8 | n;
    key.cpu_left = cpu_left;
    std::memcpy(key.left.data(), sorted.data(), sizeof(key.left));
    if (memo_.size() > (1u << 20)) memo_.clear();
    auto [it, inserted] = memo_.try_emplace(key, 0.0);
    if (inserted) it->second = measure(cpu_left, left, n);
    return it->second;
  }
  void Clear() { memo_.clear(); }

 private:
  struct Key {
    uint64_t model_and_n = 0;
    int64_t cpu_left = 0;
    std::array<uint64_t, kMaxKeyed / 4> left{};  // 16 shares of 16 bits
    friend bool operator==(const Key&, const Key&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      // One multiply-mix over the words, then a single combine.
      uint64_t x = k.model_and_n * 0x9E3779B97F4A7C15ull ^
                   static_cast<uint64_t>(k.cpu_left);
      for (uint64_t w : k.left) x = (x ^ w) * 0xFF51AFD7ED558CCDull;
      return H::combine(std::move(h), x ^ (x >> 29));
    }
  };
  absl::flat_hash_map<Key, double> memo_;
};

// The target workload: given, or learned from the pods scored (their
// shapes as their placements show them; models unknown), over a window of
// the last kWindow pods.
class WorkloadSource {
 public:
  static constexpr size_t kWindow = 100000;
  explicit WorkloadSource(const std::vector<PodShape>& given)
      : learn_(given.empty()) {
    if (!learn_) workload_ = TypicalWorkload(given);
  }
  const TargetWorkload& workload() const { return workload_; }
  // Records the pod's shape on the first placement scored after StartPod;
  // returns true when the workload changed.
  void StartPod() { recorded_ = false; }
  bool Observe(const Placement& p) {
    if (!learn_ || recorded_) return false;
    recorded_ = true;
    PodShape shape;
    shape.cpu_milli = p.pod_cpu;
    shape.gpu_count = p.gpu_count;
    shape.gpu_milli = p.gpu_count == 0 ? 0 : p.gpu_milli;
    if (seen_.size() >= kWindow) {
      seen_.erase(seen_.begin(), seen_.begin() + kWindow / 2);
    }
    seen_.push_back(shape);
    // Recompute on a doubling schedule, then every 1024 pods.
    if (++observed_ >= next_) {
      next_ = observed_ < 1024 ? observed_ * 2 : observed_ + 1024;
      workload_ = TypicalWorkload(seen_);
      return true;
    }
    return false;
  }

 private:
  TargetWorkload workload_;
  bool learn_;
  bool recorded_ = false;
  std::vector<PodShape> seen_;
  size_t observed_ = 0;
  size_t next_ = 1;
};

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

class FgdPolicy : public PackingPolicy {
 public:
  // The paper's target workload: 95 % of the pods, counted as pods.
  explicit FgdPolicy(const std::vector<PodShape>& pods) : source_(pods) {}
  // The fragmentation measure (the paper's); draplane's adds to it.
  virtual double Measure(std::string_view model, int64_t cpu_left,
                         const int64_t* left, size_t n) const {
    return FragmentationAmount(model, cpu_left, left, n, source_.workload());
  }
  std::string_view name() const override { return "fgd"; }
  void StartPod(ClusterState& state) const override {
    PackingPolicy::StartPod(state);
    source_.StartPod();
  }
  int64_t Score(const NodeCandidate& c) const override {
    Placement p = Read(c);
    if (source_.Observe(p)) {
      memo_.Clear();
      frag_generation_++;
    }
    return static_cast<int64_t>(Sigmoid(FragDelta(c, p) / 1000) * 100);
  }
  // The first GPU with the best score (the simulator's strict '>').
  int64_t Prefer(const NodeCandidate&) const override { return 0; }

 protected:
  // The node's fragmentation before minus after the placement.
  double FragDelta(const NodeCandidate& c, const Placement& p) const {
    const NodeView& node = *p.node;
    if (node.frag < 0 || node.frag_generation != frag_generation_) {
      node.frag = Measure(node.model, node.cpu_left, node.left.data(),
                          node.left.size());
      node.frag_generation = frag_generation_;
    }
    after_.assign(node.left.begin(), node.left.end());
    for (const auto& t : c.takes) {
      if (t.device >= 0 && t.device < static_cast<int>(after_.size())) {
        after_[t.device] = std::max<int64_t>(0, after_[t.device] - t.milli);
      }
    }
    const double after =
        memo_.Of(node, node.cpu_left - p.pod_cpu, after_.data(), after_.size(),
                 [&](int64_t cpu, const int64_t* left, size_t n) {
                   return Measure(node.model, cpu, left, n);
                 });
    return node.frag - after;
  }

  mutable WorkloadSource source_;
  mutable FragmentationMemo memo_;
  mutable std::vector<int64_t> after_;
  mutable uint64_t frag_generation_ = 0;
};

// draplane's policy (docs/scheduling-policies.md): FGD's fragmentation
// measure plus the GPU share a node's remaining cpu cannot feed (at the
// target workload's cpu per GPU share), weighted kCpuStrandingWeight; a
// placement's gain is the drop of that measure minus a reservation price
// for the GPU share it takes: kReservationWeight x the pressure on the
// node's GPU model (what the workload's model-constrained shapes ask per
// GPU of the models they allow, over the whole workload's demand per GPU;
// 0 without constraints); a placement that shares a GPU also loses
// kWasteWeight x the rise of that GPU's expected waste (the free share
// that the workload's common sharing sizes cannot fill: UnfillableShare;
// a fall is a bonus). The best gain wins,
// compared in steps of kStep thousandths of a GPU (FGD compares sigmoid
// percents), ties going to the first node; inside a node, among equally
// good GPUs, the fullest.
class DraplanePolicy : public FgdPolicy {
 public:
  static constexpr double kCpuStrandingWeight = 4;
  static constexpr double kStep = 10;
  static constexpr double kReservationWeight = 0.3;
  static constexpr double kWasteWeight = 30;
  // A sharing size counts as filling a GPU's free share when at least
  // this many times as many pods ask for it as for the most common one.
  static constexpr double kFillerRatio = 0.1;

  explicit DraplanePolicy(const std::vector<PodShape>& pods)
      : FgdPolicy(pods) {}
  std::string_view name() const override { return "draplane"; }
  int64_t Prefer(const NodeCandidate& c) const override { return BestFit(c); }
  double Measure(std::string_view model, int64_t cpu_left, const int64_t* left,
                 size_t n) const override {
    const double f = FgdPolicy::Measure(model, cpu_left, left, n);
    if (ratio_generation_ != frag_generation_ || cpu_per_gpu_milli_ < 0) {
      // cpu per thousandth of a GPU of the workload's GPU pods.
      double cpu = 0, gpu = 0;
      for (const WeightedShape& w : source_.workload()) {
        if (w.shape.gpu_count == 0) continue;
        cpu += w.popularity * static_cast<double>(w.shape.cpu_milli);
        gpu += w.popularity * static_cast<double>(w.shape.GpuMilli());
      }
      cpu_per_gpu_milli_ = gpu > 0 ? cpu / gpu : 0;
      ratio_generation_ = frag_generation_;
    }
    if (cpu_per_gpu_milli_ <= 0) return f;
    int64_t idle = 0;
    for (size_t i = 0; i < n; ++i) idle += left[i];
    const double fed =
        std::max<double>(static_cast<double>(cpu_left), 0) / cpu_per_gpu_milli_;
    return f +
           kCpuStrandingWeight * std::max(0.0, static_cast<double>(idle) - fed);
  }
  // Counts the cluster's GPUs per model when its nodes or slices changed.
  void StartPod(ClusterState& state) const override {
    FgdPolicy::StartPod(state);
    const std::pair<uint64_t, size_t> version(state.GlobalEpoch(),
                                              state.Nodes().size());
    if (version == supply_version_) return;
    supply_version_ = version;
    supply_.clear();
    for (const ClusterState::NodeInfo* info : state.Nodes()) {
      const auto& devices = state.NodeDevices(*info);
      if (devices.empty()) continue;
      const auto id =
          static_cast<size_t>(views_.ModelId(NodeGpuModel(devices)));
      if (supply_.size() <= id) supply_.resize(id + 1);
      supply_[id] += static_cast<int64_t>(devices.size());
    }
    pressure_generation_ = ~0ull;  // recompute
  }
  int64_t Score(const NodeCandidate& c) const override {
    Placement p = Read(c);
    if (source_.Observe(p)) {
      memo_.Clear();
      frag_generation_++;
    }
    double delta = FragDelta(c, p);
    const std::vector<double>& pressure = Pressure();
    const int m = p.node->model_id;
    if (static_cast<size_t>(m) < pressure.size()) {
      delta -=
          kReservationWeight * pressure[m] * static_cast<double>(p.gpu_total);
    }
    if (const int64_t free = FreeShareOfTakenDevice(c);
        Shares(p) && free >= 0 && free <= 1000) {
      const std::vector<int64_t>& waste = ExpectedWaste();
      const int64_t left = std::max<int64_t>(0, free - p.gpu_milli);
      delta -= kWasteWeight * static_cast<double>(waste[left] - waste[free]);
    }
    return static_cast<int64_t>(std::floor(delta / kStep));
  }

 private:
  // Per model id: the demand of model-constrained shapes per GPU of the
  // models they allow, relative to the whole workload's demand per GPU.
  const std::vector<double>& Pressure() const {
    if (pressure_generation_ == frag_generation_) return pressure_;
    pressure_generation_ = frag_generation_;
    const std::vector<int64_t>& supply = supply_;
    pressure_.assign(supply.size(), 0);
    double demand = 0;
    int64_t total = 0;
    for (int64_t g : supply) total += g;
    for (const WeightedShape& w : source_.workload()) {
      demand += w.popularity * static_cast<double>(w.shape.GpuMilli());
    }
    if (demand <= 0 || total <= 0) return pressure_;
    std::vector<int> ids;
    for (const WeightedShape& w : source_.workload()) {
      if (w.shape.models.empty() || w.shape.GpuMilli() == 0) continue;
      ids.clear();
      int64_t allowed = 0;
      for (const std::string& m : w.shape.models) {
        const int id = views_.ModelId(m);
        if (static_cast<size_t>(id) >= supply.size() ||
            std::find(ids.begin(), ids.end(), id) != ids.end()) {
          continue;  // no GPU of that model, or named twice
        }
        ids.push_back(id);
        allowed += supply[id];
      }
      if (allowed == 0) continue;
      const double load = w.popularity *
                          static_cast<double>(w.shape.GpuMilli()) /
                          static_cast<double>(allowed);
      for (int id : ids) pressure_[id] += load;
    }
    const double baseline = demand / static_cast<double>(total);
    for (double& x : pressure_) x /= baseline;
    return pressure_;
  }
  // UnfillableShare of the current workload, at kFillerRatio.
  const std::vector<int64_t>& ExpectedWaste() const {
    if (waste_generation_ != frag_generation_) {
      waste_ = UnfillableShare(source_.workload(), kFillerRatio);
      waste_generation_ = frag_generation_;
    }
    return waste_;
  }
  mutable std::vector<int64_t> waste_;
  mutable uint64_t waste_generation_ = ~0ull;
  mutable std::vector<int64_t> supply_;  // GPUs per model id
  mutable std::pair<uint64_t, size_t> supply_version_{~0ull, 0};
  mutable std::vector<double> pressure_;
  mutable uint64_t pressure_generation_ = ~0ull;
  mutable double cpu_per_gpu_milli_ = -1;
  mutable uint64_t ratio_generation_ = 0;
};

}  // namespace

std::string_view NodeGpuModel(
    const std::vector<ClusterState::DeviceUse>& devices) {
  if (devices.empty()) return "";
  const api::Device& d = *devices.front().device;
  auto it = d.attributes.find(std::string_view("productName"));
  if (it == d.attributes.end()) {
    it = d.attributes.find(StrCat(devices.front().id.driver, "/productName"));
  }
  if (it == d.attributes.end()) return "";
  return it->second.string_value().value_or("");
}

std::unique_ptr<ScoringPolicy> NewPackingPolicy(std::string_view name,
                                                const PolicyOptions& options) {
  if (name == "random") return std::make_unique<RandomPolicy>(options.seed);
  if (name == "dotprod") return std::make_unique<DotProdPolicy>();
  if (name == "gpu-clustering") return std::make_unique<GpuClusteringPolicy>();
  if (name == "gpu-packing") return std::make_unique<GpuPackingPolicy>();
  if (name == "bestfit") return std::make_unique<BestFitPolicy>();
  if (name == "fgd") return std::make_unique<FgdPolicy>(options.pod_shapes);
  if (name == "draplane") {
    return std::make_unique<DraplanePolicy>(options.pod_shapes);
  }
  return nullptr;
}

}  // namespace draplane::scheduler
