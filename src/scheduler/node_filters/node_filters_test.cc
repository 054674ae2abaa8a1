// Cases follow upstream's own tests:
//   pkg/scheduler/framework/plugins/nodename/node_name_test.go
//   pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go
//   pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go
//   pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go
//   pkg/scheduler/framework/plugins/noderesources/fit_test.go
#include "scheduler/node_filters/node_filters.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/node_filters/test_util.h"

namespace draplane::scheduler::node_filters {
namespace {

using testing::Container;
using testing::MustParse;
using testing::Node;
using testing::PodRequesting;
using testing::PodWithAffinity;
using testing::Resources;
using testing::Taint;
using testing::Toleration;

// ------------------------------------------------------------ NodeName
TEST(FilterNodeNameTest, UpstreamCases) {
  api::Pod pod;
  EXPECT_TRUE(FilterNodeName(MustParse(pod), Node("foo")).ok);
  pod.spec.node_name = "foo";
  EXPECT_TRUE(FilterNodeName(MustParse(pod), Node("foo")).ok);
  pod.spec.node_name = "bar";
  FilterResult r = FilterNodeName(MustParse(pod), Node("foo"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reasons, std::vector<std::string>{
                           "node(s) didn't match the requested node name"});
  EXPECT_TRUE(r.unresolvable);
  EXPECT_EQ(r.plugin, "NodeName");
}

// ------------------------------------------------------------
// NodeUnschedulable
TEST(FilterNodeUnschedulableTest, UpstreamCases) {
  api::Node schedulable = Node("n");
  api::Node unschedulable = Node("n");
  unschedulable.spec.unschedulable = true;
  api::Pod plain;
  api::Pod tolerating;
  tolerating.spec.tolerations.push_back(
      Toleration("node.kubernetes.io/unschedulable", "", "", "NoSchedule"));
  api::Pod exists_all;
  exists_all.spec.tolerations.push_back(Toleration("", "Exists", "", ""));
  api::Pod wrong_effect;
  wrong_effect.spec.tolerations.push_back(Toleration(
      "node.kubernetes.io/unschedulable", "Exists", "", "NoExecute"));

  EXPECT_TRUE(FilterNodeUnschedulable(MustParse(plain), schedulable).ok);
  FilterResult r = FilterNodeUnschedulable(MustParse(plain), unschedulable);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"node(s) were unschedulable"});
  EXPECT_TRUE(r.unresolvable);
  EXPECT_EQ(r.plugin, "NodeUnschedulable");
  EXPECT_TRUE(FilterNodeUnschedulable(MustParse(tolerating), unschedulable).ok);
  EXPECT_TRUE(FilterNodeUnschedulable(MustParse(exists_all), unschedulable).ok);
  EXPECT_FALSE(
      FilterNodeUnschedulable(MustParse(wrong_effect), unschedulable).ok);
}

// ------------------------------------------------------------ TaintToleration
TEST(FilterTaintTolerationTest, UpstreamCases) {
  struct Case {
    const char* name;
    std::vector<api::Toleration> tolerations;
    std::vector<api::Taint> taints;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"no tolerations, tainted node",
       {},
       {Taint("dedicated", "user1", "NoSchedule")},
       false},
      {"equal toleration",
       {Toleration("dedicated", "Equal", "user1", "NoSchedule")},
       {Taint("dedicated", "user1", "NoSchedule")},
       true},
      {"toleration for another value",
       {Toleration("dedicated", "Equal", "user2", "NoSchedule")},
       {Taint("dedicated", "user1", "NoSchedule")},
       false},
      {"Exists toleration",
       {Toleration("foo", "Exists", "", "NoSchedule")},
       {Taint("foo", "bar", "NoSchedule")},
       true},
      {"all taints tolerated by several tolerations",
       {Toleration("dedicated", "Equal", "user2", "NoSchedule"),
        Toleration("foo", "Exists", "", "NoSchedule")},
       {Taint("dedicated", "user2", "NoSchedule"),
        Taint("foo", "bar", "NoSchedule")},
       true},
      {"effect mismatch",
       {Toleration("foo", "Equal", "bar", "PreferNoSchedule")},
       {Taint("foo", "bar", "NoSchedule")},
       false},
      {"PreferNoSchedule taints do not filter",
       {},
       {Taint("foo", "bar", "PreferNoSchedule")},
       true},
      {"NoExecute taint untolerated",
       {},
       {Taint("node.kubernetes.io/not-ready", "", "NoExecute")},
       false},
      {"taint without value, Exists",
       {Toleration("node-role.kubernetes.io/control-plane", "Exists", "",
                   "NoSchedule")},
       {Taint("node-role.kubernetes.io/control-plane", "", "NoSchedule")},
       true},
      {"no taints", {}, {}, true},
  };
  for (const Case& c : cases) {
    api::Pod pod;
    pod.spec.tolerations = c.tolerations;
    api::Node node = Node("n");
    node.spec.taints = c.taints;
    FilterResult r = FilterTaintToleration(MustParse(pod), node);
    EXPECT_EQ(r.ok, c.ok) << c.name;
    if (!c.ok) {
      EXPECT_EQ(r.reasons,
                std::vector<std::string>{"node(s) had untolerated taint(s)"})
          << c.name;
      EXPECT_TRUE(r.unresolvable);
      EXPECT_EQ(r.plugin, "TaintToleration");
    }
  }
}

