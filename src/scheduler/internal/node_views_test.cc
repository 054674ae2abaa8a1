#include "scheduler/internal/node_views.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace draplane::scheduler::internal {
namespace {

// A node `id` with 8,000 millicores allocatable, `requested` of them in
// use, and devices whose free shares are `free`.
struct FakeNode {
  FakeNode(uint64_t id, std::vector<int64_t> free, int64_t requested = 0) {
    info.id = id;
    info.epoch = 1;
    info.allocatable.amounts.milli_cpu = 8000;
    info.usage.requested.milli_cpu = requested;
    for (int64_t f : free) {
      devices.push_back({allocator::DeviceIdView("driver", "pool", "gpu"),
                         &device, f, nullptr});
    }
  }
  NodeCandidate Candidate() const {
    NodeCandidate c;
    c.info = &info;
    c.devices = &devices;
    return c;
  }
  api::Device device;
  ClusterState::NodeInfo info;
  std::vector<ClusterState::DeviceUse> devices;
};

TEST(NodeViewsTest, ReadsTheNodeAndRecomputesWhenItChanges) {
  NodeViews views;
  FakeNode node(7, {1000, 400, 0}, 1500);
  const NodeView& v = views.Of(node.Candidate());
  EXPECT_EQ(v.cpu_left, 6500);
  EXPECT_EQ(v.left, (std::vector<int64_t>{1000, 400, 0}));
  EXPECT_EQ(v.left_total, 1400);
  EXPECT_EQ(v.free_gpus, 1);
  // Cached while the epoch and the cpu requests stay.
  node.devices[1].free_milli = 100;
  EXPECT_EQ(views.Of(node.Candidate()).left_total, 1400);
  // A new epoch (the devices' use changed) is read again.
  ++node.info.epoch;
  EXPECT_EQ(views.Of(node.Candidate()).left_total, 1100);
  // So are new cpu requests.
  node.info.usage.requested.milli_cpu = 2000;
  EXPECT_EQ(views.Of(node.Candidate()).cpu_left, 6000);
  EXPECT_EQ(views.size(), 1u);
  // No NodeInfo: an empty view, nothing cached.
  NodeCandidate none;
  EXPECT_TRUE(views.Of(none).left.empty());
  EXPECT_EQ(views.size(), 1u);
}

TEST(NodeViewsTest, BoundForgetsTheViewsOfRemovedNodes) {
  NodeViews views;
  std::vector<std::unique_ptr<FakeNode>> nodes;
  for (uint64_t id = 1; id <= 200; ++id) {
    nodes.push_back(
        std::make_unique<FakeNode>(id, std::vector<int64_t>{1000, 500}));
    views.Of(nodes.back()->Candidate());
  }
  EXPECT_EQ(views.size(), 200u);
  // 200 views for 100 live nodes is within twice plus the slack.
  views.Bound(100);
  EXPECT_EQ(views.size(), 200u);
  // 20 live nodes (180 were removed): every view goes.
  views.Bound(20);
  EXPECT_EQ(views.size(), 0u);
  // And they are read again on use, the last node's too (the one read
  // just before: no pointer into the forgotten views is kept).
  nodes.back()->devices[0].free_milli = 0;
  EXPECT_EQ(views.Of(nodes.back()->Candidate()).left_total, 500);
  EXPECT_EQ(views.Of(nodes.front()->Candidate()).left_total, 1500);
  EXPECT_EQ(views.size(), 2u);
}

TEST(NodeViewsTest, ModelIdsAreDenseAndStable) {
  NodeViews views;
  const int empty = views.ModelId("");
  const int t4 = views.ModelId("T4");
  EXPECT_NE(empty, t4);
  EXPECT_EQ(views.ModelId("T4"), t4);
  EXPECT_EQ(views.ModelId("A100"), 2);
  std::vector<std::unique_ptr<FakeNode>> nodes;
  for (uint64_t id = 1; id <= 100; ++id) {
    nodes.push_back(std::make_unique<FakeNode>(id, std::vector<int64_t>{1000}));
    views.Of(nodes.back()->Candidate());
  }
  views.Bound(0);  // every view goes; the ids stay
  ASSERT_EQ(views.size(), 0u);
  EXPECT_EQ(views.ModelId("T4"), t4);
}

}  // namespace
}  // namespace draplane::scheduler::internal
