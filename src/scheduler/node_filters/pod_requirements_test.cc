// Request aggregation follows k8s.io/component-helpers resource/helpers.go
// (PodRequests, and the sidecar example of KEP-753) and the example in
// noderesources/fit.go computePodResourceRequest; the PreFilter cases follow
// nodeaffinity/node_affinity_test.go TestNodeAffinityPreFilter.
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "scheduler/node_filters/node_filters.h"
#include "scheduler/node_filters/test_util.h"

namespace draplane::scheduler::node_filters {
namespace {

using testing::Container;
using testing::MustParse;
using testing::PodRequesting;
using testing::PodWithAffinity;

TEST(PodRequestsTest, FitGoExample) {
  // IC1 2 cpu/1G, IC2 2 cpu/3G, C1 2 cpu/1G, C2 1 cpu/1G -> 3 cpu, 3G.
  api::Pod pod;
  pod.spec.init_containers = {Container({{"cpu", "2"}, {"memory", "1G"}}),
                              Container({{"cpu", "2"}, {"memory", "3G"}})};
  pod.spec.containers = {Container({{"cpu", "2"}, {"memory", "1G"}}),
                         Container({{"cpu", "1"}, {"memory", "1G"}})};
  PodNodeRequirements r = MustParse(pod);
  EXPECT_EQ(r.requests.milli_cpu, 3000);
  EXPECT_EQ(r.requests.memory, 3000000000);
}

TEST(PodRequestsTest, SidecarsAddToContainersAndLaterInitContainers) {
  api::Pod pod;
  api::Container sidecar = Container({{"cpu", "1"}});
  sidecar.unknown_fields["restartPolicy"] = "Always";
  pod.spec.init_containers = {sidecar, Container({{"cpu", "2"}})};
  pod.spec.containers = {Container({{"cpu", "1"}})};
  // containers 1 + sidecar 1 = 2; the second init container runs beside the
  // sidecar: 2 + 1 = 3 -> max 3.
  EXPECT_EQ(MustParse(pod).requests.milli_cpu, 3000);

  pod.spec.init_containers = {Container({{"cpu", "2"}}), sidecar};
  // init 2 runs alone; afterwards 1 + 1 = 2 -> max 2.
  EXPECT_EQ(MustParse(pod).requests.milli_cpu, 2000);
}

TEST(PodRequestsTest, QuantitiesAreSummedBeforeRounding) {
  api::Pod pod = PodRequesting({{"cpu", "0.5m"}, {"memory", "0.5"}});
  pod.spec.containers.push_back(
      Container({{"cpu", "0.5m"}, {"memory", "0.5"}}));
  PodNodeRequirements r = MustParse(pod);
  EXPECT_EQ(r.requests.milli_cpu, 1);
  EXPECT_EQ(r.requests.memory, 1);
}

TEST(PodRequestsTest, OverheadAndPodLevelRequests) {
  api::Pod pod = PodRequesting({{"cpu", "1"}, {"memory", "1Gi"}});
  pod.spec.unknown_fields["overhead"] = {{"cpu", "250m"}, {"memory", "120Mi"}};
  PodNodeRequirements r = MustParse(pod);
  EXPECT_EQ(r.requests.milli_cpu, 1250);
  EXPECT_EQ(r.requests.memory, (1024 + 120) * 1024 * 1024LL);

  pod.spec.unknown_fields["resources"] = {{"requests", {{"cpu", "2"}}}};
  r = MustParse(pod);
  EXPECT_EQ(r.requests.milli_cpu, 2250);  // pod level replaces, overhead adds
  EXPECT_EQ(r.requests.memory, (1024 + 120) * 1024 * 1024LL);
}

TEST(PodRequestsTest, ScalarAndIgnoredResources) {
  PodNodeRequirements r =
      MustParse(PodRequesting({{"nvidia.com/gpu", "2"},
                               {"hugepages-2Mi", "4Mi"},
                               {"foo", "3"},
                               {"ephemeral-storage", "1Gi"}}));
  EXPECT_EQ(r.requests.scalar,
            (std::map<std::string, int64_t>{{"hugepages-2Mi", 4 << 20},
                                            {"nvidia.com/gpu", 2}}));
  EXPECT_EQ(r.requests.ephemeral_storage, 1 << 30);
}

TEST(PodRequestsTest, NonZeroDefaults) {
  api::Pod empty;
  empty.spec.containers = {Container(), Container()};
  PodNodeRequirements r = MustParse(empty);
  EXPECT_EQ(r.requests.milli_cpu, 0);
  EXPECT_EQ(r.non_zero_milli_cpu, 200);
  EXPECT_EQ(r.non_zero_memory, 2 * 200 * 1024 * 1024LL);
  EXPECT_EQ(r.score_milli_cpu, 200);
  EXPECT_EQ(r.score_memory, 2 * 200 * 1024 * 1024LL);

  // An explicit zero is not "missing".
  PodNodeRequirements zero = MustParse(PodRequesting({{"cpu", "0"}}));
  EXPECT_EQ(zero.non_zero_milli_cpu, 0);
  EXPECT_EQ(zero.non_zero_memory, 200 * 1024 * 1024LL);

  // Pod-level cpu: only memory is defaulted for the node's non-zero total.
  api::Pod pod_level = empty;
  pod_level.spec.unknown_fields["resources"] = {{"requests", {{"cpu", "1"}}}};
  PodNodeRequirements p = MustParse(pod_level);
  EXPECT_EQ(p.non_zero_milli_cpu, 1000);
  EXPECT_EQ(p.non_zero_memory, 2 * 200 * 1024 * 1024LL);
  EXPECT_EQ(p.score_milli_cpu, 1000);
}

TEST(PodNodeRequirementsTest, KeepsSelectorTolerationsNodeName) {
  api::Pod pod;
  pod.spec.node_name = "n1";
  pod.spec.node_selector = {{"a", "b"}};
  pod.spec.tolerations.push_back(
      testing::Toleration("k", "Exists", "", "NoSchedule"));
  PodNodeRequirements r = MustParse(pod);
  EXPECT_EQ(r.node_name, "n1");
  EXPECT_EQ(r.node_selector, pod.spec.node_selector);
  ASSERT_EQ(r.tolerations.size(), 1u);
  EXPECT_EQ(r.tolerations[0].key, "k");
  EXPECT_FALSE(r.required_node_affinity.has_value());
}

TEST(PodNodeRequirementsTest, ParsesRequiredAffinity) {
  PodNodeRequirements r = MustParse(PodWithAffinity(R"({"nodeAffinity":{
      "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
        {"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}],
         "matchFields":[{"key":"metadata.name","operator":"NotIn","values":["x"]}]},
        null]},
      "preferredDuringSchedulingIgnoredDuringExecution":[]},
      "podAntiAffinity":{}})"));
  ASSERT_TRUE(r.required_node_affinity.has_value());
  const auto& terms = r.required_node_affinity->node_selector_terms;
  ASSERT_EQ(terms.size(), 2u);
  ASSERT_EQ(terms[0].match_expressions.size(), 1u);
  EXPECT_EQ(terms[0].match_expressions[0].key, "zone");
  EXPECT_EQ(terms[0].match_expressions[0].operator_, "In");
  EXPECT_EQ(terms[0].match_expressions[0].values,
            (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(terms[0].match_fields.size(), 1u);
  EXPECT_EQ(terms[0].match_fields[0].operator_, "NotIn");
  EXPECT_TRUE(terms[1].match_expressions.empty());
  EXPECT_FALSE(r.prefilter_node_names.has_value());

  EXPECT_FALSE(MustParse(PodWithAffinity("null")).required_node_affinity);
  EXPECT_FALSE(MustParse(PodWithAffinity(R"({"nodeAffinity":null})"))
                   .required_node_affinity);
}

TEST(PodNodeRequirementsTest, BadAffinityIsInvalidArgumentWithPath) {
  struct Case {
    const char* affinity;
    const char* message;
  };
  const std::string req =
      "spec.affinity.nodeAffinity."
      "requiredDuringSchedulingIgnoredDuringExecution";
  const Case cases[] = {
      {R"([])", "spec.affinity: Invalid value: array: must be of type object"},
      {R"({"nodeAffinity":"x"})",
       "spec.affinity.nodeAffinity: Invalid value: string: must be of type "
       "object"},
      {R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":{}}}})",
       ".nodeSelectorTerms: Invalid value: object: must be of type array"},
      {R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":1}]}]}}})",
       ".nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: number: "
       "must be of type string"},
      {R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{},{"matchFields":[{"key":"metadata.name","operator":"In","values":["a",true]}]}]}}})",
       ".nodeSelectorTerms[1].matchFields[0].values[1]: Invalid value: bool: "
       "must be of type string"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<PodNodeRequirements> r =
        PodNodeRequirements::Parse(PodWithAffinity(c.affinity));
    ASSERT_FALSE(r.ok()) << c.affinity;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    std::string want = c.message;
    if (want[0] == '.') want = req + want;
    EXPECT_EQ(r.status().message(), want);
  }
}