// ------------------------------------------------------------ NodeReady
api::NodeCondition Condition(std::string type, std::string status) {
  api::NodeCondition c;
  c.type = std::move(type);
  c.status = std::move(status);
  return c;
}

TEST(FilterNodeReadyTest, Conditions) {
  api::Node node = Node("n");
  EXPECT_TRUE(FilterNodeReady(node).ok) << "no Ready condition passes";
  node.status.conditions.push_back(Condition("MemoryPressure", "False"));
  node.status.conditions.push_back(Condition("Ready", "True"));
  EXPECT_TRUE(FilterNodeReady(node).ok);
  for (const char* status : {"False", "Unknown", ""}) {
    node.status.conditions[1].status = status;
    FilterResult r = FilterNodeReady(node);
    EXPECT_FALSE(r.ok) << status;
    EXPECT_EQ(r.reasons, std::vector<std::string>{"node(s) were not ready"});
    EXPECT_TRUE(r.unresolvable);
    EXPECT_EQ(r.plugin, "NodeReady");
  }
}

// ------------------------------------------------------------ NodeAffinity
struct AffinityCase {
  const char* name;
  std::map<std::string, std::string> node_selector;
  const char* affinity;  // spec.affinity JSON or nullptr
  std::string node_name;
  std::map<std::string, std::string> labels;
  bool ok;
};

// A pod's required node affinity with `terms` (JSON of nodeSelectorTerms),
// as spec.affinity JSON kept alive for the tests' lifetime.
const char* R(const char* terms) {
  static std::deque<std::string> keep;
  keep.push_back(
      std::string(
          R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":)") +
      terms + "}}}");
  return keep.back().c_str();
}

