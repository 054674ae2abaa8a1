#include "scheduler/scoring_policy.h"

#include <algorithm>

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

class UpstreamPolicy : public ScoringPolicy {
 public:
  std::string_view name() const override { return "upstream"; }
  NodeSample SampleNodes(int32_t num_nodes,
                         int32_t percentage_of_nodes_to_score) const override {
    return UpstreamNodeSample(num_nodes, percentage_of_nodes_to_score);
  }
  bool TakeTiedNode(int ties, std::mt19937_64& rng) const override {
    return RandomTieBreak(ties, rng);
  }
  int64_t Score(const NodeCandidate& c) const override {
    // The prioritized-list score is normalised to 0..100 by upstream's
    // default normaliser across nodes; ranking by the raw sum is the same
    // order. Weights: DynamicResources 2 (KEP 4816), NodeResourcesFit 1.
    return 2 * c.prioritized_list * 100 + c.least_allocated;
  }
};

class BinpackPolicy : public ScoringPolicy {
 public:
  std::string_view name() const override { return "binpack"; }
  int64_t Score(const NodeCandidate& c) const override {
    return c.prioritized_list * 100000 + DeviceFill(c) * 1000 +
           c.most_allocated;
  }
};

class SpreadPolicy : public ScoringPolicy {
 public:
  std::string_view name() const override { return "spread"; }
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
  // One variant per attribute: the claims asking for several devices get
  // them all sharing one value of it (a matchAttribute constraint). None
  // when no claim asks for several devices.
  std::vector<std::vector<api::ResourceClaim>> SoftVariants(
      const std::vector<const api::ResourceClaim*>& claims) const override {
    std::vector<std::vector<api::ResourceClaim>> variants;
    bool multi = false;
    for (const api::ResourceClaim* c : claims) multi |= DevicesAsked(*c) > 1;
    if (!multi) return variants;
    variants.reserve(attributes_.size());
    for (const std::string& attribute : attributes_) {
      std::vector<api::ResourceClaim>& aligned = variants.emplace_back();
      aligned.reserve(claims.size());
      for (const api::ResourceClaim* c : claims) {
        aligned.push_back(*c);
        if (DevicesAsked(*c) > 1) {
          api::DeviceConstraint constraint;
          constraint.match_attribute = attribute;
          aligned.back().spec.devices.constraints.push_back(constraint);
        }
      }
    }
    return variants;
  }
  int64_t Score(const NodeCandidate& c) const override {
    int64_t aligned = 0;
    if (c.soft_match > 0) {
      aligned = static_cast<int64_t>(attributes_.size()) + 1 - c.soft_match;
    }
    return aligned * 10000000 + c.prioritized_list * 100000 +
           DeviceFill(c) * 1000 + c.most_allocated;
  }

 private:
  std::vector<std::string> attributes_;
};

}  // namespace

NodeSample ScoringPolicy::SampleNodes(
    int32_t num_nodes, int32_t /*percentage_of_nodes_to_score*/) const {
  return {static_cast<size_t>(std::max(num_nodes, 0)), false};
}

NodeSample UpstreamNodeSample(int32_t num_nodes,
                              int32_t percentage_of_nodes_to_score) {
  return {static_cast<size_t>(node_filters::NumFeasibleNodesToFind(
              num_nodes, percentage_of_nodes_to_score)),
          true};
}

bool RandomTieBreak(int ties, std::mt19937_64& rng) {
  return std::uniform_int_distribution<int>(0, ties - 1)(rng) == 0;
}

int64_t DevicesAsked(const api::ResourceClaim& claim) {
  int64_t n = 0;
  for (const auto& r : claim.spec.devices.requests) {
    if (r.exactly.has_value()) {
      n += r.exactly->allocation_mode == "All" ? 2 : r.exactly->count;
    } else if (!r.first_available.empty()) {
      n += r.first_available.front().allocation_mode == "All"
               ? 2
               : r.first_available.front().count;
    }
  }
  return n;
}

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
