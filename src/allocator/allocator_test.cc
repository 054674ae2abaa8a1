// Unit tests of the allocator's parts: features, capacity policies, node
// selection, explanations, pruning, the allocation visitor and the
// upstream-bug switches.
#include "allocator/allocator.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "allocator/internal/capacity.h"
#include "allocator/internal/node_selection.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "scenario/scenario.h"

namespace draplane::allocator {
namespace {

using scenario::BuildInputs;
using scenario::ParseScenario;
using scenario::RunOptions;
using scenario::RunScenario;
using scenario::Scenario;
using scenario::ScenarioInputs;

namespace fs = std::filesystem;

Quantity Q(const char* s) { return *Quantity::Parse(s); }

fs::path SourceDir() {
  const char* env = std::getenv("DRAPLANE_SOURCE_DIR");
  return env != nullptr ? fs::path(env) : fs::path(DRAPLANE_SOURCE_DIR);
}

Scenario Load(const std::string& name) {
  std::ifstream f(SourceDir() / "tests" / "scenarios" / (name + ".yaml"));
  std::stringstream ss;
  ss << f.rdbuf();
  auto s = ParseScenario(ss.str(), name);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return *s;
}

// Runs a rule scenario with explanations.
Outcome Explained(const std::string& name) {
  RunOptions options;
  options.explain = true;
  return RunScenario(Load(name), options);
}

TEST(FeaturesTest, DefaultsAndNames) {
  Features f = Features::Defaults();
  EXPECT_TRUE(f.admin_access && f.prioritized_list && f.partitionable_devices &&
              f.device_taints && f.device_binding_and_status &&
              f.consumable_capacity && f.fractional_capacity_range);
  EXPECT_FALSE(f.list_type_attributes);
  EXPECT_TRUE(f.OnlyIncubating());
  auto parsed = Features::FromNames({"AdminAccess", "DeviceTaints"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->admin_access && parsed->device_taints);
  EXPECT_FALSE(parsed->prioritized_list);
  EXPECT_EQ(Features::FromNames({"Nope"}).status().message().substr(0, 23),
            "unknown feature \"Nope\" ");
  EXPECT_FALSE(Features::FromNames({"AdminAccess", "AdminAccess"}).ok());
}

api::DeviceCapacity RangeCapacity(const char* value, const char* min,
                                  const char* max, const char* step,
                                  const char* def) {
  api::CapacityRequestPolicy policy;
  policy.default_ = Q(def);
  policy.valid_range = api::CapacityRequestPolicyRange{
      Q(min), max ? std::optional<Quantity>(Q(max)) : std::nullopt,
      step ? std::optional<Quantity>(Q(step)) : std::nullopt};
  return api::DeviceCapacity{Q(value), policy};
}

TEST(CapacityTest, RangeRoundsUpToStepAndChecksMax) {
  api::DeviceCapacities caps = {
      {"memory", RangeCapacity("40Gi", "1Gi", "20Gi", "1Gi", "1Gi")}};
  api::CapacityRequirements req{{{"memory", Q("2500Mi")}}};
  auto consumed = internal::ConsumedCapacity(&req, caps, true);
  ASSERT_TRUE(consumed.ok());
  EXPECT_EQ(consumed->at("memory").ToString(), "3Gi");
  // Above max: refused by the policy.
  api::CapacityRequirements big{{{"memory", Q("21Gi")}}};
  EXPECT_FALSE(*internal::RequestFits(nullptr, &big, caps, nullptr, true));
  // Unrequested capacity consumes the default; earlier shares count.
  internal::CapacityMap allocated = {{"memory", Q("39Gi")}};
  EXPECT_TRUE(*internal::RequestFits(&allocated, nullptr, caps, nullptr, true));
  allocated["memory"] = Q("39.5Gi");
  EXPECT_FALSE(
      *internal::RequestFits(&allocated, nullptr, caps, nullptr, true));
  // A capacity the device lacks: not usable, no error.
  api::CapacityRequirements other{{{"cores", Q("1")}}};
  EXPECT_FALSE(*internal::RequestFits(nullptr, &other, caps, nullptr, true));
}

TEST(CapacityTest, ValidValuesRoundUpOrFail) {
  api::CapacityRequestPolicy policy;
  policy.default_ = Q("10");
  policy.valid_values = {Q("10"), Q("50"), Q("100")};
  api::DeviceCapacities caps = {
      {"bandwidth", api::DeviceCapacity{Q("100"), policy}}};
  api::CapacityRequirements req{{{"bandwidth", Q("30")}}};
  EXPECT_EQ(
      internal::ConsumedCapacity(&req, caps, true)->at("bandwidth").ToString(),
      "50");
  api::CapacityRequirements over{{{"bandwidth", Q("101")}}};
  EXPECT_FALSE(*internal::RequestFits(nullptr, &over, caps, nullptr, true));
}

TEST(CapacityTest, FractionalRangeNeedsTheGate) {
  api::DeviceCapacities caps = {
      {"compute", RangeCapacity("1", "100m", nullptr, "100m", "100m")}};
  api::CapacityRequirements req{{{"compute", Q("250m")}}};
  EXPECT_EQ(
      internal::ConsumedCapacity(&req, caps, true)->at("compute").ToString(),
      "300m");
  // Without DRAFractionalCapacityRange the arithmetic is on Value() (ceil):
  // step and min become 1, so 250m rounds to 1.
  EXPECT_EQ(
      internal::ConsumedCapacity(&req, caps, false)->at("compute").ToString(),
      "1");
}

TEST(NodeSelectionTest, OperatorsAndErrors) {
  api::Node node;
  node.metadata.name = "node1";
  node.metadata.labels = {{"zone", "a"}, {"gpus", "8"}};
  auto term = [](std::vector<api::NodeSelectorRequirement> exprs,
                 std::vector<api::NodeSelectorRequirement> fields = {}) {
    api::NodeSelector s;
    s.node_selector_terms.push_back({std::move(exprs), std::move(fields)});
    return s;
  };
  auto match = [&](const api::NodeSelector& s) {
    return internal::NodeMatches(node, "", false, &s);
  };
  EXPECT_TRUE(*match(term({{"zone", "In", {"a", "b"}}})));
  EXPECT_FALSE(*match(term({{"zone", "NotIn", {"a"}}})));
  EXPECT_TRUE(*match(term({{"gpus", "Gt", {"4"}}, {"zone", "Exists", {}}})));
  EXPECT_FALSE(*match(term({{"gpus", "Lt", {"4"}}})));
  EXPECT_TRUE(*match(term({{"rack", "DoesNotExist", {}}})));
  EXPECT_TRUE(*match(term({}, {{"metadata.name", "In", {"node1"}}})));
  EXPECT_FALSE(*match(term({}, {{"metadata.name", "NotIn", {"node1"}}})));
  EXPECT_FALSE(
      *match(api::NodeSelector{{api::NodeSelectorTerm{}}}));  // empty term
  EXPECT_TRUE(*internal::NodeMatches(node, "node1", false, nullptr));
  EXPECT_TRUE(*internal::NodeMatches(node, "", true, nullptr));
  auto bad = match(term({}, {{"metadata.name", "In", {"node1", "node2"}}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "nodeSelectorTerms[0].matchFields[0].values: Invalid value: "
            "[\"node1\",\"node2\"]: must have one element");
  auto op = match(term({{"zone", "Is", {"a"}}}));
  ASSERT_FALSE(op.ok());
  EXPECT_NE(op.status().message().find("Unsupported value: \"Is\""),
            std::string::npos);
}

TEST(ExplainTest, NamesTheConstraintAndTheValuesSeen) {
  Outcome o = Explained("constraint-match-attribute-version-mismatch");
  ASSERT_EQ(o.kind, OutcomeKind::kUnallocatable);
  ASSERT_FALSE(o.explanations.empty());
  bool found = false;
  for (const auto& ce : o.explanations) {
    for (const auto& r : ce.requests) {
      for (const auto& c : r.constraints) {
        if (c.kind == "matchAttribute") {
          found = true;
          EXPECT_GE(c.values.size(), 2u);  // differing versions
          EXPECT_LT(c.usable, r.needed);
          EXPECT_NE(r.summary.find(c.attribute), std::string::npos);
        }
      }
    }
  }
  EXPECT_TRUE(found);
}

TEST(ExplainTest, CountsShortfallInUseAndTaints) {
  {
    Outcome o = Explained("limits-8-of-7-devices");
    ASSERT_EQ(o.kind, OutcomeKind::kUnallocatable);
    const RequestExplanation& r = o.explanations.at(0).requests.at(0);
    EXPECT_EQ(r.needed, 8);
    EXPECT_EQ(r.offered, 7);
    EXPECT_EQ(r.available, 7);
    EXPECT_NE(r.summary.find("1 short"), std::string::npos) << r.summary;
  }
  {
    Outcome o = Explained("request-all-some-in-use");
    ASSERT_EQ(o.kind, OutcomeKind::kUnallocatable);
    const RequestExplanation& r = o.explanations.at(0).requests.at(0);
    EXPECT_EQ(r.in_use, 1);
    ASSERT_EQ(r.in_use_by.size(), 1u);
    EXPECT_NE(r.summary.find(r.in_use_by[0]), std::string::npos);
  }
  {
    Outcome o = Explained("admin-access-taints-apply");
    ASSERT_EQ(o.kind, OutcomeKind::kUnallocatable);
    int blocked = 0;
    for (const auto& r : o.explanations.at(0).requests)
      blocked += r.taint_blocked;
    EXPECT_GT(blocked, 0);
  }
}

// `n` interchangeable devices gpu-0.. on node-0, and class "gpu".
Scenario InterchangeableDevices(int n) {
  Scenario s;
  s.name = StrCat(n, "-devices");
  s.node = "node-0";
  s.features = Features::Defaults();
  api::ResourceSlice slice;
  slice.metadata.name = "slice";
  slice.spec.driver = "gpu.example.com";
  slice.spec.pool = {"node-0", 1, 1};
  slice.spec.node_name = "node-0";
  for (int i = 0; i < n; ++i) {
    api::Device d;
    d.name = "gpu-" + std::to_string(i);
    slice.spec.devices.push_back(d);
  }
  s.slices.push_back(slice);
  api::DeviceClass cls;
  cls.metadata.name = "gpu";
  s.classes.push_back(cls);
  return s;
}

api::ExactDeviceRequest Gpus(int64_t count) {
  api::ExactDeviceRequest r;
  r.device_class_name = "gpu";
  r.allocation_mode = "ExactCount";
  r.count = count;
  return r;
}

// A claim with one request "gpus".
api::ResourceClaim ClaimFor(const std::string& name,
                            const api::ExactDeviceRequest& request) {
  api::ResourceClaim claim;
  claim.metadata.name = name;
  api::DeviceRequest req;
  req.name = "gpus";
  req.exactly = request;
  claim.spec.devices.requests.push_back(req);
  return claim;
}

TEST(PruningTest, ThirtyTwoOfThirtyOneIsAnsweredAtOnce) {
  // Upstream tries every combination of 31 devices (kubernetes#131730).
  Scenario s = InterchangeableDevices(31);
  s.claims.push_back(ClaimFor("c", Gpus(32)));
  Outcome o = RunScenario(s, RunOptions{});
  EXPECT_EQ(o.kind, OutcomeKind::kUnallocatable);
  EXPECT_LE(o.steps, 3);
}

// "request=device,device" per claim of an allocation.
std::string Names(const std::vector<api::AllocationResult>& results) {
  std::string out;
  for (const auto& result : results) {
    for (const auto& r : result.devices.results) {
      out += (out.empty() ? "" : " ") + r.request + "=" + r.device;
    }
  }
  return out;
}

TEST(VisitAllocationTest, SeesEveryAllocationInUpstreamOrderUnpruned) {
  Scenario s = InterchangeableDevices(3);
  ScenarioInputs in = BuildInputs(s);
  const api::ResourceClaim claim = ClaimFor("c", Gpus(2));
  std::vector<const api::ResourceClaim*> claims = {&claim};
  Allocator allocator(s.features, in.slices, s.classes);

  Outcome upstream = allocator.Allocate(in.node, claims, in.state);
  ASSERT_EQ(upstream.kind, OutcomeKind::kAllocated);
  EXPECT_EQ(Names(upstream.results), "gpus=gpu-0 gpus=gpu-1");

  // Declining each one: all three pairs, although the devices are
  // interchangeable (pruning would skip them after a failure).
  std::vector<std::string> seen;
  AllocateOptions every;
  every.visit_allocation = [&](const std::vector<api::AllocationResult>& r) {
    seen.push_back(Names(r));
    return false;
  };
  Outcome declined = allocator.Allocate(in.node, claims, in.state, every);
  EXPECT_EQ(declined.kind, OutcomeKind::kUnallocatable);
  EXPECT_EQ(seen, (std::vector<std::string>{"gpus=gpu-0 gpus=gpu-1",
                                            "gpus=gpu-0 gpus=gpu-2",
                                            "gpus=gpu-1 gpus=gpu-2"}));

  // Taking the second: that one is the outcome.
  int visits = 0;
  AllocateOptions second;
  second.visit_allocation = [&](const std::vector<api::AllocationResult>&) {
    return ++visits == 2;
  };
  Outcome taken = allocator.Allocate(in.node, claims, in.state, second);
  ASSERT_EQ(taken.kind, OutcomeKind::kAllocated);
  EXPECT_EQ(Names(taken.results), "gpus=gpu-0 gpus=gpu-2");
  EXPECT_EQ(visits, 2);
}

TEST(VisitAllocationTest, NamesTheSubrequestOfEachAllocation) {
  Scenario s = InterchangeableDevices(3);
  ScenarioInputs in = BuildInputs(s);
  api::ResourceClaim claim;
  claim.metadata.name = "c";
  api::DeviceRequest req;
  req.name = "gpu";
  api::DeviceSubRequest four;
  four.name = "four";
  four.device_class_name = "gpu";
  four.allocation_mode = "ExactCount";
  four.count = 4;
  api::DeviceSubRequest one = four;
  one.name = "one";
  one.count = 1;
  req.first_available = {four, one};
  claim.spec.devices.requests.push_back(req);
  std::vector<const api::ResourceClaim*> claims = {&claim};
  Allocator allocator(s.features, in.slices, s.classes);
  std::vector<std::string> seen;
  AllocateOptions every;
  every.visit_allocation = [&](const std::vector<api::AllocationResult>& r) {
    seen.push_back(Names(r));
    return false;
  };
  allocator.Allocate(in.node, claims, in.state, every);
  EXPECT_EQ(seen, (std::vector<std::string>{"gpu/one=gpu-0", "gpu/one=gpu-1",
                                            "gpu/one=gpu-2"}));
}

TEST(UpstreamFixesTest, AdminAccessCountersSwitch) {
  // Upstream (kubernetes#140729): the admin request's partition reserves
  // the GPU's counters, so the normal request cannot get the other half.
  Scenario s = Load("admin-access-partition-counters");
  ScenarioInputs in = BuildInputs(s);
  Allocator allocator(s.features, in.slices, s.classes);
  Outcome upstream = allocator.Allocate(in.node, in.claims, in.state);
  EXPECT_EQ(upstream.kind, OutcomeKind::kUnallocatable);
  AllocateOptions fixed;
  fixed.fixes.admin_access_skips_counters = true;
  Outcome o = allocator.Allocate(in.node, in.claims, in.state, fixed);
  EXPECT_EQ(o.kind, OutcomeKind::kAllocated);
}

TEST(AllocatorTest, AlphaFeaturesAreRefusedClearly) {
  Features f = Features::Defaults();
  f.list_type_attributes = true;
  Allocator allocator(f, std::vector<api::ResourceSlice>{}, {});
  api::Node node;
  node.metadata.name = "n";
  Outcome o = allocator.Allocate(node, {}, AllocatedState{});
  EXPECT_EQ(o.kind, OutcomeKind::kFatal);
  EXPECT_NE(o.message.find("ListTypeAttributes"), std::string::npos);
}

}  // namespace
}  // namespace draplane::allocator