// Upstream's node_affinity_test.go TestNodeAffinity cases.
const std::vector<AffinityCase> kAffinityCases = {
    {"no selector", {}, nullptr, "n", {}, true},
    {"missing labels", {{"foo", "bar"}}, nullptr, "n", {}, false},
    {"same labels", {{"foo", "bar"}}, nullptr, "n", {{"foo", "bar"}}, true},
    {"node labels are superset",
     {{"foo", "bar"}},
     nullptr,
     "n",
     {{"foo", "bar"}, {"baz", "blah"}},
     true},
    {"node labels are subset",
     {{"foo", "bar"}, {"baz", "blah"}},
     nullptr,
     "n",
     {{"foo", "bar"}},
     false},
    {"In matches",
     {},
     R(R"([{"matchExpressions":[{"key":"foo","operator":"In","values":["bar","value2"]}]}])"),
     "n",
     {{"foo", "bar"}},
     true},
    {"Gt matches",
     {},
     R(R"([{"matchExpressions":[{"key":"kernel-version","operator":"Gt","values":["0204"]}]}])"),
     "n",
     {{"kernel-version", "0206"}},
     true},
    {"NotIn matches",
     {},
     R(R"([{"matchExpressions":[{"key":"mem-type","operator":"NotIn","values":["DDR","DDR2"]}]}])"),
     "n",
     {{"mem-type", "DDR3"}},
     true},
    {"Exists matches",
     {},
     R(R"([{"matchExpressions":[{"key":"GPU","operator":"Exists"}]}])"),
     "n",
     {{"GPU", "NVIDIA-GRID-K1"}},
     true},
    {"Lt does not match",
     {},
     R(R"([{"matchExpressions":[{"key":"kernel-version","operator":"Lt","values":["0204"]}]}])"),
     "n",
     {{"kernel-version", "0206"}},
     false},
    {"DoesNotExist does not match",
     {},
     R(R"([{"matchExpressions":[{"key":"GPU","operator":"DoesNotExist"}]}])"),
     "n",
     {{"GPU", "x"}},
     false},
    {"DoesNotExist matches",
     {},
     R(R"([{"matchExpressions":[{"key":"GPU","operator":"DoesNotExist"}]}])"),
     "n",
     {{"foo", "x"}},
     true},
    {"In does not match",
     {},
     R(R"([{"matchExpressions":[{"key":"foo","operator":"In","values":["value1","value2"]}]}])"),
     "n",
     {{"foo", "bar"}},
     false},
    {"nil nodeSelectorTerms matches nothing",
     {},
     R("null"),
     "n",
     {{"foo", "bar"}},
     false},
    {"empty nodeSelectorTerms matches nothing",
     {},
     R("[]"),
     "n",
     {{"foo", "bar"}},
     false},
    {"empty term matches nothing", {}, R("[{}]"), "n", {{"foo", "bar"}}, false},
    {"empty matchExpressions matches nothing",
     {},
     R(R"([{"matchExpressions":[]}])"),
     "n",
     {{"foo", "bar"}},
     false},
    {"no required affinity", {}, R"({"nodeAffinity":{}})", "n", {}, true},
    {"requirements in one term are ANDed",
     {},
     R(R"([{"matchExpressions":[{"key":"GPU","operator":"Exists"},{"key":"GPU","operator":"NotIn","values":["AMD","INTER"]}]}])"),
     "n",
     {{"GPU", "AMD"}},
     false},
    {"terms are ORed",
     {},
     R(R"([{"matchExpressions":[{"key":"foo","operator":"In","values":["bar"]}]},{"matchExpressions":[{"key":"diffkey","operator":"In","values":["wrong"]}]}])"),
     "n",
     {{"foo", "bar"}},
     true},
    {"nodeSelector and affinity both needed",
     {{"foo", "bar"}},
     R(R"([{"matchExpressions":[{"key":"foo","operator":"Exists"}]}])"),
     "n",
     {{"foo", "bar"}},
     true},
    {"affinity matches but nodeSelector does not",
     {{"foo", "other"}},
     R(R"([{"matchExpressions":[{"key":"foo","operator":"Exists"}]}])"),
     "n",
     {{"foo", "bar"}},
     false},
    {"matchFields metadata.name In",
     {},
     R(R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}]}])"),
     "node1",
     {},
     true},
    {"matchFields metadata.name In, other node",
     {},
     R(R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}]}])"),
     "node2",
     {},
     false},
    {"matchFields metadata.name NotIn",
     {},
     R(R"([{"matchFields":[{"key":"metadata.name","operator":"NotIn","values":["node1"]}]}])"),
     "node2",
     {},
     true},
    {"matchFields and matchExpressions ANDed",
     {},
     R(R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}],"matchExpressions":[{"key":"foo","operator":"In","values":["bar"]}]}])"),
     "node1",
     {{"foo", "bar"}},
     true},
    {"matchFields and matchExpressions ANDed, labels differ",
     {},
     R(R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}],"matchExpressions":[{"key":"foo","operator":"In","values":["bar"]}]}])"),
     "node1",
     {{"foo", "baz"}},
     false},
    {"invalid term is ignored when another matches",
     {},
     R(R"([{"matchExpressions":[{"key":"foo","operator":"Bad","values":["x"]}]},{"matchExpressions":[{"key":"foo","operator":"Exists"}]}])"),
     "n",
     {{"foo", "bar"}},
     true},
    {"invalid term alone matches nothing",
     {},
     R(R"([{"matchExpressions":[{"key":"foo","operator":"Bad","values":["x"]}]}])"),
     "n",
     {{"foo", "bar"}},
     false},
    {"Gt with two values does not parse",
     {},
     R(R"([{"matchExpressions":[{"key":"v","operator":"Gt","values":["1","2"]}]}])"),
     "n",
     {{"v", "5"}},
     false},
};

