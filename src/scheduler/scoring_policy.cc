#include "scheduler/scoring_policy.h"

#include "common/str_cat.h"
#include "scheduler/packing_policies.h"

namespace draplane::scheduler {

namespace {

// Share of the node's devices in use after placing the pod, 0..100.
int64_t DeviceFill(const NodeCandidate& c) {
  if (c.devices_total <= 0) return 0;
  int64_t used = c.devices_used + c.devices_new;
  return std::min<int64_t>(100, used * 100 / c.devices_total);
}

// Policies that add no interconnect preference.
class WithoutTopology : public ScoringPolicy {
 public:
  const std::vector<std::string>& PreferredMatchAttributes() const override {
    static const std::vector<std::string> kNone;
    return kNone;
  }
};

class UpstreamPolicy : public WithoutTopology {
 public:
  std::string_view name() const override { return "upstream"; }
  bool ScoresAllNodes() const override { return false; }
  bool RandomTieBreak() const override { return true; }
  int64_t Score(const NodeCandidate& c) const override {
    // The prioritized-list score is normalised to 0..100 by upstream's
    // default normaliser across nodes; ranking by the raw sum is the same
    // order. Weights: DynamicResources 2 (KEP 4816), NodeResourcesFit 1.
    return 2 * c.prioritized_list * 100 + c.least_allocated;
  }
};

class BinpackPolicy : public WithoutTopology {
 public:
  std::string_view name() const override { return "binpack"; }
  bool ScoresAllNodes() const override { return true; }
  bool RandomTieBreak() const override { return false; }
  int64_t Score(const NodeCandidate& c) const override {
    return c.prioritized_list * 100000 + DeviceFill(c) * 1000 +
           c.most_allocated;
  }
};

class SpreadPolicy : public WithoutTopology {
 public:
  std::string_view name() const override { return "spread"; }
  bool ScoresAllNodes() const override { return true; }
  bool RandomTieBreak() const override { return false; }
  int64_t Score(const NodeCandidate& c) const override {
    return c.prioritized_list * 100000 + (100 - DeviceFill(c)) * 1000 +
           c.least_allocated;
  }
};

class TopologyPolicy : public ScoringPolicy {
 public:
  explicit TopologyPolicy(std::vector<std::string> attributes)
      : attributes_(std::move(attributes)) {}
  std::string_view name() const override { return "topology"; }
  bool ScoresAllNodes() const override { return true; }
  bool RandomTieBreak() const override { return false; }
  const std::vector<std::string>& PreferredMatchAttributes() const override {
    return attributes_;
  }
  int64_t Score(const NodeCandidate& c) const override {
    int64_t aligned = 0;
    if (c.topology_match > 0) {
      aligned = static_cast<int64_t>(attributes_.size()) + 1 - c.topology_match;
    }
    return aligned * 10000000 + c.prioritized_list * 100000 +
           DeviceFill(c) * 1000 + c.most_allocated;
  }

 private:
  std::vector<std::string> attributes_;
};

}  // namespace

const std::vector<std::string_view>& PolicyNames() {
  static const std::vector<std::string_view> kNames = {
      "upstream", "binpack", "spread",         "topology",
      "random",   "dotprod", "gpu-clustering", "gpu-packing",
      "bestfit",  "fgd",     "draplane"};
  return kNames;
}

const std::vector<std::string>& DefaultTopologyAttributes() {
  static const std::vector<std::string> kAttributes = {
      "gpu.nvidia.com/nvlinkInterconnect", "resource.kubernetes.io/pcieRoot"};
  return kAttributes;
}

absl::StatusOr<std::unique_ptr<ScoringPolicy>> NewScoringPolicy(
    std::string_view name,
    const std::vector<std::string>& topology_attributes) {
  PolicyOptions options;
  options.topology_attributes = topology_attributes;
  return NewScoringPolicy(name, options);
}

absl::StatusOr<std::unique_ptr<ScoringPolicy>> NewScoringPolicy(
    std::string_view name, const PolicyOptions& options) {
  const std::vector<std::string>& topology_attributes =
      options.topology_attributes;
  if (std::unique_ptr<ScoringPolicy> packing = NewPackingPolicy(name, options);
      packing != nullptr) {
    return packing;
  }
  if (name == "upstream") return std::make_unique<UpstreamPolicy>();
  if (name == "binpack") return std::make_unique<BinpackPolicy>();
  if (name == "spread") return std::make_unique<SpreadPolicy>();
  if (name == "topology") {
    for (const std::string& a : topology_attributes) {
      if (a.find('/') == std::string::npos) {
        return absl::InvalidArgumentError(StrCat(
            "topology attribute \"", a,
            "\" must be fully qualified (domain/name), as matchAttribute "
            "requires"));
      }
    }
    return std::make_unique<TopologyPolicy>(topology_attributes.empty()
                                                ? DefaultTopologyAttributes()
                                                : topology_attributes);
  }
  std::string names;
  for (std::string_view n : PolicyNames()) {
    StrAppend(&names, names.empty() ? "" : ", ", n);
  }
  return absl::InvalidArgumentError(StrCat("unknown scheduling policy \"", name,
                                           "\": must be one of ", names));
}

}  // namespace draplane::scheduler
