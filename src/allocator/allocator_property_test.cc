// Property tests on random clusters (a small seeded generator, no oracle):
//  - every allocation the allocator returns passes CheckAllocation, which
//    validates it without reference to the search;
//  - pruning never changes the answer: the same outcome, devices and error
//    as the unpruned search (upstream's exhaustive order), in no more steps;
//  - the answer does not depend on reusing an Allocator across calls.
// DRAPLANE_PROPERTY_ITERATIONS overrides the number of random clusters.
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "allocator/allocation_check.h"
#include "allocator/allocator.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "scenario/scenario.h"

namespace draplane::allocator {
namespace {

using scenario::BuildInputs;
using scenario::Scenario;
using scenario::ScenarioInputs;

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  bool Chance(int percent) { return Int(0, 99) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Int(0, static_cast<int>(v.size()) - 1)];
  }

 private:
  std::mt19937_64 rng_;
};

api::DeviceAttribute StringAttr(const std::string& v) {
  return api::DeviceAttribute::String(v);
}
api::DeviceAttribute IntAttr(int64_t v) { return api::DeviceAttribute::Int(v); }
Quantity Q(const std::string& s) { return *Quantity::Parse(s); }

// 1-3 random claims: counts, All, firstAvailable, selectors, constraints,
// tolerations, admin access and capacity requests.
void AddRandomClaims(Gen& g, Scenario& s) {
  const std::vector<std::string> selectors = {
      "", "device.attributes[\"gpu.example.com\"].model == \"A\"",
      "device.capacity[device.driver].memory.compareTo(quantity(\"80Gi\")) >= "
      "0",
      "device.attributes[device.driver].numa == 1"};
  const int claims = g.Int(1, 3);
  for (int c = 0; c < claims; ++c) {
    api::ResourceClaim claim;
    claim.metadata.name = StrCat("claim-", c);
    claim.metadata.namespace_ = "default";
    const int requests = g.Int(1, 2);
    for (int r = 0; r < requests; ++r) {
      api::DeviceRequest req;
      req.name = StrCat("req-", r);
      auto exact = [&]() {
        api::ExactDeviceRequest e;
        e.device_class_name = g.Chance(80)   ? "gpu"
                              : g.Chance(50) ? "nic"
                                             : "any";
        e.allocation_mode = g.Chance(10) ? "All" : "ExactCount";
        e.count = e.allocation_mode == "All" ? 0 : g.Int(1, 3);
        const std::string& sel = g.Pick(selectors);
        if (!sel.empty() && e.device_class_name == "gpu") {
          e.selectors.push_back(
              api::DeviceSelector{api::CELDeviceSelector{sel}});
        }
        if (g.Chance(20)) {
          e.tolerations.push_back(api::DeviceToleration{"maintenance", "Exists",
                                                        "", "", std::nullopt});
        }
        if (g.Chance(10)) {
          e.capacity = api::CapacityRequirements{
              {{"bandwidth", Q(g.Chance(50) ? "25" : "60")}}};
        }
        return e;
      };
      if (g.Chance(20)) {
        for (int k = 0; k < 2; ++k) {
          api::ExactDeviceRequest e = exact();
          api::DeviceSubRequest sub;
          sub.name = StrCat("alt-", k);
          sub.device_class_name = e.device_class_name;
          sub.selectors = e.selectors;
          sub.allocation_mode = e.allocation_mode;
          sub.count = e.count;
          sub.tolerations = e.tolerations;
          req.first_available.push_back(std::move(sub));
        }
      } else {
        req.exactly = exact();
        if (g.Chance(10)) req.exactly->admin_access = true;
      }
      claim.spec.devices.requests.push_back(std::move(req));
    }
    if (g.Chance(35)) {
      api::DeviceConstraint con;
      if (g.Chance(60)) {
        con.match_attribute =
            g.Chance(50) ? "gpu.example.com/numa" : "example.com/pcie";
      } else {
        con.distinct_attribute = "gpu.example.com/numa";
      }
      claim.spec.devices.constraints.push_back(std::move(con));
    }
    s.claims.push_back(std::move(claim));
  }
}