TEST(FilterNodeAffinityTest, UpstreamTable) {
  const std::vector<AffinityCase>& cases = kAffinityCases;
  for (const AffinityCase& c : cases) {
    api::Pod pod = c.affinity ? PodWithAffinity(c.affinity) : api::Pod();
    pod.spec.node_selector = c.node_selector;
    FilterResult r =
        FilterNodeAffinity(MustParse(pod), Node(c.node_name, c.labels));
    EXPECT_EQ(r.ok, c.ok) << c.name;
    if (!c.ok) {
      EXPECT_EQ(r.reasons,
                std::vector<std::string>{
                    "node(s) didn't match Pod's node affinity/selector"})
          << c.name;
      EXPECT_TRUE(r.unresolvable);
      EXPECT_EQ(r.plugin, "NodeAffinity");
    }
  }
}

// ------------------------------------------------------------ NodeResourcesFit
api::Node SizedNode(
    const std::vector<std::pair<std::string, std::string>>& alloc) {
  api::Node n = Node("n");
  n.status.allocatable = Resources(alloc);
  return n;
}

NodeUsage UsageOf(
    const std::vector<std::pair<std::string, std::string>>& requests,
    int extra_pods = 0) {
  NodeUsage u;
  u.Add(MustParse(PodRequesting(requests)));
  for (int i = 0; i < extra_pods; ++i) u.Add(MustParse(api::Pod()));
  return u;
}

struct FitCase {
  const char* name;
  api::Pod pod;
  NodeUsage usage;
  std::vector<std::string> reasons;  // empty: fits
  bool unresolvable;
};