TEST(PodNodeRequirementsTest, BadOverheadQuantity) {
  api::Pod pod;
  pod.spec.unknown_fields["overhead"] = {{"cpu", "lots"}};
  absl::StatusOr<PodNodeRequirements> r = PodNodeRequirements::Parse(pod);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "spec.overhead[cpu]: Invalid value: \"lots\": quantities must "
            "match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

// TestNodeAffinityPreFilter.
TEST(PodNodeRequirementsTest, PreFilterNodeNames) {
  auto parse = [](const char* terms) {
    return MustParse(PodWithAffinity(
        std::string(
            R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":)") +
        terms + "}}}"));
  };
  // No metadata.name affinity: all nodes.
  EXPECT_FALSE(
      parse(
          R"([{"matchExpressions":[{"key":"foo","operator":"In","values":["bar"]}]}])")
          .prefilter_node_names.has_value());
  EXPECT_FALSE(parse("[]").prefilter_node_names.has_value());
  // metadata.name In in one term.
  PodNodeRequirements one = parse(
      R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1","node2"]}]}])");
  EXPECT_EQ(one.prefilter_node_names,
            (std::set<std::string>{"node1", "node2"}));
  EXPECT_FALSE(one.affinity_terms_conflict);
  // Requirements within a term intersect; terms unite.
  PodNodeRequirements many = parse(
      R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1","node2"]},
                          {"key":"metadata.name","operator":"In","values":["node2","node3"]}]},
          {"matchFields":[{"key":"metadata.name","operator":"In","values":["node5"]}]}])");
  EXPECT_EQ(many.prefilter_node_names,
            (std::set<std::string>{"node2", "node5"}));
  // One term without a name restriction: all nodes.
  EXPECT_FALSE(
      parse(
          R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}]},
                         {"matchExpressions":[{"key":"foo","operator":"Exists"}]}])")
          .prefilter_node_names.has_value());
  // NotIn does not narrow.
  EXPECT_FALSE(
      parse(
          R"([{"matchFields":[{"key":"metadata.name","operator":"NotIn","values":["node1"]}]}])")
          .prefilter_node_names.has_value());
  // Conflicting requirements.
  PodNodeRequirements conflict = parse(
      R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]},
                          {"key":"metadata.name","operator":"In","values":["node2"]}]}])");
  EXPECT_TRUE(conflict.affinity_terms_conflict);
  EXPECT_EQ(conflict.prefilter_node_names, std::set<std::string>());
}

}  // namespace
}  // namespace draplane::scheduler::node_filters
