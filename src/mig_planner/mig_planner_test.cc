// The MIG planner: input errors with field paths, NVIDIA's placement rules
// on every plan, the optimised plan against first fit, published slices.
#include "mig_planner/mig_planner.h"

#include <set>

#include "gtest/gtest.h"

namespace draplane::mig_planner {
namespace {

PlanInput Parse(const std::string& inventory, const std::string& demand) {
  auto input = ParsePlanInput(inventory, "inv.yaml", demand, "demand.yaml");
  EXPECT_TRUE(input.ok()) << input.status();
  return input.ok() ? *input : PlanInput{};
}

// Every instance at a placement NVML lists for its profile, no memory
// slice used twice, compute within the GPU's, instance counts respected.
void ExpectLegal(const Plan& plan) {
  for (const PlannedGpu& g : plan.gpus) {
    uint32_t used = 0;
    uint32_t compute = 0;
    std::map<uint32_t, uint32_t> per_profile;
    for (const PlannedInstance& i : g.instances) {
      const devices::MigProfileFacts* facts = nullptr;
      for (const auto& p : g.model->mig_profiles) {
        if (p.id == i.gi_profile_id) facts = &p;
      }
      ASSERT_NE(facts, nullptr);
      bool listed = false;
      for (const auto& at : facts->placements) listed |= at == i.placement;
      EXPECT_TRUE(listed) << i.profile << "@" << i.placement.start;
      const uint32_t mask = ((1u << i.placement.size) - 1) << i.placement.start;
      EXPECT_EQ(used & mask, 0u) << g.node << "/" << g.index;
      used |= mask;
      compute += i.compute_slices;
      EXPECT_LE(++per_profile[i.gi_profile_id], facts->instance_count);
    }
    EXPECT_LE(compute, 7u);
  }
}

TEST(MigPlannerTest, InputErrorsNameTheField) {
  auto err = [](const std::string& inv, const std::string& demand) {
    return std::string(ParsePlanInput(inv, "inv.yaml", demand, "demand.yaml")
                           .status()
                           .message());
  };
  const std::string demand = "demand:\n- profile: 1g.10gb\n  count: 1\n";
  EXPECT_EQ(
      err("gpus:\n- model: H100\n  count: 0\n", demand),
      "inv.yaml: gpus[0].count: must be an integer from 1 to 100000, not 0");
  auto starts = [](const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
  };
  EXPECT_TRUE(starts(err("gpus:\n- model: L4\n  count: 1\n", demand),
                     "inv.yaml: gpus[0].model: \"L4\" is not MIG-capable "
                     "(MIG-capable models: A100-40GB"));
  EXPECT_EQ(err("gpus:\n- model: V100\n  count: 1\n", demand).substr(0, 56),
            "inv.yaml: gpus[0].model: \"V100\" is not a known GPU model");
  EXPECT_EQ(err("gpus:\n- model: H100\n  count: 1\n  color: red\n", demand),
            "inv.yaml: gpus[0].color: unknown field (model, count, node)");
  EXPECT_EQ(err("nodes: []\n", demand),
            "inv.yaml: nodes: unknown field (want \"gpus\")");
  EXPECT_TRUE(starts(err("gpus:\n- model: H100\n  count: 1\n",
                         "demand:\n- profile: 1g.5gb\n  count: 2\n"),
                     "demand.yaml: demand[0].profile: no GPU of the inventory "
                     "offers \"1g.5gb\" (offered: 1g.10gb"));
  EXPECT_EQ(err("gpus:\n- model: H100\n  count: 1\n",
                "demand:\n- profile: 1g.10gb\n  count: two\n"),
            "demand.yaml: demand[0].count: must be an integer from 1 to "
            "100000, not \"two\"");
  EXPECT_NE(err("gpus: [", demand).find("inv.yaml"), std::string::npos);
}

TEST(MigPlannerTest, BeatsFirstFitWherePlacementOrderMatters) {
  // First fit puts the 3g at memory slice 0 (its first placement), after
  // which the 4g (only at 0) no longer fits; the planner uses 4g@0+3g@4.
  PlanInput input = Parse("gpus:\n- model: A100-40GB\n  count: 1\n  node: a\n",
                          "demand:\n- profile: 3g.20gb\n  count: 1\n"
                          "- profile: 4g.20gb\n  count: 1\n  namespace: ml\n");
  Plan best = PlanOptimized(input);
  Plan ff = PlanFirstFit(input);
  ExpectLegal(best);
  ExpectLegal(ff);
  EXPECT_EQ(best.instances_satisfied, 2);
  EXPECT_EQ(best.slices_satisfied, 7);
  EXPECT_EQ(best.satisfied, (std::vector<int>{1, 1}));
  EXPECT_EQ(ff.instances_satisfied, 1);
  EXPECT_EQ(ff.satisfied, (std::vector<int>{1, 0}));
  const std::string report = PlanReport(input, best, ff);
  EXPECT_NE(report.find("4g.20gb@0 3g.20gb@4"), std::string::npos) << report;
}

TEST(MigPlannerTest, SatisfiesThenUsesFewestGpus) {
  PlanInput input = Parse(
      "gpus:\n- model: H100\n  count: 4\n  node: b\n- model: A100-40GB\n  "
      "count: 2\n  node: a\n",
      "demand:\n- profile: 3g.40gb\n  count: 2\n- profile: 1g.10gb\n  count: "
      "3\n  namespace: dev\n- profile: 1g.5gb\n  count: 7\n");
  Plan best = PlanOptimized(input);
  ExpectLegal(best);
  EXPECT_EQ(best.instances_satisfied, 12);
  // Two 3g.40gb share one H100; three 1g.10gb fit one more H100; seven
  // 1g.5gb fill one A100.
  EXPECT_EQ(best.gpus_used, 3);
  Plan ff = PlanFirstFit(input);
  ExpectLegal(ff);
  EXPECT_LE(ff.instances_satisfied, best.instances_satisfied);
  EXPECT_GE(ff.gpus_used, best.gpus_used);
  const PlanSummary s = Summarize(input);
  EXPECT_EQ(s.instances_wanted, 12);
  EXPECT_EQ(s.slices_wanted, 2 * 3 + 3 + 7);
  EXPECT_EQ(s.slices_upper_bound, s.slices_wanted);
}

TEST(MigPlannerTest, ReportsUnsatisfiableDemand) {
  PlanInput input = Parse("gpus:\n- model: H200\n  count: 1\n",
                          "demand:\n- profile: 7g.141gb\n  count: 2\n");
  Plan best = PlanOptimized(input);
  ExpectLegal(best);
  EXPECT_EQ(best.instances_satisfied, 1);
  EXPECT_EQ(best.satisfied, (std::vector<int>{1}));
  EXPECT_EQ(Summarize(input).slices_upper_bound, 7);
}

TEST(MigPlannerTest, PublishesOneMigDevicePerInstance) {
  PlanInput input = Parse("gpus:\n- model: H100\n  count: 2\n  node: n1\n",
                          "demand:\n- profile: 2g.20gb\n  count: 3\n");
  Plan best = PlanOptimized(input);
  std::vector<api::Json> slices = PublishedSlices(best);
  ASSERT_FALSE(slices.empty());
  std::set<std::string> names;
  int mig = 0, gpu = 0;
  for (const api::Json& s : slices) {
    EXPECT_EQ(s["kind"], "ResourceSlice");
    EXPECT_EQ(s["spec"]["nodeName"], "n1");
    for (const auto& d : s["spec"].value("devices", api::Json::array())) {
      names.insert(d["name"].get<std::string>());
      const std::string type = d["attributes"]["type"]["string"];
      (type == "mig" ? mig : gpu)++;
    }
  }
  EXPECT_EQ(mig, 3);  // the instances
  EXPECT_EQ(gpu, 1);  // the unused H100 stays a whole GPU
  EXPECT_TRUE(names.count("gpu-0-mig-2g20gb-14-0")) << *names.begin();
  api::Json j = PlanJson(input, best, PlanFirstFit(input));
  EXPECT_EQ(j["plan"]["instancesSatisfied"], 3);
  EXPECT_EQ(j["baseline"]["method"], "first-fit");
}

}  // namespace
}  // namespace draplane::mig_planner