TEST(FilterNodeResourcesFitTest, UpstreamTable) {
  // fit_test.go's node: 10 milli cpu, 20 memory, 32 pods, 5 extended "A",
  // 0 "B" (makeAllocatableResources(10, 20, 32, 5, 20, 5)).
  const api::Node node = SizedNode({{"cpu", "10m"},
                                    {"memory", "20"},
                                    {"pods", "32"},
                                    {"example.com/aaa", "5"},
                                    {"ephemeral-storage", "20"},
                                    {"hugepages-2Mi", "5"}});
  auto pod = [](const std::vector<std::pair<std::string, std::string>>& r) {
    return PodRequesting(r);
  };
  api::Pod with_init = pod({{"cpu", "1m"}, {"memory", "1"}});
  with_init.spec.init_containers.push_back(
      Container({{"cpu", "3m"}, {"memory", "1"}}));
  api::Pod two_inits = pod({{"cpu", "1m"}, {"memory", "1"}});
  two_inits.spec.init_containers.push_back(
      Container({{"cpu", "2m"}, {"memory", "1"}}));
  two_inits.spec.init_containers.push_back(
      Container({{"cpu", "1m"}, {"memory", "1"}}));
  api::Pod init_mem = pod({{"cpu", "1m"}, {"memory", "1"}});
  init_mem.spec.init_containers.push_back(
      Container({{"cpu", "1m"}, {"memory", "2"}}));

  std::vector<FitCase> cases = {
      {"no resources requested always fits",
       api::Pod(),
       UsageOf({{"cpu", "10m"}, {"memory", "20"}}),
       {},
       false},
      {"too many resources fails",
       pod({{"cpu", "1m"}, {"memory", "1"}}),
       UsageOf({{"cpu", "10m"}, {"memory", "20"}}),
       {"Insufficient cpu", "Insufficient memory"},
       false},
      {"too many resources fails due to init container cpu",
       with_init,
       UsageOf({{"cpu", "8m"}, {"memory", "19"}}),
       {"Insufficient cpu"},
       false},
      {"too many resources fails due to highest init container cpu",
       two_inits,
       UsageOf({{"cpu", "9m"}, {"memory", "19"}}),
       {"Insufficient cpu"},
       false},
      {"too many resources fails due to init container memory",
       init_mem,
       UsageOf({{"cpu", "9m"}, {"memory", "19"}}),
       {"Insufficient memory"},
       false},
      {"init container fits because it's the max, not sum",
       with_init,
       UsageOf({{"cpu", "5m"}, {"memory", "5"}}),
       {},
       false},
      {"both resources fit",
       pod({{"cpu", "1m"}, {"memory", "1"}}),
       UsageOf({{"cpu", "5m"}, {"memory", "5"}}),
       {},
       false},
      {"one resource memory fits",
       pod({{"cpu", "2m"}, {"memory", "1"}}),
       UsageOf({{"cpu", "9m"}, {"memory", "5"}}),
       {"Insufficient cpu"},
       false},
      {"one resource cpu fits",
       pod({{"cpu", "1m"}, {"memory", "2"}}),
       UsageOf({{"cpu", "5m"}, {"memory", "19"}}),
       {"Insufficient memory"},
       false},
      {"equal edge case",
       pod({{"cpu", "5m"}, {"memory", "1"}}),
       UsageOf({{"cpu", "5m"}, {"memory", "19"}}),
       {},
       false},
      {"extended resource fits",
       pod({{"example.com/aaa", "1"}}),
       UsageOf({}),
       {},
       false},
      {"extended resource capacity enforced",
       pod({{"example.com/aaa", "10"}}),
       UsageOf({}),
       {"Insufficient example.com/aaa"},
       true},
      {"extended resource allocatable enforced",
       pod({{"example.com/aaa", "1"}}),
       UsageOf({{"example.com/aaa", "5"}}),
       {"Insufficient example.com/aaa"},
       false},
      {"extended resource unknown to the node",
       pod({{"example.com/bbb", "1"}}),
       UsageOf({}),
       {"Insufficient example.com/bbb"},
       true},
      {"extended resource zero request is skipped",
       pod({{"example.com/bbb", "0"}}),
       UsageOf({}),
       {},
       false},
      {"hugepages enforced",
       pod({{"hugepages-2Mi", "6"}}),
       UsageOf({}),
       {"Insufficient hugepages-2Mi"},
       true},
      {"non-scalar unknown resource is ignored",
       pod({{"foo", "100"}}),
       UsageOf({}),
       {},
       false},
      {"ephemeral storage",
       pod({{"ephemeral-storage", "10"}}),
       UsageOf({{"ephemeral-storage", "15"}}),
       {"Insufficient ephemeral-storage"},
       false},
      {"request larger than the node is unresolvable",
       pod({{"cpu", "11m"}, {"memory", "1"}}),
       UsageOf({}),
       {"Insufficient cpu"},
       true},
      {"one unresolvable resource makes the status unresolvable",
       pod({{"cpu", "11m"}, {"memory", "2"}}),
       UsageOf({{"memory", "19"}}),
       {"Insufficient cpu", "Insufficient memory"},
       true},
      {"even for empty pod",
       api::Pod(),
       UsageOf({}, 31),
       {"Too many pods"},
       false},
      {"too many pods and insufficient cpu",
       pod({{"cpu", "1m"}, {"memory", "1"}}),
       UsageOf({{"cpu", "10m"}, {"memory", "1"}}, 31),
       {"Too many pods", "Insufficient cpu"},
       false},
      {"below the pod limit", api::Pod(), UsageOf({}, 30), {}, false},
  };
  for (FitCase& c : cases) {
    FilterResult r = FilterNodeResourcesFit(MustParse(c.pod), node, c.usage);
    EXPECT_EQ(r.reasons, c.reasons) << c.name;
    EXPECT_EQ(r.ok, c.reasons.empty()) << c.name;
    if (!c.reasons.empty()) {
      EXPECT_EQ(r.unresolvable, c.unresolvable) << c.name;
      EXPECT_EQ(r.plugin, "NodeResourcesFit") << c.name;
    }
  }
}

