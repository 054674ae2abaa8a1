// Expected scores from pkg/scheduler/framework/plugins/noderesources/
// {least_allocated,most_allocated}_test.go,
// tainttoleration/taint_toleration_test.go (TestTaintTolerationScore) and
// pkg/scheduler/schedule_one_test.go (TestNumFeasibleNodesToFind).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/node_filters/node_filters.h"
#include "scheduler/node_filters/test_util.h"

namespace draplane::scheduler::node_filters {
namespace {

using testing::Container;
using testing::MustParse;
using testing::Node;
using testing::Resources;
using testing::Taint;
using testing::Toleration;

api::Node SizedNode(const char* name, const char* milli_cpu,
                    const char* memory) {
  api::Node n = Node(name);
  n.status.allocatable = Resources({{"cpu", milli_cpu}, {"memory", memory}});
  return n;
}

// upstream's cpuAndMemory pod: containers 1000m/2000 and 2000m/3000.
api::Pod CpuAndMemoryPod() {
  api::Pod pod;
  pod.spec.containers = {Container({{"cpu", "1000m"}, {"memory", "2000"}}),
                         Container({{"cpu", "2000m"}, {"memory", "3000"}})};
  return pod;
}

TEST(LeastAllocatedTest, DifferentlySizedNodes) {
  PodNodeRequirements pod = MustParse(CpuAndMemoryPod());
  NodeUsage empty;
  // node1: cpu (4000-3000)*100/4000 = 25, memory (10000-5000)*100/10000 = 50.
  EXPECT_EQ(
      LeastAllocatedScore(pod, SizedNode("node1", "4000m", "10000"), empty),
      37);
  EXPECT_EQ(
      LeastAllocatedScore(pod, SizedNode("node2", "6000m", "10000"), empty),
      50);
}

TEST(LeastAllocatedTest, RequestsAboveCapacityScoreZero) {
  PodNodeRequirements pod = MustParse(CpuAndMemoryPod());
  NodeUsage usage;
  usage.Add(MustParse(CpuAndMemoryPod()));
  // cpu 6000 > 4000 -> 0; memory (15000-10000)*100/15000 = 33 -> 33/2.
  EXPECT_EQ(LeastAllocatedScore(pod, SizedNode("n", "4000m", "15000"), usage),
            16);
}

TEST(LeastAllocatedTest, PodsWithoutRequestsUseDefaults) {
  api::Pod no_requests;
  no_requests.spec.containers = {Container()};
  PodNodeRequirements pod = MustParse(no_requests);
  NodeUsage usage;
  usage.Add(pod);  // adds 100m / 200Mi to the non-zero totals
  // cpu (1000-200)*100/1000 = 80; memory (1Gi-400Mi)*100/1Gi = 60.
  EXPECT_EQ(LeastAllocatedScore(pod, SizedNode("n", "1", "1Gi"), usage), 70);
}

TEST(LeastAllocatedTest, ZeroAllocatableIsLeftOut) {
  PodNodeRequirements pod = MustParse(CpuAndMemoryPod());
  NodeUsage empty;
  api::Node cpu_only = Node("n");
  cpu_only.status.allocatable = Resources({{"cpu", "6"}});
  EXPECT_EQ(LeastAllocatedScore(pod, cpu_only, empty), 50);
  EXPECT_EQ(LeastAllocatedScore(pod, Node("bare"), empty), 0);
  EXPECT_EQ(MostAllocatedScore(pod, Node("bare"), empty), 0);
}

TEST(MostAllocatedTest, DifferentlySizedNodes) {
  PodNodeRequirements pod = MustParse(CpuAndMemoryPod());
  NodeUsage empty;
  // node1: cpu 3000*100/4000 = 75, memory 50 -> 62.
  EXPECT_EQ(
      MostAllocatedScore(pod, SizedNode("node1", "4000m", "10000"), empty), 62);
  EXPECT_EQ(
      MostAllocatedScore(pod, SizedNode("node2", "6000m", "10000"), empty), 50);
}

TEST(MostAllocatedTest, RequestsAboveCapacityAreCapped) {
  PodNodeRequirements pod = MustParse(CpuAndMemoryPod());
  NodeUsage usage;
  usage.Add(MustParse(CpuAndMemoryPod()));
  // cpu 6000 capped to 4000 -> 100; memory 10000/10000 -> 100.
  EXPECT_EQ(MostAllocatedScore(pod, SizedNode("n", "4000m", "10000"), usage),
            100);
}

std::vector<int64_t> TaintScores(const api::Pod& pod_spec,
                                 const std::vector<api::Node>& nodes) {
  PodNodeRequirements pod = MustParse(pod_spec);
  std::vector<int64_t> scores;
  for (const api::Node& n : nodes) {
    scores.push_back(CountIntolerablePreferNoScheduleTaints(pod, n));
  }
  DefaultNormalizeScore(100, /*reverse=*/true, scores);
  return scores;
}

api::Node TaintedNode(const char* name, std::vector<api::Taint> taints) {
  api::Node n = Node(name);
  n.spec.taints = std::move(taints);
  return n;
}

TEST(TaintTolerationScoreTest, TolerationsPreferredOverNone) {
  // "node with taints tolerated by the pod, gets a higher score than those
  // node with intolerable taints"
  api::Pod pod;
  pod.spec.tolerations = {
      Toleration("foo", "Equal", "bar", "PreferNoSchedule")};
  EXPECT_EQ(
      TaintScores(
          pod,
          {TaintedNode("nodeA", {Taint("foo", "bar", "PreferNoSchedule")}),
           TaintedNode("nodeB", {Taint("foo", "blah", "PreferNoSchedule")})}),
      (std::vector<int64_t>{100, 0}));
}

TEST(TaintTolerationScoreTest, MoreIntolerableTaintsScoreLower) {
  api::Pod pod;
  pod.spec.tolerations = {
      Toleration("cpu-type", "Equal", "arm64", "PreferNoSchedule")};
  EXPECT_EQ(
      TaintScores(
          pod, {TaintedNode("nodeA", {}),
                TaintedNode("nodeB",
                            {Taint("cpu-type", "x86_64", "PreferNoSchedule")}),
                TaintedNode("nodeC",
                            {Taint("cpu-type", "x86_64", "PreferNoSchedule"),
                             Taint("disk-type", "ssd", "PreferNoSchedule")})}),
      (std::vector<int64_t>{100, 50, 0}));
}

TEST(TaintTolerationScoreTest, OnlyPreferNoScheduleCounts) {
  // "only taints and tolerations that have effect PreferNoSchedule are
  // checked by prioritizer function"
  api::Pod pod;
  pod.spec.tolerations = {
      Toleration("cpu-type", "Equal", "arm64", "NoSchedule"),
      Toleration("disk-type", "Equal", "ssd", "")};
  EXPECT_EQ(
      TaintScores(
          pod,
          {TaintedNode("nodeA", {}),
           TaintedNode("nodeB", {Taint("cpu-type", "arm64", "NoSchedule")}),
           TaintedNode("nodeC",
                       {Taint("cpu-type", "arm64", "PreferNoSchedule"),
                        Taint("disk-type", "ssd", "PreferNoSchedule")})}),
      (std::vector<int64_t>{100, 100, 0}));
}

TEST(TaintTolerationScoreTest, NoTaintsAnywhere) {
  EXPECT_EQ(TaintScores(api::Pod(), {Node("a"), Node("b")}),
            (std::vector<int64_t>{100, 100}));
}

TEST(DefaultNormalizeScoreTest, Forward) {
  std::vector<int64_t> scores = {0, 5, 10};
  DefaultNormalizeScore(100, false, scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 50, 100}));
  std::vector<int64_t> zeros = {0, 0};
  DefaultNormalizeScore(100, false, zeros);
  EXPECT_EQ(zeros, (std::vector<int64_t>{0, 0}));
  std::vector<int64_t> thirds = {1, 3};
  DefaultNormalizeScore(100, true, thirds);
  EXPECT_EQ(thirds, (std::vector<int64_t>{67, 0}));  // 100 - 100*1/3
}

TEST(NumFeasibleNodesToFindTest, UpstreamTable) {
  EXPECT_EQ(NumFeasibleNodesToFind(10), 10);
  EXPECT_EQ(NumFeasibleNodesToFind(10, 40), 10);
  EXPECT_EQ(NumFeasibleNodesToFind(1000), 420);
  EXPECT_EQ(NumFeasibleNodesToFind(1000, 40), 400);
  EXPECT_EQ(NumFeasibleNodesToFind(6000), 300);
  EXPECT_EQ(NumFeasibleNodesToFind(6000, 40), 2400);
  EXPECT_EQ(NumFeasibleNodesToFind(99), 99);
  EXPECT_EQ(NumFeasibleNodesToFind(100), 100);  // 50% of 100 < 100
  EXPECT_EQ(NumFeasibleNodesToFind(250, 10), 100);
  EXPECT_EQ(NumFeasibleNodesToFind(0), 0);
}

}  // namespace
}  // namespace draplane::scheduler::node_filters