// A random cluster around node-0: GPU pools (node-local, by label or for
// all nodes), NICs, an optional partitionable GPU with counters, shared
// devices with a capacity policy, taints, devices already in use, and 1-3
// claims with counts, All, firstAvailable, selectors, constraints,
// tolerations, admin access and capacity requests.
Scenario RandomScenario(uint64_t seed) {
  Gen g(seed);
  Scenario s;
  s.name = StrCat("random-", seed);
  s.node = "node-0";
  s.features = Features::Defaults();
  api::Node node;
  node.metadata.name = "node-0";
  node.metadata.labels["zone"] = g.Chance(50) ? "a" : "b";
  s.nodes.push_back(node);

  const int pools = g.Int(1, 3);
  for (int p = 0; p < pools; ++p) {
    api::ResourceSlice slice;
    const bool nic = p == 2;
    slice.metadata.name = StrCat("slice-", p);
    slice.spec.driver = nic ? "nic.example.com" : "gpu.example.com";
    slice.spec.pool.name = StrCat("pool-", p);
    slice.spec.pool.resource_slice_count = 1;
    switch (g.Int(0, 3)) {
      case 0:
      case 1:
        slice.spec.node_name = "node-0";
        break;
      case 2: {
        api::NodeSelector sel;
        sel.node_selector_terms.push_back(
            {{api::NodeSelectorRequirement{"zone", "In", {"a"}}}, {}});
        slice.spec.node_selector = sel;
        break;
      }
      default:
        slice.spec.all_nodes = true;
    }
    const int n = g.Int(1, 6);
    for (int d = 0; d < n; ++d) {
      api::Device dev;
      dev.name = StrCat(nic ? "nic-" : "gpu-", d);
      dev.attributes["model"] = StringAttr(g.Chance(50) ? "A" : "B");
      dev.attributes["numa"] = IntAttr(g.Int(0, 1));
      dev.attributes["example.com/pcie"] = IntAttr(g.Int(0, 2));
      dev.capacity["memory"] =
          api::DeviceCapacity{Q(g.Chance(50) ? "40Gi" : "80Gi"), std::nullopt};
      if (!nic && g.Chance(15)) {
        dev.rare.Mutable().allow_multiple_allocations = true;
        api::CapacityRequestPolicy policy;
        policy.default_ = Q("10");
        policy.valid_range =
            api::CapacityRequestPolicyRange{Q("10"), Q("100"), Q("10")};
        dev.capacity["bandwidth"] = api::DeviceCapacity{Q("100"), policy};
      }
      if (g.Chance(10)) {
        dev.rare.Mutable().taints.push_back(api::DeviceTaint{
            "maintenance", "", g.Chance(50) ? "NoSchedule" : "None",
            std::nullopt});
      }
      slice.spec.devices.push_back(std::move(dev));
    }
    s.slices.push_back(std::move(slice));
  }
  if (g.Chance(40)) {
    // A partitionable GPU: one counter set, whole device + two halves.
    api::ResourceSlice counters;
    counters.metadata.name = "mig-counters";
    counters.spec.driver = "gpu.example.com";
    counters.spec.pool.name = "mig";
    counters.spec.pool.resource_slice_count = 2;
    counters.spec.node_name = "node-0";
    counters.spec.shared_counters.push_back(
        api::CounterSet{"gpu-0-counters", {{"memory", api::Counter{Q("8")}}}});
    s.slices.push_back(std::move(counters));
    api::ResourceSlice devices;
    devices.metadata.name = "mig-devices";
    devices.spec.driver = "gpu.example.com";
    devices.spec.pool.name = "mig";
    devices.spec.pool.resource_slice_count = 2;
    devices.spec.node_name = "node-0";
    const std::vector<std::pair<std::string, std::string>> parts = {
        {"mig-full", "8"},
        {"mig-half-0", "4"},
        {"mig-half-1", "4"},
        {"mig-quarter", "2"}};
    for (const auto& [name, mem] : parts) {
      api::Device dev;
      dev.name = name;
      dev.attributes["model"] = StringAttr("A");
      dev.attributes["numa"] = IntAttr(0);
      // Most partitions publish memory; the others make the memory
      // selector fail at runtime ("no such key"), an error path to cover.
      if (g.Chance(80)) {
        dev.capacity["memory"] =
            api::DeviceCapacity{Q(StrCat(mem, "0Gi")), std::nullopt};
      }
      dev.rare.Mutable().consumes_counters.push_back(
          api::DeviceCounterConsumption{"gpu-0-counters",
                                        {{"memory", api::Counter{Q(mem)}}}});
      devices.spec.devices.push_back(std::move(dev));
    }
    s.slices.push_back(std::move(devices));
  }

  auto cls = [](std::string name, const std::string& expr) {
    api::DeviceClass c;
    c.metadata.name = std::move(name);
    if (!expr.empty())
      c.spec.selectors.push_back(
          api::DeviceSelector{api::CELDeviceSelector{expr}});
    return c;
  };
  s.classes.push_back(cls("gpu", "device.driver == \"gpu.example.com\""));
  s.classes.push_back(cls("nic", "device.driver == \"nic.example.com\""));
  s.classes.push_back(cls("any", ""));

  // Devices already in use.
  if (g.Chance(50)) {
    api::ResourceClaim used;
    used.metadata.name = "in-use";
    used.metadata.namespace_ = "default";
    api::AllocationResult a;
    const api::ResourceSlice& slice = s.slices[g.Int(0, pools - 1)];
    const api::Device& d =
        slice.spec
            .devices[g.Int(0, static_cast<int>(slice.spec.devices.size()) - 1)];
    api::DeviceRequestAllocationResult r;
    r.request = "r";
    r.driver = slice.spec.driver;
    r.pool = slice.spec.pool.name;
    r.device = d.name;
    if (d.rare->allow_multiple_allocations.value_or(false)) {
      r.share_id = "00000000-0000-4000-8000-000000000000";
      r.consumed_capacity = {{"bandwidth", Q("50")}, {"memory", Q("1Gi")}};
    }
    a.devices.results.push_back(r);
    used.status.allocation = a;
    s.claims.push_back(std::move(used));
  }

  AddRandomClaims(g, s);
  return s;
}