TEST(FilterNodeResourcesFitTest, NodeWithoutPodsAllocatableSkipsPodCount) {
  api::Node node = SizedNode({{"cpu", "1"}});
  NodeUsage usage = UsageOf({}, 500);
  EXPECT_TRUE(FilterNodeResourcesFit(MustParse(api::Pod()), node, usage).ok);
  // ... but cpu and memory are still checked against zero allocatable.
  FilterResult r = FilterNodeResourcesFit(
      MustParse(PodRequesting({{"memory", "1Mi"}})), node, usage);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"Insufficient memory"});
  EXPECT_TRUE(r.unresolvable);
}

TEST(FilterNodeResourcesFitTest, GpuScenario) {
  api::Node node = SizedNode({{"cpu", "8"},
                              {"memory", "32Gi"},
                              {"pods", "110"},
                              {"nvidia.com/gpu", "2"}});
  PodNodeRequirements gpu_pod =
      MustParse(PodRequesting({{"cpu", "1"}, {"nvidia.com/gpu", "1"}}));
  NodeUsage usage;
  EXPECT_TRUE(FilterNodeResourcesFit(gpu_pod, node, usage).ok);
  usage.Add(gpu_pod);
  EXPECT_TRUE(FilterNodeResourcesFit(gpu_pod, node, usage).ok);
  usage.Add(gpu_pod);
  FilterResult r = FilterNodeResourcesFit(gpu_pod, node, usage);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"Insufficient nvidia.com/gpu"});
  EXPECT_FALSE(r.unresolvable);
  usage.Remove(gpu_pod);
  EXPECT_TRUE(FilterNodeResourcesFit(gpu_pod, node, usage).ok);
  usage.Remove(gpu_pod);
  EXPECT_EQ(usage.pods, 0);
  EXPECT_EQ(usage.requested, ResourceAmounts());
}

// ------------------------------------------------------------ RunAll
TEST(RunAllTest, FirstFailingPluginWins) {
  api::Node node = SizedNode({{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "10"}});
  node.metadata.labels = {{"zone", "a"}};
  node.spec.unschedulable = true;
  node.spec.taints = {Taint("gpu", "", "NoSchedule")};
  node.status.conditions.push_back(Condition("Ready", "False"));
  api::Pod pod = PodRequesting({{"cpu", "2"}});
  pod.spec.node_name = "other";
  pod.spec.node_selector = {{"zone", "b"}};
  NodeUsage usage;

  auto reasons = [&] { return RunAll(MustParse(pod), node, usage).reasons; };
  EXPECT_EQ(reasons(), std::vector<std::string>{"node(s) were unschedulable"});
  node.spec.unschedulable = false;
  EXPECT_EQ(reasons(), std::vector<std::string>{
                           "node(s) didn't match the requested node name"});
  pod.spec.node_name = "n";
  EXPECT_EQ(reasons(),
            std::vector<std::string>{"node(s) had untolerated taint(s)"});
  node.spec.taints.clear();
  EXPECT_EQ(reasons(), std::vector<std::string>{"node(s) were not ready"});
  node.status.conditions[0].status = "True";
  EXPECT_EQ(reasons(),
            std::vector<std::string>{
                "node(s) didn't match Pod's node affinity/selector"});
  pod.spec.node_selector.clear();
  EXPECT_EQ(reasons(), std::vector<std::string>{"Insufficient cpu"});
  pod = PodRequesting({{"cpu", "1"}});
  FilterResult ok = RunAll(MustParse(pod), node, usage);
  EXPECT_TRUE(ok.ok);
  EXPECT_TRUE(ok.reasons.empty());
  EXPECT_TRUE(ok.plugin.empty());
}