std::string Describe(const Outcome& o) {
  std::string out = StrCat(static_cast<int>(o.kind), " ", o.message);
  for (const auto& r : o.results) {
    for (const auto& d : r.devices.results) {
      StrAppend(&out, " ", d.request, "=", d.pool, "/", d.device);
    }
    StrAppend(&out, " |");
  }
  return out;
}

int Iterations() {
  const char* env = std::getenv("DRAPLANE_PROPERTY_ITERATIONS");
  return env != nullptr ? std::atoi(env) : 3000;
}

TEST(AllocatorPropertyTest, AllocationsAreValidAndPruningChangesNothing) {
  int allocated = 0, unallocatable = 0, errors = 0;
  for (int seed = 0; seed < Iterations(); ++seed) {
    SCOPED_TRACE(StrCat("seed ", seed));
    const Scenario s = RandomScenario(static_cast<uint64_t>(seed));
    ScenarioInputs in = BuildInputs(s);
    Allocator allocator(s.features, in.slices, s.classes);
    AllocateOptions pruned;
    Outcome a = allocator.Allocate(in.node, in.claims, in.state, pruned);
    AllocateOptions exhaustive;
    exhaustive.prune = false;
    Outcome b = allocator.Allocate(in.node, in.claims, in.state, exhaustive);
    ASSERT_EQ(Describe(a), Describe(b));
    EXPECT_LE(a.steps, b.steps);
    // A fresh allocator (nothing cached) gives the same answer.
    Allocator fresh(s.features, in.slices, s.classes);
    EXPECT_EQ(Describe(fresh.Allocate(in.node, in.claims, in.state, pruned)),
              Describe(a));
    switch (a.kind) {
      case OutcomeKind::kAllocated: {
        ++allocated;
        AllocationInputs ai{s.features, &in.slices, &s.classes,
                            &in.node,   &in.claims, &in.state};
        absl::Status valid = CheckAllocation(ai, a.results);
        ASSERT_TRUE(valid.ok()) << valid.message();
        break;
      }
      case OutcomeKind::kUnallocatable:
        ++unallocatable;
        break;
      default:
        ++errors;
    }
  }
  // The generator must exercise both outcomes substantially.
  EXPECT_GT(allocated, Iterations() / 5);
  EXPECT_GT(unallocatable, Iterations() / 10);
  RecordProperty("allocated", allocated);
  RecordProperty("unallocatable", unallocatable);
  RecordProperty("errors", errors);
}

}  // namespace
}  // namespace draplane::allocator