TEST(RunAllTest, NodeFactsSayWhichFiltersCanReject) {
  api::Node node = SizedNode({{"cpu", "4"}, {"pods", "10"}});
  EXPECT_FALSE(ComputeNodeFacts(node).unschedulable);
  EXPECT_FALSE(ComputeNodeFacts(node).has_hard_taints);
  EXPECT_FALSE(ComputeNodeFacts(node).not_ready);
  node.spec.taints = {Taint("a", "", "PreferNoSchedule")};
  EXPECT_FALSE(ComputeNodeFacts(node).has_hard_taints);
  node.spec.taints.push_back(Taint("gpu", "", "NoExecute"));
  node.spec.unschedulable = true;
  node.status.conditions.push_back(Condition("Ready", "Unknown"));
  const NodeFacts facts = ComputeNodeFacts(node);
  EXPECT_TRUE(facts.unschedulable);
  EXPECT_TRUE(facts.has_hard_taints);
  EXPECT_TRUE(facts.not_ready);

  // With the facts, the same answers as without, for a pod that
  // tolerates what the facts flag and for one that does not.
  api::Pod pod = PodRequesting({{"cpu", "1"}});
  NodeUsage usage;
  const NodeAllocatable alloc = ComputeNodeAllocatable(node);
  auto same = [&] {
    const PodNodeRequirements req = MustParse(pod);
    FilterResult with = RunAll(req, node, alloc, facts, usage);
    FilterResult without = RunAll(req, node, usage);
    EXPECT_EQ(with.ok, without.ok);
    EXPECT_EQ(with.reasons, without.reasons);
    EXPECT_EQ(with.plugin, without.plugin);
    return with;
  };
  EXPECT_EQ(same().plugin, "NodeUnschedulable");
  pod.spec.tolerations = {Toleration("node.kubernetes.io/unschedulable",
                                     "Exists", "", "NoSchedule"),
                          Toleration("gpu", "Exists", "", "NoExecute")};
  EXPECT_EQ(same().reasons, std::vector<std::string>{"node(s) were not ready"});
  node.status.conditions[0].status = "True";
  EXPECT_TRUE(
      RunAll(MustParse(pod), node, alloc, ComputeNodeFacts(node), usage).ok);
}

TEST(ResourceNamesTest, IsScalarResourceName) {
  EXPECT_TRUE(IsScalarResourceName("nvidia.com/gpu"));
  EXPECT_TRUE(IsScalarResourceName("example.com/aaa"));
  EXPECT_TRUE(IsScalarResourceName("hugepages-2Mi"));
  EXPECT_TRUE(IsScalarResourceName("attachable-volumes-aws-ebs"));
  EXPECT_TRUE(IsScalarResourceName("kubernetes.io/batch-cpu"));
  EXPECT_FALSE(IsScalarResourceName("cpu"));
  EXPECT_FALSE(IsScalarResourceName("foo"));
  EXPECT_FALSE(IsScalarResourceName("requests.example.com/x"));
  EXPECT_FALSE(IsScalarResourceName("Example.com/x"));  // not a DNS subdomain
  EXPECT_FALSE(IsScalarResourceName("example.com/a/b"));
  EXPECT_FALSE(IsScalarResourceName("example.com/-x"));
}

}  // namespace
}  // namespace draplane::scheduler::node_filters
